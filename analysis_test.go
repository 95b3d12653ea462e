package herd_test

import (
	"context"
	"math/rand/v2"
	"testing"

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
