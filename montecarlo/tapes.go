package montecarlo

import (
	"math"
	"math/rand/v2"
	"sync"

	"github.com/herdlab/herd/model"
)

// ArrivalTapes keeps the new arrivals the request engine drew in open-loop
// trials — how many at each tick and from which client — so that another
// run of the same arrivals reads them instead of drawing them again.
//
// A trial's arrivals come from a stream of their own (OpenLoopEngine), a
// function of the two words that seed it, the rate and the clients alone:
// the policy, the controls, the outage and the horizon never touch it. So
// the runs of one trial under several controls or outages (a figure's
// columns, a map's cells) play the very same arrivals, and a tape recorded
// by one is, draw for draw, what the others would draw. A tape also keeps
// the stream as it was after its last tick, so a run that goes further
// draws on from there and records a longer tape. Tapes change no result
// (TestOpenLoopTapesSameAsReference); they only save the draws.
//
// Tapes are kept for open loops of at most 256 clients with a constant
// rate and no start cohort, up to MaxTapeBytes in all (past it, nothing
// more is kept). A tape once stored is never modified, so runs read it
// without locking. Make one per process (analysis.Cache does) and pass it
// in Options.Tapes; its zero value is not ready: use NewArrivalTapes.
type ArrivalTapes struct {
	mu    sync.Mutex
	m     map[tapeKey]*tape
	bytes int64
}

// MaxTapeBytes bounds the memory of one ArrivalTapes (each arrival costs
// a byte, each tick two).
const MaxTapeBytes = 64 << 20

// NewArrivalTapes is an empty store.
func NewArrivalTapes() *ArrivalTapes { return &ArrivalTapes{m: map[tapeKey]*tape{}} }

// tapeKey is what decides a trial's arrivals: the two words seeding their
// stream, the rate and the clients.
type tapeKey struct {
	seed1, seed2 uint64
	rate         float64
	clients      int
}

// tape is the arrivals of a trial's first len(counts) ticks: counts[t]
// new requests at tick t, their clients in order in clients, and the
// arrivals' stream as it stood after them.
type tape struct {
	counts  []uint16
	clients []uint8
	end     rand.PCG
}

func (t *tape) bytes() int64 { return int64(2*len(t.counts) + len(t.clients)) }

// get is the tape of key, or nil.
func (s *ArrivalTapes) get(k tapeKey) *tape {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m[k]
}

// put keeps t as key's tape if it is longer than the one kept and fits.
func (s *ArrivalTapes) put(k tapeKey, t *tape) {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.m[k]
	if old != nil && len(old.counts) >= len(t.counts) {
		return
	}
	grow := t.bytes()
	if old != nil {
		grow -= old.bytes()
	}
	if s.bytes+grow > MaxTapeBytes {
		return
	}
	s.bytes += grow
	s.m[k] = t
}

// taping is an engine's use of the tapes in one trial: the tape it reads
// (nil if none yet) and what it draws past it, to store as a longer one.
type taping struct {
	key     tapeKey
	tape    *tape
	onTape  bool // this tick's arrivals are read from the tape
	pos     int  // the next client read from the tape
	counts  []uint16
	clients []uint8
	ok      bool // what was drawn past the tape may be stored
}

// tapeable reports whether the engine's trials may use tapes.
func (e *OpenLoopEngine) tapeable() bool {
	return e.tapes != nil && e.closed == nil && len(e.tr.Steps) == 0 && !e.tr.StartCohort && e.sc.Clients <= 256
}

// startTape looks up the tape of the trial whose arrivals' stream the two
// words seed.
func (e *OpenLoopEngine) startTape(seed1, seed2 uint64) {
	p := &e.taping
	p.key = tapeKey{seed1, seed2, e.tr.Rate, e.sc.Clients}
	p.tape = e.tapes.get(p.key)
	p.onTape, p.pos, p.ok = false, 0, true
	p.counts, p.clients = p.counts[:0], p.clients[:0]
}

// tapeCount is the count of tick read from the tape (ok), or, past it,
// readies the stream to draw it (ok false).
func (e *OpenLoopEngine) tapeCount(tick int) (n int, ok bool) {
	p := &e.taping
	if t := p.tape; t != nil {
		if tick < len(t.counts) {
			p.onTape = true
			return int(t.counts[tick]), true
		}
		if tick == len(t.counts) {
			e.arr = t.end
			p.onTape = false
		}
	}
	return 0, false
}

// quietFrom is the first tick of a horizon of ticks from which the tape's
// counts never pass capacity: every tick after the last that does, or
// math.MaxInt when the tape does not reach the horizon (no tick is known
// quiet).
func (p *taping) quietFrom(ticks, capacity int) int {
	t := p.tape
	if t == nil || len(t.counts) < ticks || capacity > model.MaxRequestsLive {
		return math.MaxInt
	}
	for i := ticks - 1; i >= 0; i-- {
		if int(t.counts[i]) > capacity {
			return i + 1
		}
	}
	return 0
}

// recordCount notes a count drawn past the tape.
func (p *taping) recordCount(n int) {
	if n > math.MaxUint16 {
		p.ok = false
	}
	p.counts = append(p.counts, uint16(n))
}

// endTape stores what the trial drew past its tape, when it drew any and
// every tick it drew is whole.
func (e *OpenLoopEngine) endTape() {
	p := &e.taping
	if !p.ok || len(p.counts) == 0 {
		return
	}
	t := &tape{end: e.arr}
	if old := p.tape; old != nil {
		t.counts = append(append(make([]uint16, 0, len(old.counts)+len(p.counts)), old.counts...), p.counts...)
		t.clients = append(append(make([]uint8, 0, len(old.clients)+len(p.clients)), old.clients...), p.clients...)
	} else {
		t.counts = append([]uint16(nil), p.counts...)
		t.clients = append([]uint8(nil), p.clients...)
	}
	e.tapes.put(p.key, t)
}

// Len is how many tapes are kept.
func (s *ArrivalTapes) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.m)
}
