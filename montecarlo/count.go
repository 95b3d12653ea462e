package montecarlo

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
)

// MaxCountCells bounds the count engine's ring: R·(C+1) counters of 8 bytes
// for R = MaxDelayTicks+1 ticks and C+1 retry classes, 256 MiB per worker.
const MaxCountCells = 32 << 20

// CountEngine plays a trial on counts instead of clients. When a policy's
// delay law depends on the retry number alone (model.Policy.Classes() > 0),
// the clients that send at the same tick with the same retry class are
// exchangeable, so the state is a ring of R ticks × (C+1) classes of counts:
// class c holds clients with c failures so far, and class C also holds
// every client with more (their next delay has the law of retry C).
//
// A tick with m arrivals over the classes serves k of them on a capacity
// server: the winners per class are a multivariate hypergeometric draw,
// done as one hypergeometric per class. The losers of class c move to class
// min(c+1, C) and spread over the delays 1…D of that class's law by a
// multinomial, done as sequential binomials — or, when there are fewer
// losers than the law has delays, by drawing each loser's delay exactly as
// the per-client engine does. Both ways draw from the same law as
// ClientEngine; the cost per tick depends on C and D, never on N.
//
// The engine needs every client to start at tick 0 (a first-request window
// would make the first tick part of each client's state, which latency
// needs); Choose falls back to the per-client engine otherwise.
type CountEngine struct {
	sc      model.Scenario
	horizon int
	classes int        // C + 1
	ring    []int64    // ring[slot*classes + c]
	total   []int64    // total[slot]: arrivals booked for the tick
	laws    []countLaw // laws[c]: the delay law for a client leaving class c
	win     []int64    // scratch: winners per class
	dirty   bool       // a censored trial left counts in the ring
	// busy has bit s set when slot s has arrivals booked, so that the
	// engine jumps over empty ticks (an expo cohort waits thousands).
	busy []uint64
}

// countLaw is one class's delay law in ticks: P(wait = first+i) = mass[i],
// with cond[i] = mass[i] / Σ_{j ≥ i} mass[j] for sequential binomials, and
// the continuous law to draw single losers exactly as ClientEngine does.
type countLaw struct {
	law   model.Law
	first int
	mass  []float64
	cond  []float64
}

// countSupported says why a scenario cannot run on counts, or "" when it
// can.
func countSupported(sc model.Scenario) string {
	switch {
	case sc.Policy.Classes() == 0:
		return fmt.Sprintf("the %s policy's delay depends on each client's previous delay, not on its retry number alone", sc.Policy.Kind)
	case sc.FirstWindow > 1:
		return "a first-request window makes each client's first tick part of its state (latency needs it)"
	}
	return ""
}

// countCells is the size of the count engine's ring.
func countCells(sc model.Scenario) int64 {
	return int64(sc.MaxDelayTicks()+1) * int64(sc.Policy.Classes()+1)
}

// NewCountEngine prepares the count engine for a valid scenario.
func NewCountEngine(sc model.Scenario) (*CountEngine, error) {
	return newCountEngine(sc, func(n int) model.Law { return sc.Policy.Law(n, sc.Policy.Base) })
}

// newCountEngine takes the law of retry n as a function so that a test can
// give the engine a deliberately wrong law and see the agreement check fail.
func newCountEngine(sc model.Scenario, law func(n int) model.Law) (*CountEngine, error) {
	if why := countSupported(sc); why != "" {
		return nil, &LimitError{Engine: Counts, Reason: "cannot play this scenario: " + why, Alternative: "use --engine clients (or auto)"}
	}
	if cells := countCells(sc); cells > MaxCountCells {
		return nil, &LimitError{Engine: Counts,
			Reason:      fmt.Sprintf("would keep %d counters (%d ticks of delay × %d retry classes), over its limit of %d (256 MiB per worker)", cells, sc.MaxDelayTicks()+1, sc.Policy.Classes()+1, MaxCountCells),
			Alternative: fmt.Sprintf("use --engine clients, which holds up to %d clients, or a smaller --cap", MaxEngineClients)}
	}
	c := sc.Policy.Classes() + 1
	r := sc.MaxDelayTicks() + 1
	e := &CountEngine{sc: sc, horizon: sc.EffectiveHorizon(), classes: c,
		ring: make([]int64, r*c), total: make([]int64, r), laws: make([]countLaw, c), win: make([]int64, c),
		busy: make([]uint64, (r+63)/64)}
	for from := range c {
		e.laws[from] = tickLaw(law(min(from+1, c-1)), sc.Rounding)
	}
	return e, nil
}

// tickLaw is the law of Ticks(δ) for δ ~ min(Max, U(Lo, Hi)): the mass of
// wait t is the share of [Lo, Hi] that rounds to t, plus the clamped mass
// (Hi − Max)/(Hi − Lo) at Ticks(Max).
func tickLaw(l model.Law, r model.Rounding) countLaw {
	cl := countLaw{law: l}
	if l.Deterministic() {
		cl.first = r.Ticks(min(l.Lo, l.Max))
		cl.mass, cl.cond = []float64{1}, []float64{1}
		return cl
	}
	top := min(l.Hi, l.Max)
	cl.first = r.Ticks(l.Lo)
	last := r.Ticks(top)
	width := l.Hi - l.Lo
	cl.mass = make([]float64, last-cl.first+1)
	for t := cl.first; t <= last; t++ {
		lo, hi := r.Interval(t)
		lo, hi = max(lo, l.Lo), min(hi, top)
		if hi > lo {
			cl.mass[t-cl.first] = (hi - lo) / width
		}
	}
	if l.Max < l.Hi {
		cl.mass[last-cl.first] += (l.Hi - l.Max) / width
	}
	cl.cond = make([]float64, len(cl.mass))
	rest := 0.0
	for i := len(cl.mass) - 1; i >= 0; i-- {
		rest += cl.mass[i]
		if rest > 0 {
			cl.cond[i] = min(1, cl.mass[i]/rest)
		}
	}
	cl.cond[len(cl.cond)-1] = 1 // whatever is left takes the last delay
	return cl
}

// Play runs one trial.
func (e *CountEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc := &e.sc
	c := e.classes
	r := len(e.total)
	// A trial that ends with everyone served leaves the ring empty, so only
	// a censored one makes the next trial pay for clearing it.
	if e.dirty {
		clear(e.ring)
		clear(e.total)
		clear(e.busy)
	}
	e.ring[0], e.total[0] = int64(sc.Clients), int64(sc.Clients)
	e.busy[0] = 1
	k := int64(sc.Capacity)
	pending := int64(sc.Clients)
	last := -1
	tick := 0
	for ; pending > 0 && tick < e.horizon; tick++ {
		slot := tick % r
		m := e.total[slot]
		if m == 0 {
			// Jump to the tick before the next one with arrivals.
			skip := min(e.nextBusy(slot), e.horizon-tick) - 1
			if arrivals {
				for range skip + 1 {
					t.Arrivals = append(t.Arrivals, 0)
				}
			}
			tick += skip
			continue
		}
		if arrivals {
			t.Arrivals = append(t.Arrivals, m)
		}
		t.Calls += m
		t.Peak = max(t.Peak, m)
		row := e.ring[slot*c : slot*c+c]
		switch {
		case m <= k:
			last = tick
			pending -= m
			t.servedMany(tick+1, m)
			clear(row)
		case sc.Server == model.Collision:
			for from := range c {
				e.spread(src, tick, from, row[from])
				row[from] = 0
			}
		default:
			e.winners(src, row, m, k)
			last = tick
			pending -= k
			t.servedMany(tick+1, k)
			// A loser's wait is 1…R−1 ticks, so it never lands in this row.
			for from := range c {
				e.spread(src, tick, from, row[from]-e.win[from])
				row[from] = 0
			}
		}
		e.total[slot] = 0
		e.busy[slot/64] &^= 1 << (slot % 64)
	}
	t.Censored = pending > 0
	e.dirty = t.Censored
	t.Completion = int64(last + 1)
}

// nextBusy is the distance in ticks from slot to the next slot with
// arrivals booked, or the ring's length when there is none.
func (e *CountEngine) nextBusy(slot int) int {
	r := len(e.total)
	for d := 1; d < r; {
		s := (slot + d) % r
		w := e.busy[s/64] >> (s % 64)
		if w != 0 {
			if z := bits.TrailingZeros64(w); s+z < r {
				return d + z
			}
		}
		// Nothing set from s to the end of its word (or of the ring).
		step := 64 - s%64
		if s+step > r {
			step = r - s
		}
		d += step
	}
	return r
}

// singleDraws is how many losers per delay of their law are cheaper to
// draw one by one than as a multinomial of binomials: a single draw costs
// a few nanoseconds, a binomial about a hundred.
const singleDraws = 16

// winners draws how many of the k winners of a tick come from each class:
// a multivariate hypergeometric, as one hypergeometric per class given the
// classes before it.
func (e *CountEngine) winners(src *rand.PCG, row []int64, m, k int64) {
	left := m
	for i, n := range row {
		left -= n
		switch {
		case n == 0 || k == 0:
			e.win[i] = 0
		case left == 0:
			e.win[i] = k
		default:
			e.win[i] = hypergeometric(src, n, left, k)
		}
		k -= e.win[i]
	}
}

// spread books the n losers of class from at tick for their next send.
func (e *CountEngine) spread(src *rand.PCG, tick, from int, n int64) {
	if n == 0 {
		return
	}
	c := e.classes
	to := min(from+1, c-1)
	r := len(e.total)
	l := &e.laws[from]
	book := func(wait int, x int64) {
		s := (tick + wait) % r
		e.ring[s*c+to] += x
		e.total[s] += x
		e.busy[s/64] |= 1 << (s % 64)
	}
	if len(l.mass) == 1 {
		book(l.first, n)
		return
	}
	if n < singleDraws*int64(len(l.mass)) {
		// Few losers: draw each one's delay as ClientEngine does.
		for range n {
			book(e.sc.Rounding.Ticks(l.law.Draw(uniform(src))), 1)
		}
		return
	}
	for i, p := range l.cond {
		x := n
		if p < 1 {
			x = binomial(src, n, p)
		}
		if x > 0 {
			book(l.first+i, x)
			n -= x
		}
		if n == 0 {
			return
		}
	}
}
