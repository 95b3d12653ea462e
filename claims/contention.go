package claims

import (
	"context"
	"fmt"
	"math"
	"strings"

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
	// ContentionTrials is the pilot's trials per rung.
	ContentionTrials = 40
	// SlopePrecision is the 95% half-width the slope at the top of a Θ
	// claim's ladder is run to: forms a lg n factor apart differ in
	// slope by 1/ln n ≈ 0.10 at n = 16384, so the data must place the
	// slope within a fifth of that gap to tell which of two such forms it
	// is nearer. A ladder whose pilot is less precise is rerun with
	// trials scaled by (half-width / SlopePrecision)², at most
	// MaxContentionTrials.
	SlopePrecision      = 0.02
	MaxContentionTrials = 400
)

// ContentionRule is how the contention claims are judged, in one
// paragraph for the report's header.
const ContentionRule = "Contention rule: a batch of n (every client at tick 0) on the collision server with k = 1, n = 32, 64, …, 16384. A Θ claim is judged against competing forms (n, n lg lg n / lg lg lg n, n lg lg n, n lg n / lg lg n, n lg n, n^1.2, (n/lg n)^{3/2}, n^{3/2}) from the trend over successive doublings: a weighted quadratic fit of lg(makespan / claimed form) against lg n over n = 512 … 16384 gives the slope at the top and its change per doubling (95% intervals; trials per n from a pilot of 40 until the slope is within ±0.02, at most 400). " +
	"A competing form whose slope at the top differs from the claimed form's by at least 0.04 (twice the precision; closer ones cannot be told apart at these n) is rejected when the slope lies on the claimed form's side of the midpoint between the two forms' slopes and does not move toward the other; the claim fails when the slope moves away from 0, or when a form is preferred to it and the data does not move toward the claim, is inconclusive: pre-asymptotic when it does, and holds when no form is preferred and every form its point is about is rejected. " +
	"Stations (Håstad et al.): 8 stations with queues; a rate is unstable when the backlog's growth per tick over a run's second half has its 95% interval above 1% of λ, stable when below, judged over runs of 200,000, 400,000 and 800,000 ticks: a verdict against the claim that the doublings of time move back toward it is inconclusive: pre-asymptotic."

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

// growthForm is a form a makespan may follow: its name and lg of it at
// x = lg n.
type growthForm struct {
	name string
	lg   func(x float64) float64
}

func lg(x float64) float64 { return math.Log2(x) }

// competingForms are the forms every Θ claim is judged against: the three
// the source names, and those between and around them a reader could
// take a makespan for at these n (a lg lg n factor, a lg n / lg lg n
// factor, powers).
var competingForms = []growthForm{
	{"n", func(x float64) float64 { return x }},
	{"n lg lg n / lg lg lg n", func(x float64) float64 { return x + lg(lg(x)) - lg(lg(lg(x))) }},
	{"n lg lg n", func(x float64) float64 { return x + lg(lg(x)) }},
	{"n lg n / lg lg n", func(x float64) float64 { return x + lg(x) - lg(lg(x)) }},
	{"n lg n", func(x float64) float64 { return x + lg(x) }},
	{"n^1.2", func(x float64) float64 { return 1.2 * x }},
	{"(n/lg n)^{3/2}", func(x float64) float64 { return 1.5 * (x - lg(x)) }},
	{"n^{3/2}", func(x float64) float64 { return 1.5 * x }},
}

func formNamed(name string) growthForm {
	for _, f := range competingForms {
		if f.name == name {
			return f
		}
	}
	panic("claims: no competing form " + name)
}

// thetaForm is a Θ claim: the policy, the form its makespan follows and
// the forms its point is about (which the data must reject for it to
// hold), read from the source's words.
type thetaForm struct {
	id, quote, form string
	label           string // the policy in the source's words, with herd's name
	policy          policy.Policy
	point           []string
	pointWhy        string
}

var thetaForms = []thetaForm{
	{id: "bender-beb-n-lg-n", form: "n lg n", policy: policy.Policy{Kind: policy.Full}, label: "binary exponential backoff (full: U(0, 2ⁿ) rounded to a tick)",
		quote:    "Randomized binary exponential backoff has makespan Θ(n lg n)",
		point:    []string{"n", "n lg lg n / lg lg lg n"},
		pointWhy: "the abstract sets binary exponential backoff's Θ(n lg n) against the Θ(n lg lg n / lg lg lg n) of loglog-iterated backoff, so its point is a lg n factor above linear and above loglog's form"},
	{id: "bender-quadratic-n-over-lg-n-3-2", form: "(n/lg n)^{3/2}", policy: policy.Policy{Kind: policy.Poly, Exponent: 2}, label: "quadratic backoff (poly, r = 2: a slot of 1…n²)",
		quote:    "Quadratic backoff has makespan Θ((n/lg n)^{3/2}), and more generally, for r > 1, r-polynomial backoff has makespan Θ((n/lg n)^{1+1/r})",
		point:    []string{"n lg n"},
		pointWhy: "the abstract sets polynomial backoff's Θ((n/lg n)^{1+1/r}) against binary exponential backoff's Θ(n lg n), so its point is a polynomial factor above n lg n"},
	{id: "bender-loglog-iterated", form: "n lg lg n / lg lg lg n", policy: policy.Policy{Kind: policy.LogLog}, label: "loglog-iterated backoff (loglog)",
		quote:    "We exhibit a monotone superpolynomial subexponential backoff algorithm, called loglog-iterated backoff, that achieves makespan Θ(n lg lg n / lg lg lg n)",
		point:    []string{"n lg n"},
		pointWhy: "the abstract offers loglog-iterated backoff as the improvement on binary exponential backoff's Θ(n lg n), so its point is beating n lg n"},
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

// judged is the ladder's rungs from ContentionJudged on, as log means.
func judged(rungs []batchRung) []logMean {
	var pts []logMean
	for _, r := range rungs {
		if r.n >= ContentionJudged {
			pts = append(pts, logMeanOf(r.n, r.mean()))
		}
	}
	return pts
}

// formSlope is d lg(h/g) / d lg n at x: how much faster form h grows
// than form g there.
func formSlope(h, g growthForm, x float64) float64 {
	const e = 1e-4
	return (h.lg(x+e) - g.lg(x+e) - h.lg(x-e) + g.lg(x-e)) / (2 * e)
}

// formCurve is the change per doubling of formSlope at x: how the slope
// of makespan / g would move if the makespan followed h exactly.
func formCurve(h, g growthForm, x float64) float64 {
	const e = 1e-2
	return (formSlope(h, g, x+e) - formSlope(h, g, x-e)) / (2 * e)
}

// thetaJudgement is a Θ claim judged against the competing forms: the
// trend of makespan / claimed form, the forms the data rejects, those it
// prefers to the claimed form (moving toward the claim or not), and the
// claim's point forms it cannot reject.
type thetaJudgement struct {
	trend                  Trend
	rejected, undecided    []string
	indistinct             []string // forms too close to g to tell apart at these n
	preferred, approaching []string
	pointKept              []string
}

// judgeForms judges the claimed form g on the trend t of makespan / g
// against every competing form h: with δ = the slope of h/g at the top,
// data following h would show slope δ and change δ′ (the form's own
// curve), data following g slope 0 and change 0. The data rejects h when
// the slope's interval lies on g's side of δ/2 and its change per doubling
// does not depart from g's toward h (significantly, in δ's direction); it
// prefers h when the interval lies on h's side, approaching g when the
// change departs from h's own toward g.
func judgeForms(t Trend, g growthForm, point []string, top float64) thetaJudgement {
	j := thetaJudgement{trend: t}
	lo, hi := t.Slope.CI95[0], t.Slope.CI95[1]
	ch := *t.Change.CI95
	rejected := map[string]bool{}
	for _, h := range competingForms {
		if h.name == g.name {
			continue
		}
		d, dd := formSlope(h, g, top), formCurve(h, g, top)
		if math.Abs(d) < 2*SlopePrecision {
			// Its midpoint with g lies within the slope's designed
			// precision: no run of this study can tell the two apart.
			j.indistinct = append(j.indistinct, h.name)
			continue
		}
		towardH := d > 0 && ch[0] > 0 || d < 0 && ch[1] < 0
		towardG := d > 0 && ch[1] < dd || d < 0 && ch[0] > dd
		gSide := d > 0 && hi < d/2 || d < 0 && lo > d/2
		hSide := d > 0 && lo > d/2 || d < 0 && hi < d/2
		switch {
		case gSide && !towardH:
			j.rejected = append(j.rejected, h.name)
			rejected[h.name] = true
		case hSide && towardG:
			j.approaching = append(j.approaching, h.name)
		case hSide:
			j.preferred = append(j.preferred, h.name)
		default:
			j.undecided = append(j.undecided, h.name)
		}
	}
	for _, p := range point {
		if !rejected[p] {
			// A point form too close to tell apart is not rejected either.
			j.pointKept = append(j.pointKept, p)
		}
	}
	return j
}

// verdict is the claim's verdict from the judgement, and the words that
// say why (the condition or note).
func (j thetaJudgement) verdict(form string) (Verdict, string) {
	rejects := "rejects none of the competing forms"
	if len(j.rejected) > 0 {
		rejects = "rejects " + strings.Join(j.rejected, ", ")
	}
	if len(j.undecided) > 0 {
		rejects += "; cannot tell it from " + strings.Join(j.undecided, ", ")
	}
	if len(j.indistinct) > 0 {
		rejects += "; " + strings.Join(j.indistinct, ", ") + " too close to it to tell apart at these n"
	}
	trend := "the makespan / " + form + ": " + j.trend.words()
	sl, ch := *j.trend.Slope.CI95, *j.trend.Change.CI95
	switch {
	case sl[0] > 0 && ch[0] > 0 || sl[1] < 0 && ch[1] < 0:
		return Fails, fmt.Sprintf("the makespan moves away from %s over the doublings (%s); %s", form, trend, rejects)
	case len(j.preferred) > 0:
		return Fails, fmt.Sprintf("the data lies nearer %s than %s and does not move toward %s (%s); %s", strings.Join(j.preferred, ", "), form, form, trend, rejects)
	case len(j.approaching) > 0:
		return Inconclusive, fmt.Sprintf("pre-asymptotic: the data lies nearer %s than %s, but moves toward %s over the doublings (%s); %s", strings.Join(j.approaching, ", "), form, form, trend, rejects)
	case len(j.pointKept) > 0:
		return Inconclusive, fmt.Sprintf("the data cannot reject %s, the form the claim's point is about (%s); %s", strings.Join(j.pointKept, ", "), trend, rejects)
	}
	return Holds, fmt.Sprintf("%s (%s)", rejects, trend)
}

// judgeTheta is the verdict of a Θ claim on its ladder.
func judgeTheta(c *Result, rungs []batchRung, t thetaForm) {
	g := formNamed(t.form)
	f := func(n float64) float64 { return math.Exp2(g.lg(lg(n))) }
	for _, r := range rungs {
		e := r.mean()
		e.Mean, e.CI95 = e.Mean/f(float64(r.n)), &stats.Interval{e.CI95[0] / f(float64(r.n)), e.CI95[1] / f(float64(r.n))}
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("makespan / %s at n = %d (%d trials, %d censored)", t.form, r.n, len(r.makespan)+r.censored, r.censored), e))
	}
	top := ContentionLadder[len(ContentionLadder)-1]
	c.Regime = regimeText(ContentionJudged)
	tr, ok := fitTrend(judged(rungs), g.lg)
	if censoredIn(rungs) > 0 || !ok {
		c.Verdict = Inconclusive
		c.Condition = fmt.Sprintf("%d trials were censored at the default horizon", censoredIn(rungs))
		c.KeyEvidence = &c.Evidence[len(c.Evidence)-1]
		return
	}
	own, _ := fitTrend(judged(rungs), func(float64) float64 { return 0 })
	key := estimated(fmt.Sprintf("slope of lg(makespan / %s) against lg n at n = %d (quadratic fit over n = %d…%d)", t.form, top, ContentionJudged, top), tr.Slope)
	change := estimated("its change per doubling of n", tr.Change)
	c.Evidence = append([]Evidence{key, change, estimated(fmt.Sprintf("local exponent of the makespan itself at n = %d", top), own.Slope)}, c.Evidence...)
	c.KeyEvidence = &c.Evidence[0]
	j := judgeForms(tr, g, t.point, lg(float64(top)))
	c.Verdict, c.Condition = j.verdict(t.form)
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
	// The slope's precision does not depend on the form it is taken
	// against: rerun the ladder with the trials that bring it to
	// SlopePrecision.
	if t, ok := fitTrend(judged(l), func(float64) float64 { return 0 }); ok {
		h := (t.Slope.CI95[1] - t.Slope.CI95[0]) / 2
		pilot := r.opt.Trials
		more := int(math.Ceil(float64(pilot)*h*h/(SlopePrecision*SlopePrecision)/float64(pilot))) * pilot
		if more = min(more, MaxContentionTrials*pilot/ContentionTrials); more > pilot {
			opt := r.opt
			opt.Trials = more
			if l, err = batchLadder(r.ctx, p, opt); err != nil {
				return nil, err
			}
		}
	}
	r.ladder[p] = l
	return l, nil
}

func thetaCheck(t thetaForm) string {
	var others []string
	for _, f := range competingForms {
		if f.name != t.form {
			others = append(others, f.name)
		}
	}
	return fmt.Sprintf("a batch of n on the collision server with k = 1 (every client sends at tick 0; %s, base 1, cap 2^⌈lg 128n⌉ above every window reached, the default horizon), n = 2⁵ … 2¹⁴, trials per n from a pilot of %d until the slope below is within ±%g (at most %d): the ratio of the mean makespan to %s. "+
		"Reading fixed from the words before the numbers: Θ allows any constant, so the claim is judged against the competing forms %s from the trend over successive doublings — the slope of lg(makespan / %s) against lg n at n = 16384 and its change per doubling, from a weighted quadratic fit over n = %d … 16384, where the asymptotics are nearest. "+
		"A form h whose slope relative to %s is δ at the top, |δ| ≥ %g (twice the designed precision; closer forms cannot be told apart at these n), is rejected when the slope's 95%% interval lies on the claimed side of δ/2 and its change is not significantly toward h; the claim fails when the slope and its change both lie on one side of 0 (moving away), or when the data lies on some h's side and does not move toward %s, is inconclusive: pre-asymptotic when it does, and holds when no form is preferred and the data rejects %s (%s)",
		t.label, ContentionTrials, SlopePrecision, MaxContentionTrials, t.form, strings.Join(others, ", "), t.form, ContentionJudged, t.form, 2*SlopePrecision, t.form, strings.Join(t.point, " and "), t.pointWhy)
}

func (r *contentionRun) theta(t thetaForm) (Result, error) {
	c := Result{ID: t.id, Source: benderSPAA, Quote: t.quote, Check: thetaCheck(t)}
	rungs, err := r.rungs(t.policy)
	if err != nil {
		return c, err
	}
	judgeTheta(&c, rungs, t)
	return c, nil
}

// best checks that loglog-iterated backoff beats the other monotone
// policies of the ladder.
func (r *contentionRun) best() (Result, error) {
	c := Result{ID: "bender-loglog-best-monotone", Source: benderSPAA,
		Quote: "We provide a matching lower bound showing that this strategy [loglog-iterated backoff] is optimal among all monotone backoff algorithms",
		Check: fmt.Sprintf("the batches of the Θ claims (binary exponential, quadratic and loglog-iterated backoff, at least %d trials per n, paired on common random numbers over the trials both ran): the paired ratio of loglog-iterated's mean makespan to each other policy's. "+
			"Reading fixed from the words before the numbers: optimality is an order of growth, judged where the ladder ends, so the claim holds when both ratios' 95%% intervals lie below 1 at every n, holds only when n ≥ n* when they do from n* to 16384 only, fails when either lies above 1 at n = 16384 and has not fallen over the last two doublings (inconclusive: pre-asymptotic when it has), and is inconclusive otherwise", ContentionTrials),
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
	var top, before []Evidence // each contest at the top rung, and two doublings before it
	var contests []Evidence
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
			contests = append(contests, e)
			if e.CI95 == nil || e.CI95[1] >= 1 {
				below[i] = false
			}
			switch i {
			case len(ContentionLadder) - 1:
				top = append(top, e)
			case len(ContentionLadder) - 3:
				before = append(before, e)
			}
		}
	}
	star := -1
	for i := len(below) - 1; i >= 0 && below[i]; i-- {
		star = i
	}
	last := len(ContentionLadder) - 1
	// worst is, below rung i, the contest loglog-iterated does worst in.
	worst := func(i int) Evidence {
		var w Evidence
		for j := range contests {
			if e := contests[j]; j%len(ContentionLadder) < i && e.Value > w.Value {
				w = e
			}
		}
		return w
	}
	switch {
	case star == 0:
		c.Verdict = Holds
		c.Regime = regimeText(ContentionLadder[0])
	case star > 0:
		c.Verdict = HoldsOnlyWhen
		c.Regime = regimeText(ContentionLadder[star])
		c.Condition = fmt.Sprintf("n ≥ %d: below it loglog-iterated backoff is not faster than every other monotone policy of the ladder (%s)", ContentionLadder[star], worst(star))
	case top[0].CI95 != nil && top[0].CI95[0] > 1 || top[1].CI95 != nil && top[1].CI95[0] > 1:
		// An order of growth is judged from the trend: a ratio above 1
		// at the top that falls over the last two doublings is moving
		// toward the claim.
		c.Verdict = Fails
		c.Regime = regimeText(ContentionLadder[last])
		for k, t := range top {
			if e := before[k]; t.CI95 != nil && e.CI95 != nil && t.CI95[0] > 1 && e.CI95[0] > t.CI95[1] {
				c.Verdict = Inconclusive
				c.Condition = fmt.Sprintf("pre-asymptotic: %s, falling from %s", t, e)
			}
		}
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
