package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"math"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// CheckVerdict is what Validate concludes of one Check.
type CheckVerdict string

// The verdicts of a Check.
const (
	Pass CheckVerdict = "pass"
	Fail CheckVerdict = "fail"
	Info CheckVerdict = "info" // reported, not judged (a mean field outside its region)
)

// Methods of the analytical models, as herd model --method spells them.
const (
	MethodClosed    = solve.MethodClosed
	MethodMarkov    = solve.MethodMarkov
	MethodMeanField = solve.MethodMeanField
	MethodChain     = solve.MethodChain
)

// Check is one comparison of a model with Monte Carlo.
type Check struct {
	Method   string         `json:"method"`
	Scenario model.Scenario `json:"scenario"`
	// Run is a service-chain check's run in words.
	Run      string `json:"service_run,omitempty"`
	Quantity string `json:"quantity"` // calls, completion, completion distribution, latency distribution, calls error shrinks
	// Model is the model's value (NaN where the quantity is a law).
	Model      Number          `json:"model"`
	MonteCarlo *stats.Estimate `json:"monte_carlo,omitempty"`
	// Z is the discrepancy in standard errors of the Monte Carlo mean
	// (Markov); RelErr is model/MC − 1 (mean field); ChiSquare, DF and P
	// are the goodness-of-fit test of the completion distribution.
	Z      Number  `json:"z,omitempty"`
	RelErr float64 `json:"rel_err,omitempty"`
	// RelErrCI is the interval of the relative error at MeanFieldLevel,
	// and Bound the ±bound it must lie within (mean field on its region).
	RelErrCI  *stats.Interval `json:"rel_err_ci,omitempty"`
	Bound     float64         `json:"bound,omitempty"`
	ChiSquare Number          `json:"chi_square,omitempty"`
	DF        int             `json:"df,omitempty"`
	P         float64         `json:"p,omitempty"`
	Verdict   CheckVerdict    `json:"verdict"`
	Detail    string          `json:"detail"`
}

// Number is a float64 written to JSON as null when it is not finite (a
// law has no single model value; a certain value that Monte Carlo misses
// is infinitely many standard errors away).
type Number float64

// MarshalJSON writes null for NaN and ±Inf, which JSON cannot carry.
func (x Number) MarshalJSON() ([]byte, error) {
	f := float64(x)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return json.Marshal(f)
}

// ValidationCase is one scenario of the grid and the model it checks.
type ValidationCase struct {
	Method   string
	Scenario model.Scenario
	Trials   int
	// Series groups mean-field cases of one convergence study (same policy,
	// fixed N/k, growing N); its calls error must shrink.
	Series string
	// Traffic, when set, makes a queue-chain case open-loop traffic under
	// the Controls (queue_validate.go).
	Traffic  *model.Traffic
	Controls control.Controls
	// Service, when set, is a service-chain case's run (its Scenario is
	// then unused).
	Service *service.Run
}

// ValidateOptions say how to run a validation.
type ValidateOptions struct {
	Seed    uint64
	Workers int
	// Level is the family-wise confidence of the statistical checks,
	// split over them by Bonferroni. 0 means 0.999.
	Level float64
	// Perturb, when set, changes the scenario the models see (never the
	// one simulated): a deliberately wrong model, to show that the checks
	// fail.
	Perturb func(model.Scenario) model.Scenario
	// PlantMeanField, when set, alters each mean-field result before it
	// is judged (a planted error, e.g. completion × 1.03), to show that
	// the mean field's checks fail.
	PlantMeanField func(*solve.MeanField)
	// PerturbService, when set, changes the service run the chain sees.
	PerturbService func(service.Run) service.Run
	// Progress is called after each case.
	Progress func(done, total int)
}

// Validation is the outcome of a grid.
type Validation struct {
	Checks []Check `json:"checks"`
	Failed int     `json:"failed"`
	// Statistical is the number of statistical checks the family-wise
	// level is split over, and Critical the |z| they must stay within.
	Statistical int     `json:"statistical"`
	Level       float64 `json:"level"`
	Critical    float64 `json:"critical_z"`
}

func scenario(n, k int, server model.Server, kind policy.Kind, base, cap float64, r policy.Rounding) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server, sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap, sc.Rounding = n, k, server, kind, base, cap, r
	return sc
}

// DefaultValidationGrid is herd validate's grid: the closed form on the
// seed's rows without jitter and on odd bases, roundings and ties; the
// exact chain on small cohorts of every n-dependent policy on both
// servers; the mean field on MeanFieldGrid.
func DefaultValidationGrid() []ValidationCase {
	var g []ValidationCase
	cap, col := model.Capacity, model.Collision
	closed := func(sc model.Scenario) { g = append(g, ValidationCase{Method: MethodClosed, Scenario: sc, Trials: 20}) }
	for _, n := range []int{50, 100, 200} { // the seed article's scenarios
		for _, kind := range []policy.Kind{policy.Fixed, policy.Expo} {
			sc := model.Default()
			sc.Clients, sc.Policy.Kind = n, kind
			closed(sc)
		}
	}
	closed(scenario(30, 7, cap, policy.None, 1, 32, policy.HalfUp))
	closed(scenario(37, 4, cap, policy.Expo, 0.75, 10, policy.Ceil))
	fixedTie := scenario(23, 3, cap, policy.Fixed, 1, 32, policy.HalfEven)
	fixedTie.Policy.FixedDelay = 2.5 // a tie: half-even waits 2 ticks
	closed(fixedTie)
	closed(scenario(8, 8, col, policy.Expo, 1, 32, policy.HalfEven))
	for _, sc := range windowClosedScenarios() {
		closed(sc)
	}

	markov := func(sc model.Scenario) {
		g = append(g, ValidationCase{Method: MethodMarkov, Scenario: sc, Trials: 100_000})
	}
	markov(scenario(8, 2, cap, policy.Full, 1, 32, policy.HalfEven))
	markov(scenario(10, 3, cap, policy.Full, 1, 32, policy.Ceil))
	markov(scenario(6, 2, cap, policy.Equal, 1, 16, policy.HalfEven))
	markov(scenario(9, 3, cap, policy.Equal, 1.5, 20, policy.HalfUp))
	markov(scenario(6, 1, cap, policy.Expo, 1, 16, policy.Floor))
	markov(scenario(7, 2, cap, policy.Fixed, 1, 32, policy.HalfEven))
	markov(scenario(5, 2, cap, policy.None, 1, 32, policy.HalfEven))
	markov(scenario(4, 1, col, policy.Full, 1, 8, policy.HalfEven))
	markov(scenario(4, 2, col, policy.Equal, 1, 16, policy.HalfEven))
	markov(scenario(3, 3, col, policy.Fixed, 1, 32, policy.HalfEven))
	window := scenario(5, 1, cap, policy.Full, 1, 8, policy.HalfEven)
	window.FirstWindow = 3
	markov(window)

	g = append(g, MeanFieldGrid()...)
	g = append(g, queueValidationGrid()...)
	return append(g, serviceValidationGrid()...)
}

// Validate runs every case through its model and Monte Carlo and judges
// each check: the closed form must equal every trial; the chain's exact
// means must lie within the Bonferroni-corrected interval of the Monte
// Carlo means and its completion law must pass a chi-square test at the
// same level; on MeanFieldRegion the mean field's calls and completion
// must be within their bounds (see validateMeanField) and its completion
// error must shrink along each series.
func Validate(ctx context.Context, grid []ValidationCase, opt ValidateOptions) (Validation, error) {
	if opt.Level == 0 {
		opt.Level = 0.999
	}
	v := Validation{Level: opt.Level}
	for _, c := range grid {
		switch c.Method {
		case MethodMarkov:
			v.Statistical += 3
		case MethodChain:
			v.Statistical += chainChecks(c)
		case MethodServiceChain:
			v.Statistical += serviceChainChecks
		}
	}
	series := map[string]bool{}
	for _, c := range grid {
		if c.Series != "" && !series[c.Series] {
			series[c.Series] = true
			v.Statistical++
		}
	}
	alpha := (1 - opt.Level) / float64(max(1, v.Statistical))
	v.Critical = distuv.UnitNormal.Quantile(1 - alpha/2)
	seriesRows := map[string][]Check{}
	var order []string
	for i, c := range grid {
		msc := c.Scenario
		if opt.Perturb != nil {
			msc = opt.Perturb(msc)
		}
		mopt := montecarlo.Options{Trials: c.Trials, Seed: opt.Seed, Workers: opt.Workers}
		var checks []Check
		var err error
		switch c.Method {
		case MethodClosed:
			checks, err = validateClosed(ctx, c.Scenario, msc, mopt)
		case MethodMarkov:
			checks, err = validateMarkov(ctx, c.Scenario, msc, mopt, v.Critical, alpha)
		case MethodChain:
			checks, err = validateChain(ctx, c, msc, mopt, v.Critical, alpha)
		case MethodServiceChain:
			checks, err = validateServiceChain(ctx, c, opt.PerturbService, opt.Seed, opt.Workers, v.Critical)
		case MethodMeanField:
			checks, err = validateMeanField(ctx, c, msc, mopt, opt.PlantMeanField)
			// A row the mean field could not answer (the model refused the
			// scenario) has no error to follow along the series.
			if err == nil && c.Series != "" && checks[len(checks)-1].MonteCarlo != nil {
				if _, ok := seriesRows[c.Series]; !ok {
					order = append(order, c.Series)
				}
				seriesRows[c.Series] = append(seriesRows[c.Series], checks[len(checks)-1])
			}
		default:
			err = fmt.Errorf("unknown method %q", c.Method)
		}
		if err != nil {
			return v, fmt.Errorf("%s on %+v: %w", c.Method, c.Scenario, err)
		}
		v.Checks = append(v.Checks, checks...)
		if opt.Progress != nil {
			opt.Progress(i+1, len(grid))
		}
	}
	for _, name := range order {
		if len(seriesRows[name]) > 1 {
			v.Checks = append(v.Checks, shrinks(name, seriesRows[name], v.Critical))
		}
	}
	for _, c := range v.Checks {
		if c.Verdict == Fail {
			v.Failed++
		}
	}
	return v, nil
}

// notApplicable is the row of a model that refuses a scenario: a failure,
// since the grid only holds scenarios the model should answer.
func notApplicable(method string, sc model.Scenario, err error) Check {
	return Check{Method: method, Scenario: sc, Quantity: "—", Model: Number(math.NaN()), Verdict: Fail, Detail: err.Error()}
}

// validateClosed compares the closed form with every trial: calls,
// completion and the latency histogram must be equal, trial by trial.
func validateClosed(ctx context.Context, sc, msc model.Scenario, opt montecarlo.Options) ([]Check, error) {
	if sc.InContinuousTime() {
		return validateWindowClosed(ctx, sc, msc, opt)
	}
	c, err := solve.ClosedForm(msc)
	if err != nil {
		return []Check{notApplicable(MethodClosed, sc, err)}, nil
	}
	latency := map[int64]int64{}
	for _, w := range c.Waves {
		latency[w.Tick+1] += w.Served
	}
	var calls, completion stats.Moments
	badLatency, censored := 0, 0
	err = montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		if t.Censored {
			censored++
			return nil
		}
		calls.Add(float64(t.Calls))
		completion.Add(float64(t.Completion))
		var served int64
		same := true
		for _, r := range t.Latency.Runs() {
			served += r.Count
			same = same && r.Count == latency[r.Value]
		}
		if !same || served != int64(sc.Clients) {
			badLatency++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	exact := func(q string, model float64, m *stats.Moments) Check {
		e := m.Estimate()
		ch := Check{Method: MethodClosed, Scenario: sc, Quantity: q, Model: Number(model), MonteCarlo: &e, Verdict: Pass}
		bad := 0
		if e.N != opt.Trials {
			bad = opt.Trials - e.N
		}
		if e.SD != 0 || e.Mean != model || bad > 0 {
			ch.Verdict = Fail
			ch.Detail = fmt.Sprintf("trials differ from the exact value (sd %g, %d censored)", e.SD, censored)
		} else {
			ch.Detail = fmt.Sprintf("all %d trials equal", e.N)
		}
		return ch
	}
	lat := Check{Method: MethodClosed, Scenario: sc, Quantity: "latency distribution", Model: Number(math.NaN()), Verdict: Pass,
		Detail: fmt.Sprintf("all %d trials have the closed form's %d waves of latencies", opt.Trials, len(c.Waves))}
	if badLatency > 0 || censored > 0 {
		lat.Verdict = Fail
		lat.Detail = fmt.Sprintf("%d of %d trials have another latency distribution", badLatency+censored, opt.Trials)
	}
	return []Check{exact("calls", float64(c.Calls), &calls), exact("completion", float64(c.Completion), &completion), lat}, nil
}

// exactMean compares a model's exact mean with the Monte Carlo mean in
// units of the exact standard error σ/√n; a certain value (σ = 0) that
// Monte Carlo misses is infinitely many standard errors away.
func exactMean(method string, sc model.Scenario, q string, exact solve.Moment, mc *stats.Moments, critical float64, note string) Check {
	e := mc.Estimate()
	ch := Check{Method: method, Scenario: sc, Quantity: q, Model: Number(exact.Mean), MonteCarlo: &e}
	se := exact.SD / math.Sqrt(float64(e.N))
	d := e.Mean - exact.Mean
	switch {
	case se > 0:
		ch.Z = Number(d / se)
	case math.Abs(d) > 1e-9*math.Max(1, math.Abs(exact.Mean)) || e.SD != 0:
		ch.Z = Number(math.Inf(int(math.Copysign(1, d))))
	}
	z := math.Abs(float64(ch.Z))
	ch.Verdict = Pass
	if z > critical {
		ch.Verdict = Fail
	}
	ch.Detail = fmt.Sprintf("|z| = %.2f (limit %.2f), exact sd %.4g, %s", z, critical, exact.SD, note)
	return ch
}

// chiSquareCheck is the goodness-of-fit check of a Monte Carlo histogram
// against a model's law, at the family-wise level's Bonferroni share.
func chiSquareCheck(method string, sc model.Scenario, q string, hist []int64, law []float64, total, alpha float64) Check {
	fit := stats.ChiSquare(hist, law, total)
	gof := Check{Method: method, Scenario: sc, Quantity: q, Model: Number(math.NaN()), ChiSquare: Number(fit.ChiSquare), DF: fit.DF, P: fit.P}
	gof.Verdict = Pass
	if gof.P < alpha {
		gof.Verdict = Fail
	}
	gof.Detail = fmt.Sprintf("χ² = %.2f, df %d, p = %.3g (limit %.2g)", fit.ChiSquare, fit.DF, gof.P, alpha)
	return gof
}

// validateMarkov compares the chain's exact means with the Monte Carlo
// means in units of the exact standard error σ/√n, and the chain's law of
// completion with the Monte Carlo histogram by a chi-square test (bins
// pooled until each expects at least 5 trials).
func validateMarkov(ctx context.Context, sc, msc model.Scenario, opt montecarlo.Options, critical, alpha float64) ([]Check, error) {
	m, err := solve.MarkovChain(msc, solve.MarkovOptions{Tail: 1e-13})
	if err != nil {
		return []Check{notApplicable(MethodMarkov, sc, err)}, nil
	}
	var calls, completion stats.Moments
	var hist []int64
	censored := 0
	err = montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		if t.Censored {
			censored++
			return nil
		}
		calls.Add(float64(t.Calls))
		completion.Add(float64(t.Completion))
		for int64(len(hist)) <= t.Completion {
			hist = append(hist, 0)
		}
		hist[t.Completion]++
		return nil
	})
	if err != nil {
		return nil, err
	}
	mean := func(q string, exact solve.Moment, mc *stats.Moments) Check {
		return exactMean(MethodMarkov, sc, q, exact, mc, critical, fmt.Sprintf("%d states", m.States))
	}
	checks := []Check{mean("calls", m.Calls, &calls), mean("completion", m.Completion, &completion)}
	gof := chiSquareCheck(MethodMarkov, sc, "completion distribution", hist, m.Distribution, m.Finished(), alpha)
	if censored > 0 || m.Unfinished > 1e-9 {
		gof.Detail += fmt.Sprintf("; %d censored trials, chain unfinished mass %.2g", censored, m.Unfinished)
	}
	return append(checks, gof), nil
}

// shrinks judges a convergence series: the completion error at the
// largest N must be smaller than at the smallest, beyond both
// uncertainties (Bonferroni, as the other statistical checks). A mean
// field's error comes from fluctuations that shrink relative to the means
// as N grows; its calls are within noise of Monte Carlo even at N = 10, so
// the series is judged on completion.
func shrinks(name string, rows []Check, critical float64) Check {
	first, last := rows[0], rows[len(rows)-1]
	se := func(c Check) float64 { return critical * c.MonteCarlo.SE() / c.MonteCarlo.Mean }
	ch := Check{Method: MethodMeanField, Scenario: last.Scenario, Quantity: "completion error shrinks (" + name + ")", Model: Number(math.NaN()), Verdict: Pass}
	detail := "|rel err| by N:"
	for _, r := range rows {
		detail += fmt.Sprintf(" %d: %.3f%%", r.Scenario.Clients, 100*math.Abs(r.RelErr))
	}
	ch.Detail = detail
	if math.Abs(last.RelErr)+se(last) >= math.Abs(first.RelErr)-se(first) {
		ch.Verdict = Fail
	}
	return ch
}

// PerturbDelays returns a perturbation for ValidateOptions.Perturb that
// stretches every delay law by factor: base, cap and the fixed delay are
// multiplied by it. A factor other than 1 is a deliberately wrong model.
// Planted are the deliberate errors validation can be run with, to show
// that its checks fail: the models' delay laws stretched by Delays, the
// mean field's completion multiplied by Completion (1: neither), and the
// queue chain's timeout and queue limit lengthened by Queue ticks and
// requests (0: not).
type Planted struct {
	Delays, Completion float64
	Queue              int
	// Service slows the service chain's service by this factor (1: not).
	Service float64
}

// MaxPlantedStretch bounds Planted.Delays: a wrong model needs a small
// stretch, and a large one would make the exact models' delays, and so
// their states, grow without need.
const MaxPlantedStretch = 4

// Plant puts the planted errors into o, after checking their ranges.
func (p Planted) Plant(o *ValidateOptions) error {
	switch {
	case !(p.Delays > 0) || p.Delays > MaxPlantedStretch:
		return model.Usagef("--perturb-delays must be a number in (0, %g], got %g", float64(MaxPlantedStretch), p.Delays)
	case !(p.Completion > 0) || math.IsInf(p.Completion, 0):
		return model.Usagef("--plant-completion must be a number > 0, got %g", p.Completion)
	case p.Queue < 0 || p.Queue > 1000:
		return model.Usagef("--perturb-queue must be an integer in [0, 1000], got %d", p.Queue)
	case p.Service != 0 && (!(p.Service > 0) || p.Service > 1000):
		return model.Usagef("--perturb-service must be a number in (0, 1000], got %g", p.Service)
	}
	if p.Service != 0 && p.Service != 1 {
		o.PerturbService = PerturbService(p.Service)
	}
	if p.Delays != 1 {
		o.Perturb = PerturbDelays(p.Delays)
	}
	if c := p.Completion; c != 1 {
		o.PlantMeanField = func(m *solve.MeanField) { m.Completion *= c }
	}
	if d := p.Queue; d > 0 {
		delays := o.Perturb
		o.Perturb = func(sc model.Scenario) model.Scenario {
			if delays != nil {
				sc = delays(sc)
			}
			return PerturbQueue(d)(sc)
		}
	}
	return nil
}

func PerturbDelays(factor float64) func(model.Scenario) model.Scenario {
	return func(sc model.Scenario) model.Scenario {
		sc.Policy.Base *= factor
		sc.Policy.Cap *= factor
		sc.Policy.FixedDelay *= factor
		return sc
	}
}
