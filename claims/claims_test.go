package claims

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
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
	f, e := Scenario(ModelOCC, 100, policy.Full), Scenario(ModelOCC, 100, policy.Expo)
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
	right := l.greater(Scenario(ModelOCC, 100, policy.Expo), Scenario(ModelOCC, 100, policy.Full), calls, 2)
	wrong := l.greater(Scenario(ModelOCC, 100, policy.Expo), Scenario(ModelOCC, 100, policy.None), calls, 2)
	if right != Holds || wrong != Fails {
		t.Fatalf("right pair %s, wrong pair %s; want holds and fails", right, wrong)
	}
}

// The local exponent of exact rungs is the exact log-ratio with no
// spread: the capacity server with policy none and k = 10 makes exactly
// Σ_{j≥0} max(0, N − 10j) calls, 550 at N = 100 and 2100 at N = 200.
func TestLocalExponentExact(t *testing.T) {
	l := NewLab(context.Background(), montecarlo.Options{Seed: 1})
	var rungs []study.Rung
	for _, n := range []int{100, 200} {
		r, err := study.ScalingStudy().RunRung(context.Background(), Scenario(ModelCapacity, n, policy.None), l.opt)
		if err != nil {
			t.Fatal(err)
		}
		rungs = append(rungs, r)
	}
	e := study.LocalExponent(rungs[0], rungs[1], study.RungCalls)
	if want := math.Log2(2100.0 / 550); e.Value != want || e.SE != 0 || e.CI95 != (stats.Interval{want, want}) {
		t.Fatalf("exponent %+v, want exactly %v with no spread", e, want)
	}
}

// exactLadder is a ladder of the scaling study whose means are f(N)
// exactly, for tests of the growth rule.
func exactLadder(f func(n float64) float64) []study.Rung {
	var r []study.Rung
	for _, n := range study.ScalingStudy().Clients {
		e := stats.Estimate{Mean: f(float64(n)), N: 5, CI95: &stats.Interval{f(float64(n)), f(float64(n))}}
		r = append(r, study.Rung{Clients: n, Trials: 5, Calls: e, Completion: e})
	}
	return r
}

// labWith is a lab whose scaling study is the given ladders of policy
// none in both models.
func labWith(rungs []study.Rung) *Lab {
	l := NewLab(context.Background(), montecarlo.Options{Seed: 1})
	s := &Scaling{Seed: 1, Study: study.ScalingStudy()}
	for _, m := range ScalingModels {
		s.Ladders = append(s.Ladders, Ladder{Model: m, Policy: policy.None, Rungs: rungs})
	}
	l.scaling = &scalingRun{s: s}
	return l
}

// The growth rule on exact ladders: N²/20 + N/2 (the capacity server's
// calls without backoff) enters 2 ± ¼ from N = 40 on and holds from there;
// a steady N^1.63 fails 2 ± ¼ and holds within 2 ± ½ at every doubling; a
// censored top rung leaves the claim undecided. The first case, judged
// against the wrong power, fails: the rule is not vacuous.
func TestGrowthRule(t *testing.T) {
	quadratic := labWith(exactLadder(func(n float64) float64 { return n*n/20 + n/2 }))
	g := growth{kinds: []policy.Kind{policy.None}, metric: calls, power: 2, tolerance: namedPower}
	f := quadratic.growth(ModelOCC, g)
	if f.Verdict != Holds || !strings.HasPrefix(f.Regime, "for N ≥ 40:") {
		t.Errorf("quadratic: %s (%s), want holds for N ≥ 40", f.Verdict, f.Regime)
	}
	if n := len(f.Exponents); n != len(study.ScalingStudy().Clients)-1 {
		t.Errorf("%d local exponents, want one per doubling", n)
	}
	if f := quadratic.growth(ModelOCC, growth{kinds: g.kinds, metric: calls, power: 1, tolerance: namedPower}); f.Verdict != Fails {
		t.Errorf("quadratic judged as linear: %s", f.Verdict)
	}
	steady := labWith(exactLadder(func(n float64) float64 { return math.Pow(n, 1.63) }))
	if f := steady.growth(ModelOCC, g); f.Verdict != Fails || !strings.Contains(f.Regime, "none 1.630") {
		t.Errorf("N^1.63 against 2 ± ¼: %s (%s), want fails naming the exponent", f.Verdict, f.Regime)
	}
	g.tolerance = samePowerNature
	if f := steady.growth(ModelOCC, g); f.Verdict != Holds || !strings.HasPrefix(f.Regime, "at every doubling") {
		t.Errorf("N^1.63 against 2 ± ½: %s (%s), want holds at every doubling", f.Verdict, f.Regime)
	}
	censored := exactLadder(func(n float64) float64 { return n * n })
	censored[len(censored)-1].Censored = 1
	if f := labWith(censored).growth(ModelOCC, g); f.Verdict != Inconclusive {
		t.Errorf("censored top rung: %s, want inconclusive", f.Verdict)
	}
}

// The committed run of the scaling study is a run of the current study
// at seed 1, and its rungs are what RunRung computes now: the whole
// capacity ladder and the OCC rungs up to N = 640 here (seconds), the OCC
// rungs above in the long suite (TestCommittedScalingAtScale). A changed
// engine, model or study fails here until the committed file is rerun.
func TestCommittedScalingIsCurrent(t *testing.T) {
	checkCommittedScaling(t, func(m string, clients int) bool { return m != ModelOCC || clients <= smallOCCRung })
}

// smallOCCRung is the largest OCC rung the default run recomputes.
const smallOCCRung = 640

// checkCommittedScaling checks the committed study's intervals and
// recomputes the rungs rerun picks (model, clients).
func checkCommittedScaling(t *testing.T, rerun func(m string, clients int) bool) {
	c, ok := Committed()
	if !ok || c.Seed != 1 {
		t.Fatalf("%s is not a run of study.ScalingStudy at seed 1 (rerun: herd claims --scaling fresh --scaling-out %s)", CommittedScalingPath, CommittedScalingPath)
	}
	for _, m := range ScalingModels {
		for _, kind := range ScalingKinds {
			rungs, ok := c.Ladder(m, kind)
			if !ok || len(rungs) != len(c.Study.Clients) {
				t.Fatalf("%s, %s: %d rungs in the committed run", m, kind, len(rungs))
			}
			// The sequential choice of trials reached its target: ±0.03 on
			// every local exponent at 95%.
			for _, pick := range []func(study.Rung) stats.Estimate{study.RungCalls, study.RungCompletion} {
				for _, e := range study.LocalExponents(rungs, pick) {
					if h := (e.CI95[1] - e.CI95[0]) / 2; h > c.Study.HalfWidth {
						t.Errorf("%s, %s, N = %d→%d: exponent %.3f ± %.4f, wider than ±%g", m, kind, e.From, e.To, e.Value, h, c.Study.HalfWidth)
					}
				}
			}
			for _, want := range rungs {
				if !rerun(m, want.Clients) {
					continue
				}
				got, err := RunRung(context.Background(), m, kind, want.Clients, montecarlo.Options{Seed: c.Seed})
				if err != nil {
					t.Fatal(err)
				}
				a, _ := json.Marshal(got)
				b, _ := json.Marshal(want)
				if string(a) != string(b) {
					t.Errorf("%s, %s, N = %d: computed %s, committed %s", m, kind, want.Clients, a, b)
				}
			}
		}
	}
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

// Every claim Evaluate starts first names a claim of the report: a renamed
// claim would otherwise fall back to the report's order unnoticed.
func TestStartFirstNamesClaims(t *testing.T) {
	known := map[string]bool{}
	for _, c := range All() {
		known[c.ID] = true
	}
	for _, c := range controlChecks {
		known[c.id] = true
	}
	for _, id := range startFirst {
		if !known[id] {
			t.Errorf("startFirst names %s, which is no claim", id)
		}
	}
	order := startOrder(len(controlChecks), func(i int) string { return controlChecks[i].id })
	if first := controlChecks[order[0]].id; first != startFirst[0] {
		t.Errorf("first control check started: %s, want %s", first, startFirst[0])
	}
}
