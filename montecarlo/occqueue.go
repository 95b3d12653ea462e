package montecarlo

import "math"

// clientQueue is the OCC engine's event queue: every client has at most one
// pending event, its next write, so the queue is a tournament (winner) tree
// over the clients. Leaf P+c is client c (P, the number of leaves, is the
// power of two at or above the cohort; the padding leaves never hold an
// event) and internal node i holds the client with the earliest event below
// it, so the root names the next event. Setting a client's time replays
// the matches on its path to the root, log₂ P of them. Unlike a heap's
// sift, whose branch on which child is smaller is a coin toss the
// processor mispredicts, each match here is a comparison of two loaded
// times whose addresses are known beforehand (the path is fixed by the
// client's number), so the loads run ahead and only the comparisons are
// chained. BenchmarkOCCQueue measures it against the 4-ary heap the engine
// had before (siftDown).
//
// The times are kept as their IEEE 754 bit patterns, which for numbers
// ≥ 0 (every event time is) and +Inf order as unsigned integers do: an
// integer match compiles to conditional moves, where a floating-point one
// is a branch.
//
// The pop order is the order of the times; equal times (probability 0 for
// the continuous hop law) go to the client met first on the path, a rule
// that depends only on the clients' numbers and times, never on a
// platform.
type clientQueue struct {
	at   []uint64 // at[c] is client c's pending event time's bits, none when it has none; len P
	win  []int32  // win[i], 1 ≤ i < P: the client with the earliest event below node i
	size int      // P
}

// none is the time of a client with no pending event: +Inf's bits.
const none = 0x7ff0_0000_0000_0000

// reset makes the queue hold n clients, none with an event.
func (q *clientQueue) reset(n int) {
	p := 1
	for p < n {
		p *= 2
	}
	if cap(q.at) < p {
		q.at = make([]uint64, p)
		q.win = make([]int32, p)
	}
	q.at, q.win, q.size = q.at[:p], q.win[:p], p
	for c := range q.at {
		q.at[c] = none
	}
}

// build plays every match once, after at has been filled in.
func (q *clientQueue) build() {
	p := q.size
	if p == 1 {
		if len(q.win) > 0 {
			q.win[0] = 0
		}
		return
	}
	for i := p - 1; i >= p/2; i-- { // the matches of two leaves
		a, b := int32(2*i-p), int32(2*i+1-p)
		if q.at[b] < q.at[a] {
			a = b
		}
		q.win[i] = a
	}
	for i := p/2 - 1; i >= 1; i-- {
		a, b := q.win[2*i], q.win[2*i+1]
		if q.at[b] < q.at[a] {
			a = b
		}
		q.win[i] = a
	}
}

// next is the client with the earliest event and its time (+Inf when no
// client has one).
func (q *clientQueue) next() (int32, float64) {
	c, t := q.first()
	return c, math.Float64frombits(t)
}

// first is next with the time as bits.
func (q *clientQueue) first() (int32, uint64) {
	if q.size == 1 {
		return 0, q.at[0]
	}
	c := q.win[1]
	return c, q.at[c]
}

// set gives client c the event time t ≥ 0 (+Inf removes its event) and
// replays its path.
func (q *clientQueue) set(c int32, t float64) { q.setBits(c, math.Float64bits(t)) }

// setBits is set with the time as bits.
func (q *clientQueue) setBits(c int32, t uint64) {
	at, win := q.at, q.win
	at[c] = t
	p := len(at)
	if p == 1 {
		return
	}
	// The first match is against the sibling leaf.
	w, wt := c, t
	s := c ^ 1
	if st := at[s]; st < wt {
		w, wt = s, st
	}
	i := (p + int(c)) >> 1
	win[i] = w
	for i > 1 {
		s := win[i^1]
		if st := at[s]; st < wt {
			w, wt = s, st
		}
		i >>= 1
		win[i] = w
	}
}
