package montecarlo

import (
	"context"
	"math"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// TestWindowPoliciesMatchTheChain checks the engines against the exact
// law for each window policy of the contention literature: on the
// collision server with k = 1 and N = 3 (cap 8, so every policy reaches its
// top window), the mean calls and completion of 40,000 trials lie within
// 4 standard errors of the exact Markov chain's, on both engines (a
// horizon of 400 ticks leaves under 10⁻⁹ unfinished).
func TestWindowPoliciesMatchTheChain(t *testing.T) {
	for _, kind := range policy.ContentionKinds() {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Server, sc.Horizon = 3, 1, model.Collision, 400
		sc.Policy = policy.Policy{Kind: kind, Base: 1, Cap: 8}
		exact, err := solve.MarkovChain(sc, solve.MarkovOptions{})
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if u := 1 - exact.Finished(); u > 1e-9 {
			t.Fatalf("%s: the chain leaves %g unfinished by the horizon", kind, u)
		}
		for _, engine := range []EngineName{Clients, Counts} {
			var calls, completion, calls2, completion2 float64
			const n = 40_000
			censored := 0
			err := Run(context.Background(), sc, Options{Trials: n, Seed: 7, Use: engine}, func(tr *Trial) error {
				c, d := float64(tr.Calls), float64(tr.Completion)
				calls, calls2, completion, completion2 = calls+c, calls2+c*c, completion+d, completion2+d*d
				if tr.Censored {
					censored++
				}
				return nil
			})
			if err != nil {
				t.Fatalf("%s on %s: %v", kind, engine, err)
			}
			for _, m := range []struct {
				name          string
				sum, sum2, at float64
			}{{"calls", calls, calls2, exact.Calls.Mean}, {"completion", completion, completion2, exact.Completion.Mean}} {
				mean := m.sum / n
				se := math.Sqrt((m.sum2/n - mean*mean) / (n - 1))
				if math.Abs(mean-m.at) > 4*se {
					t.Errorf("%s on %s: mean %s %.4f, exact %.4f (4σ = %.4f)", kind, engine, m.name, mean, m.at, 4*se)
				}
			}
			if censored > 0 {
				t.Errorf("%s on %s: %d trials censored", kind, engine, censored)
			}
		}
	}
}

// TestGeometricWait checks the stations' wait: 10⁵ draws with w = 8 have
// mean 8 within 4σ (variance (1 − q)/q², q = 1/8), and w ≤ 1 waits 1.
func TestGeometricWait(t *testing.T) {
	src := Stream(1, model.Default(), 0)
	const n, w = 100_000, 8.0
	var sum float64
	for range n {
		sum += float64(geometric(src, w))
	}
	q := 1 / w
	if sd := math.Sqrt((1 - q) / (q * q) / n); math.Abs(sum/n-w) > 4*sd {
		t.Errorf("mean wait %.4f, want %g ± %.4f", sum/n, w, 4*sd)
	}
	if geometric(src, 1) != 1 {
		t.Error("a window of 1 did not wait 1")
	}
}
