package service

import (
	"container/heap"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/herdlab/herd/internal/memory"
	"github.com/herdlab/herd/internal/rng"
	"github.com/herdlab/herd/model"
)

// Trial is one trial of a run on the service server
// (Run): its counts per bin and whether it recovered.
type Trial struct {
	Index int
	// Bins[b] counts the events of [b·bin, (b+1)·bin).
	Bins []Bin
	// Recovered: at RecoveredAt (seconds) the run met its recovery rule
	// (Run.TriggerEnd) before its load ended.
	Recovered   bool
	RecoveredAt float64
}

// Bin counts one bin's events. A retry counts when the client
// decides it (at the failure), a send when it leaves the client.
type Bin struct {
	Starts, Sends, Retries, Successes, LateSuccesses int
	Timeouts, Rejections, Drops, GiveUps             int
	Served, Wasted                                   int
	// Backlog is the requests at the server, waiting or in service
	// (abandoned ones included), at the bin's end.
	Backlog int
}

// Window sums the bins that lie in [from, to) seconds.
func (t *Trial) Window(bin, from, to float64) Bin {
	var s Bin
	for b := range t.Bins {
		if lo := float64(b) * bin; lo >= from-1e-9 && lo+bin <= to+1e-9 {
			x := t.Bins[b]
			s.Starts += x.Starts
			s.Sends += x.Sends
			s.Retries += x.Retries
			s.Successes += x.Successes
			s.LateSuccesses += x.LateSuccesses
			s.Timeouts += x.Timeouts
			s.Rejections += x.Rejections
			s.Drops += x.Drops
			s.GiveUps += x.GiveUps
			s.Served += x.Served
			s.Wasted += x.Wasted
			s.Backlog = x.Backlog
		}
	}
	return s
}

type serviceEvent struct {
	t    float64
	seq  uint64
	kind uint8
	id   int32
}

type serviceEvents []serviceEvent

func (h serviceEvents) Len() int { return len(h) }
func (h serviceEvents) Less(i, j int) bool {
	return h[i].t < h[j].t || h[i].t == h[j].t && h[i].seq < h[j].seq
}
func (h serviceEvents) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *serviceEvents) Push(x any)   { *h = append(*h, x.(serviceEvent)) }
func (h *serviceEvents) Pop() any {
	old := *h
	e := old[len(old)-1]
	*h = old[:len(old)-1]
	return e
}

const (
	evArrival uint8 = iota
	evSend          // id: request
	evReach         // id: attempt
	evDone
	evAnswer
	evRejected
	evTimeout
	evPauseStart
	evPauseEnd
)

// Attempt states at the server.
const (
	inNetwork uint8 = iota
	waiting
	inService
	finished
	cancelled
)

type serviceAttempt struct {
	req                      int32
	state                    uint8
	abandoned, failed, final bool
}

type serviceRequest struct {
	current  int32 // its latest attempt, −1 before the first
	attempts int
	prev     float64 // a stateful policy's previous delay
	done     bool
}

// Engine plays trials of one service run; it is reused between
// trials.
type Engine struct {
	run              Run
	service, network Sampler
	slope, timeout   float64
	bin, end, load   float64

	arr, rnd *rand.PCG
	events   serviceEvents
	seq      uint64
	reqs     []serviceRequest
	atts     []serviceAttempt
	queue    []int32
	head     int
	waiting  int
	busy     int
	paused   int
	// the arrival process
	nextK       float64 // even: the integral the next arrival waits for
	segFrom     float64
	segLambda   float64 // even: the load's integral at segFrom
	arrivalTime float64
	trial       *Trial
	stop        *atomic.Bool
}

// NewEngine builds an engine for a valid run.
func NewEngine(run Run) *Engine {
	return &Engine{run: run, service: run.Server.Service.Sampler(), network: run.Server.Network.Sampler(),
		slope: run.Server.Slope.Seconds(), timeout: run.Server.Timeout.Seconds(), bin: run.BinLength().Seconds(),
		end: (run.Duration + run.Drain).Seconds(), load: run.Duration.Seconds()}
}

// serviceStreams are trial i's two streams: the new requests' arrivals
// (shared by every run of the same load and seed, so variants compared
// on one seed see the same arrivals) and everything else.
func serviceStreams(seed uint64, i int) (arr, rnd *rand.PCG) {
	const env = 0x5e7b1ce5e7b1ce5
	idx := rng.Mix(uint64(i) + 0x632be59bd9b4e019)
	return rand.NewPCG(rng.Mix(seed^env), rng.Mix(idx^1)), rand.NewPCG(rng.Mix(seed^env), rng.Mix(idx^2))
}

func (e *Engine) push(t float64, kind uint8, id int32) {
	e.seq++
	heap.Push(&e.events, serviceEvent{t, e.seq, kind, id})
}

// Play plays trial i under seed into t.
func (e *Engine) Play(seed uint64, i int, t *Trial) error {
	e.arr, e.rnd = serviceStreams(seed, i)
	e.events, e.seq = e.events[:0], 0
	e.reqs, e.atts, e.queue, e.head = e.reqs[:0], e.atts[:0], e.queue[:0], 0
	e.waiting, e.busy, e.paused = 0, 0, 0
	e.nextK, e.segFrom, e.segLambda = 1, 0, 0
	nb := e.run.Bins()
	t.Index = i
	t.Bins = append(t.Bins[:0], make([]Bin, nb)...)
	t.Recovered, t.RecoveredAt = false, math.Inf(1)
	e.trial = t
	for range e.run.Cohort {
		e.newRequest(0)
	}
	if at, ok := e.nextArrival(0); ok {
		e.push(at, evArrival, 0)
	}
	for _, p := range e.run.Server.Pauses {
		e.push(p.At.Seconds(), evPauseStart, 0)
		e.push((p.At + p.Length).Seconds(), evPauseEnd, 0)
	}
	nextBin := 0
	for n := 0; len(e.events) > 0; n++ {
		if n&4095 == 0 && e.stop != nil && e.stop.Load() {
			return context.Canceled
		}
		ev := heap.Pop(&e.events).(serviceEvent)
		if ev.t >= e.end {
			break
		}
		for nextBin < nb && float64(nextBin+1)*e.bin <= ev.t {
			e.closeBin(nextBin)
			nextBin++
		}
		e.handle(ev)
	}
	for ; nextBin < nb; nextBin++ {
		e.closeBin(nextBin)
	}
	return nil
}

func (e *Engine) closeBin(b int) {
	t := e.trial
	x := &t.Bins[b]
	x.Backlog = e.waiting + e.busy
	end := float64(b+1) * e.bin
	trig := e.run.TriggerEnd.Seconds()
	if !t.Recovered && end >= trig-1e-9 && end <= e.load+1e-9 && x.Backlog <= e.run.RecoveredBacklog && x.Timeouts == 0 {
		t.Recovered, t.RecoveredAt = true, end
	}
}

func (e *Engine) binAt(t float64) *Bin {
	b := min(int(t/e.bin), len(e.trial.Bins)-1)
	return &e.trial.Bins[b]
}

func (e *Engine) u() float64 { return rng.Uniform(e.rnd) }

func (e *Engine) newRequest(t float64) {
	e.reqs = append(e.reqs, serviceRequest{current: -1})
	e.binAt(t).Starts++
	e.send(int32(len(e.reqs)-1), t)
}

// send makes a new attempt of request r leave its client at t.
func (e *Engine) send(r int32, t float64) {
	req := &e.reqs[r]
	req.attempts++
	e.atts = append(e.atts, serviceAttempt{req: r})
	a := int32(len(e.atts) - 1)
	req.current = a
	e.binAt(t).Sends++
	e.push(t+e.network.Draw(e.u()), evReach, a)
	if e.timeout > 0 {
		d := e.timeout
		if e.run.Server.TimeoutExp {
			d = -e.timeout * math.Log1p(-e.u())
		}
		e.push(t+d, evTimeout, a)
	}
}

func (e *Engine) canStart() bool {
	w := e.run.Server.Workers
	return e.paused == 0 && (w == 0 || e.busy < w)
}

func (e *Engine) start(a int32, t float64) {
	e.busy++
	e.atts[a].state = inService
	d := e.service.Draw(e.u()) + e.slope*float64(e.busy)
	e.push(t+d, evDone, a)
}

func (e *Engine) fill(t float64) {
	for e.canStart() && e.head < len(e.queue) {
		a := e.queue[e.head]
		e.head++
		if e.atts[a].state == cancelled {
			continue
		}
		e.waiting--
		e.start(a, t)
	}
	if e.head > 1024 && e.head*2 > len(e.queue) {
		e.queue = e.queue[:copy(e.queue, e.queue[e.head:])]
		e.head = 0
	}
}

func (e *Engine) handle(ev serviceEvent) {
	t := ev.t
	srv := e.run.Server
	switch ev.kind {
	case evArrival:
		e.newRequest(t)
		if at, ok := e.nextArrival(t); ok {
			e.push(at, evArrival, 0)
		}
	case evSend:
		e.send(ev.id, t)
	case evReach:
		a := &e.atts[ev.id]
		if a.state == cancelled {
			return
		}
		switch {
		case e.canStart() && e.waiting == 0:
			e.start(ev.id, t)
		case srv.Room < 0 || e.waiting < srv.Room:
			a.state = waiting
			e.waiting++
			e.queue = append(e.queue, ev.id)
		default:
			a.state = finished
			e.binAt(t).Rejections++
			if srv.RejectFinal {
				a.final = true
				if r := &e.reqs[a.req]; r.current == ev.id && !a.abandoned && !r.done {
					r.done = true
					e.binAt(t).Drops++
				}
				return
			}
			e.push(t+e.network.Draw(e.u()), evRejected, ev.id)
		}
	case evDone:
		a := &e.atts[ev.id]
		if a.state == cancelled {
			return
		}
		a.state = finished
		e.busy--
		b := e.binAt(t)
		b.Served++
		if a.abandoned {
			b.Wasted++
		}
		e.push(t+e.network.Draw(e.u()), evAnswer, ev.id)
		e.fill(t)
	case evAnswer:
		a := &e.atts[ev.id]
		r := &e.reqs[a.req]
		if r.done {
			return
		}
		cur := &e.atts[r.current]
		switch {
		case r.current == ev.id && !a.abandoned:
		case a.abandoned && srv.LateSuccess && r.current != ev.id && !cur.abandoned && !cur.failed:
			e.binAt(t).LateSuccesses++
		default:
			return
		}
		r.done = true
		e.binAt(t).Successes++
	case evRejected:
		a := &e.atts[ev.id]
		r := &e.reqs[a.req]
		if r.done || r.current != ev.id || a.abandoned {
			return
		}
		a.failed = true
		e.fail(a.req, t)
	case evTimeout:
		a := &e.atts[ev.id]
		r := &e.reqs[a.req]
		if r.done || r.current != ev.id || a.abandoned || a.failed || a.final {
			return
		}
		a.abandoned = true
		e.binAt(t).Timeouts++
		if srv.Cancel {
			switch a.state {
			case waiting:
				a.state = cancelled
				e.waiting--
			case inService:
				a.state = cancelled
				e.busy--
				e.fill(t)
			case inNetwork:
				a.state = cancelled
			}
		}
		e.fail(a.req, t)
	case evPauseStart:
		e.paused++
	case evPauseEnd:
		e.paused--
		e.fill(t)
	}
}

// fail is a failed attempt of request r at t: a retry after the policy's
// delay, or giving up after the last attempt.
func (e *Engine) fail(r int32, t float64) {
	req := &e.reqs[r]
	if req.attempts >= e.run.Attempts {
		req.done = true
		e.binAt(t).GiveUps++
		return
	}
	e.binAt(t).Retries++
	p := e.run.Policy
	if req.attempts == 1 {
		req.prev = p.Start()
	}
	var d float64
	d, req.prev = p.Law(req.attempts, req.prev).Sample(e.u())
	e.push(t+max(d, 0), evSend, r)
}

// nextArrival is the first new request after t, if the load brings one
// before its end.
func (e *Engine) nextArrival(t float64) (float64, bool) {
	l := e.run.Load
	for t < e.load {
		from, to, a, s := l.Segment(t)
		if e.run.Arrivals == Even {
			if from != e.segFrom {
				// Entering a new piece: carry the integral over the gap.
				e.segLambda += integral(l, e.segFrom, from)
				e.segFrom = from
			}
			need := e.nextK - e.segLambda
			x, ok := solveArea(a, s, need)
			if ok && from+x < to {
				e.nextK++
				at := math.Max(from+x, t)
				return at, at < e.load
			}
			t = to
			continue
		}
		// Poisson by thinning on the piece [t, to).
		r0, r1 := a, a
		if s != 0 {
			r0, r1 = a+s*(t-from), a+s*(to-from)
		}
		top := math.Max(r0, r1)
		if top <= 0 {
			t = to
			continue
		}
		x := t - math.Log1p(-rng.Uniform(e.arr))/top
		if x >= to {
			t = to
			continue
		}
		if s == 0 || rng.Uniform(e.arr)*top < a+s*(x-from) {
			return x, x < e.load
		}
		t = x
	}
	return 0, false
}

// integral is the load's integral over [from, to).
func integral(l Load, from, to float64) float64 {
	return l.Integral(to) - l.Integral(from)
}

// solveArea is the x ≥ 0 at which ∫₀ˣ (a + s·y) dy reaches need.
func solveArea(a, s, need float64) (float64, bool) {
	if need <= 0 {
		return 0, true
	}
	if s == 0 {
		if a <= 0 {
			return 0, false
		}
		return need / a, true
	}
	d := a*a + 2*s*need
	if d < 0 {
		return 0, false
	}
	// The smaller root ≥ 0 (a falling ramp reaches need first there).
	x := (-a + math.Sqrt(d)) / s
	return x, x >= 0
}

// Options says how many trials of a service run to play and how.
type Options struct {
	Trials  int
	Seed    uint64
	Workers int // 0: GOMAXPROCS
}

// MaxTrials bounds the trials of a service run.
const MaxTrials = 10_000_000

// Bytes is about how much memory one trial of the run takes: its
// requests, attempts, events and bins.
func Bytes(run Run) int64 {
	reqs := run.Load.Integral(run.Duration.Seconds()) + float64(run.Cohort)
	return int64(reqs*float64(16+run.Attempts*56)) + int64(run.Bins())*96
}

// RunTrials plays opt.Trials trials of run and calls fold with each, in
// trial order, from one goroutine; the *Trial is reused after fold
// returns. Results depend on the seed and trial index alone, whatever the
// workers.
func RunTrials(ctx context.Context, run Run, opt Options, fold func(*Trial) error) error {
	if err := run.Validate(); err != nil {
		return &model.UsageError{Err: err}
	}
	if opt.Trials < 1 || opt.Trials > MaxTrials {
		return model.Usagef("--trials must be an integer in [1, %d], got %d", MaxTrials, opt.Trials)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	if b := Bytes(run); b > memory.Budget {
		return model.Usagef("one trial of this run would take about %s, over the budget of %s: lower the load, its duration or --attempts", memory.Text(b), memory.Text(memory.Budget))
	} else {
		workers = max(1, min(workers, int(memory.Budget/max(b, 1))))
	}
	var stop atomic.Bool
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-done:
		}
	}()
	engines := make([]*Engine, workers)
	for w := range engines {
		engines[w] = NewEngine(run)
		engines[w].stop = &stop
	}
	buf := make([]Trial, min(opt.Trials, 8*workers))
	for start := 0; start < opt.Trials; start += len(buf) {
		n := min(len(buf), opt.Trials-start)
		var next atomic.Int64
		errs := make([]error, workers)
		var wg sync.WaitGroup
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					if p := recover(); p != nil {
						errs[w] = fmt.Errorf("service engine: %v", p)
					}
				}()
				for {
					j := int(next.Add(1) - 1)
					if j >= n {
						return
					}
					if err := engines[w].Play(opt.Seed, start+j, &buf[j]); err != nil {
						errs[w] = err
						return
					}
				}
			}()
		}
		wg.Wait()
		if err := ctx.Err(); err != nil {
			return err
		}
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		for j := range n {
			if err := ctx.Err(); err != nil { // a fold may take a while
				return err
			}
			if err := fold(&buf[j]); err != nil {
				return err
			}
		}
	}
	return nil
}
