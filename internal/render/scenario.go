package render

import (
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Describe says a scenario in one line.
func Describe(sc model.Scenario) string {
	p := sc.Policy
	pol := p.Describe()
	if sc.InContinuousTime() {
		return describeContinuous(sc, p.DescribeIn(sc.Window()))
	}
	if t := p.TickLength(); t > 0 {
		pol += fmt.Sprintf(", tick %s", t)
	}
	if sc.Plays().Milliseconds {
		return fmt.Sprintf("%d clients, %s, policy %s in ms", sc.Clients, sc.Server.Variant().Words(sc), pol)
	}
	s := fmt.Sprintf("%d clients, %s server with capacity %d/tick, policy %s, rounding %s",
		sc.Clients, sc.Server, sc.Capacity, pol, sc.Rounding)
	if sc.FirstWindow > 1 {
		s += fmt.Sprintf(", first sends over %d ticks", sc.FirstWindow)
	}
	if w := sc.Server.Variant().Words(sc); w != "" {
		s += "; " + w
	}
	return s
}

// horizonText says where a scenario's trials are cut and counted
// censored.
func horizonText(sc model.Scenario) string {
	switch {
	case sc.InContinuousTime():
		return fmt.Sprintf("horizon %d windows", sc.EffectiveHorizon())
	case sc.Continuous():
		if sc.Horizon == 0 {
			return "no horizon: OCC trials always finish"
		}
		return fmt.Sprintf("horizon %d ms", sc.EffectiveHorizon())
	}
	return fmt.Sprintf("horizon %d ticks", sc.EffectiveHorizon())
}

// describeContinuous says a continuous-time scenario in one line; pol is
// the policy as Describe says it.
func describeContinuous(sc model.Scenario, pol string) string {
	server := fmt.Sprintf("window server admitting %d per %s window", sc.Capacity, sc.Window())
	if w := sc.Server.Variant().Words(sc); w != "" { // a limiter server
		server = w
	}
	s := fmt.Sprintf("%d clients, %s (continuous time), policy %s, round trip %s",
		sc.Clients, server, pol, sc.Latency)
	if sc.FirstSpread > 0 {
		s += fmt.Sprintf(", first sends over %s", sc.FirstSpread)
	}
	if !sc.FirstArrivals.IsZero() {
		s += fmt.Sprintf(", first arrivals %s", sc.FirstArrivals)
	}
	if !sc.FirstAnswers.IsZero() {
		s += fmt.Sprintf(", first answers %s", sc.FirstAnswers)
	}
	if sc.LatencyPerFlight > 0 {
		s += fmt.Sprintf(", %s per way in flight", sc.LatencyPerFlight)
	}
	if !sc.Stalls.IsZero() {
		s += fmt.Sprintf(", stalls of %s every %s", sc.Stalls.Length, sc.Stalls.Every)
	}
	return s
}

// timeModelText names the time model that ran.
func timeModelText(sc model.Scenario) string {
	switch {
	case sc.InContinuousTime():
		return "continuous time"
	case sc.Plays().Milliseconds:
		return "continuous time (OCC)"
	}
	return "tick model"
}

// Brief says a scenario in a table cell.
func Brief(sc model.Scenario) string {
	p := sc.Policy
	s := fmt.Sprintf("N=%d k=%d %s %s", sc.Clients, sc.Capacity, sc.Server, p.Kind)
	switch {
	case p.Kind == policy.Fixed:
		s += fmt.Sprintf(" %g", p.FixedDelay)
	case p.Kind == policy.None:
	case p.Kind.IsPreset() || p.Kind.IsConfigured():
		s += " tick " + p.TickLength().String()
	default:
		s += fmt.Sprintf(" %g..%g", p.Base, p.Cap)
	}
	s += " " + sc.Rounding.String()
	if sc.FirstWindow > 1 {
		s += fmt.Sprintf(" W=%d", sc.FirstWindow)
	}
	s += sc.Server.Variant().Brief(sc)
	return s
}

// OutagePhrase says when the outage is and what capacity the server keeps
// through it, or that there is none.
func OutagePhrase(start, length, capacity int) string {
	if length <= 0 {
		return "no outage"
	}
	return fmt.Sprintf("outage ticks %d…%d at capacity %d", start, start+length-1, capacity)
}
