package herd_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// randomCertainScenario draws a scenario whose waits are certain: none,
// fixed or expo with any base, cap and rounding, on the capacity server or
// on the collision server with N ≤ k.
func randomCertainScenario(r *rand.Rand) model.Scenario {
	halves := func(lo, hi int) float64 { return float64(lo+r.IntN(2*(hi-lo)+1)) / 2 }
	sc := model.Default()
	sc.Clients = 1 + r.IntN(300)
	sc.Capacity = 1 + r.IntN(25)
	sc.Policy.Kind = []model.Kind{model.None, model.Fixed, model.Expo}[r.IntN(3)]
	sc.Policy.Base = halves(1, 6)
	sc.Policy.Cap = sc.Policy.Base + halves(0, 40)
	sc.Policy.FixedDelay = halves(0, 10)
	sc.Rounding = model.Rounding(r.IntN(4))
	if r.IntN(5) == 0 {
		sc.Server = model.Collision
		sc.Capacity = sc.Clients + r.IntN(3)
	}
	return sc
}

// The closed form is exact: every trial of the per-client engine must give
// its calls, completion and latency distribution, for any N, k, base, cap,
// fixed delay and rounding (ties included: the halves exercise them).
func TestClosedFormEqualsEveryMonteCarloTrial(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0))
	count := 400
	if testing.Short() {
		count = 100
	}
	for range count {
		sc := randomCertainScenario(r)
		c, err := model.ClosedForm(sc)
		if err != nil {
			t.Fatalf("%+v: %v", sc, err)
		}
		latency := map[int64]int64{}
		for _, w := range c.Waves {
			latency[w.Tick+1] += w.Served
		}
		err = montecarlo.Run(context.Background(), sc, montecarlo.Options{Trials: 3, Seed: 7, Workers: 1}, func(tr *montecarlo.Trial) error {
			if tr.Censored || tr.Calls != c.Calls || tr.Completion != c.Completion {
				t.Errorf("%+v trial %d: calls %d completion %d censored %v; closed form %d and %d",
					sc, tr.Index, tr.Calls, tr.Completion, tr.Censored, c.Calls, c.Completion)
			}
			for l, n := range tr.Latency {
				if n != latency[int64(l)] {
					t.Errorf("%+v trial %d: %d clients with latency %d, closed form %d", sc, tr.Index, n, l, latency[int64(l)])
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The default grid of herd validate passes: the closed form equals every
// trial, the exact chain agrees with Monte Carlo in means (Bonferroni z)
// and in the law of completion (chi-square), and the mean field's calls
// are within 1% at N ≥ 1,000 and N/k ≥ 10 with an error that shrinks as N
// grows at N/k = 10.
func TestModelsAgreeWithMonteCarlo(t *testing.T) {
	v, err := analysis.Validate(context.Background(), analysis.DefaultValidationGrid(), analysis.ValidateOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	judged := map[string]int{}
	for _, c := range v.Checks {
		if c.Verdict == analysis.Fail {
			t.Errorf("%s %s on %+v: %s", c.Method, c.Quantity, c.Scenario, c.Detail)
		}
		if c.Verdict == analysis.Pass {
			judged[c.Method+" "+c.Quantity]++
		}
	}
	// Every kind of check was made, not skipped.
	for _, q := range []string{"closed calls", "closed completion", "closed latency distribution",
		"markov calls", "markov completion", "markov completion distribution", "meanfield calls",
		"meanfield calls error shrinks (full, N/k = 10)", "meanfield calls error shrinks (equal, N/k = 10)"} {
		if judged[q] == 0 {
			t.Errorf("no passing %q check in the grid", q)
		}
	}
	if judged["meanfield calls"] < 6 {
		t.Errorf("%d mean-field calls checks at N ≥ 1000, N/k ≥ 10; want full and equal at three sizes", judged["meanfield calls"])
	}
}

// A deliberately wrong model — delay laws stretched by 10% — fails the
// checks of every model family: proof that the checks can fail.
func TestPerturbedModelsFailTheChecks(t *testing.T) {
	v, err := analysis.Validate(context.Background(), analysis.DefaultValidationGrid(),
		analysis.ValidateOptions{Seed: 1, Perturb: analysis.PerturbDelays(1.1)})
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]int{}
	for _, c := range v.Checks {
		if c.Verdict == analysis.Fail {
			failed[c.Method+" "+c.Quantity]++
		}
	}
	// (A synchronized cohort's calls, R·N − k·R(R−1)/2, do not depend on
	// the delays, so only the closed form's completion can catch this.)
	for _, q := range []string{"closed completion", "closed latency distribution", "markov calls", "markov completion",
		"markov completion distribution", "meanfield calls"} {
		if failed[q] == 0 {
			t.Errorf("no %q check failed with delays stretched by 10%%: %v", q, failed)
		}
	}
}

// At larger cohorts than herd validate's grid the mean field's expected
// calls stay within 1% of Monte Carlo (the Bonferroni interval of the
// relative error at 99.9% over these cases must lie inside ±1%).
func TestMeanFieldCallsWithinOnePercentAtScale(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates cohorts of 10⁵ clients; run without -short")
	}
	var grid []analysis.ValidationCase
	for _, kind := range []model.Kind{model.Full, model.Equal} {
		for _, nk := range [][2]int{{100_000, 1000}, {10_000, 100}, {2000, 10}} {
			sc := model.Default()
			sc.Clients, sc.Capacity, sc.Policy.Kind = nk[0], nk[1], kind
			grid = append(grid, analysis.ValidationCase{Method: analysis.MethodMeanField, Scenario: sc, Trials: 200})
		}
	}
	v, err := analysis.Validate(context.Background(), grid, analysis.ValidateOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Checks {
		if c.Quantity == "calls" && c.Verdict != analysis.Pass {
			t.Errorf("%+v: %s", c.Scenario, c.Detail)
		}
		t.Logf("N=%d k=%d %s %s: %s", c.Scenario.Clients, c.Scenario.Capacity, c.Scenario.Policy.Kind, c.Quantity, c.Detail)
	}
}
