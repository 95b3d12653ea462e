package montecarlo

import (
	"math/bits"

	"github.com/herdlab/herd/model"
)

// Why a request gave up.
const (
	byLimit   = iota // its attempts reached Controls.MaxAttempts
	byBucket         // its client's token bucket could not pay for the retry
	byBreaker        // its client's circuit breaker refused the send
	causes
)

// breaker states.
const (
	closed uint8 = iota
	open
	probing // half-open with its one probe sent this tick
)

// controls is the per-client state of model.Controls during one trial:
// each client's tokens and breaker. Engines ask it before every retry
// (retry) and every send (send), and tell it every outcome (outcome).
type controls struct {
	cfg    model.Controls
	tokens []float64 // per client; nil without a bucket
	// Breaker: the last outcomes (bit 1 = failure, newest lowest), how many
	// of the window's slots are filled, the state, and the first tick the
	// open breaker lets a probe through.
	window []uint64
	filled []uint8
	state  []uint8
	until  []int32
	mask   uint64
}

func newControls(cfg model.Controls, clients int) *controls {
	c := &controls{cfg: cfg}
	if cfg.Bucket.Kind != model.NoBucket && cfg.Bucket.Kind != "" {
		c.tokens = make([]float64, clients)
	}
	if w := cfg.Breaker.Window; w > 0 {
		c.window = make([]uint64, clients)
		c.filled = make([]uint8, clients)
		c.state = make([]uint8, clients)
		c.until = make([]int32, clients)
		c.mask = ^uint64(0) >> (64 - w)
	}
	return c
}

// reset starts a trial: full buckets, closed breakers.
func (c *controls) reset() {
	for i := range c.tokens {
		c.tokens[i] = c.cfg.Bucket.Capacity
	}
	clear(c.window)
	clear(c.filled)
	clear(c.state)
}

// retry decides whether a request of client id that has just failed its
// attempt number n (the first send is attempt 1) may retry, taking the
// retry's tokens if so; when it may not, it returns the cause.
func (c *controls) retry(id int32, n int) (ok bool, cause int) {
	if a := c.cfg.MaxAttempts; a > 0 && n >= a {
		return false, byLimit
	}
	if c.tokens != nil {
		cost := c.cfg.Bucket.RetryCost
		if c.tokens[id] < cost {
			return false, byBucket
		}
		c.tokens[id] -= cost
	}
	return true, 0
}

// send reports whether client id's breaker lets a send through at tick.
func (c *controls) send(id int32, tick int) bool {
	if c.state == nil {
		return true
	}
	switch c.state[id] {
	case open:
		if tick < int(c.until[id]) {
			return false
		}
		c.state[id] = probing
		return true
	case probing:
		return false
	}
	return true
}

// outcome records the result of a send of client id at tick; retried says
// whether the send was a retry.
func (c *controls) outcome(id int32, tick int, failed, retried bool) {
	if c.tokens != nil && !failed {
		b := &c.cfg.Bucket
		add := b.Deposit
		if b.Kind == model.AWSBucket && retried {
			add = b.RetryCost // the successful retry's cost comes back
		}
		c.tokens[id] = min(b.Capacity, c.tokens[id]+add)
	}
	if c.state == nil {
		return
	}
	k := &c.cfg.Breaker
	switch c.state[id] {
	case open:
		return // a send let through before it opened this tick
	case probing:
		if failed {
			c.trip(id, tick)
		} else {
			c.state[id], c.window[id], c.filled[id] = closed, 0, 0
		}
		return
	}
	w := c.window[id] << 1
	if failed {
		w |= 1
	}
	c.window[id] = w & c.mask
	if int(c.filled[id]) < k.Window {
		c.filled[id]++
	}
	n := int(c.filled[id])
	if n >= k.MinCalls && float64(bits.OnesCount64(c.window[id])) >= k.Threshold*float64(n) {
		c.trip(id, tick)
	}
}

// trip opens client id's breaker after the outcomes of tick: it refuses the
// next Cooldown ticks.
func (c *controls) trip(id int32, tick int) {
	c.state[id] = open
	c.until[id] = int32(min(tick+1+c.cfg.Breaker.Cooldown, 1<<31-1))
}
