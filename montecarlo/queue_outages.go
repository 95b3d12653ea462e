package montecarlo

import (
	"fmt"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
)

// Recovery is whether, and how many ticks after its outage, one trial
// recovered (OpenTrial.Recovered and RecoveryTicks).
type Recovery struct {
	Recovered     bool
	RecoveryTicks int64
}

// OpenLoopOutages is OpenLoopToRecovery on the queue server for each of
// several outage lengths, all from the traffic's OutageStart: trial i of
// the run records in Open.ByOutage[j] the Recovery of trial i of the
// OpenLoopToRecovery run whose traffic has outage length Outages[j] — a
// metastability map's column of cells at one load. (The trial's other
// fields are left as its last outage's play left them, and mean nothing.)
//
// Trial i of every outage length draws from the one stream of trial i, and
// up to the outage's start the outage length changes nothing (the capacity,
// the arrivals and every rule that stops a trial are the same before it),
// so the engine plays those ticks once, keeps the state they end in, and
// plays on from it for each length. Under controls that keep state (a
// bucket, a breaker, a budget, throttling) it plays each length from the
// first tick instead, from the trial's stream restarted.
type OpenLoopOutages struct {
	OpenLoopToRecovery
	Outages []int
}

func (OpenLoopOutages) Name() string { return "open-loop traffic until recovery, per outage length" }

// each is the traffic of each outage length.
func (w OpenLoopOutages) each() []model.Traffic {
	trs := make([]model.Traffic, len(w.Outages))
	for j, l := range w.Outages {
		trs[j] = w.Traffic
		trs[j].OutageLength = l
	}
	return trs
}

func (w OpenLoopOutages) validate(sc model.Scenario) error {
	if !sc.Queues() {
		return fmt.Errorf("outage lengths in one run are played on the queue server, got %s", sc.Server)
	}
	if len(w.Outages) == 0 {
		return fmt.Errorf("no outage length to play")
	}
	for _, tr := range w.each() {
		if err := (OpenLoop{Traffic: tr, Controls: w.Controls}).validate(sc); err != nil {
			return err
		}
	}
	return nil
}

func (w OpenLoopOutages) build(sc model.Scenario, c Choice) (Engine, error) {
	e, err := NewQueueEngine(sc, &w.Traffic, w.Controls)
	if err != nil {
		return nil, err
	}
	e.toRecovery = true
	e.outages, e.traffics = w.Outages, w.each()
	e.bound = newRecoveryBound(e, w.Traffic)
	e.bound.on = true
	return e, nil
}

// queuePrefix is the state of an open-loop trial before tick: what play
// goes on from. The trial's counts are not in it: an OpenLoopOutages trial
// records only each outage length's Recovery, which the counts do not
// decide.
type queuePrefix struct {
	tick       int
	src, arr   rand.PCG
	live       int64
	req        []queueRequest
	free       []int32
	ring       [][]int32
	queue      []queued
	head, tail int64
	starts     []int64
	run        int64
}

// save keeps the state before tick in e.prefix.
func (e *QueueEngine) save(src *rand.PCG, tick int, live int64) {
	p := &e.prefix
	p.tick, p.src, p.arr, p.live, p.run = tick, *src, e.arr, live, e.bound.run
	p.req = append(p.req[:0], e.req...)
	p.free = append(p.free[:0], e.free...)
	if len(p.ring) != len(e.ring) {
		p.ring = make([][]int32, len(e.ring))
	}
	for i, b := range e.ring {
		p.ring[i] = append(p.ring[i][:0], b...)
	}
	p.queue = append(p.queue[:0], e.queue...)
	p.head, p.tail = e.head, e.tail
	p.starts = append(p.starts[:0], e.starts...)
	e.saved = true
}

// restore puts back the state e.prefix kept, into e's own buffers (a
// queue grown since keeps its length: entries sit at their absolute
// positions), and returns the tick and backlog it was kept at.
func (e *QueueEngine) restore(src *rand.PCG) (tick int, live int64) {
	p := &e.prefix
	*src, e.arr, e.bound.run = p.src, p.arr, p.run
	e.req = append(e.req[:0], p.req...)
	e.free = append(e.free[:0], p.free...)
	for i, b := range p.ring {
		e.ring[i] = append(e.ring[i][:0], b...)
	}
	if len(e.queue) < len(p.queue) {
		e.queue = make([]queued, len(p.queue))
	}
	from, to := int64(len(p.queue)-1), int64(len(e.queue)-1)
	for pos := p.head; pos < p.tail; pos++ {
		e.queue[pos&to] = p.queue[pos&from]
	}
	e.head, e.tail = p.head, p.tail
	copy(e.starts, p.starts)
	return p.tick, p.live
}

// playOutages plays an OpenLoopOutages trial: the ticks before the outage
// once, then each outage length on from them.
func (e *QueueEngine) playOutages(src *rand.PCG, t *Trial, arrivals bool) {
	out := make([]Recovery, len(e.outages))
	first := *src
	shared := len(e.ctl.states) == 0 && e.traffics[0].OutageStart > 0
	if shared {
		e.open, e.until, e.saved = &e.traffics[0], e.traffics[0].OutageStart+e.shareLate, false
		e.play(src, t, arrivals)
		e.until = 0
		if !e.saved { // stopped before the outage, whatever its length
			t.Open.ByOutage = out
			return
		}
		e.resume = true
		defer func() { e.resume = false }()
	}
	for j := range e.traffics {
		e.open = &e.traffics[j]
		if !shared {
			*src = first
		}
		e.play(src, t, arrivals)
		out[j] = Recovery{t.Open.Recovered, t.Open.RecoveryTicks}
	}
	t.Open.ByOutage = out
}
