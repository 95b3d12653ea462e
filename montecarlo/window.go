package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Window is the synchronized cohort in continuous time: N clients against
// the window server, which admits the first k arrivals of each window of
// length τ and fails the rest at once (model/timemodel.go). It is the
// cohort's workload when the scenario's time model is continuous; CohortOf
// picks it.
type Window struct{}

// WindowName names the window server's event engine in a Choice.
const WindowName EngineName = "window"

// MaxWindowClients bounds the window engine's cohort: it keeps about 160
// bytes per client (engineBytes).
const MaxWindowClients = 10_000_000

// CohortOf is the workload that plays the synchronized cohort of sc: the
// window server's event engine in continuous time (Window), the tick
// engines or the OCC engine otherwise (Cohort).
func CohortOf(sc model.Scenario) Workload {
	if sc.InContinuousTime() {
		return Window{}
	}
	return Cohort{}
}

func (Window) Name() string { return "continuous-time cohort" }
func (Window) validate(sc model.Scenario) error {
	if !sc.InContinuousTime() {
		return &model.FieldError{Flag: "time", Valid: "continuous for the window server's cohort", Got: sc.Time.String()}
	}
	return nil
}
func (Window) choose(sc model.Scenario, want EngineName) (Choice, error) {
	if want != Default && want != Auto {
		return Choice{}, &LimitError{Engine: want, Reason: "cannot play continuous time (--time continuous), which has its own event engine (the tick engines count whole ticks)",
			Alternative: "leave out --engine (or use --engine auto)"}
	}
	if sc.Clients > MaxWindowClients {
		return Choice{}, &LimitError{Engine: WindowName, Reason: fmt.Sprintf("holds at most %d clients (about 160 bytes each), got --clients %d", MaxWindowClients, sc.Clients), Alternative: "use fewer --clients"}
	}
	return Choice{WindowName, "continuous time: the window server's event engine"}, nil
}

// engineBytes: a client's record (24 bytes); played by windows, its
// pending arrival with its stream (32 bytes) in the calendar, in a window's
// buffer and in the buffer of a window's earliest (96 bytes); played by
// events, its stream and event (40 bytes), which a trial by windows that
// meets a tie needs as well; and with a latency per flight (events only)
// its answer waiting for the machine (at most one per client, 32 bytes, in
// a line compacted once half of it is carried, so at most twice that).
func (Window) engineBytes(sc model.Scenario, _ Choice) int64 {
	if sc.LatencyPerFlight > 0 {
		return 128 * int64(sc.Clients)
	}
	return 160 * int64(sc.Clients)
}
func (Window) series(model.Scenario, Choice) seriesSize { return seriesSize{} } // call times, not ticks
func (Window) build(sc model.Scenario, _ Choice) (Engine, error) {
	return NewWindowEngine(sc)
}

// WindowEngine is the event engine of the window server: one pending event
// per client (its next arrival) in a 4-ary min-heap; an arrival is admitted
// when its window has admitted fewer than k (on a limiter server, when its
// gate admits it: limiter.go), and a failed one becomes the
// client's next arrival one round trip plus its delay later. Each client
// draws from its own stream, the same draws whatever the laws (common random
// numbers). With a latency per flight one machine carries every way in
// turn, requests before answers; docs/models.md ("The window engine") gives
// the whole rule and the measurements behind it.
type WindowEngine struct {
	sc      model.Scenario
	horizon float64 // in windows
	ms      float64 // one window in ms
	spread  float64 // first sends uniform over [0, spread) windows
	// first is the law of the first arrivals when the scenario gives one
	// (firstLaw), instead of the uniform over [0, spread).
	first    model.TripLaw
	firstLaw bool
	// together says that every first send arrives at 0 (no spread, no
	// law of first arrivals).
	together bool
	// answers is the law of the first answers when the scenario gives
	// one (answersLaw).
	answers    model.TripLaw
	answersLaw bool
	trip       model.TripLaw
	// trip0 is the round trip of u = 0, and tripFixed says that every
	// round trip is trip0.
	trip0     float64
	tripFixed bool
	// plain says that a failed call's draw is fail's plain case: a fixed
	// round trip, an affine law, no first answers, no elapsed-time limit.
	plain  bool
	flight float64 // one way's time on the machine, in windows; 0: none
	// The machine's stalls (Scenario.Stalls), in windows: mean up time
	// and mean stop; stall is their stream, drawn in time order, and the
	// machine is stopped over [stopAt, resumeAt).
	stallEvery, stallLength float64
	stall                   rand.PCG
	stopAt, resumeAt        float64
	// hot is what a failed call reads of its client, client the rest.
	hot    []windowHot
	client []windowClient
	queue  []occEvent
	// waiting are the answers waiting for the machine, in the order they
	// were given (a trial's buffer, kept).
	waiting []waitingAnswer
	// laws[c] is the law of retry n with c = min(n, len(laws)−1) for a
	// policy whose law depends on n alone; nil for a stateful policy.
	laws []policy.Law
	law  func(n int, prev float64) policy.Law // the policy's Law, its rule looked up once
	// affine[c] is laws[c] as min(max, lo + u·width) when every class law
	// is a plain clamped uniform (Law.Affine), drawn inline; else nil.
	affine []affine
	// spare holds a window's earliest arrivals, which split tells fail
	// to take out (playWindow).
	spare []windowEvent
	split windowSplit
	// events holds playWindows' first sends when they arrive together,
	// again the failed retries that land in the current window.
	events, again []windowEvent
	beyond        bool    // an arrival after the horizon is pending
	done          float64 // the last success so far
	cancelled     bool    // fail or carry saw the run cancelled
	start         float64 // a stateful policy's state before its first retry
	retries       int
	retryLimit    int     // retries, or math.MaxInt when there is no limit
	maxElapsed    float64 // in windows; +Inf: no limit
	// The trials played by windows, and those of them that met a tie and
	// were played again by events (Play).
	played, ties int
	cal          calendar
	// admitFirst are the clients the event heap admits first when every
	// first send arrives at 0 (firstAdmitted), once computed.
	admitFirst []int32
	// gate is a limiter server's admission rule (limiter.go); nil for the
	// window server.
	gate gate
}

// waitingAnswer is an answer waiting for the machine: its client (−1 for
// an admitted request's, which nobody waits on), when it was given, and
// the round trip and delay its client drew then.
type waitingAnswer struct {
	client     int32
	given      float64
	trip, wait float64
}

// windowHot is a client's stream and retry count, 24 bytes, which every
// failed call reads and writes.
type windowHot struct {
	net   pcg
	retry int32
	// sending says that the client's pending event is a send the machine
	// has not taken yet (with a latency per flight), not an arrival.
	sending bool
}

type windowClient struct {
	first float64 // when its first send reached the server
	// answer is when its first send's answer is back, with the first
	// answers' law (the same quantile as its first arrival's).
	answer float64
	prev   float64 // a stateful policy's state
}

// NewWindowEngine prepares the window engine for a valid continuous-time
// scenario.
func NewWindowEngine(sc model.Scenario) (*WindowEngine, error) {
	w := sc.Policy.TickLength()
	e := &WindowEngine{sc: sc, horizon: float64(sc.EffectiveHorizon()), ms: float64(w) / 1e6,
		spread: float64(sc.FirstSpread) / float64(w), trip: sc.Latency.In(w), flight: float64(sc.LatencyPerFlight) / float64(w),
		retries: sc.Policy.Retries, maxElapsed: math.Inf(1)}
	e.retryLimit = math.MaxInt
	if e.retries > 0 {
		e.retryLimit = e.retries
	}
	e.trip0 = e.trip.Draw(0)
	e.tripFixed = e.trip0 == e.trip.Bound()
	if me := sc.Policy.MaxElapsed; me > 0 {
		e.maxElapsed = float64(me) / float64(w)
	}
	if !sc.FirstArrivals.IsZero() {
		e.first, e.firstLaw = sc.FirstArrivals.In(w), true
	}
	if !sc.FirstAnswers.IsZero() {
		e.answers, e.answersLaw = sc.FirstAnswers.In(w), true
	}
	if !sc.Stalls.IsZero() {
		e.stallEvery, e.stallLength = float64(sc.Stalls.Every)/float64(w), float64(sc.Stalls.Length)/float64(w)
	}
	e.client = make([]windowClient, sc.Clients)
	e.laws, e.law, e.start = classLaws(sc.Policy), sc.Policy.LawFunc(), sc.Policy.Start()
	if e.laws != nil {
		e.affine = make([]affine, len(e.laws))
		for n := 1; n < len(e.laws); n++ {
			a := &e.affine[n]
			if a.lo, a.width, a.max, a.ok = e.laws[n].Affine(); !a.ok {
				e.affine = nil
				break
			}
		}
	}
	e.together = e.spread == 0 && !e.firstLaw
	e.plain = e.tripFixed && e.affine != nil && !e.answersLaw && e.maxElapsed == math.Inf(1)
	e.gate = newGate(sc)
	return e, nil
}

// carry is when the machine, free from t on, has carried one way: P of
// its running time, the stops between not counted. The stops it passes
// are the trial's work (a long idle spell passes many), so it polls tr
// for the run's end: then it sets e.cancelled and returns +Inf.
func (e *WindowEngine) carry(tr *Trial, t float64) float64 {
	if e.stallEvery == 0 {
		return t + e.flight
	}
	left := e.flight
	for {
		for t >= e.stopAt { // it begins in a stop, or after it
			t = max(t, e.resumeAt)
			if e.nextStop(tr) {
				return math.Inf(1)
			}
		}
		if t+left <= e.stopAt {
			return t + left
		}
		left -= e.stopAt - t
		t = e.resumeAt
		if e.nextStop(tr) {
			return math.Inf(1)
		}
	}
}

// nextStop draws the machine's next stop after the current one; true
// (and e.cancelled) when tr says that the run was cancelled instead.
func (e *WindowEngine) nextStop(tr *Trial) bool {
	if tr.stopped(1) {
		e.cancelled = true
		return true
	}
	e.stopAt = e.resumeAt - e.stallEvery*math.Log1p(-uniform(&e.stall))
	e.resumeAt = e.stopAt - e.stallLength*math.Log1p(-uniform(&e.stall))
	return false
}

// backoff draws client c's delay before its retry n, in windows.
func (e *WindowEngine) backoff(c int32, n int) float64 {
	return drawDelay(e.laws, e.law, n, &e.client[c].prev, e.hot[c].net.uniform())
}

// Play runs one trial: by windows (playWindows) unless the trial needs
// the machine of a latency per flight or every call's time, or the last
// trials met ties; by events (playEvents) otherwise, and again by events
// when playWindows meets a tie that only the event order decides.
func (e *WindowEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	if e.flight == 0 && e.gate == nil && !arrivals && e.ties*8 <= e.played {
		e.played++
		start := *src
		if e.playWindows(src, t) {
			return
		}
		e.ties++
		*src = start
		t.reset(t.Index)
	}
	e.playEvents(src, t, arrivals)
}

// playEvents runs one trial event by event.
func (e *WindowEngine) playEvents(src *rand.PCG, t *Trial, arrivals bool) {
	t.Continuous = true
	e.cancelled = false
	sc := &e.sc
	if e.hot == nil {
		e.hot, e.queue = make([]windowHot, sc.Clients), make([]occEvent, 0, sc.Clients)
	}
	q := e.queue[:0]
	for c := range int32(sc.Clients) {
		e.hot[c] = windowHot{}
		e.hot[c].net.Seed(src.Uint64(), src.Uint64())
		u := e.hot[c].net.uniform()
		at := u * e.spread
		if e.firstLaw {
			at = e.first.Draw(u)
		}
		e.client[c] = windowClient{first: at, prev: e.start}
		if e.answersLaw { // the same quantile of the answers' law
			e.client[c].answer = e.answers.Draw(u)
		}
		q = append(q, occEvent{at: at, client: c})
	}
	for i := (len(q) - 2) / 4; i >= 0; i-- {
		siftDown(q, i)
	}
	if e.stallEvery > 0 {
		e.stall.Seed(src.Uint64(), src.Uint64())
		e.resumeAt = 0
		e.nextStop(t)
	}
	if e.gate != nil {
		e.gate.reset(src)
	}
	k := int64(sc.Capacity)
	window, used := math.Inf(-1), int64(0)
	done := 0.0
	free := 0.0 // when the machine has carried every way so far
	answers, next := e.waiting[:0], 0
	for !e.cancelled && !t.stopped(1) {
		// The machine carries the next answer when it is free before
		// any request is sent (or anything else happens).
		if next < len(answers) {
			wa := answers[next]
			if at := max(free, wa.given); len(q) == 0 || at < q[0].at {
				next++
				if next == len(answers) || next >= 64 && 2*next >= len(answers) { // keep the line as long as what waits
					answers = answers[:copy(answers, answers[next:])]
					next = 0
				}
				free = e.carry(t, at)
				if wa.client < 0 {
					continue
				}
				if e.givesUp(e.hot[wa.client].retry, &e.client[wa.client], free, wa.trip, wa.wait) {
					t.GaveUp++
					continue
				}
				e.hot[wa.client].sending = true
				q = append(q, occEvent{at: free + wa.trip + wa.wait, client: wa.client})
				siftUp(q, len(q)-1)
				continue
			}
		}
		if len(q) == 0 || q[0].at > e.horizon {
			break
		}
		ev := &q[0]
		c, a := ev.client, ev.at
		cl, h := &e.client[c], &e.hot[c]
		if h.sending { // the machine takes the retry to the server
			free = e.carry(t, max(a, free))
			ev.at, h.sending = free, false
			siftDown(q, 0)
			continue
		}
		t.Calls++
		if arrivals {
			t.CallTimes = append(t.CallTimes, a*e.ms)
		}
		lat := e.trip.Draw(h.net.uniform())
		admitted, answered := false, a
		if e.gate != nil {
			admitted, answered = e.gate.admit(a)
		} else {
			if f := math.Floor(a); f != window {
				window, used = f, 0
			}
			if used < k {
				used++
				admitted = true
			}
		}
		back := a                         // when the client has its answer
		if e.flight > 0 && h.retry == 0 { // the first send's way, as it arrives
			free = e.carry(t, max(a, free))
		}
		// Its answer waits for the machine, unless it is a first answer
		// as measured.
		waits := e.flight > 0
		if h.retry == 0 && e.answersLaw {
			back, waits = max(a, cl.answer), false
		}
		if admitted {
			done = max(done, answered)
			t.servedAfter((answered - cl.first) * e.ms)
			if waits {
				answers = append(answers, waitingAnswer{client: -1, given: a})
			}
			q = popHead(q)
			continue
		}
		if h.retry < math.MaxInt32 {
			h.retry++
		}
		d := e.backoff(c, int(h.retry))
		if waits {
			answers = append(answers, waitingAnswer{client: c, given: a, trip: lat, wait: d})
			q = popHead(q)
			continue
		}
		if e.givesUp(h.retry, cl, back, lat, d) {
			t.GaveUp++
			q[0] = q[len(q)-1]
			q = q[:len(q)-1]
		} else {
			ev.at, h.sending = back+lat+d, e.flight > 0
		}
		siftDown(q, 0)
	}
	e.queue, e.waiting = q, answers
	t.Censored = len(q) > 0 || next < len(answers)
	t.Time = done * e.ms
}

// givesUp says whether a client that failed its attempt and has its
// answer back at back gives up rather than retry one round trip and its
// delay d later: past its policy's retries, or its maximum elapsed time
// from its first arrival.
func (e *WindowEngine) givesUp(retry int32, cl *windowClient, back, trip, d float64) bool {
	n := int(retry)
	return (e.retries > 0 && n > e.retries) || (e.maxElapsed < math.Inf(1) && (back+trip-cl.first)+d > e.maxElapsed)
}

// A continuous-time latency is counted in a histogram of geometric bins
// (Trial.Latency), so that its quantiles come from the tick engines'
// machinery with a relative resolution of 1/latencyBins and a bounded
// size: bin 0 holds latencies up to latencyFloor ms, bin l ≥ 1 those in
// (latencyFloor·r^(l−1), latencyFloor·r^l] with r = 1 + 1/latencyBins.
const (
	latencyFloor = 1e-3 // ms: 1 µs
	latencyBins  = 1024
)

var latencyRatio = math.Log1p(1.0 / latencyBins)

// binsPerLog and floorBins, for latencyBin: 1/latencyRatio, and
// log(latencyFloor)/latencyRatio.
var binsPerLog, floorBins = 1 / latencyRatio, math.Log(latencyFloor) / latencyRatio

// servedAfter records one success with a latency of ms milliseconds.
func (t *Trial) servedAfter(ms float64) {
	t.served(latencyBin(ms))
	t.LatencySum += ms
}

// latencyBin is the bin of a latency of ms milliseconds,
// ⌈log(ms/latencyFloor)/latencyRatio⌉ (0 up to latencyFloor). It reads
// log(ms) off a table of 256 points an octave and four terms of its
// series, within 10⁻⁸ of a bin of the formula's, and takes the formula
// itself when that is within 10⁻⁶ of a bin's edge: so it is the formula's
// bin always, for a fraction of its cost.
func latencyBin(ms float64) int {
	if !(ms > latencyFloor) {
		return 0
	}
	if b := math.Float64bits(ms); b < 2046<<52 { // finite, below 2¹⁰²³
		k := b >> 44 & 0xff // ms = 2^e·m, m in [1 + k/256, 1 + (k+1)/256)
		r := math.Float64frombits(b&(1<<52-1)|1023<<52)*binTable[k].inv - 1
		z := (float64(int(b>>52)-1023)*math.Ln2+binTable[k].log+r*(1-r*(0.5-r*(1.0/3-r*0.25))))*binsPerLog - floorBins
		if l := int(z); z-float64(l) > 1e-6 && z-float64(l) < 1-1e-6 {
			return l + 1
		}
	}
	return int(math.Ceil(math.Log(ms/latencyFloor) / latencyRatio))
}

// binTable[k] is 1/(1 + k/256) and log(1 + k/256), for latencyBin.
var binTable = func() (t [256]struct{ inv, log float64 }) {
	for k := range t {
		c := 1 + float64(k)/256
		t[k].inv, t[k].log = 1/c, math.Log(c)
	}
	return t
}()

// LatencyBinEdge is the upper end, in ms, of bin l of a continuous-time
// trial's latency histogram: a quantile read off the histogram as bin l is
// at most LatencyBinEdge(l) and above LatencyBinEdge(l−1).
func LatencyBinEdge(l int) float64 {
	switch {
	case l < 0:
		return 0
	case l == 0:
		return latencyFloor
	}
	return latencyFloor * math.Exp(float64(l)*latencyRatio)
}
