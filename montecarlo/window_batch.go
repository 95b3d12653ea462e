package montecarlo

import (
	"math"
	"math/rand/v2"
	"slices"
)

// playWindows runs one trial window by window, the fast way of playing
// playEvents' trial. A window admits its k earliest arrivals and fails the
// rest, and a retry that lands in the window it failed in fails again, so
// a window is played whole: its arrivals are taken from a calendar of
// windows, the k earliest selected and taken in time order (the latencies
// are summed in the order playEvents sums them), the others failed in any
// order, since each client draws from its own stream. The result is
// playEvents' exactly, unless two arrivals of a window at the same time
// straddle the k-th place or are both admitted: then the heap's history
// decides their order, and playWindows returns false with the trial half
// played. When every first send arrives at 0, the heap's order of that tie
// is a function of N and k alone (firstAdmitted).
func (e *WindowEngine) playWindows(src *rand.PCG, t *Trial) bool {
	t.Continuous = true
	sc := &e.sc
	c := &e.cal
	c.init(sc.Clients, e.trip.Bound()+sc.Policy.MaxDelay()+2)
	together := e.together
	// The clients' records, which neither plain draws nor the latencies
	// of a cohort sent at 0 read.
	records := !(e.plain && together)
	e.beyond, e.done, e.cancelled = false, 0, false
	if e.events == nil {
		e.events = make([]windowEvent, 0, sc.Clients)
	}
	q := e.events[:0] // every first send, when they arrive together
	for i := range int32(sc.Clients) {
		if i&(1<<16-1) == 1<<16-1 && t.stopped(1<<16) {
			return true // cancelled while a huge cohort is laid out
		}
		ev := windowEvent{net: pcg{src.Uint64(), src.Uint64()}, client: i}
		var x uint64
		ev.net, x = ev.net.next()
		u := float64(x>>11) * 0x1p-53
		ev.at = u * e.spread
		if e.firstLaw {
			ev.at = e.first.Draw(u)
		}
		if records {
			e.client[i] = windowClient{first: ev.at, prev: e.start}
			if e.answersLaw {
				e.client[i].answer = e.answers.Draw(u)
			}
		}
		switch {
		case together:
			q = append(q, ev)
		case ev.at > e.horizon:
			e.beyond = true
		default:
			c.push(ev)
		}
	}
	if together {
		n := e.firstWindow(q)
		e.serve(t, q[:n])
		if !e.failAll(t, q[n:]) {
			return true
		}
	}
	for c.advance() {
		if t.stopped(64) {
			return true
		}
		admitted, failed, ok := e.playWindow(t)
		if !ok {
			return false
		}
		e.serve(t, admitted)
		if !e.failAll(t, failed) {
			return true
		}
		c.cur++
	}
	t.Censored = e.beyond
	t.Time = e.done * e.ms
	return true
}

// serve admits a window's earliest arrivals, in time order.
// Consecutive latencies in one bin are counted at once.
func (e *WindowEngine) serve(t *Trial, admitted []windowEvent) {
	t.Calls += int64(len(admitted))
	done := e.done
	bin, run := 0, int64(0)
	for _, ev := range admitted {
		done = max(done, ev.at)
		first := 0.0
		if !e.together {
			first = e.client[ev.client].first
		}
		ms := (ev.at - first) * e.ms
		if l := latencyBin(ms); l != bin {
			t.servedMany(bin, run)
			bin, run = l, 0
		}
		run++
		t.LatencySum += ms
	}
	t.servedMany(bin, run)
	e.done = done
}

// windowEvent is a pending arrival of playWindows with its client's stream
// and retry count, which travel with it from window to window, so that a
// failure reads what it needs in order rather than from the client's
// record at random.
type windowEvent struct {
	at     float64
	net    pcg
	client int32
	retry  int32
}

// playWindow takes the current window's arrivals from the calendar: it
// returns the k earliest, in time order, and others of their cells, which
// it puts in e.spare, and fails the rest as it reads them. It returns
// false when two of the earliest, or the k-th and a later one, arrive at
// the same time. The calendar counts each window's arrivals by time into
// cells of 1/windowCells of the window as it files them, so that only the
// cells the earliest fill are taken out and sorted.
func (e *WindowEngine) playWindow(t *Trial) (admitted, failed []windowEvent, ok bool) {
	c := &e.cal
	k := e.sc.Capacity
	b := &c.ring[c.cur&(len(c.ring)-1)]
	count := &b.count
	m := 0
	for _, n := range count {
		m += int(n)
	}
	x, before := windowCells-1, 0 // cell x holds the k-th earliest, after before arrivals
	if m > k {
		x = 0
		for before+int(count[x]) < k {
			before += int(count[x])
			x++
		}
	}
	s := &e.split
	sum := int32(0)
	for j := 0; j <= x; j++ {
		s.off[j], sum = sum, sum+count[j]
	}
	*count = [windowCells]int32{}
	if cap(e.spare) < int(sum) {
		e.spare = make([]windowEvent, sum, max(int(sum), 2*cap(e.spare)))
	}
	early := e.spare[:sum]
	s.base, s.end, s.early = float64(c.cur), float64(x+1)/windowCells, early
	e.again = e.again[:0]
	t.Calls += int64(m) - int64(sum) // the others fail
	for ch := b.head; ch >= 0; ch = c.release(b, ch) {
		e.fail(t, c.chunk(b, ch), s)
	}
	for j, from := 0, 0; j < x || m <= k && j == x; j++ { // each cell of the admitted
		sortByTime(early[from:s.off[j]])
		from = int(s.off[j])
	}
	if m <= k {
		return early, nil, distinctTimes(early)
	}
	last, r := early[before:], k-before // cell x: its r earliest are admitted
	if len(last) > r {
		selectEarliest(last, r)
		if earliest(last[r:]) <= latest(last[:r]) {
			return nil, nil, false
		}
	}
	sortByTime(last[:r])
	return early[:k], early[k:], distinctTimes(early[:k])
}

// windowSplit tells fail which arrivals of the current window are among
// its earliest: those less than end after base, the window's start (cells
// 0…x), which fail files by cell in early, cell j's next at off[j].
type windowSplit struct {
	base, end float64
	early     []windowEvent
	off       [windowCells]int32
}

// failNone is the split that takes no arrival out.
var failNone = windowSplit{end: math.Inf(-1)}

// failAll fails q, then the retries that land in the current window, in
// turn, until none is left; false when the run was cancelled.
func (e *WindowEngine) failAll(t *Trial, q []windowEvent) bool {
	if cap(e.again) == 0 {
		e.again = make([]windowEvent, 0, 64)
	}
	if !e.failBlocks(t, q) {
		return false
	}
	for i := 0; i < len(e.again); {
		j := len(e.again)
		if !e.failBlocks(t, e.again[i:j]) {
			return false
		}
		i = j
	}
	e.again = e.again[:0]
	return true
}

// failBlocks fails q in blocks of 2¹⁶, polling t for the run's end
// between them; false (and e.cancelled) when it was cancelled.
func (e *WindowEngine) failBlocks(t *Trial, q []windowEvent) bool {
	t.Calls += int64(len(q))
	for len(q) > 1<<16 {
		e.fail(t, q[:1<<16], &failNone)
		q = q[1<<16:]
		if t.stopped(1 << 16) {
			e.cancelled = true
			return false
		}
	}
	e.fail(t, q, &failNone)
	return true
}

// fail plays the failed arrivals of q, which are of the current window,
// but for those s takes out: each client draws its round trip and delay,
// and gives up or files its retry, in the calendar or, when it lands in
// this window, in e.again (it fails in turn). Its callers count the calls.
func (e *WindowEngine) fail(t *Trial, q []windowEvent, s *windowSplit) {
	c := &e.cal
	plain, trip0, affine, retryLimit := e.plain, e.trip0, e.affine, e.retryLimit
	base, end := s.base, s.end
	horizon, cur := e.horizon, c.cur
	ring, pool := c.ring, c.pool
	for i := range q {
		ev, ok := q[i], true
		if ev.at-base < end {
			j := cellOf(ev.at)
			s.early[s.off[j]] = ev
			s.off[j]++
			continue
		}
		if plain {
			// draw's plain case, inline: a fixed round trip, an affine
			// law, no measured first answers, no elapsed-time limit.
			var x uint64
			ev.net, x = ev.net.skip()
			if ev.retry < math.MaxInt32 {
				ev.retry++
			}
			a := &affine[min(int(ev.retry), len(affine)-1)]
			d := a.lo + float64(x>>11)*0x1p-53*a.width
			if d > a.max {
				d = a.max
			}
			if int(ev.retry) > retryLimit {
				t.GaveUp++
				continue
			}
			ev.at = ev.at + trip0 + d // in draw's order
		} else if ev, ok = e.draw(ev); !ok {
			t.GaveUp++
			continue
		}
		w := int(ev.at)
		switch {
		case ev.at > horizon:
			e.beyond = true
		case w == cur:
			e.again = append(e.again, ev)
		default:
			// push's common case, inline: a window the ring spans, whose
			// tail chunk has room.
			if w-cur < len(ring) {
				if b := &ring[w&(len(ring)-1)]; b.fill < chunkLen {
					pool[int(b.tail)*chunkLen+int(b.fill)] = ev
					b.fill++
					c.n++
					b.count[cellOf(ev.at)]++
					continue
				}
			}
			c.push(ev)
		}
	}
}

// draw draws the round trip and delay of the client of a failed arrival
// ev, and returns its retry; false when the client gives up instead.
func (e *WindowEngine) draw(ev windowEvent) (windowEvent, bool) {
	lat := e.trip0 // the round trip
	var x uint64   // the delay's draw
	if e.tripFixed {
		ev.net, x = ev.net.skip()
	} else {
		ev.net, x = ev.net.next()
		lat = e.trip.Draw(float64(x>>11) * 0x1p-53)
		ev.net, x = ev.net.next()
	}
	u := float64(x>>11) * 0x1p-53
	back := ev.at
	if ev.retry == 0 && e.answersLaw {
		back = max(ev.at, e.client[ev.client].answer)
	}
	if ev.retry < math.MaxInt32 {
		ev.retry++
	}
	n := int(ev.retry)
	var d float64
	if e.affine != nil {
		a := &e.affine[min(n, len(e.affine)-1)]
		if d = a.lo + u*a.width; d > a.max {
			d = a.max
		}
	} else {
		d = drawDelay(e.laws, e.law, n, &e.client[ev.client].prev, u)
	}
	if n > e.retryLimit || e.maxElapsed < math.Inf(1) && (back+lat-e.client[ev.client].first)+d > e.maxElapsed {
		return ev, false
	}
	ev.at = back + lat + d
	return ev, true
}

// windowCells is how many cells the calendar counts a window's arrivals
// into.
const windowCells = 64

// cellOf is the cell of its window that an arrival at at falls in:
// windowCells·at is exact, so its integer part is windowCells·⌊at⌋ plus
// the cell.
func cellOf(at float64) int { return int(at*windowCells) & (windowCells - 1) }

func distinctTimes(q []windowEvent) bool {
	for i := 1; i < len(q); i++ {
		if q[i].at == q[i-1].at {
			return false
		}
	}
	return true
}

// firstWindow puts first in q, which holds every client's first send at
// 0 in client order, the clients the heap admits first, and returns how
// many are admitted.
func (e *WindowEngine) firstWindow(q []windowEvent) int {
	if len(q) <= e.sc.Capacity {
		return len(q)
	}
	// admit is increasing, so admit[j] ≥ j and the swaps never move a
	// client placed before.
	admit := e.firstAdmitted()
	for j, i := range admit {
		q[j], q[i] = q[i], q[j]
	}
	return len(admit)
}

// firstAdmitted lists, in increasing order, the k clients that playEvents
// admits when all N first sends arrive at 0: its heap, built over equal
// times, pops them in an order fixed by its sifts alone, and the first k
// popped are admitted whatever happens to the others.
func (e *WindowEngine) firstAdmitted() []int32 {
	if e.admitFirst != nil {
		return e.admitFirst
	}
	q := make([]occEvent, 0, e.sc.Clients)
	for i := range int32(e.sc.Clients) {
		q = append(q, occEvent{client: i})
	}
	for i := (len(q) - 2) / 4; i >= 0; i-- {
		siftDown(q, i)
	}
	admit := make([]int32, e.sc.Capacity)
	for i := range admit {
		admit[i] = q[0].client
		q = popHead(q)
	}
	slices.Sort(admit)
	e.admitFirst = admit
	return admit
}

// selectEarliest moves the k earliest events of q to q[:k], in no order
// (Hoare's selection).
func selectEarliest(q []windowEvent, k int) {
	lo, hi := 0, len(q)-1
	for lo < hi {
		j, i := partition(q[lo : hi+1])
		j, i = lo+j, lo+i
		switch {
		case k-1 <= j:
			hi = j
		case k-1 >= i:
			lo = i
		default:
			return
		}
	}
}

// partition splits q (at least 2 events) around the median of the
// times of its first, middle and last events (Hoare's scheme): q[:j+1]
// come no later than it, q[i:] no earlier, those between at it, j < i.
func partition(q []windowEvent) (j, i int) {
	a, b, c := q[0].at, q[(len(q)-1)/2].at, q[len(q)-1].at
	p := max(min(a, b), min(max(a, b), c)) // the median of three
	i, j = 0, len(q)-1
	for i <= j {
		for q[i].at < p {
			i++
		}
		for q[j].at > p {
			j--
		}
		if i <= j {
			q[i], q[j] = q[j], q[i]
			i++
			j--
		}
	}
	return j, i
}

func earliest(q []windowEvent) float64 {
	m := math.Inf(1)
	for _, ev := range q {
		m = min(m, ev.at)
	}
	return m
}

func latest(q []windowEvent) float64 {
	m := math.Inf(-1)
	for _, ev := range q {
		m = max(m, ev.at)
	}
	return m
}

// sortByTime sorts a window's admitted events by time: quicksort, the
// smaller side first, down to runs of 24 or fewer, which it sorts by
// insertion.
func sortByTime(q []windowEvent) {
	for len(q) > 24 {
		j, i := partition(q)
		if j+1 < len(q)-i {
			sortByTime(q[:j+1])
			q = q[i:]
		} else {
			sortByTime(q[i:])
			q = q[:j+1]
		}
	}
	for i := 1; i < len(q); i++ {
		x := q[i]
		j := i
		for ; j > 0 && q[j-1].at > x.at; j-- {
			q[j] = q[j-1]
		}
		q[j] = x
	}
}

// calendar holds playWindows' pending arrivals by window: window w's in
// bucket w mod R of a ring that spans the windows [cur, cur+R), those
// further on in a 4-ary heap (far) until the ring reaches them. A bucket
// is a list of chunks of one pool, which the ring's arrivals fill but for
// one chunk per bucket, so the pool never grows.
type calendar struct {
	ring []bucket
	cur  int // the window being played
	n    int // arrivals in the ring
	pool []windowEvent
	next []int32 // the chunk after chunk i in its bucket, or in the free list
	free int32   // the first free chunk
	far  []windowEvent
}

type bucket struct {
	head, tail int32 // chunks; −1: empty
	fill       int32 // events in the tail chunk; chunkLen when empty
	// count[j] counts the arrivals in cell j of the bucket's window
	// (cellOf).
	count [windowCells]int32
}

const (
	chunkLen = 64
	maxRing  = 4096
)

// init empties the calendar for a trial of n clients whose retries come
// at most span windows after their failure (or mostly so: later ones wait
// in far).
func (c *calendar) init(n int, span float64) {
	r := 16
	for float64(r) < span && r < maxRing {
		r *= 2
	}
	if len(c.ring) != r {
		c.ring = make([]bucket, r)
	}
	if chunks := n/chunkLen + r + 1; len(c.next) != chunks {
		c.pool, c.next = make([]windowEvent, chunks*chunkLen), make([]int32, chunks)
	}
	for i := range c.ring {
		c.ring[i] = bucket{head: -1, tail: -1, fill: chunkLen} // counts cleared
	}
	for i := range c.next {
		c.next[i] = int32(i + 1)
	}
	c.next[len(c.next)-1] = -1
	c.free, c.cur, c.n, c.far = 0, 0, 0, c.far[:0]
}

// push files an arrival of the current window or a later one.
func (c *calendar) push(ev windowEvent) {
	w := int(ev.at)
	if w-c.cur >= len(c.ring) {
		c.pushFar(ev)
		return
	}
	b := &c.ring[w&(len(c.ring)-1)]
	if b.fill == chunkLen {
		c.grow(b)
	}
	c.pool[int(b.tail)*chunkLen+int(b.fill)] = ev
	b.fill++
	c.n++
	b.count[cellOf(ev.at)]++
}

// grow gives bucket b a new empty tail chunk.
func (c *calendar) grow(b *bucket) {
	ch := c.free
	c.free = c.next[ch]
	c.next[ch] = -1
	if b.tail < 0 {
		b.head = ch
	} else {
		c.next[b.tail] = ch
	}
	b.tail, b.fill = ch, 0
}

// advance moves cur to the first window from cur on that has arrivals,
// bringing far ones into the ring as it reaches them; false when no
// arrival is left.
func (c *calendar) advance() bool {
	r := len(c.ring)
	for {
		for len(c.far) > 0 && int(c.far[0].at)-c.cur < r {
			c.push(c.popFar()) // now in the ring
		}
		if c.ring[c.cur&(r-1)].head >= 0 {
			return true
		}
		if c.n == 0 {
			if len(c.far) == 0 {
				return false
			}
			c.cur = int(c.far[0].at)
			continue
		}
		c.cur++
	}
}

// chunk is the events of chunk ch of bucket b.
func (c *calendar) chunk(b *bucket, ch int32) []windowEvent {
	n := chunkLen
	if ch == b.tail {
		n = int(b.fill)
	}
	return c.pool[int(ch)*chunkLen : int(ch)*chunkLen+n]
}

// release frees chunk ch, the first of bucket b, and returns the next.
func (c *calendar) release(b *bucket, ch int32) int32 {
	c.n -= len(c.chunk(b, ch))
	next := c.next[ch]
	c.next[ch], c.free = c.free, ch
	if b.head = next; next < 0 {
		b.tail, b.fill = -1, chunkLen
	}
	return next
}

// pushFar adds ev to the binary min-heap far.
func (c *calendar) pushFar(ev windowEvent) {
	c.far = append(c.far, ev)
	for i := len(c.far) - 1; i > 0; {
		p := (i - 1) / 2
		if c.far[p].at <= ev.at {
			break
		}
		c.far[i], c.far[p] = c.far[p], c.far[i]
		i = p
	}
}

// popFar removes the earliest of far.
func (c *calendar) popFar() windowEvent {
	f := c.far
	top := f[0]
	f[0] = f[len(f)-1]
	f = f[:len(f)-1]
	for i := 0; ; {
		m := i
		for _, j := range [2]int{2*i + 1, 2*i + 2} {
			if j < len(f) && f[j].at < f[m].at {
				m = j
			}
		}
		if m == i {
			break
		}
		f[i], f[m] = f[m], f[i]
		i = m
	}
	c.far = f
	return top
}
