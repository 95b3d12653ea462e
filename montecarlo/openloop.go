package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// OpenTrial is what a request-engine trial (open or closed loop)
// records beyond Trial's common fields. In such a trial Trial.Calls counts
// every send, Served the requests served, Peak the most sends in one tick,
// Latency each served request's latency (success tick − first send + 1),
// Arrivals the sends of each tick when asked, Completion the ticks played
// before any drain, and Censored says that the trial had not recovered by
// its last tick.
type OpenTrial struct {
	NewRequests int64 // requests that arrived (first sends)
	Retries     int64 // retries sent
	GaveUp      int64 // requests abandoned by a control
	// GaveUpBy splits GaveUp by cause (control.Cause): the attempts limit,
	// a token bucket, a circuit breaker, a retry budget, retry throttling,
	// adaptive throttling.
	GaveUpBy [causes]int64
	// Recovered says whether some tick t ≥ the outage's end ended with the
	// backlog at most the traffic's RecoveryBacklog and no request given
	// up; RecoveryTicks is then t + 1 − the outage's end.
	Recovered     bool
	RecoveryTicks int64
	// Collapsed says the trial stopped early because its backlog passed
	// the traffic's CollapseBacklog.
	Collapsed bool
	// CannotRecover says an OpenLoopToRecovery trial on the queue server
	// stopped early because its state proved that it could not recover by
	// its last tick any more (recoveryBound); whether it would have
	// collapsed later is not known.
	CannotRecover bool
	ServedAfter   int64 // requests served from the outage's end to the last tick
	Backlog       int64 // requests still pending after the last tick (after the drain, if any)
	PeakBacklog   int64
	// Drained is the ticks played after the last tick to drain.
	Drained int64
	// Skipped says the trial was not played: the trials before it had
	// decided their run's question (OpenLoopUntilDecided).
	Skipped bool
	// Goodput[t] and BacklogAt[t] are the requests served at tick t and
	// the backlog after it, recorded with Trial.Arrivals.
	Goodput, BacklogAt []int64
	// ByOutage is an OpenLoopOutages trial's Recovery for each of its
	// outage lengths.
	ByOutage []Recovery
}

// OpenLoopEngine is the request engine: it plays open-loop trials
// (Poisson arrivals of new requests, model.Traffic) and closed-loop ones
// (each client one request at a time, model.ClosedLoop), with an outage,
// retries under the scenario's policy, per-client controls and the
// scenario's server. Requests live in a slab with a free list, and a ring
// of per-tick buckets lists who sends when, as in ClientEngine; work is
// proportional to sends plus ticks.
//
// Trial i's new arrivals (how many each tick and from which client, or in
// a closed loop each client's first tick) come from a stream of their own,
// split from the trial's stream before anything else is drawn, so two
// policies or two sets of controls run on the same seed see exactly the
// same arrivals (common random numbers).
type OpenLoopEngine struct {
	sc     model.Scenario
	tr     model.Traffic
	closed *model.ClosedLoop // nil in an open loop
	ctl    *controls
	ring   [][]int32
	wake   [][]int32 // closed loop: the clients that send a new request at each tick
	sent   []int32
	lost   []int32 // the flaky server's failed calls of a tick
	// arr is a trial's stream of new arrivals and poisson its counts.
	arr     rand.PCG
	poisson *poissonDraws
	// quiet holds the clients of a quiet tick's arrivals (quietTick).
	quiet []int32
	// tapes, when set, keeps the trials' arrivals (ArrivalTapes); taped
	// says this trial uses them, as taping.
	tapes  *ArrivalTapes
	taped  bool
	taping taping
	// refuses says a control may refuse a send (control.Controls.RefusesSends);
	// the others' sends are not asked, as they let every one through.
	refuses bool
	req     []request // the slab, indexed by request id
	free    []int32
	// start is the policy's start state, classes how the wait of each
	// retry class is drawn (nil for a stateful policy, whose law depends
	// on the previous delay), decided once rather than per retry.
	start   float64
	classes []retryClass
	// latency counts the trial's served requests by latency below
	// denseLatencies, folded into Trial.Latency when the trial ends: an
	// open loop's latencies come in no order, and the histogram would
	// search its runs for each.
	latency []int64
	// toRecovery stops a trial at the tick it recovers (OpenLoopToRecovery).
	toRecovery bool
	// decision, when set, is what the run's trials decided so far
	// (OpenLoopUntilDecided).
	decision *decision
}

// OpenLoopUntilDecided is OpenLoopToRecovery for a caller that asks of
// the run only whether at most AtMost of its Trials trials recover (a
// metastability map's "stuck" cell): once the first j trials, r of them
// recovered, decide it — r > AtMost, or r + Trials − j ≤ AtMost — the
// trials from j on are not played (their Open is empty and Skipped is
// set). Which trials are skipped depends on timing, but never a trial
// before the first prefix that decides, so a fold that reads the trials
// in order up to that prefix gets the same answer whatever the workers.
// Make one per run: its engines share what the run's trials decided.
type OpenLoopUntilDecided struct {
	OpenLoopToRecovery
	AtMost, Trials int
	decision       *decision
}

// NewOpenLoopUntilDecided is the workload of one run asking whether at
// most atMost of its trials recover.
func NewOpenLoopUntilDecided(w OpenLoop, atMost, trials int) OpenLoopUntilDecided {
	return OpenLoopUntilDecided{OpenLoopToRecovery{w}, atMost, trials, &decision{atMost: atMost, trials: trials, outcome: make([]int8, trials)}}
}

func (w OpenLoopUntilDecided) build(sc model.Scenario, c Choice) (Engine, error) {
	e, err := w.OpenLoopToRecovery.build(sc, c)
	if o, ok := e.(*OpenLoopEngine); ok && err == nil {
		o.decision = w.decision
	}
	return e, err
}

// Decides reports whether the first played trials, recovered of which
// recovered, answer the question of OpenLoopUntilDecided.
func Decides(recovered, played, atMost, trials int) bool {
	return recovered > atMost || recovered+trials-played <= atMost
}

// decision is what the trials of one OpenLoopUntilDecided run decided so
// far: each trial's outcome (0 not yet played, 1 recovered, 2 not) and
// the length of the first prefix that decides (trials past it need not be
// played; trials while unknown).
type decision struct {
	atMost, trials int
	mu             sync.Mutex
	outcome        []int8
	prefix         int // trials known from the first
	recovered      int // how many of them recovered
	cutoff         atomic.Int64
}

// skip reports whether trial i need not be played.
func (d *decision) skip(i int) bool {
	c := d.cutoff.Load()
	return c > 0 && int64(i) >= c
}

// record notes trial i's outcome and moves the decided prefix on.
func (d *decision) record(i int, recovered bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if i >= len(d.outcome) || d.cutoff.Load() > 0 {
		return
	}
	d.outcome[i] = 2
	if recovered {
		d.outcome[i] = 1
	}
	for d.prefix < len(d.outcome) && d.outcome[d.prefix] != 0 {
		if d.outcome[d.prefix] == 1 {
			d.recovered++
		}
		d.prefix++
		if Decides(d.recovered, d.prefix, d.atMost, d.trials) {
			d.cutoff.Store(int64(d.prefix))
			return
		}
	}
}

// OpenLoopToRecovery is open-loop traffic whose trials stop at the tick
// they recover (OpenTrial.Recovered), for a caller that asks only whether
// and when each trial recovers — a metastability map — and to whom the
// ticks after it are wasted work: once recovered, a trial can neither
// collapse nor lose its recovery. Up to that tick a trial draws and
// records what an OpenLoop trial of the same stream does, so Recovered and
// RecoveryTicks are those of the OpenLoop trial; the counts stop there
// (Completion is the recovery tick + 1; on the queue server the per-tick
// series are the OpenLoop trial's prefix). Both the request engine and the
// queue server's engine stop so.
type OpenLoopToRecovery struct{ OpenLoop }

func (OpenLoopToRecovery) Name() string { return "open-loop traffic until recovery" }
func (w OpenLoopToRecovery) build(sc model.Scenario, c Choice) (Engine, error) {
	if c.Engine == QueueName {
		e, err := NewQueueEngine(sc, &w.Traffic, w.Controls)
		if err != nil {
			return nil, err
		}
		e.toRecovery = true
		e.bound = newRecoveryBound(e, w.Traffic)
		e.bound.on = true
		return e, nil
	}
	e, err := NewOpenLoopEngine(sc, w.Traffic, w.Controls)
	if err != nil {
		return nil, err
	}
	e.toRecovery = true
	return e, nil
}

// request is one live request of the request engine.
type request struct {
	client  int32
	attempt int32 // failed sends so far
	born    int32 // tick of the first send
	// prev is a stateful policy's previous delay (Decorrelated), set by
	// each wait; the first retry's is the policy's start state.
	prev float64
}

// denseLatencies bounds the latencies the request engine counts in a
// slice (32 KB of counts); longer ones, rare, go to the histogram at once.
const denseLatencies = 1 << 12

// retryClass is how the wait before a retry of one class is drawn: a
// fixed wait (a law without chance draws nothing), the clamped uniform
// min(max, lo + u·width) with Law.Sample's arithmetic (affine, as the
// per-client engine's), or Law.Sample.
type retryClass struct {
	law   policy.Law
	fixed bool
	ticks int // the fixed wait
	affine
}

func retryClasses(sc model.Scenario) []retryClass {
	laws := classLaws(sc.Policy)
	if laws == nil {
		return nil
	}
	cs := make([]retryClass, len(laws))
	for n, l := range laws {
		c := retryClass{law: l}
		if l.Deterministic() {
			c.fixed, c.ticks = true, sc.Rounding.Ticks(l.Draw(0))
		} else {
			c.lo, c.width, c.max, c.ok = l.Affine()
		}
		cs[n] = c
	}
	return cs
}

// NewOpenLoopEngine prepares the request engine for open-loop traffic.
func NewOpenLoopEngine(sc model.Scenario, tr model.Traffic, ctl control.Controls) (*OpenLoopEngine, error) {
	e := &OpenLoopEngine{sc: sc, tr: tr, ctl: newControls(ctl, sc), start: sc.Policy.Start(), classes: retryClasses(sc), refuses: ctl.RefusesSends()}
	e.poisson = newPoissonDraws(&e.arr, tr.Rate)
	e.ring = make([][]int32, sc.MaxDelayTicks()+1)
	return e, nil
}

// NewClosedLoopEngine prepares the request engine for a closed loop.
func NewClosedLoopEngine(sc model.Scenario, tr model.Traffic, l model.ClosedLoop, ctl control.Controls) (*OpenLoopEngine, error) {
	e, err := NewOpenLoopEngine(sc, tr, ctl)
	if err != nil {
		return nil, err
	}
	e.closed = &l
	// A request ending at tick t books tick t + 1 + Think; the first
	// requests book ticks up to FirstWindow − 1.
	e.wake = make([][]int32, max(l.Think+2, sc.FirstWindow))
	return e, nil
}

// alloc makes a new request of client c arriving at tick, from the free
// list when it has one; −1 when model.MaxRequestsLive are alive.
func (e *OpenLoopEngine) alloc(c int32, tick int) int32 {
	n := len(e.free)
	if n == 0 {
		return e.grow(c, tick)
	}
	id := e.free[n-1]
	e.free = e.free[:n-1]
	e.req[id] = request{client: c, born: int32(tick)}
	return id
}

// grow makes a new request at the end of the slab.
func (e *OpenLoopEngine) grow(c int32, tick int) int32 {
	if len(e.req) >= model.MaxRequestsLive {
		return -1
	}
	e.req = append(e.req, request{client: c, born: int32(tick)})
	return int32(len(e.req) - 1)
}

// end frees request id, which was served or gave up at tick; in a closed
// loop its client sends its next request after the think time.
func (e *OpenLoopEngine) end(id int32, tick int) {
	if e.closed != nil {
		at := (tick + 1 + e.closed.Think) % len(e.wake)
		e.wake[at] = append(e.wake[at], e.req[id].client)
	}
	e.free = append(e.free, id)
}

// wait draws the wait in ticks before retry n of request id.
func (e *OpenLoopEngine) wait(src *rand.PCG, id int32, n int) int {
	if e.classes != nil {
		// Retries past the last class share its law.
		if c := &e.classes[min(n, len(e.classes)-1)]; c.ok {
			// The builtin min is math.Min (NaN, −0, −Inf alike) without
			// amd64's call to its assembly.
			return e.sc.Rounding.Ticks(min(c.max, c.lo+uniform(src)*c.width))
		}
	}
	return e.waitShaped(src, id, n)
}

// waitShaped is wait for a fixed wait, a stepped or warped law, or a
// stateful policy.
func (e *OpenLoopEngine) waitShaped(src *rand.PCG, id int32, n int) int {
	if e.classes != nil {
		// A class law keeps no state: prev is left alone.
		c := &e.classes[min(n, len(e.classes)-1)]
		if c.fixed {
			return c.ticks
		}
		d, _ := c.law.Sample(uniform(src))
		return e.sc.Rounding.Ticks(d)
	}
	q := &e.req[id]
	if n == 1 {
		q.prev = e.start
	}
	l := e.sc.Policy.Law(n, q.prev)
	if l.Deterministic() {
		d := l.Draw(0)
		q.prev = d
		return e.sc.Rounding.Ticks(d)
	}
	d, state := l.Sample(uniform(src))
	q.prev = state
	return e.sc.Rounding.Ticks(d)
}

// served counts a request served with the given latency.
func (e *OpenLoopEngine) served(t *Trial, latency int) {
	if uint(latency) < uint(len(e.latency)) {
		e.latency[latency]++
		return
	}
	e.servedLong(t, latency)
}

// servedMany counts n requests served with the given latency.
func (e *OpenLoopEngine) servedMany(t *Trial, latency, n int) {
	if uint(latency) < uint(len(e.latency)) {
		e.latency[latency] += int64(n)
		return
	}
	for range n {
		e.served(t, latency)
	}
}

// servedLong is served past the dense counts so far.
func (e *OpenLoopEngine) servedLong(t *Trial, latency int) {
	if latency < denseLatencies {
		e.latency = append(e.latency, make([]int64, latency+1-len(e.latency))...)
		e.latency[latency]++
		return
	}
	t.served(latency)
}

// Play runs one trial. A trial that would hold more than
// model.MaxRequestsLive requests at once stops there, not recovered.
func (e *OpenLoopEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	if d := e.decision; d != nil {
		if d.skip(t.Index) {
			t.Open = &OpenTrial{Skipped: true}
			return
		}
		defer func() { d.record(t.Index, t.Open.Recovered) }()
	}
	e.play(src, t, arrivals)
	if e.taped {
		e.endTape()
	}
	for v, n := range e.latency {
		if n > 0 {
			t.Latency.Add(int64(v), n)
			t.Served += n
			e.latency[v] = 0
		}
	}
}

func (e *OpenLoopEngine) play(src *rand.PCG, t *Trial, arrivals bool) {
	sc, tr := &e.sc, &e.tr
	o := &OpenTrial{}
	t.Open = o
	arr := &e.arr
	seed1, seed2 := src.Uint64(), src.Uint64()
	arr.Seed(seed1, seed2)
	e.poisson.setMean(tr.Rate)
	if e.taped = e.tapeable(); e.taped {
		e.startTape(seed1, seed2)
	}
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	for i := range e.wake {
		e.wake[i] = e.wake[i][:0]
	}
	e.req = e.req[:0]
	e.free = e.free[:0]
	ctl := e.ctl
	ctl.reset(src)
	if e.closed != nil {
		for c := range int32(sc.Clients) {
			at := 0
			if w := sc.FirstWindow; w > 1 {
				at = int(below(arr, uint64(w)))
			}
			e.wake[at] = append(e.wake[at], c)
		}
	}
	r := len(e.ring)
	end := tr.OutageEnd()
	last := tr.Ticks + tr.DrainTicks()
	threshold := int64(tr.RecoveryBacklog(sc.Capacity))
	var live int64
	collapse := int64(tr.CollapseBacklog)
	var atEnd int64 // the backlog when the outage ended
	// What the controls need told: with no control state, no send is
	// refused and no outcome recorded (the attempts limit is asked at
	// each retry).
	controlled := len(ctl.states) > 0
	flaky := sc.Fails()
	closed := e.closed != nil
	quietable := !closed && !flaky
	// From quietFrom on, once recovered and empty, the trial is quiet to
	// its horizon (quietRest).
	quietFrom := math.MaxInt
	if e.taped && quietable && !arrivals && !e.refuses {
		quietFrom = e.taping.quietFrom(tr.Ticks, sc.Capacity)
	}
	// Without control state, any run of quiet ticks the tape shows is
	// skipped so (quietSkip).
	skips := e.taped && quietable && !arrivals && !controlled && sc.Capacity <= model.MaxRequestsLive
	retryLimit := sc.Policy.Retries
	tick := 0
	work := 0 // the previous tick's requests, fresh and retried: stopped's unit
	// slot is tick mod r, kept without dividing: a retry at slot + wait
	// (wait < r) wraps at most once.
	for slot := 0; tick < last && !t.stopped(work); tick, slot = tick+1, ringAfter(slot, 1, r) {
		draining := tick >= tr.Ticks
		if draining && live == 0 {
			break
		}
		if live == 0 && o.Recovered && !draining {
			if tick >= quietFrom {
				e.quietRest(t, tick)
				tick = tr.Ticks
				break
			}
			if skips {
				if j := e.quietSkip(t, tick); j > tick {
					// The ring is empty: its slots only move on.
					slot = (slot + (j - tick)) % r
					if tick = j; tick >= tr.Ticks {
						break // over, as a drain with nothing left ends
					}
				}
			}
		}
		cur := e.ring[slot]
		gaveUp := o.GaveUp
		booked := len(cur)
		// A quiet tick — nothing booked, and no more arrivals than the
		// server takes — draws nothing but its arrivals (quietTick).
		var m, s int
		var err error
		quiet := false
		if booked == 0 && quietable && !draining && (tick > 0 || !tr.StartCohort) {
			n := e.fresh(tick)
			if n <= tr.CapacityAt(sc.Capacity, tick) && live+int64(n) <= model.MaxRequestsLive {
				m = e.quietTick(t, n, tick)
				s, quiet = m, true
				if tick >= end {
					o.ServedAfter += int64(m)
				}
			} else {
				cur, err = e.addFresh(n, tick, cur)
			}
		} else {
			cur, err = e.arrivals(arr, tick, draining, cur)
		}
		work = max(m, len(cur))
		if !quiet {
			if err != nil {
				e.taping.ok = false // the tick's arrivals were cut off
				t.Censored = true
				o.Backlog = live
				return
			}
			live += int64(len(cur) - booked)
			o.NewRequests += int64(len(cur) - booked)
			// The breakers and throttles decide who sends.
			sent := e.sent[:0]
			if !controlled || !e.refuses {
				sent = append(sent, cur...)
			} else {
				for _, id := range cur {
					ok, cause := ctl.send(e.req[id].client, tick)
					if ok {
						sent = append(sent, id)
						continue
					}
					o.GaveUp++
					o.GaveUpBy[cause]++
					e.end(id, tick)
					live--
				}
			}
			e.ring[slot] = cur[:0]
			e.sent = sent
			m = len(sent)
			t.Calls += int64(m)
			t.Peak = max(t.Peak, int64(m))
			s = m
			if k := tr.CapacityAt(sc.Capacity, tick); m > k {
				s = tr.Goodput(sc.Server, k, m)
			}
			winners, losers := sent[:s], sent[s:]
			if f := min(s, m-s); f > 0 {
				// Shuffle the smaller side to the front.
				for i := range f {
					j := i + int(below(src, uint64(m-i)))
					sent[i], sent[j] = sent[j], sent[i]
				}
				if f < s {
					losers, winners = sent[:m-s], sent[m-s:]
				}
			}
			if flaky && len(winners) > 0 {
				winners, losers = e.flaky(src, winners, losers)
				s = len(winners)
			}
			// Outcomes within a tick are simultaneous; successes are credited
			// to the controls before the failures ask for retries.
			for _, id := range winners {
				q := &e.req[id]
				retried := q.attempt > 0
				if retried {
					o.Retries++
				}
				if controlled {
					ctl.outcome(q.client, tick, false, retried)
				}
				e.served(t, tick-int(q.born)+1)
				if closed {
					e.end(id, tick)
				}
			}
			if !closed {
				e.free = append(e.free, winners...)
			}
			if tick >= end && !draining {
				o.ServedAfter += int64(len(winners))
			}
			live -= int64(len(winners))
			for _, id := range losers {
				q := &e.req[id]
				a := q.attempt
				if a > 0 {
					o.Retries++
				}
				if controlled {
					ctl.outcome(q.client, tick, true, a > 0)
				}
				if a < math.MaxInt32 { // saturate, as in ClientEngine
					a++
					q.attempt = a
				}
				n := int(a)                 // sends made, and the number of the next retry
				ok, cause := false, byLimit // the policy's own retry limit first
				if retryLimit == 0 || n <= retryLimit {
					ok, cause = ctl.retry(q.client, n, tick)
				}
				if !ok {
					o.GaveUp++
					o.GaveUpBy[cause]++
					e.end(id, tick)
					live--
					continue
				}
				at := ringAfter(slot, e.wait(src, id, n), r)
				e.ring[at] = append(e.ring[at], id)
			}
		}
		o.PeakBacklog = max(o.PeakBacklog, live)
		if arrivals {
			t.Arrivals = append(t.Arrivals, int64(m))
			o.Goodput = append(o.Goodput, int64(s))
			o.BacklogAt = append(o.BacklogAt, live)
		}
		if draining {
			o.Drained++
			continue
		}
		if o.settle(tick, end, live, live, threshold, collapse, o.GaveUp > gaveUp, e.toRecovery, &atEnd) {
			tick++
			break
		}
	}
	o.Backlog = live
	t.Censored = !o.Recovered
	t.Completion = int64(min(tick, tr.Ticks))
}

// recovers applies the recovery rule at the end of a tick: the first tick
// at or after the outage's end whose backlog is at most the traffic's
// RecoveryBacklog and at which no request gave up is the recovery (the
// queue server's backlog counts its queue too). It reports whether this
// tick is it.
// settle ends a tick of open-loop traffic, alike on every engine: the
// trial recovers (recovers), the backlog when the outage ended is kept in
// atEnd, and the trial collapses once its live requests exceed that by
// collapse (> 0) before recovering. It reports whether the trial stops
// here: recovered when asked to stop there (toRecovery), or collapsed.
func (o *OpenTrial) settle(tick, end int, live, backlog, threshold, collapse int64, gaveUp, toRecovery bool, atEnd *int64) bool {
	if o.recovers(tick, end, backlog, threshold, gaveUp) && toRecovery {
		return true
	}
	if tick == end-1 {
		*atEnd = live
	}
	if collapse > 0 && tick >= end && live > *atEnd+collapse && !o.Recovered {
		o.Collapsed = true
		return true
	}
	return false
}

func (o *OpenTrial) recovers(tick, end int, backlog, threshold int64, gaveUp bool) bool {
	if o.Recovered || tick < end || backlog > threshold || gaveUp {
		return false
	}
	o.Recovered = true
	o.RecoveryTicks = int64(tick + 1 - end)
	return true
}

func (e *OpenLoopEngine) readTapes(t *ArrivalTapes) { e.tapes = t }

// quietTick plays a tick of an open loop at which no retry is booked and
// the n new requests are at most what the server takes (not flaky), and
// returns its sends: every request a control lets through is served at
// once, with latency 1 and no chance draw, and none is left alive. So it
// draws only the arrivals' clients and tells the controls what the full
// tick would, in the same order (every start, then every send, then every
// success), without a request in the slab, a shuffle or a retry.
func (e *OpenLoopEngine) quietTick(t *Trial, n, tick int) int {
	o := t.Open
	o.NewRequests += int64(n)
	m := n
	clients := uint64(e.sc.Clients)
	if ctl := e.ctl; len(ctl.states) == 0 {
		// No control keeps state: the clients are drawn (or read) only to
		// keep the arrivals' stream where the full tick leaves it.
		switch {
		case e.taped && e.taping.onTape:
			e.taping.pos += n
		case e.taped:
			for range n {
				e.client()
			}
		case clients > 1:
			for range n {
				below(&e.arr, clients)
			}
		}
	} else {
		q := e.quiet[:0]
		for range n {
			c := e.client()
			ctl.start(c, tick)
			q = append(q, c)
		}
		e.quiet = q
		sent := q
		if e.refuses {
			sent = q[:0]
			for _, c := range q {
				if ok, cause := ctl.send(c, tick); !ok {
					o.GaveUp++
					o.GaveUpBy[cause]++
					continue
				}
				sent = append(sent, c)
			}
		}
		for _, c := range sent {
			ctl.outcome(c, tick, false, false)
		}
		m = len(sent)
	}
	t.Calls += int64(m)
	t.Peak = max(t.Peak, int64(m))
	if m > 0 {
		e.servedMany(t, 1, m)
	}
	return m
}

// quietRest plays the ticks from tick to the horizon of a trial that has
// recovered, holds no request, and whose tape says no later tick brings
// more new requests than the capacity, under controls that refuse no
// send. Each of those ticks is then quiet (quietTick), and leaves the
// trial empty for the next: every new request is served at its first
// send, with latency 1 and no chance draw. So their sum is the rest of
// the trial — its new requests, calls and services, its peak — read off
// the tape; the controls' state, which would decide only retries, is
// left as it is, and the streams are not read again.
func (e *OpenLoopEngine) quietRest(t *Trial, tick int) {
	e.quietTicks(t, e.taping.tape.counts[tick:e.tr.Ticks])
}

// quietTicks books quiet ticks whose new requests the tape counts: each
// is served at once, a call with a latency of one tick, and none is late.
// It returns the requests booked.
func (e *OpenLoopEngine) quietTicks(t *Trial, counts []uint16) int {
	var sum int64
	peak := 0
	for _, n := range counts {
		sum += int64(n)
		peak = max(peak, int(n))
	}
	o := t.Open
	o.NewRequests += sum
	o.ServedAfter += sum
	t.Calls += sum
	t.Peak = max(t.Peak, int64(peak))
	e.servedMany(t, 1, int(sum))
	return int(sum)
}

// quietSkip plays, in a trial that has recovered, holds no request and
// has no control state, the ticks from tick on that its tape shows
// bringing at most the capacity, up to the first that brings more (or the
// tape's end, or the horizon), and returns that tick. Each is quiet
// (quietTick) and leaves the trial empty for the next, as in quietRest;
// without control state nothing else is told, and the tape's clients are
// passed over. The trial goes on from the returned tick as if it had
// played those before it.
func (e *OpenLoopEngine) quietSkip(t *Trial, tick int) int {
	p := &e.taping
	if p.tape == nil {
		return tick
	}
	counts := p.tape.counts[:min(len(p.tape.counts), e.tr.Ticks)]
	k := e.sc.Capacity
	j := tick
	for j < len(counts) && int(counts[j]) <= k {
		j++
	}
	if j == tick {
		return tick
	}
	p.pos += e.quietTicks(t, counts[tick:j])
	return j
}

// ringAfter is the slot d ticks after slot in a ring of r slots, for d ≥ 0:
// (slot + d) mod r without a division when d < r.
func ringAfter(slot, d, r int) int {
	at := slot + d
	for at >= r {
		at -= r
	}
	return at
}

// arrivals appends to cur the new requests of tick — none while draining;
// in an open loop a Poisson number (and every client's first at tick 0
// with StartCohort), each from a client chosen uniformly; in a closed loop
// those of the clients whose think time ends now — and tells the controls
// they start.
func (e *OpenLoopEngine) arrivals(arr *rand.PCG, tick int, draining bool, cur []int32) ([]int32, error) {
	if e.closed != nil {
		w := tick % len(e.wake)
		due := e.wake[w]
		e.wake[w] = due[:0]
		if draining {
			return cur, nil
		}
		for _, c := range due {
			var err error
			if cur, err = e.add(cur, c, tick); err != nil {
				return cur, err
			}
		}
		return cur, nil
	}
	if draining {
		return cur, nil
	}
	if tick == 0 && e.tr.StartCohort {
		for c := range int32(e.sc.Clients) {
			var err error
			if cur, err = e.add(cur, c, tick); err != nil {
				return cur, err
			}
		}
	}
	return e.addFresh(e.fresh(tick), tick, cur)
}

// fresh draws how many new requests arrive at tick of an open loop.
func (e *OpenLoopEngine) fresh(tick int) int {
	if e.taped {
		if n, ok := e.tapeCount(tick); ok {
			return n
		}
	}
	if len(e.tr.Steps) > 0 {
		e.poisson.setMean(e.tr.RateAt(tick))
	}
	n := e.poisson.draw()
	if e.taped {
		e.taping.recordCount(n)
	}
	return n
}

// client is the client of the next new request of an open loop, chosen
// uniformly (or read from the tape).
func (e *OpenLoopEngine) client() int32 {
	if !e.taped {
		return e.drawClient()
	}
	p := &e.taping
	if p.onTape {
		c := p.tape.clients[p.pos]
		p.pos++
		return int32(c)
	}
	c := e.drawClient()
	p.clients = append(p.clients, uint8(c))
	return c
}

// drawClient draws the client of a new request.
func (e *OpenLoopEngine) drawClient() int32 {
	if n := uint64(e.sc.Clients); n > 1 {
		return int32(below(&e.arr, n))
	}
	return 0
}

// addFresh appends to cur n new requests of tick, each from a client
// chosen uniformly.
func (e *OpenLoopEngine) addFresh(n, tick int, cur []int32) ([]int32, error) {
	for range n {
		var err error
		if cur, err = e.add(cur, e.client(), tick); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

// add appends to cur a new request of client c at tick, and tells the
// controls it starts.
func (e *OpenLoopEngine) add(cur []int32, c int32, tick int) ([]int32, error) {
	id := e.alloc(c, tick)
	if id < 0 {
		return cur, errTooManyLive
	}
	if len(e.ctl.states) > 0 {
		e.ctl.start(c, tick)
	}
	return append(cur, id), nil
}

var errTooManyLive = fmt.Errorf("more than %d requests alive at once", int(model.MaxRequestsLive))

// flaky fails each call the flaky server took with its failure rate: the
// failed winners join the losers.
func (e *OpenLoopEngine) flaky(src *rand.PCG, winners, losers []int32) ([]int32, []int32) {
	p := e.sc.FailureRate
	if p >= 1 && len(losers) == 0 {
		return winners[:0], winners // every call fails, in the order sent
	}
	e.lost = append(e.lost[:0], losers...)
	kept := winners[:0]
	for _, id := range winners {
		if p >= 1 || e.sc.CallFails(uniform(src)) {
			e.lost = append(e.lost, id)
		} else {
			kept = append(kept, id)
		}
	}
	return kept, e.lost
}
