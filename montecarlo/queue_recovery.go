package montecarlo

import (
	"math/rand/v2"

	"github.com/herdlab/herd/model"
	"gonum.org/v1/gonum/stat/distuv"
)

// recoveryBound decides, from the state of an open-loop trial on the queue
// server at the end of a tick, that the trial cannot recover by its last
// tick any more, so that OpenLoopToRecovery may stop it there: its
// Recovered (false) and RecoveryTicks (0) are then those of the full
// trial, which a metastability map reads and nothing else.
//
// Recovery at tick t needs (OpenTrial.Recovered) t ≥ the outage's end,
// t ≤ the traffic's last tick L = Ticks − 1, a queue (live and stale
// entries) of at most the threshold h after t, a backlog of at most h, and
// no request given up in t. Write Q_t for the queue's length after tick
// t and c for the most the server completes in one tick (k, or the
// outage's capacity if that is larger). Two rules each prove that no tick
// after t recovers:
//
// Drain. Entries leave the queue only by being completed (an abandoned
// attempt's entry stays, stale, until the server reaches it), at most c a
// tick, and arrivals only add. So Q_u ≥ Q_t − c·(u − t) for u > t, and if
// Q_t − c·(L − t) > h no tick up to L has a queue of at most h.
//
// Absorbing, when no request can ever give up (no control, no retry
// limit, no elapsed-time limit), there is a timeout T, and the queue has
// no limit (nobody is rejected). Let G = T − 1 + w, w the longest wait
// before a retry (the ring's length − 1; every wait is at least 1 tick).
// (i) An attempt sent at tick s joins the queue behind at least Q_{s−1}
// entries; the entries ahead leave only at most c a tick, so if
// Q_{s−1} ≥ c·T it is not reached by tick s + T − 1, where its client
// abandons it (step 4 of a tick follows step 3's completions): it is
// doomed, served for nothing. (ii) A live request whose last attempt,
// sent at s ≤ t, is doomed or already abandoned sends again by s + T − 1
// + w ≤ t + G, and is not served before. Now suppose that after tick t
// (a) Q_u ≥ c·T for the T ticks u = t−T+1 … t, (b) Q_t ≥ c·(T + G) and
// (c) the backlog B_t ≥ c·G. By (a) and (i) every attempt still awaiting
// its timeout (sent at t−T+2 … t) is doomed. Over the ticks t+1 … t+G
// the queue stays ≥ Q_t − c·G ≥ c·T by (b), so by (i) every attempt
// sent in them is doomed too: nobody is served usefully, and as nobody
// gives up the backlog does not fall. By (ii) each of the B_t requests
// sends at least once in those G ticks, so at least c·G entries join the
// queue by (c) while at most c·G leave: Q_{t+G} ≥ Q_t. Hence (a), (b) and
// (c) hold again at t + G (G ≥ T as w ≥ 1), and by induction the queue
// never falls below c·T: no later tick recovers if h < c·T. Nor is anyone
// served usefully after t, nor does anyone give up: the backlog only grows
// by the new requests (which OpenLoopGoodput uses).
//
// The rules read only the state of the trial, never its future draws,
// so a trial stopped by them drew what the full trial drew up to there.
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
