package control

import (
	"errors"
	"fmt"
	"github.com/herdlab/herd/model"
	"strings"
	"time"
)

// Controls are the client-side limits on retries that compose with any
// policy: a limit on attempts and at most one control of each kind. A
// request that a control stops gives up. The zero value is no control.
//
// Each kind is a Control: its parameters (a field below, off at its zero
// value), the source it follows, and its rule as a ControlState, written
// once in its own file (bucket.go, breaker.go, budget.go, throttling.go).
// Every client holds its own state of each control, as an SDK client
// object or a process does.
type Controls struct {
	// MaxAttempts is the most sends of one request, the first included
	// (MaxAttempts − 1 retries); 0 means no limit.
	MaxAttempts int
	Bucket      Bucket             // a retry token bucket (bucket.go)
	Breaker     Breaker            // herd's sliding-window circuit breaker (breaker.go)
	SimBreaker  SimBreaker         // Brooker's retry_sim breaker (breaker.go)
	Budget      RetryBudget        // Finagle's RetryBudget (budget.go)
	Throttling  RetryThrottling    // gRPC retry throttling (throttling.go)
	Adaptive    AdaptiveThrottling // the SRE book's adaptive throttling (throttling.go)
}

// A Control is one kind of client-side retry control with its
// parameters.
type Control interface {
	// Name names the control in a table or legend ("aws bucket").
	Name() string
	// Cause is what the outputs count a request it stopped under.
	Cause() Cause
	// Validate checks the parameters against the scenario (time-based ones
	// are converted with its tick) and returns a *FieldError naming the
	// flag.
	Validate(sc model.Scenario) error
	// NewState makes the control's state for the clients of one trial of
	// sc, reset.
	NewState(sc model.Scenario, clients int) ControlState
	// BytesPerClient is the memory the state takes per client.
	BytesPerClient(sc model.Scenario) int64
}

// ControlState is one control's state over the clients of a trial. An
// engine calls, for client c at tick t:
//
//   - Start when a new request of c is about to make its first send;
//   - Send before every send of c, first or retry: false refuses it, and
//     the request gives up without reaching the server (draw gives a
//     uniform number in [0, 1) to a randomised rule, and is called only
//     when the rule needs it);
//   - Outcome after each send of c that reached the server, successes of a
//     tick before its failures (retried says the send was a retry);
//   - Retry when a request of c that has just failed may retry (after the
//     policy's own limit and the attempts limit allow it): false stops it,
//     true takes what the retry costs.
type ControlState interface {
	Reset()
	Start(c int32, t int)
	Send(c int32, t int, draw func() float64) bool
	Outcome(c int32, t int, failed, retried bool)
	Retry(c int32, t int) bool
}

// Cause is why a request gave up.
type Cause int

// The causes of giving up, in the order outputs list them.
const (
	ByAttempts   Cause = iota // the policy's retry limit or Controls.MaxAttempts
	ByBucket                  // a retry token bucket could not pay for the retry
	ByBreaker                 // a circuit breaker refused the send or the retry
	ByBudget                  // Finagle's retry budget had no balance for the retry
	ByThrottling              // gRPC retry throttling stopped the retry
	ByAdaptive                // adaptive throttling rejected the send locally
	Causes                    // the number of causes
)

// RefusesSends reports whether a control that is on may refuse a send, not
// only a retry: the circuit breaker and adaptive throttling. The others'
// Send lets every send through and changes nothing (an engine need not
// ask it), so where no send fails no control changes what happens: their
// state decides only retries.
func (c Controls) RefusesSends() bool { return c.Breaker.Window != 0 || c.Adaptive.K != 0 }

// List is the controls that are on (a nonzero parameter), in the order an engine asks them:
// bucket, breaker, Brooker's breaker, budget, gRPC throttling, adaptive
// throttling. A retry is asked of each in turn and the first that refuses
// stops it (those after it are not asked and take nothing); likewise a
// send.
func (c Controls) List() []Control {
	var l []Control
	if c.Bucket.Kind != NoBucket && c.Bucket.Kind != "" {
		l = append(l, c.Bucket)
	}
	if c.Breaker.Window != 0 {
		l = append(l, c.Breaker)
	}
	if c.SimBreaker.MaxFailureRatio != 0 {
		l = append(l, c.SimBreaker)
	}
	if c.Budget.TTL != 0 {
		l = append(l, c.Budget)
	}
	if c.Throttling.MaxTokens != 0 {
		l = append(l, c.Throttling)
	}
	if c.Adaptive.K != 0 {
		l = append(l, c.Adaptive)
	}
	return l
}

// Flags names the flags that turned on the controls that are on, as a
// user gives them ("--retry-budget, --breaker"), for a refusal to name.
func (c Controls) Flags() string {
	var s []string
	if c.MaxAttempts > 0 {
		s = append(s, "--max-attempts")
	}
	for _, k := range c.List() {
		switch k.(type) {
		case Bucket:
			s = append(s, "--bucket")
		case Breaker, SimBreaker:
			s = append(s, "--breaker")
		case RetryBudget:
			s = append(s, "--retry-budget")
		case RetryThrottling:
			s = append(s, "--retry-throttling")
		case AdaptiveThrottling:
			s = append(s, "--adaptive-throttling")
		}
	}
	return strings.Join(s, ", ")
}

// MaxAttemptsLimit bounds MaxAttempts.
const MaxAttemptsLimit = 1 << 30

// Active reports whether any control is on.
func (c Controls) Active() bool { return c.MaxAttempts > 0 || len(c.List()) > 0 }

// String names the controls in a table or legend: "none", "aws bucket",
// "brooker bucket + breaker", …
func (c Controls) String() string {
	var s []string
	if c.MaxAttempts > 0 {
		s = append(s, fmt.Sprintf("%d attempts", c.MaxAttempts))
	}
	for _, k := range c.List() {
		s = append(s, k.Name())
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " + ")
}

// InCohort is the cohort scenario that plays sc under the controls. The
// synchronized cohort has one way to give up, its policy's retry limit, so
// an attempt limit A is the retry limit A − 1 (the smaller of it and the
// policy's own). A limit of 1 would allow no retry at all, which the
// policy cannot say (its retry limit 0 means none), and every other
// control acts on a stream of requests over time: those are open-loop and
// closed-loop controls and are refused here.
func (c Controls) InCohort(sc model.Scenario) (model.Scenario, error) {
	if len(c.List()) > 0 {
		return sc, fmt.Errorf("%s: the retry controls but --max-attempts need open-loop mode (--rate) or a closed loop (--loop closed) for now", c.Flags())
	}
	if a := c.MaxAttempts; a > 0 {
		if a == 1 {
			return sc, errors.New("--max-attempts 1 (no retries) needs open-loop mode (--rate); the cohort needs at least 2")
		}
		if r := sc.Policy.Retries; r == 0 || r > a-1 {
			sc.Policy.Retries = a - 1
		}
	}
	return sc, nil
}

// Validate checks the parameters that do not depend on the scenario (all
// of them but the conversion of time-based ones to ticks, which
// ValidateFor adds) and returns the first violation as a *FieldError.
func (c Controls) Validate() error { return c.ValidateFor(model.Default()) }

// ValidateFor checks every parameter for a run of sc and returns the first
// violation as a *FieldError naming its flag.
func (c Controls) ValidateFor(sc model.Scenario) error {
	if c.MaxAttempts < 0 || c.MaxAttempts > MaxAttemptsLimit {
		return &model.FieldError{Flag: "max-attempts", Valid: fmt.Sprintf("0 (no limit) or an integer in [1, %d]", MaxAttemptsLimit), Got: fmt.Sprint(c.MaxAttempts)}
	}
	if k := c.Bucket.Kind; k != "" && k != NoBucket {
		if _, err := ParseBucketKind(string(k)); err != nil {
			return &model.FieldError{Flag: "bucket", Valid: "one of " + bucketList(), Got: fmt.Sprintf("%q", k)}
		}
	}
	for _, k := range c.List() {
		if err := k.Validate(sc); err != nil {
			return err
		}
	}
	return nil
}

// BytesPerClient is the memory the controls' states take per client.
func (c Controls) BytesPerClient(sc model.Scenario) int64 {
	var b int64
	for _, k := range c.List() {
		b += k.BytesPerClient(sc)
	}
	return b
}

// ticksOf is a duration in whole ticks of sc (rounded to nearest).
func ticksOf(sc model.Scenario, d time.Duration) int64 {
	x := d.Seconds()*sc.TicksPerSecond() + 0.5
	if x >= 1<<53 {
		return 1 << 53
	}
	return int64(x)
}

func clamp(x, lo, hi float64) float64 { return max(lo, min(hi, x)) }
