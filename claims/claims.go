package claims

import (
	"context"
	"fmt"
	"math"
	"runtime/pprof"
	"slices"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// Verdict is what herd concludes about a published claim.
type Verdict string

// The four verdicts. HoldsOnlyWhen always comes with its condition; a
// verdict is Inconclusive when the 95% intervals at the trial budget
// cannot decide.
const (
	Holds         Verdict = "holds"
	Fails         Verdict = "fails"
	HoldsOnlyWhen Verdict = "holds-only-when"
	Inconclusive  Verdict = "inconclusive"
)

// The models a claim can be evaluated in: the seed article's tick server
// with capacity k, and the AWS blog's optimistic-concurrency row.
const (
	ModelCapacity = "capacity"
	ModelOCC      = "occ"
)

// Transfer says whether a claim's verdict carries over to the other model.
const (
	Transfers       = "transfers"
	DoesNotTransfer = "does not transfer"
)

// Evidence is one number behind a verdict, with its 95% interval when it
// is estimated (exact values have none).
type Evidence struct {
	Name  string          `json:"name"`
	Value float64         `json:"value"`
	CI95  *stats.Interval `json:"ci95,omitempty"`
	Unit  string          `json:"unit,omitempty"`
}

func (e Evidence) String() string {
	s := fmt.Sprintf("%s = %s", e.Name, fmtG(e.Value))
	if e.CI95 != nil {
		s += fmt.Sprintf(" [%s, %s]", fmtG(e.CI95[0]), fmtG(e.CI95[1]))
	}
	if e.Unit != "" {
		s += " " + e.Unit
	}
	return s
}

func fmtG(x float64) string {
	switch {
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	case x == math.Trunc(x) && math.Abs(x) < 1e9:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.4g", x)
}

// Finding is a claim's verdict in one model.
type Finding struct {
	Model     string  `json:"model"`
	Scenario  string  `json:"scenario"` // the parameters it was evaluated at
	Verdict   Verdict `json:"verdict"`
	Condition string  `json:"condition,omitempty"`
	// Regime names where a verdict holds that is not conditional (a growth
	// claim's "for N ≥ …"), Note what qualifies it (where the source's
	// own numbers say otherwise).
	Regime   string     `json:"regime,omitempty"`
	Note     string     `json:"note,omitempty"`
	Evidence []Evidence `json:"evidence"`
	// Exponents are a growth claim's local exponents over every doubling.
	Exponents []LocalExponent `json:"local_exponents,omitempty"`
}

// Claim is one published statement and how herd checks it. Check is run
// once in Model, the model the claim was made in, and once in the other.
type Claim struct {
	ID     string // stable, cited in reviews and asserted by tests
	Origin string // "aws" or "seed"
	Source string // URL or seed file, and section
	Quote  string // the exact words, or a paraphrase (Paraphrase)
	// Paraphrase marks a quote that is not the source's exact words.
	Paraphrase bool
	Model      string // ModelOCC or ModelCapacity
	Check      string // what herd measures and the rule that decides
	// Key names the evidence that carries the verdict (a prefix of its
	// name, N=… included); empty: the first.
	Key   string
	check func(l *Lab, model string) Finding
}

// Result is a claim with its verdict in its own model and in the
// other. Verdict, Condition and Evidence are those of the claim's own
// model.
type Result struct {
	ID         string     `json:"id"`
	Origin     string     `json:"origin"`
	Source     string     `json:"source"`
	Quote      string     `json:"quote"`
	Paraphrase bool       `json:"paraphrase"`
	Model      string     `json:"model"`
	Parameters string     `json:"parameters"`
	Check      string     `json:"check"`
	Verdict    Verdict    `json:"verdict"`
	Condition  string     `json:"condition,omitempty"`
	Regime     string     `json:"regime,omitempty"`
	Evidence   []Evidence `json:"evidence"`
	// KeyEvidence is the number that carries the verdict, one of Evidence.
	KeyEvidence *Evidence `json:"key_evidence,omitempty"`
	// Exponents are a growth claim's local exponents in its own model.
	Exponents []LocalExponent `json:"local_exponents,omitempty"`
	Other     Finding         `json:"other_model"`
	Transfer  string          `json:"transfer"`
	// Note qualifies a verdict that is not conditional (a condition goes
	// with holds-only-when only).
	Note string `json:"note,omitempty"`
}

// Options sets the trial budget of Evaluate.
type Options struct {
	Trials  int    // trials per scenario; DefaultTrials when 0
	Seed    uint64 // seed of every run
	Workers int    // 0: one per CPU
	Origin  string // "aws", "seed", or "" for all
	// FreshScaling reruns the scaling study of the growth claims instead
	// of reading its committed run (RunScaling).
	FreshScaling bool
	// Scaling, when set, is the scaling study to judge the growth claims
	// on, already run (RunScaling).
	Scaling *Scaling
	// Progress, when set, is called after each claim with the number
	// done so far (claims run side by side; one call at a time).
	Progress func(done, total int)
}

// Validate checks the budget and the origin: a verdict needs an interval,
// so at least 2 trials per scenario (0 stands for DefaultTrials).
func (o Options) Validate() error {
	if o.Trials != 0 && o.Trials < 2 {
		return &model.FieldError{Flag: "trials", Valid: "≥ 2 for claims", Got: fmt.Sprint(o.Trials)}
	}
	switch o.Origin {
	case "", "aws", "seed", OriginControls, OriginContention:
	default:
		return fmt.Errorf("claim origin must be aws, seed, controls, contention or empty, got %q", o.Origin)
	}
	return nil
}

// Runs is how many claims Evaluate judges with o, and the trials per
// scenario it spends: the contention claims run their own budget.
func (o Options) Runs() (claims, trials int) {
	if o.Origin == OriginContention {
		return ContentionClaims(), ContentionTrials
	}
	if o.Trials == 0 {
		o.Trials = DefaultTrials
	}
	n := 0
	for _, c := range registry {
		if o.Origin == "" || c.Origin == o.Origin {
			n++
		}
	}
	return n, o.Trials
}

// JudgesScaling says whether Evaluate with o judges the growth claims,
// which need the scaling study (RunScaling).
func (o Options) JudgesScaling() bool { return o.Origin == "" || o.Origin == "aws" }

// DefaultTrials is the default budget: enough that every verdict
// except an inconclusive one is the same under any seed (claims_test.go).
const DefaultTrials = 1000

// All lists the registry, in the order of the report.
func All() []Claim { return append([]Claim(nil), registry...) }

// Evaluate runs every claim of the registry (or those of one origin)
// in its own model and in the other.
func Evaluate(ctx context.Context, o Options) ([]Result, error) {
	if o.Trials == 0 {
		o.Trials = DefaultTrials
	}
	if err := o.Validate(); err != nil {
		return nil, err
	}
	ctx = analysis.EnsureCache(ctx)
	if o.Origin == OriginContention {
		// Not part of the default run of every source: its batches up to
		// n = 16,384 take tens of seconds.
		return EvaluateContention(ctx, montecarlo.Options{Seed: o.Seed, Workers: o.Workers}, func(n int) {
			if o.Progress != nil {
				o.Progress(n, ContentionClaims())
			}
		})
	}
	opt := montecarlo.Options{Trials: o.Trials, Seed: o.Seed, Workers: o.Workers}
	scaling := &scalingRun{fresh: o.FreshScaling, s: o.Scaling}
	var todo []Claim
	for _, c := range registry {
		if o.Origin == "" || c.Origin == o.Origin {
			todo = append(todo, c)
		}
	}
	var checks []controlCheck
	if o.Origin == "" || o.Origin == OriginControls {
		checks = controlChecks
	}
	id := func(i int) string {
		if i < len(todo) {
			return todo[i].ID
		}
		return checks[i-len(todo)].id
	}
	// Every claim has its own Lab (its own escalation state) on the shared
	// cache, so the claims run side by side, in any order, and still give
	// the bytes of a run one after another.
	out := make([]Result, len(todo)+len(checks))
	total := len(out)
	order := startOrder(total, id)
	err := analysis.EachPoint(ctx, total, o.Workers, func(ctx context.Context, j int) (err error) {
		i := order[j]
		// The claim's CPU carries its ID in a profile (herd claims
		// --cpuprofile FILE; go tool pprof -tags FILE).
		pprof.Do(ctx, pprof.Labels("claim", id(i)), func(ctx context.Context) {
			if i < len(todo) {
				l := NewLab(ctx, opt)
				l.scaling = scaling
				out[i], err = l.Evaluate(todo[i])
				return
			}
			out[i], err = checks[i-len(todo)].run(ctx, montecarlo.Options{Trials: ControlTrials, Seed: o.Seed, Workers: o.Workers})
		})
		return err
	}, func(done int) {
		if o.Progress != nil {
			o.Progress(done, total)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// startFirst are the claims that cost most, most first: each took half a
// second of CPU or more in herd claims at the default budget (CPU per claim
// from herd claims --cpuprofile FILE, go tool pprof -tags FILE; a claim that computes a scenario others share is
// charged for it). They start before the others, so that no long claim
// starts last and leaves a core idle at the end. The order changes no
// result, only when each claim runs.
var startFirst = []string{
	"finagle-budget-bounds-retries", "seed-equal-widest-spread", "aws-expo-reduces-work-slightly",
	"controls-shrink-metastable-region", "retry-storm-outlives-trigger", "aws-decorrelated-more-calls",
	"seed-expo-13x-slower-at-200", "sre-adaptive-throttling-k-times-accepts", "grpc-throttling-sheds-retries-when-unhealthy",
}

// startOrder is the order in which Evaluate starts its n claims (id(i)
// names claim i of the report): those of startFirst in its order, then the
// others in the report's.
func startOrder(n int, id func(int) string) []int {
	rank := func(i int) int {
		if r := slices.Index(startFirst, id(i)); r >= 0 {
			return r
		}
		return len(startFirst)
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return rank(a) - rank(b) })
	return order
}

// Lab runs the simulations that claims need, once each: every scenario's
// trials are kept in the run's analysis.Cache, so claims that share a
// scenario share its trials, and comparisons between policies pair trial i
// with trial i (common random numbers, since the stream does not depend on
// the policy).
type Lab struct {
	ctx   context.Context
	opt   montecarlo.Options
	err   error
	scale int // multiplies the budget while an undecided point is rerun
	// scaling is the scaling study of the growth claims, run (or read)
	// once, when a claim first needs it.
	scaling *scalingRun
}

// NewLab prepares a lab that runs opt.Trials trials per scenario, sharing
// its results through the cache of ctx (analysis.EnsureCache).
func NewLab(ctx context.Context, opt montecarlo.Options) *Lab {
	ctx = analysis.EnsureCache(ctx)
	return &Lab{ctx: ctx, opt: opt, scaling: &scalingRun{}}
}

// Evaluate runs one claim in its own model and in the other.
func (l *Lab) Evaluate(c Claim) (Result, error) {
	own := c.check(l, c.Model)
	other := c.check(l, otherModel(c.Model))
	if l.err != nil {
		return Result{}, fmt.Errorf("claim %s: %w", c.ID, l.err)
	}
	r := Result{ID: c.ID, Origin: c.Origin, Source: c.Source, Quote: c.Quote, Paraphrase: c.Paraphrase, Model: c.Model,
		Parameters: own.Scenario, Check: c.Check, Verdict: own.Verdict, Condition: own.Condition, Regime: own.Regime,
		Evidence: own.Evidence, KeyEvidence: keyEvidence(own.Evidence, c.Key), Exponents: own.Exponents, Note: own.Note, Other: other, Transfer: DoesNotTransfer}
	if own.Verdict == other.Verdict && own.Verdict != Inconclusive {
		r.Transfer = Transfers
	}
	return r, nil
}

// keyEvidence is the first evidence whose name starts with key, or the
// first evidence when key is empty or names none.
func keyEvidence(ev []Evidence, key string) *Evidence {
	for i := range ev {
		if strings.HasPrefix(ev[i].Name, key) {
			return &ev[i]
		}
	}
	if len(ev) > 0 {
		return &ev[0]
	}
	return nil
}

func otherModel(m string) string {
	if m == ModelOCC {
		return ModelCapacity
	}
	return ModelOCC
}

// Scenario is the scenario of a model for n clients and a policy: the AWS
// blog's (base 5 ms, cap 2000 ms) for OCC, the seed article's (k = 10,
// base 1, cap 32, fixed delay 2 ticks) for capacity. Both take fixed delay
// = d₁ = 2·base.
func Scenario(m string, n int, kind policy.Kind) model.Scenario {
	if m == ModelOCC {
		return model.AWSScenario(n, kind)
	}
	return reproduce.SeedScenario(n, kind)
}

func describeModel(m string) string {
	if m == ModelOCC {
		return "OCC row, hops |Normal(10, 2)| ms, base 5 ms, cap 2000 ms, fixed 10 ms"
	}
	return "capacity server k = 10, base 1, cap 32, fixed 2 ticks, half-even rounding"
}

// outcomes are the trials of sc at the lab's budget (or trials, if > 0).
func (l *Lab) outcomes(sc model.Scenario, trials int) []analysis.Outcome {
	if trials <= 0 {
		trials = l.opt.Trials * max(1, l.scale)
	}
	if l.err != nil {
		return nil
	}
	opt := l.opt
	opt.Trials = trials
	r, err := analysis.Outcomes(l.ctx, sc, opt)
	if err != nil {
		l.err = err
		return nil
	}
	return r
}

// metric picks calls or completion from an Outcome.
type metric int

const (
	calls metric = iota
	completion
)

func (m metric) of(o analysis.Outcome) float64 {
	if m == calls {
		return o.Calls
	}
	return o.Completion
}

func (m metric) String() string { return [...]string{"calls", "completion"}[m] }

func (m metric) unit(sc model.Scenario) string {
	if m == calls {
		return ""
	}
	return sc.TimeUnit()
}

// mean is the mean of a metric over the finished trials of sc.
func (l *Lab) mean(sc model.Scenario, m metric) stats.Estimate {
	var mo stats.Moments
	for _, o := range l.outcomes(sc, 0) {
		if !o.Censored {
			mo.Add(m.of(o))
		}
	}
	return mo.Estimate()
}

// pairs are a metric of A and B over the trials where neither was
// censored, trial by trial.
func (l *Lab) pairs(a, b model.Scenario, m metric) (xa, xb []float64) {
	ra, rb := l.outcomes(a, 0), l.outcomes(b, 0)
	for i := range min(len(ra), len(rb)) {
		if !ra[i].Censored && !rb[i].Censored {
			xa, xb = append(xa, m.of(ra[i])), append(xb, m.of(rb[i]))
		}
	}
	return xa, xb
}

// contrast is the paired mean of A_i − r·B_i over trials where neither was
// censored. Its interval deciding the sign of mean(A) − r·mean(B) is
// Fieller's test of the ratio mean(A)/mean(B) against r; with r = 1 it is
// Compare's paired difference.
func (l *Lab) contrast(a, b model.Scenario, m metric, r float64) stats.Difference {
	if r == 1 {
		c := analysis.CompareOutcomes(a, b, l.outcomes(a, 0), l.outcomes(b, 0))
		if m == calls {
			return c.Calls
		}
		return c.Completion
	}
	xa, xb := l.pairs(a, b, m)
	return pairedContrast(xa, xb, r)
}

// pairedContrast is the mean of xa_i − r·xb_i with its interval.
func pairedContrast(xa, xb []float64, r float64) stats.Difference {
	var mo stats.Moments
	for i := range xa {
		mo.Add(xa[i] - r*xb[i])
	}
	return mo.Difference()
}

// ratio is mean(A)/mean(B) with a delta-method interval from the paired
// trials.
func (l *Lab) ratio(name string, a, b model.Scenario, m metric) Evidence {
	xa, xb := l.pairs(a, b, m)
	return pairedRatio(name, xa, xb)
}

// pairedRatio is mean(xa)/mean(xb) with a delta-method interval: the t
// interval of the mean of xa_i − r·xb_i, divided by mean(xb).
func pairedRatio(name string, xa, xb []float64) Evidence {
	var ma, mb stats.Moments
	for i := range xa {
		ma.Add(xa[i])
		mb.Add(xb[i])
	}
	ea, eb := ma.Estimate(), mb.Estimate()
	if eb.Mean == 0 {
		return Evidence{Name: name, Value: math.NaN()}
	}
	r := ea.Mean / eb.Mean
	le := pairedContrast(xa, xb, r).Estimate
	ev := Evidence{Name: name, Value: r}
	if le.N >= 2 {
		h := stats.TQuantile(le.N-1) * le.SD / math.Sqrt(float64(le.N)) / math.Abs(eb.Mean)
		ev.CI95 = &stats.Interval{r - h, r + h}
	}
	return ev
}

// DecisionLevel is the two-sided confidence level at which verdicts are
// decided. A registry run makes about a hundred comparisons, some of them
// between policies that are truly equal; at 95% a few of those would come
// out decisive by chance and flip between seeds, at 99.9% that is rare.
// Evidence is still shown with 95% intervals.
const DecisionLevel = 0.999

// decisionInterval widens an estimate's 95% interval to DecisionLevel.
func decisionInterval(e stats.Estimate) *stats.Interval {
	if e.CI95 == nil {
		return nil
	}
	if e.N < 2 || e.SD == 0 {
		return e.CI95
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(e.N - 1)}.Quantile(1 - (1-DecisionLevel)/2)
	h := q * e.SD / math.Sqrt(float64(e.N))
	return &stats.Interval{e.Mean - h, e.Mean + h}
}

// sign decides "the quantity is > 0" at DecisionLevel.
func sign(d stats.Difference) Verdict {
	iv := decisionInterval(d.Estimate)
	switch {
	case iv == nil:
		if d.Mean > 0 {
			return Holds
		}
		return Fails
	case iv[0] > 0:
		return Holds
	case iv[1] < 0:
		return Fails
	case d.SD == 0 && d.Mean == 0: // exactly zero in every trial
		return Fails
	}
	return Inconclusive
}

// widen rescales a normal 95% interval to DecisionLevel.
func widen(iv stats.Interval) stats.Interval {
	z95 := distuv.UnitNormal.Quantile(1 - (1-stats.Confidence)/2)
	z := distuv.UnitNormal.Quantile(1 - (1-DecisionLevel)/2)
	c, h := (iv[0]+iv[1])/2, (iv[1]-iv[0])/2*z/z95
	return stats.Interval{c - h, c + h}
}

// greater decides mean(A) > r·mean(B).
func (l *Lab) greater(a, b model.Scenario, m metric, r float64) Verdict {
	return sign(l.contrast(a, b, m, r))
}

// all combines verdicts that must all hold.
func all(vs ...Verdict) Verdict {
	out := Holds
	for _, v := range vs {
		switch v {
		case Fails:
			return Fails
		case Inconclusive:
			out = Inconclusive
		}
	}
	return out
}

func est(name string, e stats.Estimate, unit string) Evidence {
	return Evidence{Name: name, Value: e.Mean, CI95: e.CI95, Unit: unit}
}

// overClients evaluates a test at every client count of a grid and
// combines the verdicts. When the claim holds at one end of the grid and
// fails at the other, bisection over the client count between the two
// neighbouring grid points that disagree finds the crossover, and the
// verdict is HoldsOnlyWhen with the condition N ≥ x or N ≤ x.
func (l *Lab) overClients(m string, grid []int, test func(n int) (Verdict, []Evidence)) Finding {
	f := Finding{Model: m, Scenario: fmt.Sprintf("%s; N = %s", describeModel(m), joinInts(grid))}
	vs := make([]Verdict, len(grid))
	for i, n := range grid {
		var ev []Evidence
		vs[i], ev = l.decide(n, test)
		for _, e := range ev {
			e.Name = fmt.Sprintf("N=%d: %s", n, e.Name)
			f.Evidence = append(f.Evidence, e)
		}
	}
	var holds, fails, unsure []int
	for i, v := range vs {
		switch v {
		case Holds:
			holds = append(holds, grid[i])
		case Fails:
			fails = append(fails, grid[i])
		default:
			unsure = append(unsure, grid[i])
		}
	}
	switch {
	case len(holds) == len(grid):
		f.Verdict = Holds
	case len(fails) == len(grid):
		f.Verdict = Fails
	case len(holds) == 0 && len(fails) > 0:
		f.Verdict = Fails
		f.Condition = fmt.Sprintf("fails at N = %s; undecided at N = %s", joinInts(fails), joinInts(unsure))
	case len(holds) == 0:
		f.Verdict = Inconclusive
	case len(fails) == 0:
		f.Verdict = HoldsOnlyWhen
		f.Condition = fmt.Sprintf("N ∈ {%s} (undecided at N = %s)", joinInts(holds), joinInts(unsure))
	default:
		f.Verdict = HoldsOnlyWhen
		f.Condition = l.crossover(grid, vs, test)
	}
	return f
}

// Escalation is how an undecided grid point is rerun: with 4 times the
// trials, so that a real but small effect is resolved rather than left to
// the luck of the seed. A point still undecided then is reported as
// undecided. Bisection steps are not escalated: an undecided step ends the
// bisection and the crossover is reported as an interval.
var escalation = []int{4}

// decide runs test at n, and reruns it with a larger budget while it is
// inconclusive.
func (l *Lab) decide(n int, test func(n int) (Verdict, []Evidence)) (Verdict, []Evidence) {
	v, ev := test(n)
	for _, s := range escalation {
		if v != Inconclusive || l.err != nil {
			break
		}
		l.scale = s
		v, ev = test(n)
		l.scale = 1
	}
	return v, ev
}

// crossover bisects between the grid points where the verdict switches
// once between Holds and Fails, or lists where it holds when it switches
// more often.
func (l *Lab) crossover(grid []int, vs []Verdict, test func(n int) (Verdict, []Evidence)) string {
	var holds []int
	switches, at := 0, -1
	for i := range grid {
		if vs[i] == Holds {
			holds = append(holds, grid[i])
		}
		if i > 0 && vs[i] != vs[i-1] {
			switches++
			at = i
		}
	}
	if switches != 1 {
		return fmt.Sprintf("N ∈ {%s} of the grid", joinInts(holds))
	}
	lo, hi := grid[at-1], grid[at]
	vlo, vhi := vs[at-1], vs[at]
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		v, _ := test(mid)
		if v == vlo {
			lo = mid
		} else if v == vhi {
			hi = mid
		} else {
			break // undecided at mid: the crossover lies somewhere in [lo, hi]
		}
	}
	exact := hi-lo == 1
	if vhi == Holds {
		if exact {
			return fmt.Sprintf("N ≥ %d (bisection: fails at N = %d)", hi, lo)
		}
		return fmt.Sprintf("N ≥ %d; fails at N ≤ %d; inconclusive in between", hi, lo)
	}
	if exact {
		return fmt.Sprintf("N ≤ %d (bisection: fails at N = %d)", lo, hi)
	}
	return fmt.Sprintf("N ≤ %d; fails at N ≥ %d; inconclusive in between", lo, hi)
}

func joinInts(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// burstiness is how one trial's calls spread in time over the whole run
// after the first attempts: equal bins from the end of the initial spike to
// the last call.
type burstiness struct {
	empty      float64 // share of bins with no call
	dispersion float64 // variance / mean of the calls per bin (1 for a Poisson stream)
	// variation is the relative variation of the rate across bins net of
	// Poisson noise: √max(0, variance − mean)/mean of the calls per bin (0
	// for a Poisson stream of constant rate, c for a rate whose relative
	// standard deviation over the bins is c).
	variation float64
}

// burstBin is the bin width: 100 ms for OCC (the blog's time series), one
// tick for the capacity server. The spike ends at 100 ms or after tick 0.
func burstBin(sc model.Scenario) (start, width float64) {
	if sc.Continuous() {
		return 100, 100
	}
	return 1, 1
}

func (l *Lab) burstiness(sc model.Scenario) []burstiness {
	if l.err != nil {
		return nil
	}
	opt := l.opt
	opt.Trials = l.opt.Trials * max(1, l.scale)
	opt.Arrivals = true
	out, err := analysis.Cached(l.ctx, "claims/burstiness", sc, opt, func() ([]burstiness, error) {
		return runBurstiness(l.ctx, sc, opt)
	})
	if err != nil {
		l.err = err
		return nil
	}
	return out
}

// runBurstiness plays sc with opt (arrivals recorded) and measures each
// trial's burstiness.
func runBurstiness(ctx context.Context, sc model.Scenario, opt montecarlo.Options) ([]burstiness, error) {
	start, width := burstBin(sc)
	var out []burstiness
	err := montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		times := t.CallTimes
		if !t.Continuous {
			times = times[:0:0]
			for tick, a := range t.Arrivals {
				for range a {
					times = append(times, float64(tick))
				}
			}
		}
		if len(times) == 0 {
			return nil
		}
		end := slices.Max(times)
		if end < start {
			out = append(out, burstiness{})
			return nil
		}
		counts := make([]float64, int((end-start)/width)+1)
		for _, x := range times {
			if x >= start {
				counts[int((x-start)/width)]++
			}
		}
		out = append(out, burstOf(counts))
		return nil
	})
	return out, err
}

func burstOf(counts []float64) burstiness {
	var b burstiness
	var mo stats.Moments
	for _, c := range counts {
		mo.Add(c)
		if c == 0 {
			b.empty++
		}
	}
	b.empty /= float64(len(counts))
	if e := mo.Estimate(); len(counts) > 1 && e.Mean > 0 {
		v := e.SD * e.SD
		b.dispersion = v / e.Mean
		b.variation = math.Sqrt(math.Max(0, v-e.Mean)) / e.Mean
	}
	return b
}

// burstMean is the mean over trials of one burstiness measure.
func (l *Lab) burstMean(sc model.Scenario, pick func(burstiness) float64) stats.Estimate {
	var mo stats.Moments
	for _, b := range l.burstiness(sc) {
		mo.Add(pick(b))
	}
	return mo.Estimate()
}

// burstPairs are a burstiness measure of A and B, trial by trial.
func (l *Lab) burstPairs(a, b model.Scenario, pick func(burstiness) float64) (xa, xb []float64) {
	ba, bb := l.burstiness(a), l.burstiness(b)
	for i := range min(len(ba), len(bb)) {
		xa, xb = append(xa, pick(ba[i])), append(xb, pick(bb[i]))
	}
	return xa, xb
}

// burstContrast is the paired difference A − B of a burstiness measure.
func (l *Lab) burstContrast(a, b model.Scenario, pick func(burstiness) float64) stats.Difference {
	xa, xb := l.burstPairs(a, b, pick)
	return pairedContrast(xa, xb, 1)
}

// burstRatio is mean(A)/mean(B) of a burstiness measure, paired.
func (l *Lab) burstRatio(name string, a, b model.Scenario, pick func(burstiness) float64) Evidence {
	xa, xb := l.burstPairs(a, b, pick)
	return pairedRatio(name, xa, xb)
}

// burstWithin decides lo < mean(A)/mean(B) < hi for a burstiness measure.
func (l *Lab) burstWithin(a, b model.Scenario, pick func(burstiness) float64, lo, hi float64) Verdict {
	xa, xb := l.burstPairs(a, b, pick)
	return all(sign(pairedContrast(xa, xb, lo)), sign(pairedContrast(xb, xa, 1/hi)))
}

// spreadContrast is the paired estimate of var(A) − var(B) of a metric:
// the mean over trials of (A_i − Ā)² − (B_i − B̄)², whose t interval
// accounts for the correlation common random numbers create.
func (l *Lab) spreadContrast(a, b model.Scenario, m metric) stats.Difference {
	ra, rb := l.outcomes(a, 0), l.outcomes(b, 0)
	ea, eb := l.mean(a, m), l.mean(b, m)
	var mo stats.Moments
	for i := range min(len(ra), len(rb)) {
		if !ra[i].Censored && !rb[i].Censored {
			da, db := m.of(ra[i])-ea.Mean, m.of(rb[i])-eb.Mean
			mo.Add(da*da - db*db)
		}
	}
	return mo.Difference()
}

// censoredShare is the share of censored trials with its exact
// Clopper–Pearson interval.
func (l *Lab) censoredShare(sc model.Scenario, trials int) Evidence {
	r := l.outcomes(sc, trials)
	k := 0
	for _, o := range r {
		if o.Censored {
			k++
		}
	}
	sh := stats.NewShare(k, len(r))
	return Evidence{Name: "share of trials still unfinished at the horizon", Value: sh.Value, CI95: &sh.CI95}
}
