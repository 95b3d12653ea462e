package model_test

import (
	"errors"
	"math"
	"testing"

	"github.com/herdlab/herd/internal/bruteforce"
	"github.com/herdlab/herd/model"
)

// heldOut are small scenarios (N ≤ 6, k ≤ 3, cap ≤ 16) on which the chain
// must equal the brute-force enumeration of labeled clients to 1e-9.
func heldOut() map[string]model.Scenario {
	mk := func(n, k int, kind model.Kind, base, cap float64, r model.Rounding) model.Scenario {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap, sc.Rounding = n, k, kind, base, cap, r
		return sc
	}
	out := map[string]model.Scenario{
		"full N6 k2 cap16":            mk(6, 2, model.Full, 1, 16, model.HalfEven),
		"full N5 k1 cap8 ceil":        mk(5, 1, model.Full, 1, 8, model.Ceil),
		"equal N6 k3 cap16":           mk(6, 3, model.Equal, 1, 16, model.HalfEven),
		"equal N5 k2 base1.5 half-up": mk(5, 2, model.Equal, 1.5, 12, model.HalfUp),
		"expo N6 k1 cap16":            mk(6, 1, model.Expo, 1, 16, model.HalfEven),
		"full N4 k1 base0.7 floor":    mk(4, 1, model.Full, 0.7, 9, model.Floor),
		"fixed N6 k2":                 mk(6, 2, model.Fixed, 1, 16, model.HalfEven),
		"none N3 k1":                  mk(3, 1, model.None, 1, 16, model.HalfEven),
	}
	col := mk(3, 1, model.Full, 1, 4, model.HalfEven)
	col.Server, col.Horizon = model.Collision, 12
	out["full collision N3 k1 cap4 horizon12"] = col
	col2 := mk(3, 2, model.Equal, 1, 8, model.Ceil)
	col2.Server, col2.Horizon = model.Collision, 20
	out["equal collision N3 k2 cap8 horizon20"] = col2
	for _, kind := range model.ContentionKinds() {
		c := mk(3, 1, kind, 1, 4, model.HalfEven)
		c.Server, c.Horizon = model.Collision, 10
		out[string(kind)+" collision N3 k1 cap4 horizon10"] = c
	}
	win := mk(4, 1, model.Full, 1, 8, model.HalfEven)
	win.FirstWindow = 2
	out["full N4 k1 first window 2"] = win
	return out
}

func TestMarkovEqualsBruteForce(t *testing.T) {
	slow := map[string]bool{"full N5 k1 cap8 ceil": true, "full collision N3 k1 cap4 horizon12": true}
	for _, kind := range model.ContentionKinds() {
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
			got, err := model.MarkovChain(sc, model.MarkovOptions{})
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
	deco.Clients, deco.Capacity, deco.Policy.Kind = 4, 1, model.Decorrelated
	big := model.Default()
	big.Clients = 1000
	limited := model.Default()
	limited.Clients, limited.Capacity, limited.Policy.Retries = 4, 1, 2
	var u *model.Unsupported
	for name, sc := range map[string]model.Scenario{"decorrelated": deco, "N=1000": big, "retry limit": limited} {
		_, err := model.MarkovChain(sc, model.MarkovOptions{MaxStates: 20000})
		if !errors.As(err, &u) {
			t.Errorf("%s: got %v, want *model.Unsupported", name, err)
		}
		t.Logf("%s: %v", name, err)
	}
	// A certain decorrelated wait is a chain with one class.
	deco.Policy.Base, deco.Policy.Cap = 2.6, 3.4
	if m, err := model.MarkovChain(deco, model.MarkovOptions{}); err != nil || m.Completion.Mean != 10 || m.Calls.Mean != 10 {
		t.Errorf("decorrelated with waits of 3 ticks: %+v, %v", m, err)
	}
}
