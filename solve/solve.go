package solve

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
)

// Options bound the work of the analytical models Solve dispatches to;
// both must be ≥ 1 (DefaultSolveOptions gives herd model's defaults).
type Options struct {
	// MaxStates is the exact chain's most states at one tick (markov).
	MaxStates int
	// Grid is the mean field's number of previous-delay cells for
	// decorrelated (meanfield), at most MaxGrid; 0 chooses it from
	// DefaultGridTolerance (see MeanFieldOptions).
	Grid int
	// The queue chain's (chain): open-loop traffic (nil: the cohort), the
	// controls, its bounds (MaxStates is the field above), and a context
	// that ends a long chain (nil: none).
	Traffic  *model.Traffic
	Controls control.Controls
	Chain    QueueChainOptions
	Context  context.Context
}

// DefaultSolveOptions are DefaultMaxStates and a grid chosen from the
// tolerance.
func DefaultSolveOptions() Options {
	return Options{MaxStates: DefaultMaxStates}
}

// MaxGrid bounds Options.Grid: beyond it a decorrelated mean field
// costs minutes and gains nothing the validation can see.
const MaxGrid = 100_000

// Solution is one analytical model's answer for a scenario: the mean calls
// and completion, their standard deviations where the model knows them
// (KnowsSD: the closed form, whose values are certain, and the exact
// chain), and the model's own result.
type Solution struct {
	Method            string
	Calls, Completion Moment
	KnowsSD           bool
	Closed            *Closed
	Markov            *Markov
	MeanField         *MeanField
	Chain             *QueueChain
}

// solvers are the analytical models by method name, in the order Methods
// lists them.
var solvers = []struct {
	method string
	about  string // what the model answers and when, for herd model's help
	solve  func(model.Scenario, Options) (Solution, error)
}{
	{MethodClosed, "exact, for a synchronized cohort whose waits are certain (none, fixed, expo): the waves, calls = R·N − k·R(R−1)/2, completion and the latency distribution. Refuses random waits and the collision server with N > k (no one is ever served).", func(sc model.Scenario, _ Options) (Solution, error) {
		r, err := ClosedForm(sc)
		if err != nil {
			return Solution{}, err
		}
		return Solution{Calls: Moment{Mean: float64(r.Calls)}, Completion: Moment{Mean: float64(r.Completion)}, KnowsSD: true, Closed: &r}, nil
	}},
	{MethodMarkov, "exact, for small cohorts (N up to about 10): propagates the probability of every state; gives the mean and sd of calls and completion and the whole law of completion. Refuses decorrelated and state spaces beyond --max-states.", func(sc model.Scenario, o Options) (Solution, error) {
		r, err := MarkovChain(sc, MarkovOptions{MaxStates: o.MaxStates, Context: o.Context})
		if err != nil {
			return Solution{}, err
		}
		return Solution{Calls: r.Calls, Completion: r.Completion, KnowsSD: true, Markov: &r}, nil
	}},
	{MethodMeanField, "approximate, for large cohorts: expected calls, expected arrivals per tick and the law of completion, from the fluctuations of the arrivals around their means (the last clients' number is itself random). herd validate holds it to 0.5% (calls) and 2% (completion) of Monte Carlo for full, equal and decorrelated at N = 1,000…100,000, N/k = 3…100.", func(sc model.Scenario, o Options) (Solution, error) {
		r, err := MeanFieldModel(sc, MeanFieldOptions{Grid: o.Grid, Context: o.Context})
		if err != nil {
			return Solution{}, err
		}
		return Solution{Calls: Moment{Mean: r.Calls}, Completion: Moment{Mean: r.Completion}, MeanField: &r}, nil
	}},
	{MethodChain, "exact, for small systems on the queue server (--server queue): a cohort, or open-loop traffic with an outage (--rate, --outage, --ticks). Propagates the law of (abandoned requests at the queue's head, live queued requests by age and retry class, requests in backoff by ticks until they send and retry class): moments of calls, useful and wasted work, timeouts and rejections, the law of completion, the queue's expected length per tick, the probability of recovering within the horizon after the outage and the recovery time, and the stationary goodput when there is no outage. Of the controls only --max-attempts applies. Open-loop paths whose backlog passes --max-backlog or whose queue passes --max-queue leave the chain as overflowed (reported); the Poisson tail and states below 1e-9 are cut (reported).", func(sc model.Scenario, o Options) (Solution, error) {
		ctx := o.Context
		if ctx == nil {
			ctx = context.Background()
		}
		co := o.Chain
		co.MaxStates = o.MaxStates
		r, err := QueueChainOf(ctx, sc, o.Traffic, o.Controls, co)
		if err != nil {
			return Solution{}, err
		}
		return Solution{Calls: r.Calls, Completion: r.Completion, KnowsSD: true, Chain: &r}, nil
	}},
}

// MethodsHelp is each method's name with what it answers and when.
func MethodsHelp() [][2]string {
	h := make([][2]string, len(solvers))
	for i, s := range solvers {
		h[i] = [2]string{s.method, s.about}
	}
	return h
}

// Methods names the analytical models, as herd model --method spells them.
func Methods() []string {
	m := make([]string, len(solvers))
	for i, s := range solvers {
		m[i] = s.method
	}
	return m
}

// Take puts the run a user asked for into the options of method: the
// queue chain takes open-loop traffic (mode OpenRun), controls and its
// bounds (the Tail is DefaultChainTail); every other model follows a
// cohort without controls, and is refused them, and the chain's bounds
// (given says which flags were given), with a model.UsageError.
func (o *Options) Take(method string, mode model.RunMode, tr model.Traffic, ctl control.Controls, bounds QueueChainOptions, given func(string) bool) error {
	if method != MethodChain {
		for _, n := range []string{"max-backlog", "max-queue"} {
			if given(n) {
				return model.Usagef("--%s needs --method chain", n)
			}
		}
		if mode == model.OpenRun {
			return model.Usagef("--rate: open-loop traffic needs --method chain (the other models follow a cohort without controls)")
		}
		if mode != model.CohortRun {
			return model.Usagef("--loop closed needs --method chain (the other models follow a cohort without controls)")
		}
		if ctl.Active() {
			return model.Usagef("%s: retry controls need --method chain (the other models follow a cohort without controls)", ctl.Flags())
		}
		return nil
	}
	if mode == model.ClosedRun {
		return model.Usagef("--loop closed: the chain follows a cohort or open-loop traffic (--rate)")
	}
	if mode == model.OpenRun {
		o.Traffic = &tr
	}
	o.Controls = ctl
	o.Chain = QueueChainOptions{MaxBacklog: bounds.MaxBacklog, MaxQueue: bounds.MaxQueue, Tail: DefaultChainTail}
	return nil
}

// DefaultChainTail is the probability of the Poisson tail the queue
// chain cuts at each tick.
const DefaultChainTail = 1e-12

// CheckMethod checks the options' ranges and that method names a model,
// returning a *FieldError naming the flag.
func CheckMethod(method string, opt Options) error {
	if opt.MaxStates < 1 {
		return &model.FieldError{Flag: "max-states", Valid: "an integer ≥ 1", Got: fmt.Sprint(opt.MaxStates)}
	}
	if b, q := opt.Chain.MaxBacklog, opt.Chain.MaxQueue; b < 0 || b > math.MaxUint16 || q < 0 || q > math.MaxUint16 {
		flag, got := "max-backlog", b
		if b >= 0 && b <= math.MaxUint16 {
			flag, got = "max-queue", q
		}
		return &model.FieldError{Flag: flag, Valid: fmt.Sprintf("0 (the default) or an integer in [1, %d]", math.MaxUint16), Got: fmt.Sprint(got)}
	}
	if opt.Grid < 0 || opt.Grid > MaxGrid {
		return &model.FieldError{Flag: "grid", Valid: fmt.Sprintf("0 (chosen from the tolerance) or an integer in [1, %d]", MaxGrid), Got: fmt.Sprint(opt.Grid)}
	}
	_, err := solver(method)
	return err
}

func solver(method string) (func(model.Scenario, Options) (Solution, error), error) {
	for _, s := range solvers {
		if s.method == method {
			return s.solve, nil
		}
	}
	return nil, &model.FieldError{Flag: "method", Valid: "one of " + strings.Join(Methods(), ", "), Got: fmt.Sprintf("%q", method)}
}

// Solve answers sc with the analytical model method (one of Methods). A
// scenario the model cannot answer is an error that says why (often an
// *Unsupported); bad options or an unknown method are a *FieldError.
func Solve(method string, sc model.Scenario, opt Options) (Solution, error) {
	if err := CheckMethod(method, opt); err != nil {
		return Solution{}, err
	}
	solve, _ := solver(method)
	r, err := solve(sc, opt)
	r.Method = method
	return r, err
}
