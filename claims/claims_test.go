package claims

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// A synthetic claim that holds exactly from N = 37 on: bisection must name
// 37 as the crossover, and the verdict must be holds-only-when.
func TestOverClientsBisection(t *testing.T) {
	l := NewLab(context.Background(), montecarlo.Options{Trials: 10, Seed: 1})
	for _, c := range []struct {
		holds func(n int) bool
		want  string
	}{
		{func(n int) bool { return n >= 37 }, "N ≥ 37 (bisection: fails at N = 36)"},
		{func(n int) bool { return n <= 140 }, "N ≤ 140 (bisection: fails at N = 141)"},
	} {
		f := l.overClients(ModelOCC, awsGrid, func(n int) (Verdict, []Evidence) {
			if c.holds(n) {
				return Holds, nil
			}
			return Fails, nil
		})
		if f.Verdict != HoldsOnlyWhen || f.Condition != c.want {
			t.Errorf("verdict %s, condition %q; want holds-only-when, %q", f.Verdict, f.Condition, c.want)
		}
	}
	all := l.overClients(ModelOCC, awsGrid, func(int) (Verdict, []Evidence) { return Holds, nil })
	none := l.overClients(ModelOCC, awsGrid, func(int) (Verdict, []Evidence) { return Fails, nil })
	if all.Verdict != Holds || none.Verdict != Fails {
		t.Errorf("uniform grids: %s and %s, want holds and fails", all.Verdict, none.Verdict)
	}
}

// An undecided point is rerun with 4× the trials before it is reported.
func TestDecideEscalates(t *testing.T) {
	l := NewLab(context.Background(), montecarlo.Options{Trials: 10, Seed: 1})
	var budgets []int
	v, _ := l.decide(50, func(int) (Verdict, []Evidence) {
		budgets = append(budgets, l.opt.Trials*max(1, l.scale))
		return Inconclusive, nil
	})
	if v != Inconclusive || len(budgets) != 2 || budgets[1] != 40 {
		t.Fatalf("verdict %s after budgets %v, want inconclusive after [10 40]", v, budgets)
	}
}

// The paired ratio test decides the side of a threshold and is undecided
// near it. Full makes about 43% of expo's calls in the blog's model at
// N = 100 (ReproduceAWS: 795.8 / 1855.8); a threshold of 0.5 is far, 0.43
// is within the noise of 100 trials.
func TestRatioThresholds(t *testing.T) {
	l := NewLab(context.Background(), montecarlo.Options{Trials: 100, Seed: 1})
	f, e := Scenario(ModelOCC, 100, model.Full), Scenario(ModelOCC, 100, model.Expo)
	if v := l.greater(e, f, calls, 2); v != Holds {
		t.Errorf("calls(expo) > 2·calls(full): %s, want holds", v)
	}
	if v := l.greater(e, f, calls, 3); v != Fails {
		t.Errorf("calls(expo) > 3·calls(full): %s, want fails", v)
	}
	r := l.ratio("full/expo", f, e, calls)
	if v := l.greater(e, f, calls, 1/r.Value); v != Inconclusive {
		t.Errorf("at its own estimate %.4f the ratio test says %s, want inconclusive", r.Value, v)
	}
	if !r.CI95.Contains(r.Value) || r.CI95[1]-r.CI95[0] <= 0 {
		t.Errorf("ratio %v with interval %v", r.Value, r.CI95)
	}
}

// A deliberately wrong registry entry — the claim "full halves expo's
// calls" checked against the wrong policy pair — must not keep its verdict.
func TestClaimCheckDetectsWrongInput(t *testing.T) {
	l := NewLab(context.Background(), montecarlo.Options{Trials: 200, Seed: 1})
	right := l.greater(Scenario(ModelOCC, 100, model.Expo), Scenario(ModelOCC, 100, model.Full), calls, 2)
	wrong := l.greater(Scenario(ModelOCC, 100, model.Expo), Scenario(ModelOCC, 100, model.None), calls, 2)
	if right != Holds || wrong != Fails {
		t.Fatalf("right pair %s, wrong pair %s; want holds and fails", right, wrong)
	}
}

// The exponent of an exact power law is recovered, and an exponent whose
// interval straddles a half-integer is left undecided.
func TestExponentAndNearest(t *testing.T) {
	// Capacity server, policy none, k = 10: calls are exactly
	// Σ_{j≥0} max(0, N − 10j), a quadratic in N.
	l := NewLab(context.Background(), montecarlo.Options{Trials: 5, Seed: 1})
	e := l.exponent(ModelCapacity, model.None, []int{100, 200, 400}, calls, 0)
	// Exact calls: N=100: 550, 200: 2100, 400: 8200.
	want := leastSquaresSlope([]float64{100, 200, 400}, []float64{550, 2100, 8200})
	if math.Abs(e.Value-want) > 1e-12 || e.CI95[1]-e.CI95[0] != 0 {
		t.Fatalf("exponent %v %v, want exactly %v with no spread", e.Value, e.CI95, want)
	}
	if nearest(e, 2) != Holds || nearest(e, 1) != Fails {
		t.Errorf("nearest(%.3f): 2 → %s, 1 → %s", e.Value, nearest(e, 2), nearest(e, 1))
	}
	if v := nearest(Evidence{Value: 1.5, CI95: &stats.Interval{1.4, 1.6}}, 2); v != Inconclusive {
		t.Errorf("an interval across 1.5 decides %s", v)
	}
}

func leastSquaresSlope(n, y []float64) float64 {
	var xb, yb float64
	for i := range n {
		xb += math.Log(n[i]) / float64(len(n))
		yb += math.Log(y[i]) / float64(len(n))
	}
	var sxy, sxx float64
	for i := range n {
		sxy += (math.Log(n[i]) - xb) * (math.Log(y[i]) - yb)
		sxx += (math.Log(n[i]) - xb) * (math.Log(n[i]) - xb)
	}
	return sxy / sxx
}

func TestEvaluateRejectsBadOptions(t *testing.T) {
	if _, err := Evaluate(context.Background(), Options{Trials: 1}); err == nil {
		t.Error("1 trial accepted")
	}
	if _, err := Evaluate(context.Background(), Options{Origin: "blog"}); err == nil || !strings.Contains(err.Error(), "aws, seed") {
		t.Errorf("bad origin: %v", err)
	}
}

// The registry's ids are unique and every claim names its source and model.
func TestRegistryWellFormed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range All() {
		if seen[c.ID] {
			t.Errorf("duplicate id %s", c.ID)
		}
		seen[c.ID] = true
		if c.Origin != "aws" && c.Origin != "seed" || c.Model != ModelOCC && c.Model != ModelCapacity || c.Quote == "" || c.Source == "" || c.check == nil {
			t.Errorf("claim %s is incomplete", c.ID)
		}
	}
	if len(seen) < 15 {
		t.Errorf("%d claims, want at least 15", len(seen))
	}
}

// The figure data carry every policy's curve over the client counts, in
// order, with the estimates of the rows.
