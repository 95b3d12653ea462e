package claims

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// synthetic is a ladder whose mean at n is exactly mean(n), known to a
// relative standard error of cv/√trials, as a run of trials trials would
// know it: data of a known form.
func synthetic(ns []int, mean func(n float64) float64, cv float64, trials int) []logMean {
	var pts []logMean
	for _, n := range ns {
		m := mean(float64(n))
		pts = append(pts, logMeanOf(n, stats.Estimate{Mean: m, SD: cv * m, N: trials}))
	}
	return pts
}

func judgeSynthetic(t *testing.T, claim string, point []string, mean func(n float64) float64) (Verdict, string) {
	t.Helper()
	g := formNamed(claim)
	tr, ok := fitTrend(synthetic([]int{512, 1024, 2048, 4096, 8192, 16384}, mean, 0.15, 400), g.lg)
	if !ok {
		t.Fatal("no trend")
	}
	return judgeForms(tr, g, point, lg(16384)).verdict(claim)
}

// Each Θ rule fails on a planted wrong form: data that follow one form
// exactly, judged as a claim of another.
func TestThetaRuleOnPlantedForms(t *testing.T) {
	form := func(name string) func(float64) float64 {
		f := formNamed(name)
		return func(n float64) float64 { return 3 * math.Exp2(f.lg(lg(n))) }
	}
	// The truth holds and names the point form it rejects.
	v, why := judgeSynthetic(t, "n lg lg n / lg lg lg n", []string{"n lg n"}, form("n lg lg n / lg lg lg n"))
	if v != Holds || !strings.Contains(why, "rejects") || !strings.Contains(why, "n lg n") {
		t.Errorf("loglog's form on its own data: %s (%s)", v, why)
	}
	// Data of n lg n judged as loglog's claim: fails, nearer n lg n.
	v, why = judgeSynthetic(t, "n lg lg n / lg lg lg n", []string{"n lg n"}, form("n lg n"))
	if v != Fails || !strings.Contains(why, "nearer n lg n") {
		t.Errorf("n lg n data as loglog's claim: %s (%s)", v, why)
	}
	// Data of n^1.2 judged as n lg n: fails.
	v, why = judgeSynthetic(t, "n lg n", []string{"n"}, form("n^1.2"))
	if v != Fails {
		t.Errorf("n^1.2 data as an n lg n claim: %s (%s)", v, why)
	}
	// Data of (n/lg n)^{3/2} behind a factor that fades,
	// (n/lg n)^{3/2}·(1 + 10/n^0.3): nearer n^1.2 at these n, but moving
	// toward the claim: pre-asymptotic, never fails.
	fading := func(n float64) float64 { return math.Pow(n/lg(n), 1.5) * (1 + 10/math.Pow(n, 0.3)) }
	v, why = judgeSynthetic(t, "(n/lg n)^{3/2}", []string{"n lg n"}, fading)
	if v != Inconclusive || !strings.HasPrefix(why, "pre-asymptotic") {
		t.Errorf("(n/lg n)^{3/2} behind a fading n^1.2 term: %s (%s)", v, why)
	}
	// The same data judged as n^1.2 moves away from it: fails.
	v, why = judgeSynthetic(t, "n^1.2", nil, fading)
	if v != Fails {
		t.Errorf("a growing (n/lg n)^{3/2} term judged as n^1.2: %s (%s)", v, why)
	}
	// Noisy data that cannot tell the claim from its point form: not holds.
	g := formNamed("n lg lg n / lg lg lg n")
	tr, _ := fitTrend(synthetic([]int{512, 1024, 2048, 4096, 8192, 16384}, form("n lg lg n / lg lg lg n"), 0.15, 4), g.lg)
	if v, why := judgeForms(tr, g, []string{"n lg n"}, lg(16384)).verdict(g.name); v == Holds {
		t.Errorf("4 trials per rung: %s (%s)", v, why)
	}
}

// The growth rule of the AWS claims on planted ladders: N^2 holds and
// names the powers it rejects; N^1.5 fails; a ladder whose exponent
// approaches 2 from outside the band is pre-asymptotic; one whose exponent
// leaves the band fails.
func TestGrowthRuleOnPlantedLadders(t *testing.T) {
	ladder := study.ScalingStudy()
	run := func(mean func(n float64) float64) Finding {
		var rungs []study.Rung
		for _, n := range ladder.Clients {
			m := mean(float64(n))
			e := stats.Estimate{Mean: m, SD: 0.05 * m, N: 2000}
			h := 1.96 * e.SD / math.Sqrt(2000)
			e.CI95 = &stats.Interval{m - h, m + h}
			rungs = append(rungs, study.Rung{Clients: n, Trials: 2000, Calls: e, Completion: e})
		}
		s := Scaling{Seed: 1, Study: ladder, Ladders: []Ladder{{Model: ModelOCC, Policy: policy.None, Rungs: rungs}}}
		l := &Lab{ctx: context.Background(), scaling: &scalingRun{s: &s}}
		return l.growth(ModelOCC, growth{kinds: []policy.Kind{policy.None}, metric: calls, power: 2, tolerance: namedPower})
	}
	if f := run(func(n float64) float64 { return n * n }); f.Verdict != Holds || !strings.Contains(f.Regime, "rejects N^1.5 and N^2.5") {
		t.Errorf("N²: %s (%s)", f.Verdict, f.Regime)
	}
	if f := run(func(n float64) float64 { return math.Pow(n, 1.5) }); f.Verdict != Fails {
		t.Errorf("N^1.5: %s (%s)", f.Verdict, f.Regime)
	}
	// N² behind a linear term: exponent 1.5 at N ≈ 3000, rising toward 2.
	if f := run(func(n float64) float64 { return n*n + 3000*n }); f.Verdict != Inconclusive || !strings.HasPrefix(f.Regime, "pre-asymptotic") {
		t.Errorf("N² + 3000N: %s (%s)", f.Verdict, f.Regime)
	}
	// N² turning into N³: the exponent leaves the band upward.
	if f := run(func(n float64) float64 { return n*n + n*n*n/3000 }); f.Verdict != Fails {
		t.Errorf("N² + N³/3000: %s (%s)", f.Verdict, f.Regime)
	}
}
