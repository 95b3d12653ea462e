package montecarlo

import (
	"context"
	"fmt"
	"runtime"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/internal/memory"
	"github.com/herdlab/herd/model"
)

// A Workload is what every trial of a run plays on its scenario: the
// synchronized cohort of the seed article (Cohort), open-loop traffic under
// retry controls (OpenLoop), a stack of retrying layers (Layers). Each kind
// validates its own parameters, says which engines can play it, how much
// memory one engine takes, and builds it; NewPlan does the rest once, the
// same way for every kind. A new kind of run is a new Workload.
type Workload interface {
	// Name names the kind in messages ("cohort", "open-loop traffic", …).
	Name() string
	validate(sc model.Scenario) error
	choose(sc model.Scenario, want EngineName) (Choice, error)
	engineBytes(sc model.Scenario, c Choice) int64
	// series is what the per-tick series of one trial take when
	// Options.Arrivals asks for them: their bytes per tick, the most ticks
	// a trial plays, and the flags that bound those ticks.
	series(sc model.Scenario, c Choice) seriesSize
	build(sc model.Scenario, c Choice) (Engine, error)
}

// Limits of the run options.
const (
	MaxTrials  = 100_000_000
	MaxWorkers = 4096
	// DefaultMemory is the memory a run may use when Options.MaxMemory is
	// 0: its engines and the trials buffered between two folds together.
	DefaultMemory = memory.Budget
)

// Validate checks the options' ranges, naming the flag of each.
func (o Options) Validate() error {
	switch {
	case o.Trials < 1 || o.Trials > MaxTrials:
		return &model.FieldError{Flag: "trials", Valid: fmt.Sprintf("an integer in [1, %d]", MaxTrials), Got: fmt.Sprint(o.Trials)}
	case o.Workers < 0 || o.Workers > MaxWorkers:
		return &model.FieldError{Flag: "workers", Valid: fmt.Sprintf("0 (one per CPU) or an integer in [1, %d]", MaxWorkers), Got: fmt.Sprint(o.Workers)}
	case o.MaxMemory < 0:
		return &model.FieldError{Flag: "max-memory", Valid: "a size ≥ 0 bytes (0: the default)", Got: fmt.Sprint(o.MaxMemory)}
	}
	if _, err := ParseEngineName(string(o.Use)); o.Use != Default && err != nil {
		return err
	}
	return nil
}

// Plan is one run, decided before anything is allocated: the scenario and
// workload validated, the engine chosen (and why), and the workers and
// buffered trials that fit the memory budget. It is the one place where a
// run is validated and its engine chosen.
type Plan struct {
	Scenario model.Scenario
	Work     Workload
	Options  Options
	Choice   Choice
	// Workers is the number of engines that play at once; PerWorker the
	// trials each plays between two folds (fewer when a trial's records
	// are large); Bytes the memory they are estimated to take together.
	Workers, PerWorker int
	Bytes              int64
}

// NewPlan validates the scenario, the workload and the options, chooses the
// engine for opt.Use and sizes the run within the memory budget. Every error
// is a *model.FieldError or a *LimitError naming what to change.
func NewPlan(sc model.Scenario, w Workload, opt Options) (*Plan, error) {
	if err := opt.Validate(); err != nil {
		return nil, err
	}
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if err := w.validate(sc); err != nil {
		return nil, err
	}
	c, err := w.choose(sc, opt.Use)
	if err != nil {
		return nil, err
	}
	p := &Plan{Scenario: sc, Work: w, Options: opt, Choice: c}
	budget := opt.MaxMemory
	if budget == 0 {
		budget = DefaultMemory
	}
	engine := w.engineBytes(sc, c)
	trial := trialBytes(sc)
	if opt.Arrivals {
		s := w.series(sc, c)
		if b := s.bytes(); engine+trial+b > budget {
			return nil, &LimitError{Engine: c.Engine,
				Reason: fmt.Sprintf("would need about %s with one trial's per-tick series (--%s): %d bytes a tick over up to %d ticks, over the memory budget of %s",
					memory.Text(engine+trial+b), s.flag, s.perTick, s.ticks, memory.Text(budget)),
				Alternative: fmt.Sprintf("give %s, leave out --%s, or raise --max-memory", s.bound, s.flag)}
		}
		trial += s.bytes()
	}
	if one := engine + trial; one > budget {
		reason := fmt.Sprintf("would need about %s for one engine playing this %s, over the memory budget of %s",
			memory.Text(one), w.Name(), memory.Text(budget))
		if trial > engine {
			reason = fmt.Sprintf("would need about %s for one trial of this %s, whose latencies (about %d distinct values, at 40 bytes each with the pooled law) are over the memory budget of %s",
				memory.Text(one), w.Name(), latencyRuns(sc), memory.Text(budget))
		}
		return nil, &LimitError{Engine: c.Engine, Reason: reason, Alternative: memoryAlternative(sc)}
	}
	workers := opt.Workers
	if workers == 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = max(1, min(workers, opt.Trials, int(budget/(engine+trial))))
	per := int(min(int64(chunk), max(1, (budget/int64(workers)-engine)/max(1, trial))))
	p.Workers, p.PerWorker = workers, per
	p.Bytes = int64(workers) * (engine + int64(per)*trial)
	return p, nil
}

// memoryAlternative says what to change when one engine does not fit.
func memoryAlternative(sc model.Scenario) string {
	if sc.Queues() {
		return "give a smaller --queue-limit (0 is unbounded), fewer --clients, a lower --rate or fewer --ticks, or raise --max-memory"
	}
	return "lower --cap, --clients or --first-window, or raise --max-memory"
}

// trialBytes is what one buffered trial takes besides its engine and its
// per-tick series: its fixed records and its latency histograms (a
// trial's and, on the queue server, its response times), at 16 bytes per
// distinct value, and as much again and half for the pooled latency law
// the fold keeps (stats.LatencyCDF, 24 bytes per distinct latency).
func trialBytes(sc model.Scenario) int64 {
	runs := latencyRuns(sc)
	if sc.Queues() {
		runs *= 2
	}
	return 4<<10 + 40*runs
}

// latencyRuns estimates the distinct latencies of one trial of a cohort.
// They are at most one per client served and one per tick of the horizon;
// and as the server serves at most k clients a tick, a cohort's latencies
// span its first window and about N/k ticks of successes — twice that
// leaves room for the ticks a jittered cohort leaves idle.
func latencyRuns(sc model.Scenario) int64 {
	n, k := int64(sc.Clients), max(1, int64(sc.Capacity))
	span := int64(sc.FirstWindow) + 2*((n+k-1)/k)
	return max(1, min(n, int64(sc.EffectiveHorizon())+1, span))
}

// seriesSize is what one trial's per-tick series take (Options.Arrivals):
// perTick bytes for each of up to ticks ticks; flag is the flag that asks
// for them and bound names the flags that bound the ticks, for a refusal.
type seriesSize struct {
	perTick, ticks int64
	flag, bound    string
}

// bytes counts the series at their length plus a quarter for the slack
// append leaves when it grows a large slice.
func (s seriesSize) bytes() int64 {
	if s.ticks > (1<<62)/max(1, s.perTick) {
		return 1 << 62
	}
	b := s.perTick * s.ticks
	return b + b/4
}

// horizonSeries is a cohort's series: one value per tick up to the horizon
// (a censored trial plays them all).
func horizonSeries(sc model.Scenario, perTick int64) seriesSize {
	bound := "a shorter --horizon"
	if sc.Horizon == 0 {
		bound = "a --horizon (the automatic one grows with --clients and the longest delay), fewer --clients"
	}
	return seriesSize{perTick, int64(sc.EffectiveHorizon()) + 1, "arrivals", bound}
}

// trafficSeries is open- or closed-loop traffic's series: one value per
// tick played, the traffic's ticks and its drain.
func trafficSeries(t model.Traffic, perTick int64) seriesSize {
	return seriesSize{perTick, int64(t.Ticks) + int64(t.DrainTicks()) + 1, "series", "fewer --ticks (or --drain=false)"}
}

// Run plays the plan's trials and calls fold with each, in trial order, from
// one goroutine (see Run).
func (p *Plan) Run(ctx context.Context, fold func(*Trial) error) error {
	engines := make([]Engine, p.Workers)
	for i := range engines {
		var e Engine
		var err error
		if p.Options.build != nil {
			e, err = p.Options.build(p.Scenario)
		} else {
			e, err = p.Work.build(p.Scenario, p.Choice)
		}
		if err != nil {
			return err
		}
		if r, ok := e.(tapeReader); ok {
			r.readTapes(p.Options.Tapes)
		}
		engines[i] = e
	}
	return play(ctx, p.Scenario, p.Options, engines, p.PerWorker, fold)
}

// tapeReader is an engine that can replay the arrivals of Options.Tapes
// (the request engine's open loop).
type tapeReader interface{ readTapes(*ArrivalTapes) }

// Cohort is the synchronized cohort: N clients whose first requests fail
// together (DESIGN.md's tick model, or the OCC row).
type Cohort struct{}

func (Cohort) Name() string { return "cohort" }
func (Cohort) validate(sc model.Scenario) error {
	if sc.InContinuousTime() {
		return &model.FieldError{Flag: "time", Valid: "tick for the tick engines (a cohort in continuous time plays on the window engine)", Got: sc.Time.String()}
	}
	if sc.Plays().Cohort == model.NoCohort {
		return &model.FieldError{Flag: "server", Valid: "capacity, collision, occ or queue for the cohort; the flaky server is played by open-loop (--rate) and closed-loop (--loop closed) traffic", Got: sc.Server.String()}
	}
	return nil
}
func (Cohort) choose(sc model.Scenario, want EngineName) (Choice, error) {
	return Choose(sc, want)
}
func (Cohort) engineBytes(sc model.Scenario, c Choice) int64 {
	if c.Engine == QueueName {
		return queueEngineBytes(sc, nil)
	}
	if c.Engine == Events {
		return 100 * int64(sc.Clients)
	}
	return EngineBytes(sc, c.Engine)
}
func (Cohort) series(sc model.Scenario, c Choice) seriesSize {
	switch c.Engine {
	case QueueName: // arrivals, queue length and wasted completions
		return horizonSeries(sc, 24)
	case Events: // the times of the calls, not a series of ticks
		return seriesSize{}
	}
	return horizonSeries(sc, 8) // arrivals
}
func (Cohort) build(sc model.Scenario, c Choice) (Engine, error) {
	switch c.Engine {
	case Counts:
		return NewCountEngine(sc)
	case Events:
		return NewOCCEngine(sc)
	case QueueName:
		return NewQueueEngine(sc, nil, control.Controls{})
	}
	return NewClientEngine(sc)
}

// OpenLoop is open-loop traffic: Poisson arrivals of new requests, an
// outage, and retries under per-client controls (model.Traffic).
type OpenLoop struct {
	Traffic  model.Traffic
	Controls control.Controls
}

// OpenLoopName names the open-loop engine in a Choice.
const OpenLoopName EngineName = "open-loop"

func (OpenLoop) Name() string { return "open-loop traffic" }
func (w OpenLoop) validate(sc model.Scenario) error {
	if !sc.Plays().OpenLoop {
		return &model.FieldError{Flag: "server", Valid: "capacity, collision or queue with open-loop traffic (--rate)", Got: sc.Server.String()}
	}
	if sc.InContinuousTime() {
		return &model.FieldError{Flag: "time", Valid: "tick with open-loop traffic (--rate), whose engine counts whole ticks", Got: sc.Time.String()}
	}
	if err := w.Traffic.Validate(sc); err != nil {
		return err
	}
	return w.Controls.ValidateFor(sc)
}
func (OpenLoop) choose(sc model.Scenario, want EngineName) (Choice, error) {
	if sc.Queues() {
		return queueChoice(want)
	}
	if want != Default && want != Auto {
		return Choice{}, &LimitError{Engine: want, Reason: "cannot play open-loop traffic (--rate), which has its own engine (requests arrive and leave, there is no cohort to count)",
			Alternative: "leave out --engine (or use --engine auto)"}
	}
	return Choice{OpenLoopName, "open-loop traffic: the request engine"}, nil
}
func (w OpenLoop) engineBytes(sc model.Scenario, c Choice) int64 {
	// The request slab grows with the backlog; count what the outage can
	// pile up (rate × ticks, bounded by the live-request limit) at 24 bytes.
	if c.Engine == QueueName {
		return w.Controls.BytesPerClient(sc)*int64(sc.Clients) + queueEngineBytes(sc, &w.Traffic)
	}
	live := min(float64(model.MaxRequestsLive), w.Traffic.Rate*float64(w.Traffic.Ticks)+float64(sc.Clients))
	return requestEngineBytes(sc, w.Controls, int64(live), 0)
}

// requestEngineBytes is the request engine's memory: the controls' state
// of every client, the retry ring (and a closed loop's wake ring of the
// given length), and live requests at 24 bytes each.
func requestEngineBytes(sc model.Scenario, ctl control.Controls, live int64, wake int) int64 {
	return ctl.BytesPerClient(sc)*int64(sc.Clients) + 24*int64(sc.MaxDelayTicks()+1) + 24*int64(wake) + 24*live
}
func (w OpenLoop) series(_ model.Scenario, c Choice) seriesSize {
	if c.Engine == QueueName { // sends, goodput, backlog, queue length, wasted completions
		return trafficSeries(w.Traffic, 40)
	}
	return trafficSeries(w.Traffic, 24) // sends, goodput, backlog
}
func (w OpenLoop) build(sc model.Scenario, c Choice) (Engine, error) {
	if c.Engine == QueueName {
		return NewQueueEngine(sc, &w.Traffic, w.Controls)
	}
	return NewOpenLoopEngine(sc, w.Traffic, w.Controls)
}

// ClosedLoop is a closed loop of clients (model.ClosedLoop): each client
// sends its next request only after its previous one ended plus a think
// time, under the traffic's ticks, outage and drain and per-client
// controls. Traffic.Rate is 0.
type ClosedLoop struct {
	Traffic  model.Traffic
	Loop     model.ClosedLoop
	Controls control.Controls
}

// ClosedLoopName names the closed-loop engine in a Choice.
const ClosedLoopName EngineName = "closed-loop"

func (ClosedLoop) Name() string { return "closed-loop traffic" }
func (w ClosedLoop) validate(sc model.Scenario) error {
	if !sc.Plays().ClosedLoop {
		return &model.FieldError{Flag: "server", Valid: "capacity, collision or flaky with closed-loop traffic (--loop closed; the queue server plays the cohort and --rate)", Got: sc.Server.String()}
	}
	if sc.InContinuousTime() {
		return &model.FieldError{Flag: "time", Valid: "tick with closed-loop traffic (--loop closed), whose engine counts whole ticks", Got: sc.Time.String()}
	}
	if err := w.Traffic.ValidateClosed(sc, w.Loop); err != nil {
		return err
	}
	return w.Controls.ValidateFor(sc)
}
func (ClosedLoop) choose(_ model.Scenario, want EngineName) (Choice, error) {
	if want != Default && want != Auto {
		return Choice{}, &LimitError{Engine: want, Reason: "cannot play closed-loop traffic (--loop closed), which the request engine plays",
			Alternative: "leave out --engine (or use --engine auto)"}
	}
	return Choice{ClosedLoopName, "closed-loop traffic: the request engine"}, nil
}
func (w ClosedLoop) engineBytes(sc model.Scenario, _ Choice) int64 {
	// At most one request per client is alive.
	return requestEngineBytes(sc, w.Controls, int64(sc.Clients), max(w.Loop.Think+2, sc.FirstWindow))
}
func (w ClosedLoop) series(model.Scenario, Choice) seriesSize {
	return trafficSeries(w.Traffic, 24) // sends, goodput, backlog
}
func (w ClosedLoop) build(sc model.Scenario, _ Choice) (Engine, error) {
	return NewClosedLoopEngine(sc, w.Traffic, w.Loop, w.Controls)
}

// Layers is a stack of retrying layers over a backend that fails each call
// with probability Failure (model.Amplification is its closed form). The
// scenario only names the random streams.
type Layers struct {
	Failure  float64
	Attempts []int
}

// Layered names the stack engine in a Choice.
const Layered EngineName = "layers"

func (Layers) Name() string { return "layered stack" }
func (w Layers) validate(model.Scenario) error {
	return model.ValidateStack(w.Failure, w.Attempts)
}
func (Layers) choose(_ model.Scenario, want EngineName) (Choice, error) {
	if want != Default && want != Auto {
		return Choice{}, &LimitError{Engine: want, Reason: "cannot play a stack of layers, which has its own engine", Alternative: "leave out --engine"}
	}
	return Choice{Layered, "a stack of layers: the call-tree engine"}, nil
}
func (w Layers) engineBytes(model.Scenario, Choice) int64 { return 64 + 8*int64(len(w.Attempts)) }
func (Layers) series(model.Scenario, Choice) seriesSize   { return seriesSize{} }
func (w Layers) build(model.Scenario, Choice) (Engine, error) {
	return &StackEngine{Failure: w.Failure, Attempts: append([]int(nil), w.Attempts...)}, nil
}
