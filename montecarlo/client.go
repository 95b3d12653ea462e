package montecarlo

import (
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// MaxEngineClients bounds the per-client engine's cohort: it keeps about 24
// bytes per client, so 50 million clients take about 1.2 GB.
const MaxEngineClients = 50_000_000

// ClientEngine is the per-client tick engine. Bucket t mod R of a ring of
// R = max(MaxDelayTicks, W) + 1 buckets lists the clients that send at tick
// t; a tick's winners are chosen by a partial Fisher–Yates shuffle of its
// bucket, and each loser is appended to the bucket of its next send. Work is
// proportional to calls plus ticks, never to ticks × clients.
type ClientEngine struct {
	sc      model.Scenario
	horizon int
	ring    [][]int32
	retry   []int32 // retry number n of each client
	// class[id] is min(n, Classes()) for a plain engine with at most 255
	// classes (retry is nil then): all retryPlain needs of n, in a quarter
	// of the memory, which keeps the cohort's counts in a nearer cache.
	class []uint8
	prev  []float64 // previous unrounded delay (Decorrelated only)
	first []int32   // first send tick (first-request window only)
	// For a stateful policy: law(n, prev) is Policy.Law with the rule
	// looked up once (Policy.LawFunc), and start the state each client
	// carries into its first retry (Policy.Start).
	law   func(n int, prev float64) policy.Law
	start float64
	// grow says that law is min(growHi, U(growLo, growth·prev)) at every
	// retry (Policy.GrowthUniform), drawn inline.
	grow                   bool
	growLo, growth, growHi float64
	// For policies whose law depends on n alone: the law of retry n is
	// laws[c] with c = min(n, len(laws)−1), or the fixed wait ticks[c]
	// (> 0) when that law is a point mass.
	laws  []policy.Law
	ticks []int
	// affine[c] is laws[c] as min(max, lo + u·width) when it is a plain
	// clamped uniform (Law.Affine), drawn inline on the hot path.
	affine []affine
	// Give-up limits: the retry limit (0: none) and the elapsed-time limit
	// in ticks (+Inf: none).
	retries    int
	maxElapsed float64
	timeless   bool // no elapsed-time limit
	// plain: the law depends on n alone and nobody gives up (no retry or
	// elapsed-time limit), so the losers take retryPlain's loop.
	plain bool
}

type affine struct {
	lo, width, max float64
	ok             bool
}

// NewClientEngine prepares the per-client engine for a scenario that a Plan
// chose it for (Choose checks its limits).
func NewClientEngine(sc model.Scenario) (*ClientEngine, error) {
	e := &ClientEngine{sc: sc, horizon: sc.EffectiveHorizon()}
	r := max(sc.MaxDelayTicks(), sc.FirstWindow) + 1
	e.ring = make([][]int32, r)
	if sc.Policy.Stateful() {
		e.prev = make([]float64, sc.Clients)
		e.law, e.start = sc.Policy.LawFunc(), sc.Policy.Start()
		e.growLo, e.growth, e.growHi, e.grow = sc.Policy.GrowthUniform()
	}
	e.retries = sc.Policy.Retries
	e.maxElapsed, e.timeless = math.Inf(1), true
	if me := sc.Policy.MaxElapsed; me > 0 {
		e.maxElapsed, e.timeless = float64(me)/float64(sc.Policy.TickLength()), false
	}
	if sc.FirstWindow > 1 {
		e.first = make([]int32, sc.Clients)
	}
	if c := sc.Policy.Classes(); c > 0 {
		e.laws = make([]policy.Law, c+1)
		e.ticks = make([]int, c+1)
		e.affine = make([]affine, c+1)
		for n := 1; n <= c; n++ {
			l := sc.Policy.Law(n, sc.Policy.Start())
			e.laws[n] = l
			a := &e.affine[n]
			a.lo, a.width, a.max, a.ok = l.Affine()
			if l.Deterministic() {
				e.ticks[n] = sc.Rounding.Ticks(l.Draw(0))
			}
		}
	}
	e.plain = e.prev == nil && len(e.laws) > 0 && e.retries == 0 && e.timeless
	if e.plain && len(e.laws)-1 <= math.MaxUint8 {
		e.class = make([]uint8, sc.Clients)
	} else {
		e.retry = make([]int32, sc.Clients)
	}
	return e, nil
}

// retryPlain schedules the next send of every loser of the tick in the
// ring slot for a plain engine (e.plain): wait's class path written into
// the loop with the ring, the retry counts and the class tables in locals,
// and the next slot found by a subtraction rather than a division. It
// draws what wait would, in the same order, from a copy of the stream that
// it writes back. It returns false when the run was cancelled.
func (e *ClientEngine) retryPlain(src *rand.PCG, losers []int32, slot int, t *Trial) bool {
	if e.class != nil {
		return retryPlain(e, e.class, src, losers, slot, t)
	}
	return retryPlain(e, e.retry, src, losers, slot, t)
}

// retryPlain is the loop of ClientEngine.retryPlain over the clients'
// retry counts, kept as min(n, Classes()) in class[id] (uint8) or as n
// saturating at 2³¹−1 in retry[id] (int32): the law taken is the same.
func retryPlain[T uint8 | int32](e *ClientEngine, count []T, src *rand.PCG, losers []int32, slot int, t *Trial) bool {
	ring := e.ring
	ticks, affine, laws := e.ticks, e.affine, e.laws
	rounding := e.sc.Rounding
	r, last := len(ring), len(laws)-1
	top := T(min(last, math.MaxInt32)) // the count saturates here
	g := *src                          // the stream in a local, which the compiler keeps closer
	for i, id := range losers {
		if i&(1<<16-1) == 1<<16-1 && t.stopped(1<<16) {
			*src = g
			return false
		}
		n := count[id]
		if n < top {
			n++
			count[id] = n
		}
		c := int(n)
		w := ticks[c] // > 0 for a point mass
		if w == 0 {
			var d float64
			if a := &affine[c]; a.ok {
				if d = a.lo + uniform(&g)*a.width; d > a.max {
					d = a.max
				}
			} else {
				d = laws[c].Draw(uniform(&g))
			}
			w = rounding.Ticks(d)
		}
		s := slot + w // (tick + w) mod r, as slot = tick mod r and w ≥ 1
		if s >= r {
			if s -= r; s >= r {
				s %= r
			}
		}
		ring[s] = append(ring[s], id)
	}
	*src = g
	return true
}

// shuffleFront is a partial Fisher–Yates shuffle: it puts a uniform random
// sample of n of the ids, in uniform random order, at the front, drawing
// from a copy of the stream that it writes back.
func shuffleFront(src *rand.PCG, ids []int32, n int) {
	g := *src
	m := len(ids)
	for i := range n {
		j := i + int(below(&g, uint64(m-i)))
		ids[i], ids[j] = ids[j], ids[i]
	}
	*src = g
}

// wait is the wait in ticks before retry n of client id, or −1 when the
// client gives up instead (its retry limit is reached, or the time since its
// first send plus the delay would pass the elapsed-time limit). It is the
// engine's hot path: one call per failed request.
func (e *ClientEngine) wait(src *rand.PCG, id int32, n, tick int) int {
	if e.retries > 0 && n > e.retries {
		return -1
	}
	var d float64
	if e.grow { // Law.Sample of the growth law, inline
		d = math.Min(e.growHi, e.growLo+uniform(src)*(e.growth*e.prev[id]-e.growLo))
		e.prev[id] = d
	} else if e.prev != nil {
		d, e.prev[id] = e.law(n, e.prev[id]).Sample(uniform(src))
	} else {
		c := min(n, len(e.laws)-1)
		if t := e.ticks[c]; t > 0 && e.timeless {
			return t
		}
		if a := &e.affine[c]; a.ok {
			if d = a.lo + uniform(src)*a.width; d > a.max {
				d = a.max
			}
		} else {
			d = e.laws[c].Draw(uniform(src))
		}
	}
	if !e.timeless {
		start := 0
		if e.first != nil {
			start = int(e.first[id])
		}
		if float64(tick-start)+d > e.maxElapsed {
			return -1
		}
	}
	return e.sc.Rounding.Ticks(d)
}

// Play runs one trial.
func (e *ClientEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc := &e.sc
	r := len(e.ring)
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	for id := range sc.Clients {
		if id&(1<<16-1) == 1<<16-1 && t.stopped(1<<16) {
			return // cancelled while a huge cohort is laid out
		}
		if e.class != nil {
			e.class[id] = 0
		} else {
			e.retry[id] = 0
		}
		at := 0
		if e.first != nil {
			at = int(below(src, uint64(sc.FirstWindow)))
			e.first[id] = int32(at)
		}
		if e.prev != nil {
			e.prev[id] = e.start
		}
		e.ring[at] = append(e.ring[at], int32(id))
	}
	k := sc.Capacity
	pending := sc.Clients
	last := -1
	tick := 0
	for ; pending > 0 && tick < e.horizon; tick++ {
		slot := tick % r
		cur := e.ring[slot]
		m := len(cur)
		if t.stopped(m) {
			break
		}
		if arrivals {
			t.Arrivals = append(t.Arrivals, int64(m))
		}
		if m == 0 {
			continue
		}
		t.Calls += int64(m)
		t.Peak = max(t.Peak, int64(m))
		var winners, losers []int32
		switch {
		case m <= k:
			winners = cur
		case sc.Served(m) == 0:
			losers = cur
		case k <= m-k: // shuffle the k winners to the front
			shuffleFront(src, cur, k)
			winners, losers = cur[:k], cur[k:]
		default: // fewer losers than winners: shuffle the losers to the front
			shuffleFront(src, cur, m-k)
			losers, winners = cur[:m-k], cur[m-k:]
		}
		if len(winners) > 0 {
			last = tick
			pending -= len(winners)
			if e.first == nil { // every client started at tick 0
				t.servedMany(tick+1, int64(len(winners)))
			} else {
				for _, id := range winners {
					t.served(tick - int(e.first[id]) + 1)
				}
			}
		}
		if e.plain {
			if !e.retryPlain(src, losers, slot, t) {
				return // cancelled within one huge tick
			}
		} else {
			for i, id := range losers {
				if i&(1<<16-1) == 1<<16-1 && t.stopped(1<<16) {
					return // cancelled within one huge tick
				}
				// Retries past Classes() share one law, so the count saturates
				// rather than wrap after 2³¹ retries (a collision cohort can
				// retry for ever).
				if e.retry[id] < math.MaxInt32 {
					e.retry[id]++
				}
				n := int(e.retry[id])
				w := e.wait(src, id, n, tick)
				if w < 0 {
					t.GaveUp++
					pending--
					continue
				}
				s := (tick + w) % r
				e.ring[s] = append(e.ring[s], id)
			}
		}
		e.ring[slot] = cur[:0]
	}
	t.Censored = pending > 0
	t.Completion = int64(last + 1)
}
