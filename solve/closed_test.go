package solve

import (
	"errors"
	"math"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// The seed article's section 5.2 rows without jitter (k = 10, base 1,
// cap 32, fixed delay 2): calls and completion are printed with sd 0.
func TestClosedFormSeedRows(t *testing.T) {
	for _, c := range []struct {
		n                 int
		kind              policy.Kind
		calls, completion int64
	}{
		{50, policy.Fixed, 150, 9}, {100, policy.Fixed, 550, 19}, {200, policy.Fixed, 2100, 39},
		{50, policy.Expo, 150, 31}, {100, policy.Expo, 550, 191}, {200, policy.Expo, 2100, 511},
	} {
		sc := model.Default()
		sc.Clients, sc.Policy.Kind = c.n, c.kind
		got, err := ClosedForm(sc)
		if err != nil {
			t.Fatalf("N=%d %s: %v", c.n, c.kind, err)
		}
		if got.Calls != c.calls || got.Completion != c.completion {
			t.Errorf("N=%d %s: calls %d completion %d, the article prints %d and %d",
				c.n, c.kind, got.Calls, got.Completion, c.calls, c.completion)
		}
		var served, calls int64
		for _, w := range got.Waves {
			served += w.Served
			calls += w.Size
		}
		if served != int64(c.n) || calls != got.Calls {
			t.Errorf("N=%d %s: waves serve %d clients with %d calls", c.n, c.kind, served, calls)
		}
	}
}

func TestClosedFormHugeCohortHasTotalsWithoutWaves(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 1<<30, 1, policy.None
	c, err := ClosedForm(sc)
	if err != nil {
		t.Fatal(err)
	}
	// R = N waves of N, N−1, …, 1 clients, one tick apart.
	n := int64(1 << 30)
	if c.Calls != n*(n+1)/2 || c.Completion != n || c.Waves != nil {
		t.Errorf("calls %d completion %d waves %d; want %d, %d, none listed", c.Calls, c.Completion, len(c.Waves), n*(n+1)/2, n)
	}
}

func TestClosedFormRefusesWhatItCannotAnswer(t *testing.T) {
	var u *Unsupported
	collide := model.Default()
	collide.Server, collide.Policy.Kind = model.Collision, policy.Fixed
	jitter := model.Default()
	window := model.Default()
	window.Policy.Kind, window.FirstWindow = policy.Fixed, 4
	deco := model.Default()
	deco.Policy.Kind = policy.Decorrelated
	short := model.Default()
	short.Policy.Kind, short.Horizon = policy.Expo, 100
	for name, sc := range map[string]model.Scenario{"collision N>k": collide, "full": jitter,
		"first window": window, "decorrelated": deco, "horizon": short} {
		if _, err := ClosedForm(sc); !errors.As(err, &u) {
			t.Errorf("%s: got %v, want *Unsupported", name, err)
		}
	}
	// Collision with N ≤ k: everyone at tick 0.
	collide.Clients = 7
	if c, err := ClosedForm(collide); err != nil || c.Calls != 7 || c.Completion != 1 || c.Waves[0].Served != 7 {
		t.Errorf("collision N ≤ k: %+v, %v", c, err)
	}
	// Jitter narrower than a tick and a decorrelated range inside one
	// rounding interval are certain waits.
	jitter.Policy.Base, jitter.Policy.Cap = 0.1, 0.4
	deco.Policy.Base, deco.Policy.Cap = 2.6, 3.4
	if c, err := ClosedForm(jitter); err != nil || c.Completion != 10 {
		t.Errorf("full with cap 0.4 (waits of 1 tick): %+v, %v", c, err)
	}
	if c, err := ClosedForm(deco); err != nil || c.Completion != 28 {
		t.Errorf("decorrelated in [2.6, 3.4] (waits of 3 ticks): %+v, %v", c, err)
	}
}

func TestWaitsIntegratesTheUniformOverRoundingIntervals(t *testing.T) {
	inf := 1e308
	for _, c := range []struct {
		r    policy.Rounding
		l    policy.Law
		want policy.Waits
	}{
		{policy.HalfEven, policy.Law{Lo: 0, Hi: 2, Max: inf}, policy.Waits{Min: 1, P: []float64{0.75, 0.25}}},
		{policy.HalfEven, policy.Law{Lo: 2, Hi: 4, Max: inf}, policy.Waits{Min: 2, P: []float64{0.25, 0.5, 0.25}}},
		{policy.Ceil, policy.Law{Lo: 0, Hi: 2, Max: inf}, policy.Waits{Min: 1, P: []float64{0.5, 0.5}}},
		{policy.Floor, policy.Law{Lo: 0, Hi: 2, Max: inf}, policy.Waits{Min: 1, P: []float64{1}}},
		{policy.HalfUp, policy.Law{Lo: 2.5, Hi: 2.5, Max: inf}, policy.Waits{Min: 3, P: []float64{1}}},
		{policy.HalfEven, policy.Law{Lo: 2.5, Hi: 2.5, Max: inf}, policy.Waits{Min: 2, P: []float64{1}}},
		// min(16, U(1, 30)): 13.5/29 below 14.5 … the atom 14/29 at 16.
		{policy.HalfEven, policy.Law{Lo: 1, Hi: 30, Max: 16}, policy.Waits{Min: 1, P: []float64{
			0.5 / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29,
			1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 1. / 29, 14.5 / 29}}},
	} {
		got := c.r.Waits(c.l)
		ok := got.Min == c.want.Min && len(got.P) == len(c.want.P)
		for i := 0; ok && i < len(got.P); i++ {
			ok = math.Abs(got.P[i]-c.want.P[i]) < 1e-15
		}
		if !ok {
			t.Errorf("%v %+v: got %+v, want %+v", c.r, c.l, got, c.want)
		}
	}
}

// ⌈N/k⌉ must not overflow when k is near 2⁶³: five clients and any
// capacity ≥ 5 are served in one wave of five calls.
func TestClosedFormHugeCapacity(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 5, model.MaxClients, policy.Expo
	c, err := ClosedForm(sc)
	if err != nil || c.Calls != 5 || c.Completion != 1 || c.Rounds != 1 {
		t.Fatalf("N = 5, k = %d: %+v, %v; want 5 calls in 1 wave", sc.Capacity, c, err)
	}
	sc.Capacity = model.MaxClients + 1
	if err := sc.Validate(); err == nil {
		t.Errorf("capacity %d accepted", sc.Capacity)
	}
}
