package claims

import (
	"context"
	_ "embed" // the committed run of the scaling study
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
	"sync"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// GrowthRule is the one rule by which every claim about how a quantity
// grows with the number of clients is judged. Each such claim names a
// power p and gets a tolerance τ from its own words (its Check says which
// and why).
const GrowthRule = "Growth rule (every claim about growth with N): along the ladder N = 10, 20, …, 10240 — doublings up to where the delays of the blog's policies (base 5 ms, cap 2 s) sit at the cap — " +
	"the local exponent over each doubling is log₂(m(2N)/m(N)) of the mean m, with a delta-method interval (trials per rung chosen sequentially from a pilot of 5 for ±0.03 at 95%). " +
	"At one doubling the claim holds when the exponent's 99.9% interval lies within p ± τ and fails when it lies outside. " +
	"A growth claim states an order of growth, so it is judged where the ladder ends, in the saturated regime: it holds for N ≥ N* when it holds at every doubling from N* to the top, " +
	"fails when it fails at the top doubling and the local exponents do not move back toward p ± τ over the top five doublings (a weighted quadratic fit of the log means: its slope at the top and change per doubling, 95% intervals), is inconclusive: pre-asymptotic when they do, and is inconclusive otherwise; the verdict names N* and the competing powers p ± 2τ it rejects (the band's edges are their midpoints with p)."

// LocalExponent is one doubling's exponent of one policy, with the
// verdict the growth rule gives it there.
type LocalExponent struct {
	Policy string `json:"policy"`
	Metric string `json:"metric"`
	study.Exponent
	Verdict Verdict `json:"verdict"`
}

// Ladder is the scaling study of one policy in one model.
type Ladder struct {
	Model  string       `json:"model"`
	Policy policy.Kind  `json:"policy"`
	Rungs  []study.Rung `json:"rungs"`
}

// Scaling is the scaling study (study.ScalingStudy) run for the AWS
// blog's five policies in both models: the OCC row of the blog and the
// capacity server (k = 10) of the seed article, the latter on the count
// engine wherever it is exact (the default engine).
type Scaling struct {
	Seed    uint64              `json:"seed"`
	Study   study.ScalingLadder `json:"study"`
	Ladders []Ladder            `json:"ladders"`
}

// Ladder finds the ladder of a model and policy.
func (s Scaling) Ladder(m string, kind policy.Kind) ([]study.Rung, bool) {
	for _, l := range s.Ladders {
		if l.Model == m && l.Policy == kind {
			return l.Rungs, true
		}
	}
	return nil, false
}

// CommittedScalingPath is where the committed run of the scaling study
// lives in the repository; `herd claims --scaling fresh --scaling-out
// claims/data/scaling.json` rewrites it (the OCC rungs at N = 10,240 take
// most of ten CPU-minutes).
const CommittedScalingPath = "claims/data/scaling.json"

//go:embed data/scaling.json
var committedScaling []byte

// Committed is the committed run of the scaling study, when it is a run
// of the current study (a test checks that it is, and that its rungs are
// what RunScaling computes).
func Committed() (Scaling, bool) {
	var s Scaling
	if err := json.Unmarshal(committedScaling, &s); err != nil {
		return Scaling{}, false
	}
	return s, reflect.DeepEqual(s.Study, study.ScalingStudy())
}

// ScalingModels and ScalingKinds are what the scaling study covers.
var (
	ScalingModels = []string{ModelOCC, ModelCapacity}
	ScalingKinds  = model.AWSKinds()
)

// RunScaling runs the scaling study with opt's seed and workers (its trials
// are the study's). With fresh false the committed run is used when it was
// made with the same seed, so that `herd claims` takes seconds, not the
// minutes the OCC rungs at N ≈ 10⁴ cost; progress, if set, is called after
// each ladder.
func RunScaling(ctx context.Context, opt montecarlo.Options, fresh bool, progress func(done, total int)) (Scaling, error) {
	ladder := study.ScalingStudy()
	if c, ok := Committed(); ok && !fresh && c.Seed == opt.Seed {
		return c, nil
	}
	if err := ladder.Validate(); err != nil {
		return Scaling{}, err
	}
	s := Scaling{Seed: opt.Seed, Study: ladder}
	total := len(ScalingModels) * len(ScalingKinds)
	for _, m := range ScalingModels {
		for _, kind := range ScalingKinds {
			l := Ladder{Model: m, Policy: kind}
			for _, n := range ladder.Clients {
				r, err := RunRung(ctx, m, kind, n, opt)
				if err != nil {
					return Scaling{}, err
				}
				l.Rungs = append(l.Rungs, r)
			}
			s.Ladders = append(s.Ladders, l)
			if progress != nil {
				progress(len(s.Ladders), total)
			}
		}
	}
	return s, nil
}

// RunRung runs one rung of the scaling study: n clients of a policy in a
// model, each on its default engine (the capacity server's count engine
// wherever it is exact).
func RunRung(ctx context.Context, m string, kind policy.Kind, n int, opt montecarlo.Options) (study.Rung, error) {
	r, err := study.ScalingStudy().RunRung(ctx, Scenario(m, n, kind), opt)
	if err != nil {
		return r, fmt.Errorf("scaling study, %s, %s, N = %d: %w", m, kind, n, err)
	}
	return r, nil
}

// scalingRun is the scaling study of the growth claims, run (or read)
// once, when a claim first needs it, and shared by the labs of one
// Evaluate: s is the study when given, fresh reruns it.
type scalingRun struct {
	once  sync.Once
	fresh bool
	s     *Scaling
	err   error
}

// ladder is a policy's rungs in a model, from the lab's scaling study.
func (l *Lab) ladder(m string, kind policy.Kind) []study.Rung {
	if l.err != nil {
		return nil
	}
	sr := l.scaling
	sr.once.Do(func() {
		if sr.s != nil {
			return
		}
		s, err := RunScaling(l.ctx, montecarlo.Options{Seed: l.opt.Seed, Workers: l.opt.Workers}, sr.fresh, nil)
		if err != nil {
			sr.err = err
			return
		}
		sr.s = &s
	})
	if sr.err != nil {
		l.err = sr.err
		return nil
	}
	r, _ := sr.s.Ladder(m, kind)
	return r
}

// growth is a claim that a metric grows like N^power, read with a
// tolerance from its words.
type growth struct {
	kinds     []policy.Kind
	metric    metric
	power     float64
	tolerance float64
}

// at is the growth rule at one doubling, from rung a to rung b: undecided
// when a rung has censored trials (its mean is then conditional on
// finishing).
func (g growth) at(e study.Exponent, a, b study.Rung) Verdict {
	if a.Censored > 0 || b.Censored > 0 || math.IsNaN(e.Value) {
		return Inconclusive
	}
	iv := e.Interval(DecisionLevel)
	lo, hi := g.power-g.tolerance, g.power+g.tolerance
	switch {
	case iv[0] > lo && iv[1] < hi:
		return Holds
	case iv[1] < lo || iv[0] > hi:
		return Fails
	}
	return Inconclusive
}

// trend is the trend of a ladder's mean against N^power over its top six
// rungs (five doublings).
func (g growth) trend(rungs []study.Rung, pick func(study.Rung) stats.Estimate) (Trend, bool) {
	var pts []logMean
	for _, r := range rungs[max(0, len(rungs)-6):] {
		pts = append(pts, logMeanOf(r.Clients, pick(r)))
	}
	return fitTrend(pts, func(x float64) float64 { return g.power * x })
}

// band is how a check text names the band of a growth claim.
func (g growth) band() string { return fmt.Sprintf("%g ± %g", g.power, g.tolerance) }

// growth applies the growth rule to every policy of the claim in one model.
func (l *Lab) growth(m string, g growth) Finding {
	ladder := study.ScalingStudy()
	names := make([]string, len(g.kinds))
	for i, k := range g.kinds {
		names[i] = string(k)
	}
	top := ladder.Clients[len(ladder.Clients)-1]
	f := Finding{Model: m, Scenario: fmt.Sprintf("%s; %s; N = %d, %d, …, %d (doublings); trials per rung chosen sequentially from a pilot of %d for ±%g on each exponent",
		describeModel(m), strings.Join(names, ", "), ladder.Clients[0], ladder.Clients[1], top, ladder.Pilot, ladder.HalfWidth)}
	pick := study.RungCalls
	if g.metric == completion {
		pick = study.RungCompletion
	}
	var verdicts []Verdict
	from := ladder.Clients[0]
	var failing, undecided, approaching []string
	for _, k := range g.kinds {
		rungs := l.ladder(m, k)
		if len(rungs) != len(ladder.Clients) {
			f.Verdict = Inconclusive
			return f
		}
		exps := study.LocalExponents(rungs, pick)
		vs := make([]Verdict, len(exps))
		for j, e := range exps {
			vs[j] = g.at(e, rungs[j], rungs[j+1])
			f.Exponents = append(f.Exponents, LocalExponent{Policy: string(k), Metric: g.metric.String(), Exponent: e, Verdict: vs[j]})
		}
		last := exps[len(exps)-1]
		ev := Evidence{Name: fmt.Sprintf("local exponent of mean %s, %s, N = %d→%d", g.metric, k, last.From, last.To), Value: last.Value, CI95: &last.CI95}
		f.Evidence = append(f.Evidence, ev)
		j := len(vs)
		for j > 0 && vs[j-1] == Holds {
			j--
		}
		switch {
		case j < len(vs):
			from = max(from, exps[j].From)
			f.Evidence = append(f.Evidence, Evidence{Name: fmt.Sprintf("%s: N from which every local exponent lies within %s", k, g.band()), Value: float64(exps[j].From)})
		case vs[len(vs)-1] == Fails:
			if t, ok := g.trend(rungs, pick); ok && t.toward(last.Value-g.power, g.tolerance) {
				vs[len(vs)-1] = Inconclusive
				approaching = append(approaching, fmt.Sprintf("%s %.3f [%.3f, %.3f], the exponent less %g: %s", k, last.Value, last.CI95[0], last.CI95[1], g.power, t.words()))
				break
			}
			failing = append(failing, fmt.Sprintf("%s %.3f [%.3f, %.3f]", k, last.Value, last.CI95[0], last.CI95[1]))
		default:
			undecided = append(undecided, string(k))
		}
		verdicts = append(verdicts, vs[len(vs)-1])
		f.Evidence = append(f.Evidence, saturation(m, k, rungs[len(rungs)-1]))
	}
	f.Verdict = all(verdicts...)
	power := func(p float64) string {
		if p == 1 {
			return "N"
		}
		return fmt.Sprintf("N^%g", p)
	}
	rejects := fmt.Sprintf("; rejects %s and %s", power(g.power-2*g.tolerance), power(g.power+2*g.tolerance))
	switch {
	case f.Verdict == Holds:
		if from == ladder.Clients[0] {
			f.Regime = fmt.Sprintf("at every doubling from N = %d to %d the local exponent lies within %s", from, top, g.band()) + rejects
		} else {
			f.Regime = fmt.Sprintf("for N ≥ %d: every local exponent from %d→%d up to %d→%d lies within %s", from, from, 2*from, top/2, top, g.band()) + rejects
		}
	case f.Verdict == Fails:
		f.Regime = fmt.Sprintf("at the top doubling %d→%d the local exponent lies outside %s and does not move back: %s", top/2, top, g.band(), strings.Join(failing, "; "))
	case len(approaching) > 0:
		f.Regime = fmt.Sprintf("pre-asymptotic: at the top doubling %d→%d the local exponent lies outside %s but moves toward it: %s", top/2, top, g.band(), strings.Join(approaching, "; "))
	default:
		f.Regime = fmt.Sprintf("at the top doubling %d→%d the interval of %s reaches the edge of %s", top/2, top, strings.Join(undecided, ", "), g.band())
	}
	return f
}

// saturation is the evidence that a ladder's top rung is in the regime
// where delays sit at the cap: the calls per client, and the share of them
// that at least come after a delay drawn at the cap.
func saturation(m string, kind policy.Kind, r study.Rung) Evidence {
	sc := Scenario(m, r.Clients, kind)
	per := r.Calls.Scale(1 / float64(r.Clients))
	e := Evidence{Name: fmt.Sprintf("calls per client, %s, N = %d", kind, r.Clients), Value: per.Mean, CI95: per.CI95}
	switch b := study.AttemptsBeforeCap(sc.Policy); {
	case b > 0 && per.Mean > 0:
		e.Name += fmt.Sprintf(" (≥ %.0f%% of them after a delay drawn at the cap)", 100*math.Max(0, 1-float64(b)/per.Mean))
	case b == 0:
		e.Name += " (no delay to saturate)"
	}
	return e
}
