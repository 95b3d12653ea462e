package montecarlo

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// Trial is what one trial of a scenario records.
type Trial struct {
	Index      int   // trial number i
	Calls      int64 // all arrivals of all ticks, successful or not
	Completion int64 // last tick with a success + 1; meaningless when Censored
	Censored   bool  // the horizon came before every client was served
	Served     int64 // clients served
	// GaveUp counts the clients that stopped retrying at their policy's
	// retry or elapsed-time limit; they are neither served nor pending, so
	// a trial ends when every client is served or gave up.
	GaveUp int64
	Peak   int64 // the largest number of arrivals in one tick
	// Latency counts the clients by latency (success tick − first send
	// tick + 1, in ticks, never 0), one run per distinct latency: its size
	// grows with the clients served, not with the completion.
	Latency stats.Histogram
	// Arrivals[t] is the number of arrivals at tick t, recorded only when
	// Options.Arrivals is set.
	Arrivals []int64
	// Open is what an open-loop trial records besides (nil otherwise).
	Open *OpenTrial
	// Queue is what a trial on the queue server records besides (nil
	// otherwise); spareQueue keeps its buffers for the next trial.
	Queue, spareQueue *QueueTrial

	// Continuous-time engines (OCC) set Continuous and give the completion
	// as Time, in the scenario's unit (milliseconds), leaving Completion,
	// Peak, Latency and Arrivals, which count whole ticks, empty. When
	// Options.Arrivals is set they record the time of every call, in order,
	// in CallTimes instead.
	Continuous bool
	Time       float64
	CallTimes  []float64
	// LatencySum is the sum of the served clients' latencies in ms, set by
	// the window engine, whose Latency histogram has geometric bins of ms
	// (LatencyBinEdge).
	LatencySum float64

	// stop is raised when the run is cancelled; engines poll it through
	// stopped, so that Ctrl-C ends even one long trial within a second.
	stop  *atomic.Bool
	polls uint64
}

func (t *Trial) reset(i int) {
	lat := t.Latency
	lat.Reset()
	*t = Trial{Index: i, Latency: lat, Arrivals: t.Arrivals[:0], CallTimes: t.CallTimes[:0], stop: t.stop, spareQueue: t.spareQueue}
}

// stopped reports whether the run was cancelled, looking at the flag once
// per 2¹² units of work (a tick's arrivals, say; a unit may cost
// microseconds, with controls): an engine calls it once per tick or event
// with the work done since, and abandons the trial when it says so (the
// run then returns the context's error and folds nothing).
func (t *Trial) stopped(work int) bool {
	t.polls += uint64(work) + 1
	if t.polls < 1<<12 {
		return false
	}
	t.polls = 0
	return t.stop != nil && t.stop.Load()
}

// CompletionTime is the completion as a real number in the scenario's time
// unit: Time for continuous-time engines, Completion for tick engines.
func (t *Trial) CompletionTime() float64 {
	if t.Continuous {
		return t.Time
	}
	return float64(t.Completion)
}

// served records one success of a client with the given latency.
func (t *Trial) served(latency int) {
	t.Latency.Add(int64(latency), 1)
	t.Served++
}

// An Engine plays trials of one scenario. An Engine is used by one
// goroutine at a time; Run makes one per worker.
type Engine interface {
	// Play runs one trial from the stream src into t, which has been reset.
	// arrivals asks for t.Arrivals.
	Play(src *rand.PCG, t *Trial, arrivals bool)
}

// servedMany records n successes with the same latency.
func (t *Trial) servedMany(latency int, n int64) {
	t.Latency.Add(int64(latency), n)
	t.Served += n
}

// EngineName names an engine, as --engine spells it.
type EngineName string

// The engines, and Default, the zero value, which picks the fastest exact
// engine per scenario (see Choose); Auto is the same choice under its own
// name. The CLI's --engine has the same default ("default"), so a number
// from the command line, a figure, a claim and the paper agree for the
// same seed; --engine clients asks for the per-client engine.
const (
	Default EngineName = ""
	Auto    EngineName = "auto"
	Clients EngineName = "clients" // ClientEngine
	Counts  EngineName = "counts"  // CountEngine
	Events  EngineName = "events"  // OCCEngine; chosen by the server, never by --engine
)

// DefaultName is how --engine spells Default.
const DefaultName = "default"

// EngineNames lists the valid spellings of --engine.
func EngineNames() []string {
	return []string{DefaultName, string(Auto), string(Clients), string(Counts)}
}

// ParseEngineName reads one of EngineNames.
func ParseEngineName(s string) (EngineName, error) {
	if s == DefaultName {
		return Default, nil
	}
	for _, n := range EngineNames() {
		if s == n {
			return EngineName(n), nil
		}
	}
	return "", unknownEngine(s)
}

// unknownEngine is the one refusal of an --engine that is not among
// EngineNames.
func unknownEngine(s string) error {
	return &model.FieldError{Flag: "engine", Valid: "one of " + strings.Join(EngineNames(), ", "), Got: fmt.Sprintf("%q", s)}
}

// Choice is the engine that plays a scenario and why it was picked.
type Choice struct {
	Engine EngineName `json:"engine"`
	Reason string     `json:"reason"`
}

// LimitError is a scenario that an engine refuses, naming the limit and
// what to do instead.
type LimitError struct {
	Engine      EngineName
	Reason      string
	Alternative string
}

func (e *LimitError) Error() string {
	name := map[EngineName]string{Clients: "per-client", Counts: "count", QueueName: "queue", Events: "event"}[e.Engine]
	s := fmt.Sprintf("the %s engine (--engine %s) %s", name, e.Engine, e.Reason)
	if e.Alternative != "" {
		s += "; " + e.Alternative
	}
	return s
}

// Choose picks the engine for a valid scenario. Clients and Counts are
// taken as asked (Counts refuses what it cannot play). Default and Auto
// choose alike, the fastest exact engine: the count engine whenever it can
// play the scenario within its bounds (it draws from the same law as the
// per-client engine), the per-client engine otherwise. So every command,
// figure, claim and the paper play a scenario on the same engine and agree
// for a seed; only Choice.Reason says which was asked. The choice depends
// on the scenario alone, so a seed gives the same bytes on every machine.
//
// The count engine never does more work per tick than the per-client one —
// it draws single delays where the per-client engine would, and one
// binomial per wait where there are many losers — except that it scans its
// groups (retry classes × first ticks) at every tick with arrivals, hence
// the bound on groups.
// BenchmarkEngineCost finds it as fast or faster on every scenario
// measured, from N = 100 up.
func Choose(sc model.Scenario, want EngineName) (Choice, error) {
	switch sc.Plays().Cohort {
	case model.QueueEngine:
		return queueChoice(want)
	case model.EventEngine:
		if want == Clients || want == Counts {
			return Choice{}, &LimitError{Engine: want, Reason: "cannot play the OCC server, which has its own event engine", Alternative: "leave out --engine (or use --engine auto)"}
		}
		if sc.Clients > MaxOCCClients {
			return Choice{}, &LimitError{Engine: Events, Reason: fmt.Sprintf("holds at most %d clients (about 100 bytes each), got --clients %d", MaxOCCClients, sc.Clients), Alternative: "use fewer --clients"}
		}
		return Choice{Events, "the OCC server is continuous-time: its event engine"}, nil
	}
	switch want {
	case Clients:
		if err := clientsFit(sc); err != nil {
			return Choice{}, err
		}
		return Choice{Clients, "asked for (--engine clients)"}, nil
	case Counts:
		if err := countsFit(sc); err != nil {
			return Choice{}, err
		}
		return Choice{Counts, "asked for (--engine counts)"}, nil
	case Default, Auto:
	default:
		return Choice{}, unknownEngine(string(want))
	}
	// Default and Auto choose alike; the reason says which was asked.
	asked := DefaultName
	if want == Auto {
		asked = string(Auto)
	}
	if why := countSupported(sc); why != "" {
		if err := clientsFit(sc); err != nil {
			return Choice{}, err
		}
		return Choice{Clients, asked + ": the count engine cannot play this scenario: " + why}, nil
	}
	cells := countCells(sc)
	groups := countGroups(sc)
	switch {
	case cells > MaxCountCells:
		if err := clientsFit(sc); err != nil {
			return Choice{}, err
		}
		return Choice{Clients, fmt.Sprintf(asked+": the count engine would need %d counters, over its limit of %d", cells, MaxCountCells)}, nil
	case sc.Clients > MaxEngineClients:
	case cells > countLight && int64(sc.Clients) < cells:
		return Choice{Clients, fmt.Sprintf(asked+": %d clients take less memory one by one than %d counters (ticks of delay × retry classes)", sc.Clients, cells)}, nil
	case groups > countMostGroups && int64(sc.Clients) < groups*countMostGroups:
		return Choice{Clients, fmt.Sprintf(asked+": the count engine would scan %d groups (retry classes × first ticks) at every tick", groups)}, nil
	}
	return Choice{Counts, asked + ": the policy's delay depends on the retry number alone, so clients are counted per retry class (cost independent of N)"}, nil
}

// countMostGroups is the number of groups per tick (retry classes × first
// ticks) above which Auto prefers the per-client engine for cohorts of
// fewer than groups × countMostGroups clients.
const countMostGroups = 256

// countLight is the size of ring above which Auto prefers the per-client
// engine when it has fewer clients than the ring has counters (64 MiB).
const countLight = 8 << 20

// EngineBytes is about how much memory one engine of the given kind takes
// for a scenario (the per-client engine grows its buckets as it goes, so
// its estimate counts them twice).
func EngineBytes(sc model.Scenario, e EngineName) int64 {
	r := int64(max(sc.MaxDelayTicks(), sc.FirstWindow) + 1)
	if e == Counts {
		return 8*countCells(sc) + 9*r
	}
	return 32*int64(sc.Clients) + 24*r
}

// clientsFit says why the per-client engine cannot hold the cohort, or nil.
func clientsFit(sc model.Scenario) error {
	if sc.Clients <= MaxEngineClients {
		return nil
	}
	alt := "use --engine counts (or auto), whose memory does not grow with N"
	if why := countSupported(sc); why != "" {
		alt = "the count engine cannot help either (" + why + "); use fewer --clients"
	}
	return &LimitError{Engine: Clients,
		Reason:      fmt.Sprintf("holds at most %d clients (about 24 bytes each per worker), got --clients %d", MaxEngineClients, sc.Clients),
		Alternative: alt}
}

// countsFit says why the count engine cannot play the scenario, or nil.
func countsFit(sc model.Scenario) error {
	if why := countSupported(sc); why != "" {
		return &LimitError{Engine: Counts, Reason: "cannot play this scenario: " + why, Alternative: "use --engine clients or auto"}
	}
	if cells := countCells(sc); cells > MaxCountCells {
		return &LimitError{Engine: Counts,
			Reason: fmt.Sprintf("would keep %d counters (%d ticks × %d retry classes × %d first ticks), over its limit of %d (256 MiB per worker)",
				cells, countRing(sc), countClasses(sc.Policy), sc.FirstWindow, MaxCountCells),
			Alternative: fmt.Sprintf("use --engine clients, which holds up to %d clients, or a smaller --cap, --retries or --first-window", MaxEngineClients)}
	}
	return nil
}

// NewEngineUsing returns the engine a plan of the cohort sc with want
// would play (for benchmarks and tests that drive one engine).
func NewEngineUsing(sc model.Scenario, want EngineName) (Engine, error) {
	p, err := NewPlan(sc, Cohort{}, Options{Trials: 1, Use: want})
	if err != nil {
		return nil, err
	}
	return p.Work.build(sc, p.Choice)
}

// drawDelay is a retry's delay drawn from the uniform u: from the law of
// retry n's class when the policy has class laws (classLaws), else from
// the policy's law given the state a stateful policy carries (law is the
// policy's Policy.LawFunc), which it updates in prev.
func drawDelay(laws []policy.Law, law func(int, float64) policy.Law, n int, prev *float64, u float64) float64 {
	if laws != nil {
		return laws[min(n, len(laws)-1)].Draw(u)
	}
	var d float64
	d, *prev = law(n, *prev).Sample(u)
	return d
}

// classLaws is the delay law of each retry class n = 1…Classes() (index
// n; index 0 unused), for engines that keep them on their hot path; nil
// when the policy's law depends on each client's previous delay.
func classLaws(p policy.Policy) []policy.Law {
	c := p.Classes()
	if c == 0 {
		return nil
	}
	laws := make([]policy.Law, c+1)
	for n := 1; n <= c; n++ {
		laws[n] = p.Law(n, p.Start())
	}
	return laws
}

// Engines names the engines that play scs when want is asked for, each
// once, in the order they first play.
func Engines(want EngineName, scs ...model.Scenario) string {
	var names []string
	for _, sc := range scs {
		p, err := NewPlan(sc, CohortOf(sc), Options{Trials: 1, Use: want})
		if err != nil {
			continue
		}
		if n := string(p.Choice.Engine); !slices.Contains(names, n) {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}
