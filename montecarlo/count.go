package montecarlo

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// MaxCountCells bounds the count engine's ring: R ticks × W first ticks ×
// retry classes counters of 8 bytes, 256 MiB per worker.
const MaxCountCells = 32 << 20

// CountEngine plays a trial on counts instead of clients. When a policy's
// delay law depends on the retry number alone (policy.Policy.Classes() > 0),
// the clients that send at the same tick with the same retry class are
// exchangeable, so the state is a ring of R ticks × classes of counts:
// class c holds clients with c failures so far. Without a retry limit the
// last class, Classes(), also holds every client with more failures (their
// next delay has the law of retry Classes()); with a limit L there are
// classes 0…L and a client failing in class L gives up.
//
// A tick with m arrivals over the classes serves k of them on a capacity
// server: the winners per class are a multivariate hypergeometric draw,
// done as one hypergeometric per class. The losers of class c move to class
// c+1 (or give up) and spread over the waits of their law by a multinomial,
// done as sequential binomials — or, when there are few losers for the
// number of waits, by drawing each loser's delay exactly as the per-client
// engine does. An elapsed-time limit M makes a loser at tick t give up when
// t + δ > M: a multinomial cell of its own, whose mass depends on t. Every
// way draws from ClientEngine's law; the cost per tick depends on the
// classes and the waits, never on N.
//
// With a first-request window of W ticks a client's first tick f matters
// to its latency and to an elapsed-time limit, so counts are kept per group
// (f, c): W·classes groups per tick, the first ticks drawn by a multinomial.
type CountEngine struct {
	sc      model.Scenario
	horizon int
	classes int        // number of retry classes
	groups  int        // classes × first-request window
	ring    []int64    // ring[slot*groups + f*classes + c]
	total   []int64    // total[slot]: arrivals booked for the tick
	laws    []countLaw // laws[c]: the delay law for a client leaving class c
	win     []int64    // scratch: winners per group
	cut     countLaw   // scratch: a law cut at an elapsed-time limit
	dirty   bool       // a censored trial left counts in the ring
	// busy has bit s set when slot s has arrivals booked, so that the
	// engine jumps over empty ticks (an expo cohort waits thousands).
	busy []uint64
	// maxElapsed is the elapsed-time limit in ticks, +Inf when none.
	maxElapsed float64
}

// countLaw is what becomes of a client leaving one class: it gives up with
// probability giveUp (all of it at a retry limit), and otherwise waits
// first+i ticks with probability mass[i]; cond[i] is mass[i] over the mass
// from i on, for sequential binomials. law is the delay's law, to draw
// single losers exactly as ClientEngine does.
type countLaw struct {
	law    policy.Law
	limit  bool // a retry limit: every client leaving the class gives up
	sup    float64
	giveUp float64
	first  int
	mass   []float64
	cond   []float64
}

// countSupported says why a scenario cannot run on counts, or "" when it
// can.
func countSupported(sc model.Scenario) string {
	if sc.Policy.Classes() == 0 {
		return fmt.Sprintf("the %s policy's delay depends on each client's previous delay, not on its retry number alone", sc.Policy.Kind)
	}
	return ""
}

// countClasses is the number of retry classes the count engine keeps.
func countClasses(p policy.Policy) int {
	if p.Retries > 0 {
		return p.Retries + 1
	}
	return p.Classes() + 1
}

// countRing is the count engine's ring length, as the per-client engine's:
// one slot per tick of the longest wait or of the first-request window.
func countRing(sc model.Scenario) int {
	return max(sc.MaxDelayTicks(), sc.FirstWindow) + 1
}

// countGroups is the number of (first tick, retry class) groups per tick.
func countGroups(sc model.Scenario) int64 {
	return int64(countClasses(sc.Policy)) * int64(sc.FirstWindow)
}

// countCells is the size of the count engine's ring.
func countCells(sc model.Scenario) int64 {
	return int64(countRing(sc)) * countGroups(sc)
}

// NewCountEngine prepares the count engine for a scenario that a Plan
// chose it for (Choose checks its limits).
func NewCountEngine(sc model.Scenario) (*CountEngine, error) {
	return newCountEngine(sc, func(n int) policy.Law { return sc.Policy.Law(n, sc.Policy.Start()) })
}

// newCountEngine takes the law of retry n as a function so that a test can
// give the engine a deliberately wrong law and see the agreement check fail.
func newCountEngine(sc model.Scenario, law func(n int) policy.Law) (*CountEngine, error) {
	c := countClasses(sc.Policy)
	r := countRing(sc)
	g := c * sc.FirstWindow
	e := &CountEngine{sc: sc, horizon: sc.EffectiveHorizon(), classes: c, groups: g,
		ring: make([]int64, r*g), total: make([]int64, r), laws: make([]countLaw, c), win: make([]int64, g),
		busy: make([]uint64, (r+63)/64), maxElapsed: math.Inf(1)}
	if me := sc.Policy.MaxElapsed; me > 0 {
		e.maxElapsed = float64(me) / float64(sc.Policy.TickLength())
	}
	classes := sc.Policy.Classes()
	for from := range c {
		if sc.Policy.Retries > 0 && from == sc.Policy.Retries {
			e.laws[from] = countLaw{limit: true, giveUp: 1}
			continue
		}
		l := law(min(from+1, classes))
		e.laws[from] = countLaw{law: l, sup: l.Sup()}
		e.laws[from].cutAt(math.Inf(1), sc.Rounding, &e.laws[from])
	}
	return e, nil
}

// cutAt writes into out the law of what a client leaving the class does
// when it must give up if its delay exceeds x (x = +Inf: never): the mass
// of each wait is the probability that the delay rounds to it and is ≤ x.
// A lattice law (Steps > 0) is summed point by point through Law.Draw, so
// that its ties round exactly as the per-client engine rounds them; a
// continuous one integrates its CDF over each wait's Rounding.Interval,
// with the clamp's atom at Max put on Ticks(Max).
func (l *countLaw) cutAt(x float64, r policy.Rounding, out *countLaw) {
	law := l.law
	out.law, out.sup, out.limit = law, l.sup, false
	lo := r.Ticks(law.Draw(0))
	hi := r.Ticks(l.sup)
	out.first = lo
	out.mass = grow(out.mass, hi-lo+1)
	kept := 0.0
	switch {
	case law.Steps > 0:
		p := 1 / float64(law.Steps)
		for j := range law.Steps {
			d := law.Draw((float64(j) + 0.5) / float64(law.Steps))
			if d <= x {
				out.mass[r.Ticks(d)-lo] += p
				kept += p
			}
		}
	case law.Deterministic():
		if d := law.Draw(0); d <= x {
			out.mass[0], kept = 1, 1
		}
	default:
		below := law.CDF(math.Nextafter(law.Max, math.Inf(-1))) // P(δ < Max)
		cont := func(y float64) float64 {                       // P(δ ≤ y, δ < Max)
			if y >= law.Max {
				return below
			}
			return law.CDF(y)
		}
		for t := lo; t <= hi; t++ {
			a, b := r.Interval(t)
			b = math.Min(b, x)
			if b > a {
				m := cont(b) - cont(a)
				out.mass[t-lo] += m
				kept += m
			}
		}
		if atom := 1 - below; atom > 0 && law.Max <= x {
			out.mass[r.Ticks(law.Max)-lo] += atom
			kept += atom
		}
	}
	out.giveUp = max(0, 1-kept)
	if x == math.Inf(1) {
		out.giveUp = 0 // rounding error, not a limit
	}
	// Give-ups are drawn first; the waits of those who stay are then
	// sequential binomials with P(wait i | wait ≥ i).
	out.cond = grow(out.cond, len(out.mass))
	rest := 0.0
	for i := len(out.mass) - 1; i >= 0; i-- {
		rest += out.mass[i]
		if rest > 0 {
			out.cond[i] = min(1, out.mass[i]/rest)
		}
	}
	out.cond[len(out.cond)-1] = 1 // whatever is left takes the last wait
}

// grow returns a zeroed slice of length n, reusing b's storage.
func grow(b []float64, n int) []float64 {
	if cap(b) < n {
		return make([]float64, n)
	}
	b = b[:n]
	clear(b)
	return b
}

// Play runs one trial.
func (e *CountEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc := &e.sc
	g, c := e.groups, e.classes
	r := len(e.total)
	// A trial that ends with everyone served leaves the ring empty, so only
	// a censored one makes the next trial pay for clearing it.
	if e.dirty {
		clear(e.ring)
		clear(e.total)
		clear(e.busy)
	}
	// First sends: uniform over ticks 0…W−1, a multinomial.
	w := sc.FirstWindow
	left := int64(sc.Clients)
	for f := range w {
		x := left
		if f < w-1 {
			x = binomial(src, left, 1/float64(w-f))
		}
		if x > 0 {
			e.ring[f*g+f*c] = x
			e.total[f] = x
			e.busy[f/64] |= 1 << (f % 64)
			left -= x
		}
	}
	k := int64(sc.Capacity)
	pending := int64(sc.Clients)
	last := -1
	tick := 0
	for ; pending > 0 && tick < e.horizon && !t.stopped(int(e.groups)); tick++ {
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
		row := e.ring[slot*g : slot*g+g]
		switch {
		case m <= k:
			last = tick
			pending -= m
			for i, n := range row {
				if n > 0 {
					t.servedMany(tick-i/c+1, n) // latency from the group's first tick
				}
			}
			clear(row)
		case sc.Served(int(m)) == 0:
			for from, n := range row {
				gone := e.spread(src, tick, from, n)
				t.GaveUp += gone
				pending -= gone
				row[from] = 0
			}
		default:
			e.winners(src, row, m, k)
			last = tick
			pending -= k
			// A loser's wait is 1…R−1 ticks, so it never lands in this row.
			for from, n := range row {
				if won := e.win[from]; won > 0 {
					t.servedMany(tick-from/c+1, won)
				}
				gone := e.spread(src, tick, from, n-e.win[from])
				t.GaveUp += gone
				pending -= gone
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

// winners draws how many of the k winners of a tick come from each group:
// a multivariate hypergeometric, as one hypergeometric per group given the
// groups before it.
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

// spread books the n losers of group from at tick for their next send and
// returns how many gave up instead.
func (e *CountEngine) spread(src *rand.PCG, tick, from int, n int64) (gone int64) {
	if n == 0 {
		return 0
	}
	g, c := e.groups, e.classes
	first, class := from/c, from%c
	to := first*c + min(class+1, c-1)
	r := len(e.total)
	l := &e.laws[class]
	if l.limit {
		return n
	}
	since := float64(tick - first) // time since the group's first send
	book := func(wait int, x int64) {
		s := (tick + wait) % r
		e.ring[s*g+to] += x
		e.total[s] += x
		e.busy[s/64] |= 1 << (s % 64)
	}
	left := e.maxElapsed - since // a delay above this gives up
	if n < singleDraws*int64(len(l.mass)) {
		// Few losers: draw each one's delay as ClientEngine does.
		for range n {
			d := l.law.Draw(uniform(src))
			if since+d > e.maxElapsed {
				gone++
				continue
			}
			book(e.sc.Rounding.Ticks(d), 1)
		}
		return gone
	}
	if left < l.sup {
		l.cutAt(left, e.sc.Rounding, &e.cut)
		l = &e.cut
		gone = binomial(src, n, l.giveUp)
		n -= gone
	}
	for i, p := range l.cond {
		if n == 0 {
			break
		}
		x := n
		if p < 1 {
			x = binomial(src, n, p)
		}
		if x > 0 {
			book(l.first+i, x)
			n -= x
		}
	}
	return gone
}
