package montecarlo

import (
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// MaxOCCClients bounds the OCC engine's cohort: it keeps under 100 bytes
// per client (its random stream and state, 40 bytes, and its leaf and
// path in the event queue, at most 24).
const MaxOCCClients = 10_000_000

// OCCEngine is the event engine of the AWS blog's OCC model (see
// model/occ.go for the semantics). Only the writes need to be events: a
// write that reaches the server at w carrying the version read at r wins
// iff no write won in between, that is iff the last win so far came before
// r — and every earlier write has been handled by then, since events are
// handled in time order. So each client has exactly one pending event, its
// next write, and the hops around it are drawn when it is scheduled: an
// attempt that starts when the client sends its read at s reads at
// r = s + hop and writes at r + 2 hops; a loser learns of its failure one
// hop after w and sends its next read backoff(n) later. This is the process
// of the blog's simulator, which queues every message as an event, at a
// quarter of the heap operations.
//
// Every client draws its hops and backoffs from its own stream, seeded from
// the trial's stream. Hence the first attempt of every client is the same
// whatever the policy, and later attempts stay aligned draw by draw, which
// makes the common random numbers of paired comparisons effective.
type OCCEngine struct {
	sc      model.Scenario
	horizon float64
	client  []occClient
	queue   clientQueue // the clients' next writes
	// laws[c] is the law of retry n with c = min(n, len(laws)−1) for a
	// policy whose law depends on n alone; nil for a stateful policy
	// (Decorrelated), whose law is asked of the policy at every retry.
	laws []policy.Law
	law  func(n int, prev float64) policy.Law // the policy's Law, its rule looked up once
	// affine is laws as min(max, lo + u·width) (Law.Affine), drawn inline,
	// when every one of them is a plain clamped uniform; else nil.
	affine []affine
	// grow says that law is min(growHi, U(growLo, growth·prev)) at every
	// retry (Policy.GrowthUniform), drawn inline.
	grow                   bool
	growLo, growth, growHi float64
}

// occClient is a client's stream and state, together: an event touches
// one client's line of memory and checks one index.
type occClient struct {
	net   rand.PCG // the client's stream
	read  float64  // when the pending write's read reached the server
	retry int      // retry number n of the last retry
	prev  float64  // the state a stateful policy carries: Decorrelated's previous delay
}

// occEvent is a client's next write reaching the server.
type occEvent struct {
	at     float64
	client int32
}

// NewOCCEngine prepares the OCC engine for a valid OCC scenario.
func NewOCCEngine(sc model.Scenario) (*OCCEngine, error) {
	e := &OCCEngine{sc: sc, horizon: float64(sc.EffectiveHorizon())}
	e.client = make([]occClient, sc.Clients)
	e.laws, e.law = classLaws(sc.Policy), sc.Policy.LawFunc()
	e.growLo, e.growth, e.growHi, e.grow = sc.Policy.GrowthUniform()
	if e.laws != nil {
		e.affine = make([]affine, len(e.laws))
		for n, l := range e.laws[1:] {
			a := &e.affine[n+1]
			if a.lo, a.width, a.max, a.ok = l.Affine(); !a.ok {
				e.affine = nil
				break
			}
		}
	}
	return e, nil
}

// hop is one network delay of a client, |Normal(HopMean, HopSD)| ms, the
// draw rand.Rand.NormFloat64 makes from the client's stream.
func hop(net *rand.PCG) float64 {
	h := model.HopMean + model.HopSD*normal(net)
	if h < 0 { // math.Abs, within the inliner's budget
		h = -h
	}
	return h
}

// backoff draws the client's delay before its retry n. It always consumes
// one uniform, even for a deterministic policy, so that the draws of
// different policies stay aligned.
func (e *OCCEngine) backoff(cl *occClient, n int) float64 {
	u := uniform(&cl.net)
	if e.affine != nil { // Law.Draw of the plain clamped uniform, inline
		a := &e.affine[min(n, len(e.affine)-1)]
		if d := a.lo + u*a.width; d < a.max {
			return d
		}
		return a.max
	}
	if e.grow { // Law.Sample of the growth law, inline
		cl.prev = math.Min(e.growHi, e.growLo+u*(e.growth*cl.prev-e.growLo))
		return cl.prev
	}
	return drawDelay(e.laws, e.law, n, &cl.prev, u)
}

// attempt draws the client's attempt whose read is sent at s and returns
// the time its write reaches the server.
func attempt(cl *occClient, s float64) float64 {
	r := s + hop(&cl.net)
	cl.read = r
	return r + hop(&cl.net) + hop(&cl.net)
}

// Play runs one trial.
func (e *OCCEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	t.Continuous = true
	sc := &e.sc
	q := &e.queue
	q.reset(sc.Clients)
	first := sc.Policy.Start()
	for c := range e.client {
		cl := &e.client[c]
		*cl = occClient{prev: first}
		cl.net.Seed(src.Uint64(), src.Uint64())
		start := 0.0
		if sc.FirstWindow > 1 {
			start = uniform(&cl.net) * float64(sc.FirstWindow)
		}
		q.at[c] = math.Float64bits(attempt(cl, start))
	}
	q.build()
	lastWin := math.Inf(-1) // when the row's version last changed
	done := 0.0
	pending := false
	var calls, served int64
	poll := 0 // events since the last look at the stop flag
	for {
		c, w := q.next()
		if w > e.horizon { // +Inf, no write left, is beyond every horizon
			pending = !math.IsInf(w, 1)
			break
		}
		if poll++; poll == 1<<10 {
			if poll = 0; t.stopped(2 << 10) {
				pending = true
				break
			}
		}
		calls++
		if arrivals {
			t.CallTimes = append(t.CallTimes, w)
		}
		cl := &e.client[c]
		if lastWin < cl.read { // the version is still the one read: a win
			lastWin = w
			served++
			done = max(done, w+hop(&cl.net))
			q.setBits(c, none)
		} else { // a loss: the response, the backoff, the next attempt
			cl.retry++
			fail := w + hop(&cl.net)
			q.set(c, attempt(cl, fail+e.backoff(cl, cl.retry)))
		}
	}
	t.Calls += calls
	t.Served += served
	t.Censored = pending
	t.Time = done
}

// siftUp moves q[i] up to its place: an event added at the end.
func siftUp(q []occEvent, i int) {
	x := q[i]
	for i > 0 {
		p := (i - 1) / 4
		if !(x.at < q[p].at) {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = x
}

// popHead removes the root of the heap q.
func popHead(q []occEvent) []occEvent {
	q[0] = q[len(q)-1]
	q = q[:len(q)-1]
	siftDown(q, 0)
	return q
}

// siftDown restores the heap order below i in a 4-ary min-heap on the event
// time. The queue holds one event per client, so a pop or a reschedule is
// one sift of the root; a typed 4-ary heap here is several times faster
// than container/heap's interface calls and has half the levels of a
// binary heap. A rescheduled write usually belongs near the bottom, so the
// hole first descends along the smallest children to a leaf and the event
// then climbs back (Floyd's bottom-up sift), which saves a comparison per
// level. Equal times, which have probability 0, are still ordered
// deterministically, by the heap's own history.
func siftDown(q []occEvent, i int) {
	n := len(q)
	if i >= n {
		return
	}
	x, top := q[i], i
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m, mt := c, q[c].at
		for j := c + 1; j < min(c+4, n); j++ {
			if q[j].at < mt {
				m, mt = j, q[j].at
			}
		}
		q[i] = q[m]
		i = m
	}
	for i > top {
		p := (i - 1) / 4
		if q[p].at <= x.at {
			break
		}
		q[i] = q[p]
		i = p
	}
	q[i] = x
}
