package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// The mean field is held to these bounds on its region: its expected calls
// within 0.5% of Monte Carlo and its expected completion within 2%.
const (
	MeanFieldCallsBound      = 0.005
	MeanFieldCompletionBound = 0.02
	// MeanFieldLevel is the confidence of the interval of each relative
	// error.
	MeanFieldLevel = 0.95
)

// The mean field's region: the policies, cohort sizes and loads that
// MeanFieldGrid covers, on the capacity server with the seed's base 1, cap
// 32, half-even rounding and synchronized first sends.
var (
	MeanFieldKinds  = []policy.Kind{policy.Full, policy.Equal, policy.Decorrelated}
	MeanFieldSizes  = []int{1000, 10_000, 100_000}
	MeanFieldLoads  = []int{3, 10, 30, 100} // N/k
	meanFieldPilot  = 200                   // the most trials of the first stage
	meanFieldBudget = 20_000                // the most trials of the second stage
)

// The first stage plays about meanFieldPilotCalls calls, and between
// meanFieldPilotMin and meanFieldPilot trials: the large cohorts, whose
// means are tight, need few trials to estimate their spread.
const (
	meanFieldPilotCalls = 20_000_000
	meanFieldPilotMin   = 30
)

// meanFieldSlow lists the grid points left out of MeanFieldGrid and why:
// decorrelated needs the per-client engine, and at N = 10⁵, N/k = 3 its
// completion is so dispersed (whether a few clients are left over after
// tick 2 is a coin toss, sd/mean ≈ 0.45) that the interval needs over
// 10,000 trials of 167,000 calls each.
var meanFieldSlow = map[string]bool{fmt.Sprint(policy.Decorrelated, 100_000, 3): true}

// MeanFieldGrid is the mean field's part of herd validate: every policy of
// MeanFieldKinds at every size and load (k = N / load, rounded down), but
// those in meanFieldSlow, each played on its default engine (the count
// engine where it is exact); and the convergence series at N/k = 10 with
// k = 1, 10, 100, 1000 for full and equal, whose completion error must
// shrink.
func MeanFieldGrid() []ValidationCase {
	var g []ValidationCase
	for _, kind := range MeanFieldKinds {
		for _, n := range MeanFieldSizes {
			for _, load := range MeanFieldLoads {
				if meanFieldSlow[fmt.Sprint(kind, n, load)] {
					continue
				}
				c := ValidationCase{Method: MethodMeanField, Scenario: scenario(n, n/load, model.Capacity, kind, 1, 32, policy.HalfEven), Trials: meanFieldPilot}
				if kind != policy.Decorrelated && load == 10 {
					c.Series = fmt.Sprintf("%s, N/k = 10", kind)
				}
				if kind != policy.Decorrelated && load == 10 && n == 1000 {
					// The series' small cohorts come first.
					for _, k := range []int{1, 10} {
						g = append(g, ValidationCase{Method: MethodMeanField, Scenario: scenario(10*k, k, model.Capacity, kind, 1, 32, policy.HalfEven),
							Trials: 100_000 / k, Series: c.Series})
					}
				}
				g = append(g, c)
			}
		}
	}
	return g
}

// MeanFieldInRegion reports whether a scenario lies in the region that
// MeanFieldGrid validates: a policy of MeanFieldKinds on the capacity
// server with base 1, cap 32, half-even rounding, first window 1, no retry
// limit, N from 1,000 to 100,000 and N/k from 3 to 100 (within 1%).
func MeanFieldInRegion(sc model.Scenario) bool {
	p := sc.Policy
	kind := false
	for _, k := range MeanFieldKinds {
		kind = kind || p.Kind == k
	}
	load := float64(sc.Clients) / float64(sc.Capacity)
	return kind && sc.Server == model.Capacity && p.Base == 1 && p.Cap == 32 && sc.Rounding == policy.HalfEven &&
		sc.FirstWindow == 1 && p.Retries == 0 && p.MaxElapsed == 0 && p.Tick == 0 &&
		sc.Clients >= MeanFieldSizes[0] && sc.Clients <= MeanFieldSizes[len(MeanFieldSizes)-1] &&
		load >= 0.99*float64(MeanFieldLoads[0]) && load <= 1.01*float64(MeanFieldLoads[len(MeanFieldLoads)-1])
}

// validateMeanField compares the mean field's expected calls and
// completion with Monte Carlo. In MeanFieldRegion each is judged by an
// equivalence test: it passes when the whole MeanFieldLevel interval of
// the relative error model/MC − 1 lies within ±bound. A pass is evidence
// at level 5% that the error is within the bound, and passing every check
// is evidence at the same level that all are (an intersection–union test,
// which needs no multiplicity correction). The trials come in two stages
// (Stein's): a pilot of at most c.Trials trials (fewer for large cohorts,
// see meanFieldPilotCalls) estimates the standard deviation,
// and the second stage runs as many trials as make the interval's
// half-width about half the bound, up to meanFieldBudget — so an error
// beyond half the bound may fail for want of trials, never pass by it.
// Both stages play trials 0…n−1 of the seed, so the result depends on the
// seed alone. Outside the region the errors are reported as info.
func validateMeanField(ctx context.Context, c ValidationCase, msc model.Scenario, opt montecarlo.Options, plant func(*solve.MeanField)) ([]Check, error) {
	sc := c.Scenario
	mf, err := solve.MeanFieldModel(msc, solve.MeanFieldOptions{})
	if err != nil {
		return []Check{notApplicable(MethodMeanField, sc, err)}, nil
	}
	judged := MeanFieldInRegion(sc)
	if judged {
		opt.Trials = min(opt.Trials, max(meanFieldPilotMin, int(meanFieldPilotCalls/mf.Calls)))
	}
	s, err := Simulate(ctx, sc, opt)
	if err != nil {
		return nil, err
	}
	if s.Calls == nil {
		return nil, fmt.Errorf("every Monte Carlo trial was censored")
	}
	if plant != nil {
		plant(&mf)
	}
	if judged {
		n := max(stage2(*s.Calls, MeanFieldCallsBound), stage2(s.Completion.Estimate, MeanFieldCompletionBound))
		if n > opt.Trials {
			opt.Trials = min(n, meanFieldBudget)
			if s, err = Simulate(ctx, sc, opt); err != nil {
				return nil, err
			}
			if s.Calls == nil {
				return nil, fmt.Errorf("every Monte Carlo trial was censored")
			}
		}
	}
	row := func(q string, model float64, e stats.Estimate, bound float64) Check {
		ch := Check{Method: MethodMeanField, Scenario: sc, Quantity: q, Model: Number(model), MonteCarlo: &e, RelErr: model/e.Mean - 1, Verdict: Info}
		if se := e.SE(); se > 0 {
			ch.Z = Number((e.Mean - model) / se)
		}
		iv := relErrInterval(model, e)
		ch.RelErrCI = &iv
		ch.Detail = fmt.Sprintf("relative error %+.3f%% [%+.3f%%, %+.3f%%] (%g%%, %d trials)", 100*ch.RelErr, 100*iv[0], 100*iv[1], 100*MeanFieldLevel, e.N)
		if judged {
			ch.Bound = bound
			ch.Verdict = Pass
			if iv[0] < -bound || iv[1] > bound {
				ch.Verdict = Fail
			}
			ch.Detail += fmt.Sprintf(": the interval must lie within ±%g%%", 100*bound)
		}
		return ch
	}
	if s.Censored > 0 {
		return nil, fmt.Errorf("%d Monte Carlo trials were censored", s.Censored)
	}
	return []Check{row("calls", mf.Calls, *s.Calls, MeanFieldCallsBound),
		row("completion", mf.Completion, s.Completion.Estimate, MeanFieldCompletionBound)}, nil
}

// meanFieldT is the two-sided MeanFieldLevel quantile of Student's t.
func meanFieldT(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(max(1, df))}.Quantile(1 - (1-MeanFieldLevel)/2)
}

// relErrInterval is the interval of model/μ − 1 for the Monte Carlo mean μ
// at MeanFieldLevel: model/hi − 1 to model/lo − 1 for μ's interval
// [lo, hi] (the relative error is monotone in μ).
func relErrInterval(model float64, e stats.Estimate) stats.Interval {
	h := meanFieldT(e.N-1) * e.SE()
	lo, hi := e.Mean-h, e.Mean+h
	if lo <= 0 {
		return stats.Interval{model/hi - 1, math.Inf(1)}
	}
	return stats.Interval{model/hi - 1, model/lo - 1}
}

// stage2 is the number of trials that makes the interval of the relative
// error, about ±t·sd/(μ·√n), half as wide as ±bound, from a pilot estimate.
func stage2(e stats.Estimate, bound float64) int {
	if e.SD == 0 || e.Mean <= 0 {
		return e.N
	}
	n := math.Pow(meanFieldT(e.N-1)*e.SD/(e.Mean*bound/2), 2)
	return int(math.Min(math.Ceil(n), float64(meanFieldBudget)))
}
