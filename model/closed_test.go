package model

import (
	"errors"
	"math"
	"testing"
)

// The seed article's section 5.2 rows without jitter (k = 10, base 1,
// cap 32, fixed delay 2): calls and completion are printed with sd 0.
func TestClosedFormSeedRows(t *testing.T) {
	for _, c := range []struct {
		n                 int
		kind              Kind
		calls, completion int64
	}{
		{50, Fixed, 150, 9}, {100, Fixed, 550, 19}, {200, Fixed, 2100, 39},
		{50, Expo, 150, 31}, {100, Expo, 550, 191}, {200, Expo, 2100, 511},
	} {
		sc := Default()
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
	sc := Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 1<<30, 1, None
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
	collide := Default()
	collide.Server, collide.Policy.Kind = Collision, Fixed
	jitter := Default()
	window := Default()
	window.Policy.Kind, window.FirstWindow = Fixed, 4
	deco := Default()
	deco.Policy.Kind = Decorrelated
	short := Default()
	short.Policy.Kind, short.Horizon = Expo, 100
	for name, sc := range map[string]Scenario{"collision N>k": collide, "full": jitter,
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
		r    Rounding
		l    Law
		want Waits
	}{
		{HalfEven, Law{Lo: 0, Hi: 2, Max: inf}, Waits{1, []float64{0.75, 0.25}}},
		{HalfEven, Law{Lo: 2, Hi: 4, Max: inf}, Waits{2, []float64{0.25, 0.5, 0.25}}},
		{Ceil, Law{Lo: 0, Hi: 2, Max: inf}, Waits{1, []float64{0.5, 0.5}}},
		{Floor, Law{Lo: 0, Hi: 2, Max: inf}, Waits{1, []float64{1}}},
		{HalfUp, Law{Lo: 2.5, Hi: 2.5, Max: inf}, Waits{3, []float64{1}}},
		{HalfEven, Law{Lo: 2.5, Hi: 2.5, Max: inf}, Waits{2, []float64{1}}},
		// min(16, U(1, 30)): 13.5/29 below 14.5 … the atom 14/29 at 16.
		{HalfEven, Law{Lo: 1, Hi: 30, Max: 16}, Waits{1, []float64{
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
	sc := Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 5, MaxClients, Expo
	c, err := ClosedForm(sc)
	if err != nil || c.Calls != 5 || c.Completion != 1 || c.Rounds != 1 {
		t.Fatalf("N = 5, k = %d: %+v, %v; want 5 calls in 1 wave", sc.Capacity, c, err)
	}
	sc.Capacity = MaxClients + 1
	if err := sc.Validate(); err == nil {
		t.Errorf("capacity %d accepted", sc.Capacity)
	}
}
