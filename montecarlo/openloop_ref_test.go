package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gonum.org/v1/gonum/stat/distuv"
)

// refOpenLoopEngine is the request engine as it was before its speedups,
// kept as the reference that the engine must match draw for
// draw, and as the "old" side of BenchmarkOpenLoop.
type refOpenLoopEngine struct {
	sc      model.Scenario
	tr      model.Traffic
	closed  *model.ClosedLoop // nil in an open loop
	ctl     *refControls
	ring    [][]int32
	wake    [][]int32 // closed loop: the clients that send a new request at each tick
	sent    []int32
	lost    []int32   // the flaky server's failed calls of a tick
	client  []int32   // per request
	attempt []int32   // failed sends so far
	born    []int32   // tick of the first send
	prev    []float64 // the policy's previous delay (Decorrelated)
	free    []int32
	// start is the policy's start state, laws its law of each retry class
	// (nil for a stateful policy), looked up once rather than per request.
	start float64
	laws  []policy.Law
}

// newRefOpenLoopEngine prepares the request engine for open-loop traffic.
func newRefOpenLoopEngine(sc model.Scenario, tr model.Traffic, ctl control.Controls) (*refOpenLoopEngine, error) {
	e := &refOpenLoopEngine{sc: sc, tr: tr, ctl: newRefControls(ctl, sc), start: sc.Policy.Start(), laws: classLaws(sc.Policy)}
	e.ring = make([][]int32, sc.MaxDelayTicks()+1)
	return e, nil
}

// newRefClosedLoopEngine prepares the request engine for a closed loop.
func newRefClosedLoopEngine(sc model.Scenario, tr model.Traffic, l model.ClosedLoop, ctl control.Controls) (*refOpenLoopEngine, error) {
	e, err := newRefOpenLoopEngine(sc, tr, ctl)
	if err != nil {
		return nil, err
	}
	e.closed = &l
	// A request ending at tick t books tick t + 1 + Think; the first
	// requests book ticks up to FirstWindow − 1.
	e.wake = make([][]int32, max(l.Think+2, sc.FirstWindow))
	return e, nil
}

// alloc makes a new request of client c arriving at tick.
func (e *refOpenLoopEngine) alloc(c int32, tick int) (int32, error) {
	var id int32
	if n := len(e.free); n > 0 {
		id = e.free[n-1]
		e.free = e.free[:n-1]
		e.client[id], e.attempt[id], e.born[id], e.prev[id] = c, 0, int32(tick), e.start
		return id, nil
	}
	if len(e.client) >= model.MaxRequestsLive {
		return 0, fmt.Errorf("more than %d requests alive at once", int(model.MaxRequestsLive))
	}
	id = int32(len(e.client))
	e.client = append(e.client, c)
	e.attempt = append(e.attempt, 0)
	e.born = append(e.born, int32(tick))
	e.prev = append(e.prev, e.start)
	return id, nil
}

// end frees request id, which was served or gave up at tick; in a closed
// loop its client sends its next request after the think time.
func (e *refOpenLoopEngine) end(id int32, tick int) {
	if e.closed != nil {
		at := (tick + 1 + e.closed.Think) % len(e.wake)
		e.wake[at] = append(e.wake[at], e.client[id])
	}
	e.free = append(e.free, id)
}

// wait draws the wait in ticks before retry n of request id.
func (e *refOpenLoopEngine) wait(src *rand.PCG, id int32, n int) int {
	var l policy.Law
	if e.laws != nil {
		l = e.laws[min(n, len(e.laws)-1)] // retries past the last class share its law
	} else {
		l = e.sc.Policy.Law(n, e.prev[id])
	}
	if l.Deterministic() {
		d := l.Draw(0)
		e.prev[id] = d
		return e.sc.Rounding.Ticks(d)
	}
	d, state := l.Sample(uniform(src))
	e.prev[id] = state
	return e.sc.Rounding.Ticks(d)
}

// Play runs one trial. A trial that would hold more than
// model.MaxRequestsLive requests at once stops there, not recovered.
func (e *refOpenLoopEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc, tr := &e.sc, &e.tr
	o := &OpenTrial{}
	t.Open = o
	arr := rand.NewPCG(src.Uint64(), src.Uint64())
	poisson := distuv.Poisson{Lambda: tr.Rate, Src: arr}
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	for i := range e.wake {
		e.wake[i] = e.wake[i][:0]
	}
	e.client, e.attempt, e.born, e.prev = e.client[:0], e.attempt[:0], e.born[:0], e.prev[:0]
	e.free = e.free[:0]
	e.ctl.reset(src)
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
	tick := 0
	for ; tick < last && !t.stopped(len(e.ring[tick%r])); tick++ {
		draining := tick >= tr.Ticks
		if draining && live == 0 {
			break
		}
		slot := tick % r
		cur := e.ring[slot]
		gaveUp := o.GaveUp
		booked := len(cur)
		cur, err := e.arrivals(arr, &poisson, tick, draining, cur)
		if err != nil {
			t.Censored = true
			o.Backlog = live
			return
		}
		live += int64(len(cur) - booked)
		o.NewRequests += int64(len(cur) - booked)
		// The breakers and throttles decide who sends.
		sent := e.sent[:0]
		for _, id := range cur {
			ok, cause := e.ctl.send(e.client[id], tick)
			if ok {
				sent = append(sent, id)
				continue
			}
			o.GaveUp++
			o.GaveUpBy[cause]++
			e.end(id, tick)
			live--
		}
		e.ring[slot] = cur[:0]
		e.sent = sent
		m := len(sent)
		t.Calls += int64(m)
		t.Peak = max(t.Peak, int64(m))
		s := tr.Goodput(sc.Server, tr.CapacityAt(sc.Capacity, tick), m)
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
		if sc.Server == model.Flaky && sc.FailureRate > 0 && len(winners) > 0 {
			winners, losers = e.flaky(src, winners, losers)
			s = len(winners)
		}
		// Outcomes within a tick are simultaneous; successes are credited
		// to the controls before the failures ask for retries.
		for _, id := range winners {
			if e.attempt[id] > 0 {
				o.Retries++
			}
			e.ctl.outcome(e.client[id], tick, false, e.attempt[id] > 0)
			t.served(tick - int(e.born[id]) + 1)
			if tick >= end && !draining {
				o.ServedAfter++
			}
			e.end(id, tick)
			live--
		}
		for _, id := range losers {
			c := e.client[id]
			if e.attempt[id] > 0 {
				o.Retries++
			}
			e.ctl.outcome(c, tick, true, e.attempt[id] > 0)
			if e.attempt[id] < math.MaxInt32 { // saturate, as in ClientEngine
				e.attempt[id]++
			}
			n := int(e.attempt[id])     // sends made, and the number of the next retry
			ok, cause := false, byLimit // the policy's own retry limit first
			if r := sc.Policy.Retries; r == 0 || n <= r {
				ok, cause = e.ctl.retry(c, n, tick)
			}
			if !ok {
				o.GaveUp++
				o.GaveUpBy[cause]++
				e.end(id, tick)
				live--
				continue
			}
			at := (tick + e.wait(src, id, n)) % r
			e.ring[at] = append(e.ring[at], id)
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
		if !o.Recovered && tick >= end && live <= threshold && o.GaveUp == gaveUp {
			o.Recovered = true
			o.RecoveryTicks = int64(tick + 1 - end)
		}
		if tick == end-1 {
			atEnd = live
		}
		if collapse > 0 && tick >= end && live > atEnd+collapse && !o.Recovered {
			o.Collapsed = true
			tick++
			break
		}
	}
	o.Backlog = live
	t.Censored = !o.Recovered
	t.Completion = int64(min(tick, tr.Ticks))
}

// arrivals appends to cur the new requests of tick — none while draining;
// in an open loop a Poisson number (and every client's first at tick 0
// with StartCohort), each from a client chosen uniformly; in a closed loop
// those of the clients whose think time ends now — and tells the controls
// they start.
func (e *refOpenLoopEngine) arrivals(arr *rand.PCG, poisson *distuv.Poisson, tick int, draining bool, cur []int32) ([]int32, error) {
	add := func(c int32) error {
		id, err := e.alloc(c, tick)
		if err != nil {
			return err
		}
		e.ctl.start(c, tick)
		cur = append(cur, id)
		return nil
	}
	if e.closed != nil {
		w := tick % len(e.wake)
		due := e.wake[w]
		e.wake[w] = due[:0]
		for _, c := range due {
			if !draining {
				if err := add(c); err != nil {
					return cur, err
				}
			}
		}
		return cur, nil
	}
	if draining {
		return cur, nil
	}
	if tick == 0 && e.tr.StartCohort {
		for c := range int32(e.sc.Clients) {
			if err := add(c); err != nil {
				return cur, err
			}
		}
	}
	if len(e.tr.Steps) > 0 {
		poisson.Lambda = e.tr.RateAt(tick)
	}
	fresh := int(poisson.Rand())
	for range fresh {
		c := int32(0)
		if e.sc.Clients > 1 {
			c = int32(below(arr, uint64(e.sc.Clients)))
		}
		if err := add(c); err != nil {
			return cur, err
		}
	}
	return cur, nil
}

// flaky fails each call the flaky server took with its failure rate: the
// failed winners join the losers.
func (e *refOpenLoopEngine) flaky(src *rand.PCG, winners, losers []int32) ([]int32, []int32) {
	p := e.sc.FailureRate
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

// refControls is controls as it was before the speedups: the per-client state of control.Controls during one trial:
// the attempts limit and each control's control.ControlState, asked in the
// order of Controls.List. Engines ask it before every retry (retry) and
// every send (send), and tell it every new request (start) and every
// outcome (outcome).
type refControls struct {
	maxAttempts int
	states      []control.ControlState
	cause       []int
	draw        func() float64
	src         *rand.PCG // the trial's stream, for randomised rules
}

func newRefControls(cfg control.Controls, sc model.Scenario) *refControls {
	c := &refControls{maxAttempts: cfg.MaxAttempts}
	for _, k := range cfg.List() {
		c.states = append(c.states, k.NewState(sc, sc.Clients))
		c.cause = append(c.cause, int(k.Cause()))
	}
	c.draw = func() float64 { return uniform(c.src) }
	return c
}

// reset starts a trial drawing from src: full buckets, closed breakers,
// empty windows.
func (c *refControls) reset(src *rand.PCG) {
	c.src = src
	for _, s := range c.states {
		s.Reset()
	}
}

// start tells every control that client id starts a new request at tick.
func (c *refControls) start(id int32, tick int) {
	for _, s := range c.states {
		s.Start(id, tick)
	}
}

// retry decides whether a request of client id that has just failed its
// attempt number n (the first send is attempt 1) at tick may retry,
// letting each control take what the retry costs; when it may not, it
// returns the cause.
func (c *refControls) retry(id int32, n, tick int) (ok bool, cause int) {
	if a := c.maxAttempts; a > 0 && n >= a {
		return false, byLimit
	}
	for i, s := range c.states {
		if !s.Retry(id, tick) {
			return false, c.cause[i]
		}
	}
	return true, 0
}

// send reports whether client id's controls let a send through at tick,
// and the cause when they do not.
func (c *refControls) send(id int32, tick int) (bool, int) {
	for i, s := range c.states {
		if !s.Send(id, tick, c.draw) {
			return false, c.cause[i]
		}
	}
	return true, 0
}

// outcome records the result of a send of client id at tick; retried says
// whether the send was a retry.
func (c *refControls) outcome(id int32, tick int, failed, retried bool) {
	for _, s := range c.states {
		s.Outcome(id, tick, failed, retried)
	}
}
