package model

import (
	"fmt"
	"math"
)

// Traffic turns a scenario into an open loop: instead of one cohort that
// fails together, new requests keep arriving, a Poisson number of mean Rate
// per tick, each from one of the scenario's Clients chosen uniformly (so
// each client's requests are a Poisson stream of Rate/Clients per tick and
// per-client controls see only their own). Retries join the new arrivals.
//
// The trigger is an outage: during ticks [OutageStart, OutageStart +
// OutageLength) the server's capacity is OutageCapacity instead of k (0:
// every call fails); then it returns. The question is whether the system
// comes back once the trigger is gone. On the capacity server it always
// does when Rate < k, because goodput stays k however overloaded the
// server is, so a backlog drains at k − Rate per tick at least once the
// retries reach the server. Metastability needs a server whose goodput falls
// under overload: the collision server, or RejectCost > 0.
//
// RejectCost c ∈ [0, 1] is the share of a tick's capacity that rejecting
// one request costs the server (parsing, authentication, the error
// response). With m > k arrivals in a tick of capacity k, the server serves
// s of them and rejects m − s, spending s + c·(m − s) ≤ k: it serves s =
// ⌊(k − c·m)/(1 − c)⌋ clipped to [0, k], so goodput falls linearly with
// overload and reaches 0 at m ≥ k/c. c = 0 is the capacity server; c = 1
// serves nothing under any overload (the collision server's rule). With m ≤
// k every request is served whatever c. RejectCost applies to the capacity
// server only.
//
// A trial runs Ticks ticks. It has recovered at the first tick t ≥ the
// outage's end at which the backlog — requests sent at least once and
// neither served nor given up — is at most RecoveredBacklog (0: k, one
// tick of capacity) and no request gave up (so a breaker still refusing
// sends, or a bucket still refusing retries, has not recovered); a trial
// with no such tick by Ticks has not recovered within the horizon.
//
// CollapseBacklog > 0 stops a trial early, as not recovered, once after the
// outage its backlog has grown by more than CollapseBacklog over the
// backlog at the outage's end: with λ < k a backlog that keeps growing
// once the trigger is gone is the metastable state, and past many ticks of
// capacity a server whose goodput falls under overload serves next to
// nothing, so playing the rest of the horizon would only cost time. 0
// plays every trial to Ticks.
type Traffic struct {
	Rate             float64 // λ > 0: new requests per tick
	Ticks            int     // length of a trial in ticks
	OutageStart      int     // first tick of the outage
	OutageLength     int     // ticks of outage; 0: no trigger
	OutageCapacity   int     // capacity during the outage, 0 ≤ it < k
	RejectCost       float64 // capacity share that one rejection costs, in [0, 1]
	RecoveredBacklog int     // backlog at or under which the system has recovered; 0: k
	CollapseBacklog  int     // growth of the backlog after the outage that stops a trial, not recovered; 0: never
	// Drain plays on after the last tick, with no new requests, until
	// every request still pending is served or gives up (at most
	// DrainTicks more ticks), as Brooker's simulator does to avoid
	// right-censoring: calls, served and given-up requests then count whole
	// lives. Recovery is still judged within Ticks.
	Drain bool
	// StartCohort adds one new request of every client at tick 0 to the
	// Poisson arrivals: Brooker's retry_sim clients each start a call as
	// they start, then draw their gaps.
	StartCohort bool
	// Steps change the rate during the trial (traffic_steps.go); none: Rate throughout.
	Steps []RateStep
}

// DefaultTraffic is a load of 80% of capacity k over a 2,000-tick run whose
// server fails everything for 100 ticks from tick 100.
func DefaultTraffic(k int) Traffic {
	return Traffic{Rate: 0.8 * float64(k), Ticks: 2000, OutageStart: 100, OutageLength: 100}
}

// Limits on open-loop runs.
const (
	MaxRate         = 1e7  // new requests per tick
	MaxTrafficTicks = 1e7  // ticks per trial
	MaxHosts        = 1e7  // clients holding per-client control state
	MaxRequestsLive = 1e8  // requests alive at once in one trial
	maxTrafficWork  = 1e11 // Rate × Ticks: new requests per trial
)

// OutageEnd is the first tick after the outage.
func (t Traffic) OutageEnd() int { return t.OutageStart + t.OutageLength }

// CapacityAt is the server's capacity at tick tick.
func (t Traffic) CapacityAt(k, tick int) int {
	if tick >= t.OutageStart && tick < t.OutageEnd() {
		return t.OutageCapacity
	}
	return k
}

// RecoveryBacklog is the backlog at or under which a trial has recovered.
func (t Traffic) RecoveryBacklog(k int) int {
	if t.RecoveredBacklog > 0 {
		return t.RecoveredBacklog
	}
	return k
}

// Goodput is how many of m arrivals a server of capacity k serves in one
// tick under the scenario's server and the traffic's RejectCost.
func (t Traffic) Goodput(server Server, k, m int) int {
	if m <= k {
		return m
	}
	if server == Collision || k == 0 {
		return 0
	}
	c := t.RejectCost
	if c == 0 {
		return k
	}
	if c >= 1 {
		return 0
	}
	s := math.Floor((float64(k) - c*float64(m)) / (1 - c))
	return int(max(0, min(float64(k), s)))
}

// Validate checks open-loop traffic against a scenario and returns the
// first violation as a *FieldError naming its flag.
func (t Traffic) Validate(sc Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case !Finite(t.Rate) || t.Rate <= 0 || t.Rate > MaxRate:
		return bad("rate", fmt.Sprintf("a number of new requests per tick in (0, %g]", float64(MaxRate)), t.Rate)
	case t.Ticks >= 1 && t.Ticks <= MaxTrafficTicks && t.Rate*float64(t.Ticks) > maxTrafficWork:
		return bad("ticks", fmt.Sprintf("such that rate × ticks ≤ %g new requests per trial (rate is %g)", float64(maxTrafficWork), t.Rate), t.Ticks)
	case t.StartCohort && sc.Clients > MaxRequestsLive:
		return bad("clients", fmt.Sprintf("at most %d with --start-cohort (every client's first request is alive at tick 0)", int(MaxRequestsLive)), sc.Clients)
	case sc.FirstWindow != 1:
		return bad("first-window", "1 in open-loop mode (new requests already arrive at random)", sc.FirstWindow)
	}
	if err := t.validateSteps(bad); err != nil {
		return err
	}
	return t.validate(sc)
}

// validate checks what open and closed loops share.
func (t Traffic) validate(sc Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case t.Ticks < 1 || t.Ticks > MaxTrafficTicks:
		return bad("ticks", fmt.Sprintf("an integer in [1, %d]", int(MaxTrafficTicks)), t.Ticks)
	case t.OutageStart < 0 || t.OutageStart >= t.Ticks:
		return bad("outage-start", fmt.Sprintf("a tick in [0, ticks = %d)", t.Ticks), t.OutageStart)
	case t.OutageLength < 0 || t.OutageLength > t.Ticks-t.OutageStart:
		return bad("outage", fmt.Sprintf("a number of ticks in [0, ticks − outage-start = %d]", t.Ticks-t.OutageStart), t.OutageLength)
	case t.OutageCapacity < 0 || t.OutageCapacity >= sc.Capacity:
		return bad("outage-capacity", fmt.Sprintf("an integer in [0, capacity = %d)", sc.Capacity), t.OutageCapacity)
	case !Finite(t.RejectCost) || t.RejectCost < 0 || t.RejectCost > 1:
		return bad("reject-cost", "a share of one tick's capacity in [0, 1]", t.RejectCost)
	case t.RejectCost > 0 && !sc.Plays().RejectCost:
		return bad("reject-cost", "0 unless --server capacity (the collision server already serves nothing under overload)", t.RejectCost)
	case t.CollapseBacklog < 0 || (t.CollapseBacklog > 0 && t.CollapseBacklog <= t.RecoveryBacklog(sc.Capacity)):
		return bad("collapse-backlog", fmt.Sprintf("0 (never stop early) or an integer above the recovered backlog (%d)", t.RecoveryBacklog(sc.Capacity)), t.CollapseBacklog)
	case t.RecoveredBacklog < 0:
		return bad("recovered-backlog", "0 (one tick of capacity) or a number of requests ≥ 1", t.RecoveredBacklog)
	case sc.Clients > MaxHosts:
		return bad("clients", fmt.Sprintf("an integer in [1, %d] in open-loop and closed-loop modes (each client holds its own controls)", int(MaxHosts)), sc.Clients)
	case sc.Policy.MaxElapsed > 0:
		return bad("max-elapsed", "0 in open-loop and closed-loop modes (not modelled there yet)", sc.Policy.MaxElapsed)
	}
	return nil
}

// DrainTicks is the most ticks a draining trial plays after its last
// tick: as many as the trial's own.
func (t Traffic) DrainTicks() int {
	if !t.Drain {
		return 0
	}
	return t.Ticks
}

// DrainsByDefault reports whether traffic on the server drains unless told
// otherwise: the flaky server's question is how many calls a request
// makes, which needs every request's whole life (a trial cut at its last
// tick undercounts the requests still retrying), while the load-dependent
// servers' question is whether the backlog recovers by the horizon.
func DrainsByDefault(s Server) bool { return s == Flaky }
