package claims

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// The claims of this file are the classic results on backoff in contention
// resolution: a batch of n packets on a simple multiple-access channel
// (herd's collision server with k = 1, every client sending at tick 0)
// under the window policies of policy.ContentionKinds, and stations with
// queues fed open-loop (stations.go). They have no capacity/OCC
// counterpart, so they are checked in one model; `herd claims --source
// contention` runs them (they take tens of seconds, so the default run of
// every source leaves them out). Each check's reading of its source — the
// band that decides — is written in its Check text and was fixed from the
// source's words before herd's numbers were looked at.

const (
	OriginContention = "contention"
	ModelContention  = "collision server, k = 1"
	benderSPAA       = "Bender, Farach-Colton, He, Kuszmaul, Leiserson, \"Adversarial contention resolution for simple channels\", SPAA 2005, pp. 325–332 (abstract)"
	hastadSIAM       = "Håstad, Leighton, Rogoff, \"Analysis of backoff protocols for multiple access channels\", SIAM J. Comput. 25(4):740–774, 1996 (abstract)"
	// ThetaBand is τ of a Θ claim: it holds where the ratio of the
	// makespan to its Θ form has a log-log slope within ±τ. A Θ claim
	// allows any constant but no trend; at n = 512…16,384 a missing or
	// extra lg n factor has slope ∓1/ln n ≈ 0.10–0.16 and a power n^0.1 a
	// slope of 0.1, so τ = 0.1 is the smallest band that a constant factor
	// still passes and a wrong power fails.
	ThetaBand = 0.1
	// ContentionTrials is the trials per rung: with the makespan's
	// coefficient of variation about 0.15, the slope over the six rungs
	// n = 512…16,384 then has a 95% interval of about ±0.02.
	ContentionTrials = 40
)

// ContentionRule is how the contention claims are judged, in one
// paragraph for the report's header.
const ContentionRule = "Contention rule: a batch of n (every client at tick 0) on the collision server with k = 1, n = 32, 64, …, 16384; a Θ claim holds when the 95% interval of the log-log slope of makespan / (its Θ form) against n, over n = 512 … 16384, lies within ±0.1 (any constant, no trend), fails when it lies outside. Stations (Håstad et al.): 8 stations with queues, 200,000 ticks; a rate is unstable when the backlog's growth per tick over the second half has its 95% interval above 1% of λ, stable when below."

// ContentionLadder is the batch sizes n = 2⁵ … 2¹⁴, and ContentionJudged
// the first rung of the regime a Θ claim is judged in (its top six).
var (
	ContentionLadder = []int{32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384}
	ContentionJudged = 512
)

// BatchScenario is a batch of n packets on the collision server with
// k = 1 under a window policy (base 1; binary exponential backoff is Full),
// with a cap of 2^⌈lg 128n⌉ ticks, above every window a batch of n reaches,
// and the default horizon (model.Scenario.DefaultHorizon).
func BatchScenario(p policy.Policy, n int) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server = n, 1, model.Collision
	p.Base, p.Cap = 1, math.Exp2(math.Ceil(math.Log2(128*float64(n))))
	sc.Policy = p
	return sc
}

// thetaForm is a Θ claim: the policy and the form its makespan follows.
type thetaForm struct {
	id, quote, form string
	label           string // the policy in the source's words, with herd's name
	policy          policy.Policy
	f               func(n float64) float64
}

func lg(x float64) float64 { return math.Log2(x) }

var thetaForms = []thetaForm{
	{id: "bender-beb-n-lg-n", form: "n lg n", policy: policy.Policy{Kind: policy.Full}, label: "binary exponential backoff (full: U(0, 2ⁿ) rounded to a tick)",
		quote: "Randomized binary exponential backoff has makespan Θ(n lg n)",
		f:     func(n float64) float64 { return n * lg(n) }},
	{id: "bender-quadratic-n-over-lg-n-3-2", form: "(n/lg n)^{3/2}", policy: policy.Policy{Kind: policy.Poly, Exponent: 2}, label: "quadratic backoff (poly, r = 2: a slot of 1…n²)",
		quote: "Quadratic backoff has makespan Θ((n/lg n)^{3/2}), and more generally, for r > 1, r-polynomial backoff has makespan Θ((n/lg n)^{1+1/r})",
		f:     func(n float64) float64 { return math.Pow(n/lg(n), 1.5) }},
	{id: "bender-loglog-iterated", form: "n lg lg n / lg lg lg n", policy: policy.Policy{Kind: policy.LogLog}, label: "loglog-iterated backoff (loglog)",
		quote: "We exhibit a monotone superpolynomial subexponential backoff algorithm, called loglog-iterated backoff, that achieves makespan Θ(n lg lg n / lg lg lg n)",
		f:     func(n float64) float64 { return n * lg(lg(n)) / lg(lg(lg(n))) }},
}

// batchRung is one rung of a policy's ladder: every trial's makespan.
type batchRung struct {
	n        int
	makespan []float64
	censored int
}

func (r batchRung) mean() stats.Estimate {
	var m stats.Moments
	for _, x := range r.makespan {
		m.Add(x)
	}
	return m.Estimate()
}

// batchLadder runs a policy's batch at every n of the ladder.
func batchLadder(ctx context.Context, p policy.Policy, opt montecarlo.Options) ([]batchRung, error) {
	var out []batchRung
	for _, n := range ContentionLadder {
		o, err := analysis.Outcomes(ctx, BatchScenario(p, n), opt)
		if err != nil {
			return nil, err
		}
		r := batchRung{n: n}
		for _, x := range o {
			if x.Censored {
				r.censored++
				continue
			}
			r.makespan = append(r.makespan, x.Completion)
		}
		out = append(out, r)
	}
	return out, nil
}

// ratioSlope is the weighted least-squares slope of log₂(mean makespan /
// f(n)) against log₂ n over the rungs from n = from on, each weighted by
// the inverse variance of its log mean (delta method), with a t interval.
func ratioSlope(rungs []batchRung, f func(float64) float64, from int) stats.Estimate {
	var sw, swx, swy, swxx, swxy float64
	df := math.MaxInt
	for _, r := range rungs {
		if r.n < from {
			continue
		}
		e := r.mean()
		if e.N < 2 || e.Mean <= 0 {
			return stats.Estimate{Mean: math.NaN()}
		}
		se := e.SD / math.Sqrt(float64(e.N)) / e.Mean / math.Ln2
		w := 1 / (se * se)
		x, y := lg(float64(r.n)), lg(e.Mean/f(float64(r.n)))
		sw, swx, swy, swxx, swxy = sw+w, swx+w*x, swy+w*y, swxx+w*x*x, swxy+w*x*y
		df = min(df, e.N-1)
	}
	sxx := swxx - swx*swx/sw
	b := (swxy - swx*swy/sw) / sxx
	h := stats.TQuantile(df) / math.Sqrt(sxx)
	return stats.Estimate{Mean: b, SD: 1 / math.Sqrt(sxx), CI95: &stats.Interval{b - h, b + h}}
}

func censoredIn(rungs []batchRung) int {
	c := 0
	for _, r := range rungs {
		c += r.censored
	}
	return c
}

func regimeText(from int) string {
	return fmt.Sprintf("n = %d … %d (collision server, k = 1, a batch at tick 0, base 1, cap 2^⌈lg 128n⌉)", from, ContentionLadder[len(ContentionLadder)-1])
}

// judgeTheta is the verdict of a Θ claim on its ladder.
func judgeTheta(c *Result, rungs []batchRung, form string, f func(float64) float64) {
	for _, r := range rungs {
		e := r.mean()
		e.Mean, e.CI95 = e.Mean/f(float64(r.n)), &stats.Interval{e.CI95[0] / f(float64(r.n)), e.CI95[1] / f(float64(r.n))}
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("makespan / %s at n = %d (%d trials, %d censored)", form, r.n, len(r.makespan)+r.censored, r.censored), e))
	}
	s := ratioSlope(rungs, f, ContentionJudged)
	top := ContentionLadder[len(ContentionLadder)-1]
	key := estimated(fmt.Sprintf("log-log slope of makespan / %s, n = %d…%d", form, ContentionJudged, top), s)
	own := ratioSlope(rungs, func(float64) float64 { return 1 }, ContentionJudged)
	c.Evidence = append([]Evidence{key, estimated(fmt.Sprintf("log-log slope of the makespan itself, n = %d…%d", ContentionJudged, top), own)}, c.Evidence...)
	c.KeyEvidence = &c.Evidence[0]
	c.Regime = regimeText(ContentionJudged)
	switch {
	case censoredIn(rungs) > 0:
		c.Verdict = Inconclusive
		c.Condition = fmt.Sprintf("%d trials were censored at the default horizon", censoredIn(rungs))
	case s.CI95[0] >= -ThetaBand && s.CI95[1] <= ThetaBand:
		c.Verdict = Holds
	case s.CI95[1] < -ThetaBand || s.CI95[0] > ThetaBand:
		c.Verdict = Fails
		lo, hi := float64(ContentionJudged), float64(top)
		c.Condition = fmt.Sprintf("over n = %d…%d the makespan grows like n^%.3g, while %s grows like n^%.3g there: the ratio %s by a factor %.3g per doubling, a trend no constant absorbs at these n (the source's Θ is asymptotic; its lower-order terms may still dominate)",
			ContentionJudged, top, own.Mean, form, math.Log2(f(hi)/f(lo))/math.Log2(hi/lo), map[bool]string{true: "rises", false: "falls"}[s.Mean > 0], math.Exp2(s.Mean))
	default:
		c.Verdict = Inconclusive
	}
}

// contentionRun is what the contention claims share: the ladders of the
// policies, run once.
type contentionRun struct {
	ctx    context.Context
	opt    montecarlo.Options
	forms  []thetaForm
	ladder map[policy.Policy][]batchRung
}

func (r *contentionRun) rungs(p policy.Policy) ([]batchRung, error) {
	if l, ok := r.ladder[p]; ok {
		return l, nil
	}
	l, err := batchLadder(r.ctx, p, r.opt)
	if err != nil {
		return nil, err
	}
	r.ladder[p] = l
	return l, nil
}

func thetaCheck(t thetaForm) string {
	return fmt.Sprintf("a batch of n on the collision server with k = 1 (every client sends at tick 0; %s, base 1, cap 2^⌈lg 128n⌉ above every window reached, the default horizon), n = 2⁵ … 2¹⁴, %d trials per n: the ratio of the mean makespan to %s. "+
		"Reading fixed from the words before the numbers: Θ allows any constant and no trend, so the claim holds when the 95%% interval of the log-log slope of the ratio against n (weighted least squares over n = %d … 16384, the top of the ladder, where the asymptotics are nearest) lies within ±%.1f, fails when it lies outside, and is inconclusive otherwise or when a trial is censored",
		t.label, ContentionTrials, t.form, ContentionJudged, ThetaBand)
}

func (r *contentionRun) theta(t thetaForm) (Result, error) {
	c := Result{ID: t.id, Source: benderSPAA, Quote: t.quote, Check: thetaCheck(t)}
	rungs, err := r.rungs(t.policy)
	if err != nil {
		return c, err
	}
	judgeTheta(&c, rungs, t.form, t.f)
	return c, nil
}

// best checks that loglog-iterated backoff beats the other monotone
// policies of the ladder.
func (r *contentionRun) best() (Result, error) {
	c := Result{ID: "bender-loglog-best-monotone", Source: benderSPAA,
		Quote: "We provide a matching lower bound showing that this strategy [loglog-iterated backoff] is optimal among all monotone backoff algorithms",
		Check: fmt.Sprintf("the batches of the Θ claims (binary exponential, quadratic and loglog-iterated backoff, %d trials per n, paired on common random numbers): the paired ratio of loglog-iterated's mean makespan to each other policy's. "+
			"Reading fixed from the words before the numbers: an order of growth is judged where the ladder ends, so the claim holds for n ≥ n* when both ratios' 95%% intervals lie below 1 at every n from n* to 16384, fails when either lies above 1 at n = 16384, and is inconclusive otherwise", ContentionTrials),
	}
	ll, err := r.rungs(r.forms[2].policy)
	if err != nil {
		return c, err
	}
	others := []thetaForm{r.forms[0], r.forms[1]}
	below := make([]bool, len(ContentionLadder))
	for i := range below {
		below[i] = true
	}
	var top []Evidence
	for _, o := range others {
		rungs, err := r.rungs(o.policy)
		if err != nil {
			return c, err
		}
		for i := range ContentionLadder {
			a, b := ll[i].makespan, rungs[i].makespan
			m := min(len(a), len(b))
			e := pairedRatio(fmt.Sprintf("makespan loglog / %s at n = %d", o.policy.Kind, ContentionLadder[i]), a[:m], b[:m])
			c.Evidence = append(c.Evidence, e)
			if e.CI95 == nil || e.CI95[1] >= 1 {
				below[i] = false
			}
			if i == len(ContentionLadder)-1 {
				top = append(top, e)
			}
		}
	}
	star := -1
	for i := len(below) - 1; i >= 0 && below[i]; i-- {
		star = i
	}
	switch {
	case star >= 0:
		c.Verdict = Holds
		c.Regime = regimeText(ContentionLadder[star])
	case top[0].CI95 != nil && top[0].CI95[0] > 1 || top[1].CI95 != nil && top[1].CI95[0] > 1:
		c.Verdict = Fails
		c.Regime = regimeText(ContentionLadder[len(ContentionLadder)-1])
	default:
		c.Verdict = Inconclusive
		c.Regime = regimeText(ContentionLadder[len(ContentionLadder)-1])
	}
	// The key is the closer of the two contests at the top rung.
	c.KeyEvidence = &top[0]
	if top[1].Value > top[0].Value {
		c.KeyEvidence = &top[1]
	}
	return c, nil
}

// contentionResult completes a contention claim's row of the claims
// report: one model, no counterpart, a condition only with
// holds-only-when (otherwise a note).
func contentionResult(r Result) Result {
	key := r.KeyEvidence
	r.Origin, r.Model, r.Other, r.Transfer = OriginContention, ModelContention, Finding{Model: "none"}, NotApplicable
	if key == nil {
		r.KeyEvidence = keyEvidence(r.Evidence, "")
	}
	if r.Verdict != HoldsOnlyWhen {
		r.Condition, r.Note = "", r.Condition
	}
	return r
}

// EvaluateContention evaluates the contention claims with opt's seed and
// workers (the trials per point are ContentionTrials unless opt.Trials is
// set), as rows of the claims report; done, if set, is called after each.
func EvaluateContention(ctx context.Context, opt montecarlo.Options, done func(n int)) ([]Result, error) {
	return evaluateContention(ctx, opt, thetaForms, done)
}

// ContentionClaims is how many claims EvaluateContention evaluates.
func ContentionClaims() int { return len(thetaForms) + 1 + len(stationClaims) }

func evaluateContention(ctx context.Context, opt montecarlo.Options, forms []thetaForm, done func(n int)) ([]Result, error) {
	if opt.Trials == 0 {
		opt.Trials = ContentionTrials
	}
	run := &contentionRun{ctx: ctx, opt: opt, forms: forms, ladder: map[policy.Policy][]batchRung{}}
	var out []Result
	add := func(c Result, err error) error {
		if err != nil {
			return fmt.Errorf("claim %s: %w", c.ID, err)
		}
		out = append(out, contentionResult(c))
		if done != nil {
			done(len(out))
		}
		return nil
	}
	for _, t := range forms {
		if err := add(run.theta(t)); err != nil {
			return out, err
		}
	}
	if err := add(run.best()); err != nil {
		return out, err
	}
	for _, f := range stationClaims {
		if err := add(f(ctx, opt)); err != nil {
			return out, err
		}
	}
	return out, nil
}
