package montecarlo

import (
	"math/rand/v2"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
)

// Why a request gave up (control.Cause, as indices of OpenTrial.GaveUpBy).
const (
	byLimit    = int(control.ByAttempts)
	byBucket   = int(control.ByBucket)
	byBreaker  = int(control.ByBreaker)
	byBudget   = int(control.ByBudget)
	byThrottle = int(control.ByThrottling)
	byAdaptive = int(control.ByAdaptive)
	causes     = int(control.Causes)
)

// controls is the per-client state of control.Controls during one trial:
// the attempts limit and each control's control.ControlState, asked in the
// order of Controls.List. Engines ask it before every retry (retry) and
// every send (send), and tell it every new request (start) and every
// outcome (outcome).
type controls struct {
	maxAttempts int
	asks        bool // a retry has a limit or a control to ask
	states      []control.ControlState
	cause       []int
	// one is the only state when exactly one control is on (every
	// setting of herd's claims and figures), asked without a loop.
	one  control.ControlState
	draw func() float64
	src  *rand.PCG // the trial's stream, for randomised rules
}

func newControls(cfg control.Controls, sc model.Scenario) *controls {
	c := &controls{maxAttempts: cfg.MaxAttempts}
	for _, k := range cfg.List() {
		c.states = append(c.states, k.NewState(sc, sc.Clients))
		c.cause = append(c.cause, int(k.Cause()))
	}
	c.asks = c.maxAttempts > 0 || len(c.states) > 0
	if len(c.states) == 1 {
		c.one = c.states[0]
	}
	c.draw = func() float64 { return uniform(c.src) }
	return c
}

// reset starts a trial drawing from src: full buckets, closed breakers,
// empty windows.
func (c *controls) reset(src *rand.PCG) {
	c.src = src
	for _, s := range c.states {
		s.Reset()
	}
}

// start tells every control that client id starts a new request at tick.
func (c *controls) start(id int32, tick int) {
	if c.one != nil {
		c.one.Start(id, tick)
		return
	}
	for _, s := range c.states {
		s.Start(id, tick)
	}
}

// retry decides whether a request of client id that has just failed its
// attempt number n (the first send is attempt 1) at tick may retry,
// letting each control take what the retry costs; when it may not, it
// returns the cause.
func (c *controls) retry(id int32, n, tick int) (ok bool, cause int) {
	if c.asks {
		return c.ask(id, n, tick)
	}
	return true, 0
}

// ask is retry with a limit or a control to ask.
func (c *controls) ask(id int32, n, tick int) (ok bool, cause int) {
	if a := c.maxAttempts; a > 0 && n >= a {
		return false, byLimit
	}
	if c.one != nil {
		if c.one.Retry(id, tick) {
			return true, 0
		}
		return false, c.cause[0]
	}
	for i, s := range c.states {
		if !s.Retry(id, tick) {
			return false, c.cause[i]
		}
	}
	return true, 0
}

// send reports whether client id's controls let a send through at tick,
// and the cause when they do not.
func (c *controls) send(id int32, tick int) (bool, int) {
	if c.one != nil {
		if c.one.Send(id, tick, c.draw) {
			return true, 0
		}
		return false, c.cause[0]
	}
	for i, s := range c.states {
		if !s.Send(id, tick, c.draw) {
			return false, c.cause[i]
		}
	}
	return true, 0
}

// outcome records the result of a send of client id at tick; retried says
// whether the send was a retry.
func (c *controls) outcome(id int32, tick int, failed, retried bool) {
	if c.one != nil {
		c.one.Outcome(id, tick, failed, retried)
		return
	}
	for _, s := range c.states {
		s.Outcome(id, tick, failed, retried)
	}
}
