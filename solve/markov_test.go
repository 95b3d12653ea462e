package solve_test

import (
	"errors"
	"math"
	"testing"

	"github.com/herdlab/herd/internal/bruteforce"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// heldOut are small scenarios (N ≤ 6, k ≤ 3, cap ≤ 16) on which the chain
// must equal the brute-force enumeration of labeled clients to 1e-9.
func heldOut() map[string]model.Scenario {
	mk := func(n, k int, kind policy.Kind, base, cap float64, r policy.Rounding) model.Scenario {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap, sc.Rounding = n, k, kind, base, cap, r
		return sc
	}
	out := map[string]model.Scenario{
		"full N6 k2 cap16":            mk(6, 2, policy.Full, 1, 16, policy.HalfEven),
		"full N5 k1 cap8 ceil":        mk(5, 1, policy.Full, 1, 8, policy.Ceil),
		"equal N6 k3 cap16":           mk(6, 3, policy.Equal, 1, 16, policy.HalfEven),
		"equal N5 k2 base1.5 half-up": mk(5, 2, policy.Equal, 1.5, 12, policy.HalfUp),
		"expo N6 k1 cap16":            mk(6, 1, policy.Expo, 1, 16, policy.HalfEven),
		"full N4 k1 base0.7 floor":    mk(4, 1, policy.Full, 0.7, 9, policy.Floor),
		"fixed N6 k2":                 mk(6, 2, policy.Fixed, 1, 16, policy.HalfEven),
		"none N3 k1":                  mk(3, 1, policy.None, 1, 16, policy.HalfEven),
	}
	col := mk(3, 1, policy.Full, 1, 4, policy.HalfEven)
	col.Server, col.Horizon = model.Collision, 12
	out["full collision N3 k1 cap4 horizon12"] = col
	col2 := mk(3, 2, policy.Equal, 1, 8, policy.Ceil)
	col2.Server, col2.Horizon = model.Collision, 20
	out["equal collision N3 k2 cap8 horizon20"] = col2
	for _, kind := range policy.ContentionKinds() {
		c := mk(3, 1, kind, 1, 4, policy.HalfEven)
		c.Server, c.Horizon = model.Collision, 10
		out[string(kind)+" collision N3 k1 cap4 horizon10"] = c
	}
	win := mk(4, 1, policy.Full, 1, 8, policy.HalfEven)
	win.FirstWindow = 2
	out["full N4 k1 first window 2"] = win
	return out
}

func TestMarkovEqualsBruteForce(t *testing.T) {
	slow := map[string]bool{"full N5 k1 cap8 ceil": true, "full collision N3 k1 cap4 horizon12": true}
	for _, kind := range policy.ContentionKinds() {
		slow[string(kind)+" collision N3 k1 cap4 horizon10"] = true
	}
	for name, sc := range heldOut() {
		t.Run(name, func(t *testing.T) {
			if slow[name] && testing.Short() {
				t.Skip("brute force takes seconds; run without -short")
			}
			want, err := bruteforce.Solve(sc)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			got, err := solve.MarkovChain(sc, solve.MarkovOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }
			if !close(got.Calls.Mean, want.Calls) || !close(got.Completion.Mean, want.Completion) || !close(got.Finished(), want.Finished) {
				t.Errorf("%s: chain calls %.12g completion %.12g finished %.12g; brute force %.12g, %.12g, %.12g",
					name, got.Calls.Mean, got.Completion.Mean, got.Finished(), want.Calls, want.Completion, want.Finished)
			}
			for c := range max(len(got.Distribution), len(want.Distribution)) {
				g, w := at(got.Distribution, c), at(want.Distribution, c)
				if math.Abs(g-w) > 1e-9 {
					t.Errorf("%s: P(completion = %d) = %.12g, brute force %.12g", name, c, g, w)
				}
			}
			t.Logf("%s: calls %.6f completion %.6f, %d states", name, got.Calls.Mean, got.Completion.Mean, got.States)
		})
	}
}

func at(p []float64, i int) float64 {
	if i < len(p) {
		return p[i]
	}
	return 0
}

func TestMarkovRefusesWithAReason(t *testing.T) {
	deco := model.Default()
	deco.Clients, deco.Capacity, deco.Policy.Kind = 4, 1, policy.Decorrelated
	big := model.Default()
	big.Clients = 1000
	limited := model.Default()
	limited.Clients, limited.Capacity, limited.Policy.Retries = 4, 1, 2
	var u *solve.Unsupported
	for name, sc := range map[string]model.Scenario{"decorrelated": deco, "N=1000": big, "retry limit": limited} {
		_, err := solve.MarkovChain(sc, solve.MarkovOptions{MaxStates: 20000})
		if !errors.As(err, &u) {
			t.Errorf("%s: got %v, want *solve.Unsupported", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	// A certain decorrelated wait is a chain with one class.
	deco.Policy.Base, deco.Policy.Cap = 2.6, 3.4
	if m, err := solve.MarkovChain(deco, solve.MarkovOptions{}); err != nil || m.Completion.Mean != 10 || m.Calls.Mean != 10 {
		t.Errorf("decorrelated with waits of 3 ticks: %+v, %v", m, err)
	}
}
