package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// QueueName names the queue engine in a Choice.
const QueueName EngineName = "queue"

// QueueTrial is what a trial on the queue server records beyond Trial's
// common fields (where Served counts the useful completions and Latency
// their end-to-end latencies, first send to response).
type QueueTrial struct {
	Admitted int64 // sends that joined the queue
	Rejected int64 // sends refused by a full queue (failed at once)
	TimedOut int64 // attempts their clients abandoned at the timeout
	// Wasted counts the abandoned requests the server served: in a cohort
	// also those still queued when the last client was done, which the
	// server serves after the trial; in open-loop traffic only those served
	// within the trial's ticks.
	Wasted    int64
	PeakQueue int64 // the longest queue after a tick's arrivals
	Queued    int64 // requests in the queue when the trial stopped
	// Response counts the successful attempts by response time (wait plus
	// one tick of service, in ticks).
	Response stats.Histogram
	// QueueAt[t] and WastedAt[t] are the queue's length after tick t and
	// the wasted completions of tick t, recorded with Trial.Arrivals.
	QueueAt, WastedAt []int64
}

func (q *QueueTrial) reset() {
	resp := q.Response
	resp.Reset()
	*q = QueueTrial{Response: resp, QueueAt: q.QueueAt[:0], WastedAt: q.WastedAt[:0]}
}

// queueTrial is the trial's QueueTrial, reset, reusing the one a previous
// trial in this buffer slot left.
func (t *Trial) queueTrial() *QueueTrial {
	q := t.spareQueue
	if q == nil {
		q = &QueueTrial{}
		t.spareQueue = q
	}
	q.reset()
	t.Queue = q
	return q
}

// queued is one request in the queue: the request's slot and the tag of
// the attempt. An attempt is live while its request's tag equals it; the
// tag moves on when the attempt is served, abandoned or its request ends,
// so a queued entry whose tag is stale is work nobody waits for.
type queued struct {
	id  int32
	tag uint32
}

// queueRequest is one request of the queue engine, in one record so that
// a visit to a request touches one cache line.
type queueRequest struct {
	prev   float64 // the policy's state (the previous delay)
	client int32
	fails  int32 // failed attempts so far: the number of its next retry
	born   int32 // tick of its first send
	sent   int32 // tick of its live attempt
	tag    uint32
}

// QueueEngine plays the queue server (model.Queue says the semantics, tick
// by tick) for a cohort or for open-loop traffic. Requests live in a slab
// (a cohort's request i is client i) with a free list, a ring of per-tick
// buckets lists who sends when, and the queue is a ring buffer of (slot,
// tag) entries at absolute positions head…tail−1. Attempts are abandoned in
// order of sending, so the timeouts of tick t are the entries sent at tick
// t − T + 1 still queued: a contiguous run found from the position where
// that tick's admissions began. Work is proportional to sends plus ticks,
// and after the buffers have grown a trial allocates nothing.
type QueueEngine struct {
	sc      model.Scenario
	open    *model.Traffic // nil: the cohort
	ctl     *controls
	horizon int
	limit   int64
	timeout int
	ring    [][]int32
	req     []queueRequest // the slab, indexed by request slot
	free    []int32
	start   float64 // the policy's start state, looked up once
	// the queue
	queue      []queued // length a power of two
	head, tail int64
	starts     []int64 // starts[s mod (T+1)]: tail when tick s's admissions began
	failed     []int32 // scratch: the requests whose attempt failed this tick
	// classes is how the wait of each retry class is drawn, as in
	// OpenLoopEngine (nil for a stateful policy, whose law lawOf gives
	// from the previous delay).
	classes []retryClass
	lawOf   func(n int, prev float64) policy.Law
	// latency and response count the trial's useful completions by
	// latency and by response time below denseLatencies, folded into
	// Trial.Latency and QueueTrial.Response when the trial ends (as
	// OpenLoopEngine's latency: the histograms hold the same counts).
	latency, response []int64
	maxElapsed        float64
	timeless          bool
	// toRecovery stops an open-loop trial at the tick it recovers
	// (OpenLoopToRecovery), or at the tick it can be shown never to
	// (bound).
	toRecovery bool
	bound      recoveryBound
	// goodput plays an open-loop trial's ticks after the bound's absorbing
	// rule holds with arrivals only (OpenLoopGoodput), their counts in
	// fresh.
	goodput bool
	fresh   []int64
	// arr is an open-loop trial's stream of new requests.
	arr rand.PCG
	// outages, traffics: OpenLoopOutages's outage lengths and each one's
	// traffic; until, prefix, saved and resume how play shares the ticks
	// before the outage (queue_outages.go).
	outages  []int
	traffics []model.Traffic
	until    int
	prefix   queuePrefix
	saved    bool
	resume   bool
	// shareLate is how many ticks past the outage's start the shared
	// ticks run: 0, and more only in a test that plants a wrong engine.
	shareLate int
}

// NewQueueEngine prepares the queue engine for a cohort (tr nil) or for
// open-loop traffic under controls, on a scenario a Plan chose it for.
func NewQueueEngine(sc model.Scenario, tr *model.Traffic, ctl control.Controls) (*QueueEngine, error) {
	if !sc.Queues() {
		return nil, fmt.Errorf("the queue engine plays --server queue, got %s", sc.Server)
	}
	e := &QueueEngine{sc: sc, horizon: sc.EffectiveHorizon(), limit: int64(sc.Queue.Limit), timeout: sc.Queue.Timeout}
	if tr != nil {
		t := *tr
		e.open, e.horizon = &t, t.Ticks+t.DrainTicks()
		e.ctl = newControls(ctl, sc)
	} else {
		e.ctl = newControls(control.Controls{}, sc)
	}
	e.ring = make([][]int32, max(sc.MaxDelayTicks(), sc.FirstWindow)+1)
	if e.timeout > 0 {
		e.starts = make([]int64, e.timeout+1)
	}
	e.queue = make([]queued, 1024)
	e.start = sc.Policy.Start()
	e.maxElapsed, e.timeless = math.Inf(1), true
	if me := sc.Policy.MaxElapsed; me > 0 {
		e.maxElapsed, e.timeless = float64(me)/float64(sc.Policy.TickLength()), false
	}
	if e.classes = retryClasses(sc); e.classes == nil {
		e.lawOf = sc.Policy.LawFunc()
	}
	return e, nil
}

// queueBound is the most entries the queue of a trial can need: the limit,
// or an a-priori bound on what can pile up, at most model.MaxQueueLive.
func queueBound(sc model.Scenario, tr *model.Traffic) int64 {
	if l := sc.Queue.Limit; l > 0 {
		return int64(l)
	}
	var n float64
	rate := 0.0
	if tr != nil {
		rate = tr.Rate
		for _, s := range tr.Steps {
			rate = max(rate, s.Rate)
		}
	}
	switch {
	case tr == nil && sc.Queue.Timeout == 0:
		n = float64(sc.Clients) // each client has at most one request queued
	case tr == nil:
		// each client abandons at most one attempt per timeout
		n = float64(sc.Clients) * (float64(sc.EffectiveHorizon())/float64(sc.Queue.Timeout) + 1)
	case sc.Queue.Timeout == 0:
		n = rate*float64(tr.Ticks) + float64(sc.Clients)
	default:
		n = (rate*float64(tr.Ticks) + float64(sc.Clients)) * (float64(tr.Ticks)/float64(sc.Queue.Timeout) + 1)
	}
	return int64(math.Min(n, model.MaxQueueLive))
}

// queueEngineBytes is about what one queue engine takes: 8 bytes per queued
// request, about 32 per live request (its record), the ring and the timeout index.
func queueEngineBytes(sc model.Scenario, tr *model.Traffic) int64 {
	live := float64(sc.Clients)
	if tr != nil {
		live = math.Min(model.MaxRequestsLive, tr.Rate*float64(tr.Ticks)+float64(sc.Clients))
	}
	ring := int64(max(sc.MaxDelayTicks(), sc.FirstWindow) + 1)
	return 8*queueBound(sc, tr) + 32*int64(live) + 24*ring + 8*int64(sc.Queue.Timeout+1)
}

// queueChoice is the plan's choice for the queue server: its own engine.
func queueChoice(want EngineName) (Choice, error) {
	if want != Default && want != Auto {
		return Choice{}, &LimitError{Engine: want, Reason: "cannot play the queue server, which has its own engine (requests wait in a queue in order)",
			Alternative: "leave out --engine (or use --engine auto)"}
	}
	return Choice{QueueName, "the queue server: the queue engine"}, nil
}

// alloc makes a request of client c whose first send is at tick.
func (e *QueueEngine) alloc(c int32, tick int) (int32, bool) {
	if n := len(e.free); n > 0 {
		id := e.free[n-1]
		e.free = e.free[:n-1]
		r := &e.req[id]
		r.client, r.fails, r.born, r.prev = c, 0, int32(tick), e.start
		return id, true
	}
	if len(e.req) >= model.MaxRequestsLive {
		return 0, false
	}
	e.req = append(e.req, queueRequest{prev: e.start, client: c, born: int32(tick)})
	return int32(len(e.req) - 1), true
}

// push appends an entry to the queue, growing it; false when the queue
// would pass model.MaxQueueLive.
func (e *QueueEngine) push(x queued) bool {
	n := e.tail - e.head
	if n == int64(len(e.queue)) {
		if n >= model.MaxQueueLive {
			return false
		}
		grown := make([]queued, 2*len(e.queue))
		mask := int64(len(e.queue) - 1)
		for p := e.head; p < e.tail; p++ {
			grown[p&int64(len(grown)-1)] = e.queue[p&mask]
		}
		e.queue = grown
	}
	e.queue[e.tail&int64(len(e.queue)-1)] = x
	e.tail++
	return true
}

// wait is the wait in ticks before retry n of request id, failed at tick,
// or −1 when the elapsed-time limit makes it give up instead.
func (e *QueueEngine) wait(src *rand.PCG, id int32, n, tick int) int {
	var d float64
	if e.classes == nil {
		d, e.req[id].prev = e.lawOf(n, e.req[id].prev).Sample(uniform(src))
	} else {
		// Retries past the last class share its law.
		switch c := &e.classes[min(n, len(e.classes)-1)]; {
		case c.fixed && e.timeless:
			return c.ticks
		case c.fixed:
			d = c.law.Draw(0)
		case c.ok: // Law.Draw's clamped uniform, inlined
			d = min(c.max, c.lo+uniform(src)*c.width)
		default:
			d = c.law.Draw(uniform(src))
		}
	}
	if !e.timeless && float64(tick-int(e.req[id].born))+d > e.maxElapsed {
		return -1
	}
	return e.sc.Rounding.Ticks(d)
}

// overflow stops a trial whose requests or queue outgrew the engine's
// limits: censored, and in open-loop traffic not recovered.
func (e *QueueEngine) overflow(t *Trial, live int64) {
	t.Censored = true
	t.Queue.Queued = e.tail - e.head
	if t.Open != nil {
		t.Open.Backlog = live
	}
}

// Play runs one trial: the cohort's, or open-loop traffic's with the new
// arrivals drawn first from a stream of their own (as OpenLoopEngine does,
// so that policies and controls compared on one seed see the same
// arrivals).
func (e *QueueEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	if e.outages != nil {
		e.playOutages(src, t, arrivals)
	} else {
		e.play(src, t, arrivals)
	}
	for v, n := range e.latency {
		if n > 0 {
			t.Latency.Add(int64(v), n)
			t.Served += n
			e.latency[v] = 0
		}
	}
	for v, n := range e.response {
		if n > 0 {
			t.Queue.Response.Add(int64(v), n)
			e.response[v] = 0
		}
	}
}

// tally counts one value v in dense, or in h (and then also in served,
// when given) past denseLatencies.
func tally(dense *[]int64, v int, h *stats.Histogram, served *int64) {
	if d := *dense; uint(v) < uint(len(d)) {
		d[v]++
		return
	}
	tallyLong(dense, v, h, served)
}

// tallyLong is tally past the dense counts so far.
func tallyLong(dense *[]int64, v int, h *stats.Histogram, served *int64) {
	if v < denseLatencies {
		*dense = append(*dense, make([]int64, v+1-len(*dense))...)
		(*dense)[v]++
		return
	}
	h.Add(int64(v), 1)
	if served != nil {
		*served++
	}
}

func (e *QueueEngine) play(src *rand.PCG, t *Trial, arrivals bool) {
	sc := &e.sc
	q := t.queueTrial()
	r := len(e.ring)
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	e.head, e.tail = 0, 0
	e.req = e.req[:0]
	e.free = e.free[:0]
	e.ctl.reset(src)
	e.bound.run = 0
	absorbed := false
	var o *OpenTrial
	var poisson distuv.Poisson
	var arr *rand.PCG
	end, threshold, collapse := 0, int64(0), int64(0)
	var live, atEnd int64 // requests neither served nor given up
	tick := 0
	if e.open != nil {
		o = &OpenTrial{}
		t.Open = o
		arr = &e.arr
		end = e.open.OutageEnd()
		if e.resume {
			tick, live = e.restore(src)
			if end-1 < tick {
				atEnd = live
			}
		} else {
			arr.Seed(src.Uint64(), src.Uint64())
		}
		poisson = distuv.Poisson{Lambda: e.open.Rate, Src: arr}
		threshold = int64(e.open.RecoveryBacklog(sc.Capacity))
		collapse = int64(e.open.CollapseBacklog)
	} else {
		for id := range sc.Clients {
			at := 0
			if sc.FirstWindow > 1 {
				at = int(below(src, uint64(sc.FirstWindow)))
			}
			e.alloc(int32(id), at)
			e.ring[at] = append(e.ring[at], int32(id))
		}
		live = int64(sc.Clients)
	}
	k := sc.Capacity
	last := -1
	for ; tick < e.horizon; tick++ {
		if tick == e.until && e.until > 0 {
			e.save(src, tick, live)
			return
		}
		// A cohort ends when every client is done; open-loop traffic plays
		// its ticks, then (Drain) on without new requests until it is empty.
		draining := o != nil && tick >= e.open.Ticks
		if (o == nil || draining) && live == 0 {
			break
		}
		slot := tick % r
		cur := e.ring[slot]
		gaveUp := int64(0)
		if o != nil && !draining {
			if len(e.open.Steps) > 0 {
				poisson.Lambda = e.open.RateAt(tick)
			}
			fresh := int(poisson.Rand())
			if tick == 0 && e.open.StartCohort {
				fresh += sc.Clients
			}
			o.NewRequests += int64(fresh)
			for i := range fresh {
				c := int32(0)
				switch {
				case tick == 0 && e.open.StartCohort && i < sc.Clients:
					c = int32(i) // every client's first request at tick 0
				case sc.Clients > 1:
					c = int32(below(arr, uint64(sc.Clients)))
				}
				id, ok := e.alloc(c, tick)
				if !ok { // more requests alive than the engine holds
					e.overflow(t, live)
					return
				}
				e.ctl.start(c, tick)
				live++
				cur = append(cur, id)
			}
		}
		if len(e.ctl.states) > 0 { // the breakers and throttles decide who sends
			kept := cur[:0]
			for _, id := range cur {
				ok, cause := e.ctl.send(e.req[id].client, tick)
				if ok {
					kept = append(kept, id)
					continue
				}
				o.GaveUp++
				o.GaveUpBy[cause]++
				gaveUp++
				e.req[id].tag++
				e.free = append(e.free, id)
				live--
			}
			cur = kept
		}
		m := len(cur)
		if t.stopped(m) {
			break
		}
		t.Calls += int64(m)
		t.Peak = max(t.Peak, int64(m))
		// 1. The sends arrive in a uniformly random order.
		for i := 0; i+1 < m; i++ {
			j := i + int(below(src, uint64(m-i)))
			cur[i], cur[j] = cur[j], cur[i]
		}
		// 2. They join the queue while it has room.
		n := m
		if e.limit > 0 {
			n = int(max(0, min(int64(m), e.limit-(e.tail-e.head))))
		}
		if e.timeout > 0 {
			e.starts[tick%(e.timeout+1)] = e.tail
		}
		for _, id := range cur[:n] {
			r := &e.req[id]
			if o != nil && r.fails > 0 {
				o.Retries++
			}
			r.tag++
			r.sent = int32(tick)
			if !e.push(queued{id, r.tag}) {
				e.overflow(t, live)
				return
			}
		}
		q.Admitted += int64(n)
		q.PeakQueue = max(q.PeakQueue, e.tail-e.head)
		failed := append(e.failed[:0], cur[n:]...)
		q.Rejected += int64(m - n)
		if o != nil {
			for _, id := range cur[n:] {
				if e.req[id].fails > 0 {
					o.Retries++
				}
			}
		}
		e.ring[slot] = cur[:0]
		// 3. The server completes the head of the queue.
		c := k
		if o != nil {
			c = e.open.CapacityAt(k, tick)
		}
		wasted, useful := int64(0), int64(0)
		mask := int64(len(e.queue) - 1)
		for j := 0; j < c && e.head < e.tail; j++ {
			x := e.queue[e.head&mask]
			e.head++
			r := &e.req[x.id]
			if r.tag != x.tag {
				wasted++
				continue
			}
			id := x.id
			r.tag++
			useful++
			last = tick
			tally(&e.latency, tick-int(r.born)+1, &t.Latency, &t.Served)
			tally(&e.response, tick-int(r.sent)+1, &q.Response, nil)
			live--
			if o != nil {
				e.ctl.outcome(r.client, tick, false, r.fails > 0)
				if tick >= end && !draining {
					o.ServedAfter++
				}
				e.free = append(e.free, id)
			}
		}
		q.Wasted += wasted
		// 4. Attempts sent T − 1 ticks ago and still queued are abandoned.
		if s := tick - e.timeout + 1; e.timeout > 0 && s >= 0 {
			w := int64(e.timeout + 1)
			from, to := max(e.head, e.starts[s%int(w)]), e.tail
			if s < tick {
				to = e.starts[(s+1)%int(w)]
			}
			for p := from; p < to; p++ {
				x := e.queue[p&mask]
				if r := &e.req[x.id]; r.tag == x.tag {
					r.tag++
					failed = append(failed, x.id)
					q.TimedOut++
				}
			}
		}
		// 5. Failed attempts retry, or their requests give up.
		for i, id := range failed {
			if i&(1<<16-1) == 1<<16-1 && t.stopped(1<<16) {
				return // cancelled within one huge tick
			}
			rq := &e.req[id]
			cl := rq.client
			if o != nil {
				e.ctl.outcome(cl, tick, true, rq.fails > 0)
			}
			if rq.fails < math.MaxInt32 {
				rq.fails++
			}
			n := int(rq.fails)
			ok, cause := false, byLimit
			if rl := sc.Policy.Retries; rl == 0 || n <= rl {
				ok, cause = true, 0
				if o != nil {
					ok, cause = e.ctl.retry(cl, n, tick)
				}
			}
			w := -1
			if ok {
				if w = e.wait(src, id, n, tick); w < 0 {
					ok, cause = false, byLimit
				}
			}
			if !ok {
				rq.tag++
				live--
				gaveUp++
				if o != nil {
					o.GaveUp++
					o.GaveUpBy[cause]++
					e.free = append(e.free, id)
				} else {
					t.GaveUp++
				}
				continue
			}
			at := ringAfter(slot, w, r)
			e.ring[at] = append(e.ring[at], id)
		}
		e.failed = failed[:0]
		if arrivals {
			t.Arrivals = append(t.Arrivals, int64(m))
			q.QueueAt = append(q.QueueAt, e.tail-e.head)
			q.WastedAt = append(q.WastedAt, wasted)
		}
		if o == nil {
			continue
		}
		o.PeakBacklog = max(o.PeakBacklog, live)
		if arrivals {
			o.Goodput = append(o.Goodput, useful)
			o.BacklogAt = append(o.BacklogAt, live)
		}
		if draining {
			o.Drained++
			continue
		}
		if o.settle(tick, end, live, max(live, e.tail-e.head), threshold, collapse, gaveUp > 0, e.toRecovery, &atEnd) {
			tick++
			break
		}
		if b := &e.bound; b.on || e.goodput {
			b.observe(e.tail - e.head)
			if b.on && !o.Recovered && b.cannotRecover(tick, e.tail-e.head, live) {
				o.CannotRecover = true
				tick++
				break
			}
			if e.goodput && !absorbed && b.threshold < b.serve*b.timeout && e.open.DrainTicks() == 0 && b.absorbed(e.tail-e.head, live) {
				absorbed = true // asked once: playArrivals looks at every tick left
				if stop, l, ok := e.playArrivals(o, arr, poisson, tick, live, atEnd, arrivals); ok {
					tick, live = stop, l
					break
				}
			}
		}
	}
	q.Queued = e.tail - e.head
	if o != nil {
		o.Backlog = live
		t.Censored = !o.Recovered
		t.Completion = int64(min(tick, e.open.Ticks))
		return
	}
	t.Censored = live > 0
	if !t.Censored {
		q.Wasted += q.Queued // served after the last client was done
	}
	t.Completion = int64(last + 1)
}
