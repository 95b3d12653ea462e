package montecarlo

import (
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"gonum.org/v1/gonum/stat/distuv"
)

// recoveryBound decides, from the state of an open-loop trial on the queue
// server at the end of a tick, that the trial cannot recover by its last
// tick any more, so that OpenLoopToRecovery may stop it there; its
// Recovered (false) and RecoveryTicks (0) are then those of the full trial.
// Two rules prove it, drain and absorbing; docs/models.md ("Stopping a
// queue trial that cannot recover") proves them. They read only the
// trial's state, never its future draws, so a stopped trial drew what the
// full trial drew up to there.
type recoveryBound struct {
	on        bool  // an open-loop trial to stop (OpenLoopToRecovery)
	serve     int64 // c: the most completions of one tick
	threshold int64 // h
	last      int   // L: the last tick that can recover
	// absorbing says no request can give up and the queue has no limit
	// and a timeout; then timeout is T and gap G.
	absorbing    bool
	timeout, gap int64
	run          int64 // ticks in a row, ending with the last observed, whose queue was ≥ c·T
}

// newRecoveryBound is the bound of the queue engine e on traffic tr.
func newRecoveryBound(e *QueueEngine, tr model.Traffic) recoveryBound {
	sc := &e.sc
	b := recoveryBound{
		serve:     int64(max(sc.Capacity, tr.OutageCapacity)),
		threshold: int64(tr.RecoveryBacklog(sc.Capacity)),
		last:      tr.Ticks - 1,
		timeout:   int64(e.timeout),
		gap:       int64(e.timeout - 1 + len(e.ring) - 1),
	}
	b.absorbing = e.timeout > 0 && e.limit == 0 && !e.ctl.asks && sc.Policy.Retries == 0 && e.timeless
	return b
}

// observe is told the queue's length after every tick up to L, before
// cannotRecover or absorbed asks about that tick.
func (b *recoveryBound) observe(queued int64) {
	if queued >= b.serve*b.timeout {
		b.run++
	} else {
		b.run = 0
	}
}

// cannotRecover reports whether, after tick with the queue's length and
// the backlog given, the rules above prove that no later tick recovers.
func (b *recoveryBound) cannotRecover(tick int, queued, backlog int64) bool {
	c := b.serve
	if queued-c*int64(b.last-tick) > b.threshold {
		return true
	}
	return b.threshold < c*b.timeout && b.absorbed(queued, backlog)
}

// absorbed reports whether the absorbing rule's conditions (a), (b) and
// (c) hold after the last tick observed.
func (b *recoveryBound) absorbed(queued, backlog int64) bool {
	c := b.serve
	return b.absorbing && b.run >= b.timeout && queued >= c*(b.timeout+b.gap) && backlog >= c*b.gap
}

// OpenLoopGoodput is open-loop traffic for a caller that reads of each
// trial only its per-tick goodput and backlog (Open.Goodput and
// Open.BacklogAt, with Options.Arrivals) — a hysteresis loop. On the queue
// server a trial whose state after some tick t proves, by the absorbing
// rule (recoveryBound), that nobody will be served usefully again or give
// up plays the ticks after t drawing only their new requests: goodput 0
// and the backlog growing by them, which is what the OpenLoop trial of the
// same stream records, as are Collapsed and Completion; its other counts
// and per-tick series stop at t. Other engines play it as OpenLoop.
type OpenLoopGoodput struct{ OpenLoop }

func (w OpenLoopGoodput) build(sc model.Scenario, c Choice) (Engine, error) {
	if c.Engine != QueueName {
		return w.OpenLoop.build(sc, c)
	}
	e, err := NewQueueEngine(sc, &w.Traffic, w.Controls)
	if err != nil {
		return nil, err
	}
	e.bound, e.goodput = newRecoveryBound(e, w.Traffic), true
	return e, nil
}

// playArrivals plays the ticks after tick of an OpenLoopGoodput trial the
// absorbing rule holds for, with h < c·T (no later tick recovers) and no
// drain: each tick's new requests join the backlog, nobody leaves it. It
// draws them as play does, but first on a copy of the arrivals' stream,
// and keeps them only if the full trial cannot have stopped in those ticks
// for want of room: at most model.MaxRequestsLive requests alive, and a
// queue that stays below model.MaxQueueLive, since each request sends at
// most once every T ticks (a doomed attempt is abandoned T − 1 ticks after
// it was sent and retried at least a tick later). A collapse it replays
// (the backlog is exact). It returns the tick the trial stops at and the
// backlog then, or ok false when it changed nothing.
func (e *QueueEngine) playArrivals(o *OpenTrial, arr *rand.PCG, poisson distuv.Poisson, tick int, live, atEnd int64, arrivals bool) (stop int, backlog int64, ok bool) {
	tr := e.open
	copied := *arr
	poisson.Src = &copied
	fresh := e.fresh[:0]
	total := live
	for u := tick + 1; u < tr.Ticks; u++ {
		if len(tr.Steps) > 0 {
			poisson.Lambda = tr.RateAt(u)
		}
		n := int64(poisson.Rand())
		if e.sc.Clients > 1 {
			for range n { // each new request's client, as play draws it
				below(&copied, uint64(e.sc.Clients))
			}
		}
		fresh = append(fresh, n)
		total += n
	}
	e.fresh = fresh
	T := e.bound.timeout
	sends := total * ((int64(tr.Ticks-1-tick) + T - 1) / T)
	if total > model.MaxRequestsLive || e.tail-e.head+sends >= model.MaxQueueLive {
		return 0, live, false
	}
	end, collapse := tr.OutageEnd(), int64(tr.CollapseBacklog)
	for i, n := range fresh {
		u := tick + 1 + i
		live += n
		o.NewRequests += n
		o.PeakBacklog = max(o.PeakBacklog, live)
		if arrivals {
			o.Goodput = append(o.Goodput, 0)
			o.BacklogAt = append(o.BacklogAt, live)
		}
		if u == end-1 {
			atEnd = live
		}
		if collapse > 0 && u >= end && live > atEnd+collapse && !o.Recovered {
			o.Collapsed = true
			return u + 1, live, true
		}
	}
	return tr.Ticks, live, true
}
