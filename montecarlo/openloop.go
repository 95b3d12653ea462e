package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"gonum.org/v1/gonum/stat/distuv"
)

// OpenTrial is what an open-loop trial records beyond Trial's common
// fields. In an open-loop trial Trial.Calls counts every send, Served the
// requests served, Peak the most sends in one tick, Latency each served
// request's latency (success tick − first send + 1), Arrivals the sends of
// each tick when asked, and Censored says that the trial had not recovered
// by its last tick.
type OpenTrial struct {
	NewRequests int64 // requests that arrived (first sends)
	Retries     int64 // retries sent
	GaveUp      int64 // requests abandoned by a control
	// GaveUpBy splits GaveUp by cause: the attempts limit, the token
	// bucket, the circuit breaker.
	GaveUpBy [3]int64
	// Recovered says whether some tick t ≥ the outage's end ended with the
	// backlog at most the traffic's RecoveryBacklog and no request given
	// up; RecoveryTicks is then t + 1 − the outage's end.
	Recovered     bool
	RecoveryTicks int64
	// Collapsed says the trial stopped early because its backlog passed
	// the traffic's CollapseBacklog.
	Collapsed   bool
	ServedAfter int64 // requests served from the outage's end to the last tick
	Backlog     int64 // requests still pending after the last tick
	PeakBacklog int64
	// Goodput[t] and BacklogAt[t] are the requests served at tick t and
	// the backlog after it, recorded with Trial.Arrivals.
	Goodput, BacklogAt []int64
}

// OpenLoopEngine plays open-loop trials: Poisson arrivals of new requests,
// an outage, retries under the scenario's policy and per-client controls
// (model.Traffic says the semantics). Requests live in a slab with a free
// list, and a ring of per-tick buckets lists who sends when, as in
// ClientEngine; work is proportional to sends plus ticks.
//
// Trial i's new arrivals (how many each tick and from which client) come
// from a stream of their own, split from the trial's stream before anything
// else is drawn, so two policies or two sets of controls run on the same
// seed see exactly the same arrivals (common random numbers).
type OpenLoopEngine struct {
	sc      model.Scenario
	tr      model.Traffic
	ctl     *controls
	ring    [][]int32
	sent    []int32
	client  []int32   // per request
	attempt []int32   // failed sends so far
	born    []int32   // tick of the first send
	prev    []float64 // the policy's previous delay (Decorrelated)
	free    []int32
}

// NewOpenLoopEngine prepares the open-loop engine.
func NewOpenLoopEngine(sc model.Scenario, tr model.Traffic, ctl model.Controls) (*OpenLoopEngine, error) {
	e := &OpenLoopEngine{sc: sc, tr: tr, ctl: newControls(ctl, sc.Clients)}
	e.ring = make([][]int32, sc.MaxDelayTicks()+1)
	return e, nil
}

// alloc makes a new request of client c arriving at tick.
func (e *OpenLoopEngine) alloc(c int32, tick int) (int32, error) {
	var id int32
	if n := len(e.free); n > 0 {
		id = e.free[n-1]
		e.free = e.free[:n-1]
		e.client[id], e.attempt[id], e.born[id], e.prev[id] = c, 0, int32(tick), e.sc.Policy.Start()
		return id, nil
	}
	if len(e.client) >= model.MaxRequestsLive {
		return 0, fmt.Errorf("more than %d requests alive at once", int(model.MaxRequestsLive))
	}
	id = int32(len(e.client))
	e.client = append(e.client, c)
	e.attempt = append(e.attempt, 0)
	e.born = append(e.born, int32(tick))
	e.prev = append(e.prev, e.sc.Policy.Start())
	return id, nil
}

// wait draws the wait in ticks before retry n of request id.
func (e *OpenLoopEngine) wait(src *rand.PCG, id int32, n int) int {
	l := e.sc.Policy.Law(n, e.prev[id])
	if l.Deterministic() {
		d := l.Draw(0)
		e.prev[id] = d
		return e.sc.Rounding.Ticks(d)
	}
	d, state := l.Sample(uniform(src))
	e.prev[id] = state
	return e.sc.Rounding.Ticks(d)
}

// Play runs one open-loop trial. A trial that would hold more than
// model.MaxRequestsLive requests at once stops there, not recovered.
func (e *OpenLoopEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc, tr := &e.sc, &e.tr
	o := &OpenTrial{}
	t.Open = o
	arr := rand.NewPCG(src.Uint64(), src.Uint64())
	poisson := distuv.Poisson{Lambda: tr.Rate, Src: arr}
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	e.client, e.attempt, e.born, e.prev = e.client[:0], e.attempt[:0], e.born[:0], e.prev[:0]
	e.free = e.free[:0]
	e.ctl.reset()
	r := len(e.ring)
	end := tr.OutageEnd()
	threshold := int64(tr.RecoveryBacklog(sc.Capacity))
	var live int64
	collapse := int64(tr.CollapseBacklog)
	var atEnd int64 // the backlog when the outage ended
	tick := 0
	for ; tick < tr.Ticks && !t.stopped(len(e.ring[tick%r])); tick++ {
		slot := tick % r
		cur := e.ring[slot]
		gaveUp := o.GaveUp
		fresh := int(poisson.Rand())
		o.NewRequests += int64(fresh)
		for range fresh {
			c := int32(0)
			if sc.Clients > 1 {
				c = int32(below(arr, uint64(sc.Clients)))
			}
			id, err := e.alloc(c, tick)
			if err != nil {
				t.Censored = true
				o.Backlog = live
				return
			}
			live++
			cur = append(cur, id)
		}
		// The breakers decide who sends.
		sent := e.sent[:0]
		for _, id := range cur {
			if e.ctl.send(e.client[id], tick) {
				sent = append(sent, id)
				continue
			}
			o.GaveUp++
			o.GaveUpBy[byBreaker]++
			e.free = append(e.free, id)
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
		// Outcomes within a tick are simultaneous; successes are credited
		// to the buckets before the failures ask for retries.
		for _, id := range winners {
			if e.attempt[id] > 0 {
				o.Retries++
			}
			e.ctl.outcome(e.client[id], tick, false, e.attempt[id] > 0)
			t.served(tick - int(e.born[id]) + 1)
			if tick >= end {
				o.ServedAfter++
			}
			e.free = append(e.free, id)
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
				ok, cause = e.ctl.retry(c, n)
			}
			if !ok {
				o.GaveUp++
				o.GaveUpBy[cause]++
				e.free = append(e.free, id)
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
	t.Completion = int64(tick)
}
