package montecarlo

import "github.com/herdlab/herd/model"

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
// never falls below c·T: no later tick recovers if h < c·T.
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
	run          int64 // ticks in a row, ending with this one, whose queue was ≥ c·T
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
	b.absorbing = e.timeout > 0 && e.limit == 0 && !e.ctl.asks && sc.Policy.Retries == 0 && e.timeless &&
		b.threshold < b.serve*b.timeout
	return b
}

// cannotRecover is called at the end of every tick up to L with the
// queue's length and the backlog after it, and reports whether the rules
// above prove that no later tick recovers.
func (b *recoveryBound) cannotRecover(tick int, queued, backlog int64) bool {
	c := b.serve
	if queued >= c*b.timeout {
		b.run++
	} else {
		b.run = 0
	}
	if queued-c*int64(b.last-tick) > b.threshold {
		return true
	}
	return b.absorbing && b.run >= b.timeout && queued >= c*(b.timeout+b.gap) && backlog >= c*b.gap
}
