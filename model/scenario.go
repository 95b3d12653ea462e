package model

import (
	"fmt"
	"github.com/herdlab/herd/policy"
	"math"
	"strings"
	"time"
)

// Limits on a scenario's size, so that a typo cannot ask for more memory
// than a machine has or for a delay ring longer than the horizon.
const (
	MaxClients = 1 << 40
	MaxDelay   = 1e7 // ticks
	MaxHorizon = 1 << 40
	MaxWindow  = 1e7 // ticks
)

// Scenario is one thundering-herd experiment: N clients whose first
// requests all fail together, a server, and a retry policy.
type Scenario struct {
	Clients     int // N ≥ 1
	Server      Server
	Capacity    int // k ≥ 1: requests the server accepts per tick
	Policy      policy.Policy
	Rounding    policy.Rounding
	FirstWindow int // W ≥ 1: each first send is uniform on ticks 0…W−1
	// Horizon is the tick at which a trial that has not finished is
	// stopped and counted as censored; 0 means DefaultHorizon.
	Horizon int
	// Time is the time model (timemodel.go); in continuous time the
	// capacity server is the window server, Policy's tick is the window,
	// and every attempt takes a Latency round trip; the first sends are
	// spread over [0, FirstSpread). With LatencyPerFlight > 0 the round
	// trips grow with the load (LatencyPerFlight in timemodel.go).
	Time        TimeModel
	Latency     RoundTrip
	FirstSpread time.Duration
	// FirstArrivals, when not zero, is the law of the first sends'
	// arrivals at the server instead of the uniform over [0, FirstSpread)
	// (measured quantiles, say).
	FirstArrivals RoundTrip
	// FirstAnswers, when not zero (and with FirstArrivals), is the law of
	// the times the first sends' answers are back at their clients
	// (measured quantiles, say): the client whose first arrival is the
	// FirstArrivals law's u-quantile has its answer at this law's
	// u-quantile, or at its arrival if that is later (the k-th first
	// arrival gets the k-th answer back), and the machine of
	// LatencyPerFlight does not carry the first answers' ways again. A
	// burst of first sends on a busy machine has its answers back in a
	// clump: the runtime reads the new connections before it runs the
	// clients' reads.
	FirstAnswers RoundTrip
	// LatencyPerFlight is the time one way of one exchange (a request's
	// way to the server, or its answer's way back) takes of the machine
	// that carries them all, one at a time, requests before answers (an
	// answer waits, in the order given, until the machine is free with no
	// request waiting); 0: round trips independent of the load.
	LatencyPerFlight time.Duration
	// Stalls are the times that machine stops (Stalls); zero: never.
	Stalls Stalls
	// FailureRate is the flaky server's probability p that a call it
	// takes fails; 0 on every other server.
	FailureRate float64
	// Queue is the queue server's limit and the clients' timeout (Queue).
	Queue Queueing
	// Limiter is the limiter servers' burst and nodelay (limiter.go).
	Limiter Limiting
}

// Default is the seed article's section 5.1 scenario with N = 100.
func Default() Scenario {
	return Scenario{
		Clients:     100,
		Server:      Capacity,
		Capacity:    10,
		Policy:      policy.Policy{Kind: policy.Full, Base: 1, Cap: 32, FixedDelay: 2},
		Rounding:    policy.HalfEven,
		FirstWindow: 1,
	}
}

// MaxDelayTicks is the longest wait, in ticks, between two sends of one
// client.
func (s Scenario) MaxDelayTicks() int {
	return s.Rounding.Ticks(s.Policy.MaxDelay())
}

// DefaultHorizon is the horizon used when Horizon is 0. For the capacity
// server it is a bound no trial can reach: every tick with arrivals serves
// at least one client and the next tick with arrivals follows within
// MaxDelayTicks, so the last success comes by W−1 + (N−1)·MaxDelayTicks.
// The collision server has no such bound (a cohort larger than k can stay
// synchronized forever): it gets 10,000 ticks, or more where a random
// policy's makespan needs it (collisionHorizon). An OCC scenario's horizon
// is in milliseconds and MaxHorizon, since its trials always finish.
func (s Scenario) DefaultHorizon() int {
	if h, ok := s.Time.Variant().horizon(s); ok {
		return h
	}
	return s.Server.Variant().horizon(s)
}

// EffectiveHorizon is Horizon, or DefaultHorizon when Horizon is 0.
func (s Scenario) EffectiveHorizon() int {
	if s.Horizon > 0 {
		return s.Horizon
	}
	return s.DefaultHorizon()
}

// UsageError is input a user may not give: a parameter without the
// setting it belongs to, or a name that is not one of the choices. Its
// message names the flags.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

// Usagef is a UsageError with a formatted message.
func Usagef(format string, a ...any) error { return &UsageError{fmt.Errorf(format, a...)} }

// FieldError is a scenario field outside its valid range. Flag is the
// command-line spelling of the field, so a CLI can name it.
type FieldError struct {
	Flag  string
	Valid string
	Got   string
	// Hint, when set, is the valid value the one given resembles.
	Hint string
}

func (e *FieldError) Error() string {
	s := fmt.Sprintf("--%s must be %s, got %s", e.Flag, e.Valid, e.Got)
	if e.Hint != "" {
		s += " (did you mean " + e.Hint + "?)"
	}
	return s
}

func Finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Validate checks every field against its valid range and returns the first
// violation as a *FieldError.
func (s Scenario) Validate() error {
	bad := func(flag, valid string, got any) error {
		return &FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	p := s.Policy
	if err := s.validatePolicy(bad); err != nil {
		return err
	}
	// Base, Cap and FixedDelay are the parameters of the rules in ticks; a
	// rule in seconds has the library's own.
	realTime := p.InSeconds()
	switch {
	case s.Clients < 1 || s.Clients > MaxClients:
		return bad("clients", fmt.Sprintf("an integer in [1, %d]", int64(MaxClients)), s.Clients)
	case s.Capacity < 1 || s.Capacity > MaxClients:
		return bad("capacity", fmt.Sprintf("an integer in [1, %d]", int64(MaxClients)), s.Capacity)
	case s.Server.Variant() == nil:
		return bad("server", "one of "+strings.Join(ServerNames(), ", "), int(s.Server))
	case s.Rounding < policy.HalfEven || s.Rounding > policy.Floor:
		return bad("rounding", "one of "+strings.Join(policy.RoundingNames(), ", "), int(s.Rounding))
	case !realTime && (!Finite(p.Base) || p.Base <= 0 || p.Base > MaxDelay):
		return bad("base", fmt.Sprintf("a number in (0, %g] ticks", float64(MaxDelay)), p.Base)
	case !realTime && (!Finite(p.Cap) || p.Cap < p.Base || p.Cap > MaxDelay):
		return bad("cap", fmt.Sprintf("a number in [base, %g] ticks (base is %g)", float64(MaxDelay), p.Base), p.Cap)
	case !realTime && (!Finite(p.FixedDelay) || p.FixedDelay < 0 || p.FixedDelay > MaxDelay):
		return bad("fixed-delay", fmt.Sprintf("a number in [0, %g] ticks", float64(MaxDelay)), p.FixedDelay)
	case s.FirstWindow < 1 || s.FirstWindow > MaxWindow:
		return bad("first-window", fmt.Sprintf("an integer in [1, %d] ticks", int(MaxWindow)), s.FirstWindow)
	case s.Horizon < 0 || s.Horizon > MaxHorizon:
		return bad("horizon", fmt.Sprintf("0 (automatic) or an integer in [1, %d] ticks", int64(MaxHorizon)), s.Horizon)
	}
	if err := s.validateTime(bad); err != nil {
		return err
	}
	if err := s.validateContention(bad); err != nil {
		return err
	}
	if err := s.validateServer(bad); err != nil {
		return err
	}
	// A rule in ticks has its largest delay bounded by the checks above; a
	// rule in seconds gets it from its limit and the tick.
	if d := p.MaxDelay(); realTime && d > MaxDelay {
		if math.IsInf(d, 1) {
			return bad("retries", fmt.Sprintf("an integer in [1, %d] for preset %s, whose delays grow without bound", MaxRetries, p.Kind), p.Retries)
		}
		tick := p.TickLength()
		if r := mostRetriesWithin(p, MaxDelay); r > 0 {
			// The retry limit is what lets the delays grow this far.
			got := fmt.Sprint(p.Retries)
			if p.Retries == 0 {
				got += " (no limit)"
			}
			return bad("retries", fmt.Sprintf("an integer in [1, %d] for preset %s with a tick of %s (after retry %d its delays exceed %g ticks; a longer --tick or window allows more)",
				r, p.Kind, tick, r, float64(MaxDelay)), got)
		}
		return bad("tick", fmt.Sprintf("long enough that the preset's largest delay is at most %g ticks (it is %s)",
			float64(MaxDelay), time.Duration(d*float64(tick)).Round(time.Millisecond)), tick)
	}
	return nil
}

// mostRetriesWithin is the largest retry limit r ≥ 1 under which the
// policy's largest delay is at most limit ticks, or 0 when even one retry
// exceeds it. A policy's largest delay does not decrease with its limit.
func mostRetriesWithin(p policy.Policy, limit float64) int {
	within := func(r int) bool {
		q := p
		q.Retries = r
		return q.MaxDelay() <= limit
	}
	if !within(1) {
		return 0
	}
	lo, hi := 1, MaxRetries // within(lo); the answer is below hi or hi itself
	if within(hi) {
		return hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if within(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// Limits on the fields that real time units and retry limits add.
const (
	MaxRetries = 1_000_000
	MinTick    = time.Microsecond
	MaxTick    = time.Hour
)

// validatePolicy checks the policy's name, retry limit and time unit.
func (s Scenario) validatePolicy(bad func(flag, valid string, got any) error) error {
	p := s.Policy
	if _, err := policy.ParseKind(string(p.Kind)); err != nil {
		return bad("policy", "one of "+policy.KindNames()+", or a library preset (herd presets lists them)", fmt.Sprintf("%q", p.Kind))
	}
	switch {
	case p.Retries < 0 || p.Retries > MaxRetries:
		return bad("retries", fmt.Sprintf("0 (no limit) or an integer in [1, %d]", MaxRetries), p.Retries)
	case p.Tick != 0 && (p.Tick < MinTick || p.Tick > MaxTick):
		return bad("tick", fmt.Sprintf("a duration in [%s, %s]", MinTick, MaxTick), p.Tick)
	case p.MaxElapsed < 0:
		return bad("max-elapsed", "a duration ≥ 0 (0: no limit)", p.MaxElapsed)
	case p.MaxElapsed > 0 && p.TickLength() == 0:
		return bad("max-elapsed", "0 unless the scenario has a real --tick", p.MaxElapsed)
	}
	if err := p.CheckConfig(); err != nil {
		return &FieldError{Flag: "config", Valid: "a configuration herd can play", Got: err.Error()}
	}
	return nil
}

// TicksPerSecond converts the controls' parameters in seconds (Finagle's
// TTL and minimum retry rate, the SRE book's window) to ticks: the
// scenario's real tick when it has one (--tick, or a preset's), and one
// second per tick when its ticks are abstract.
func (s Scenario) TicksPerSecond() float64 {
	if t := s.Policy.TickLength(); t > 0 {
		return float64(time.Second) / float64(t)
	}
	return 1
}
