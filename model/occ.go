package model

import (
	"fmt"

	"github.com/herdlab/herd/policy"
)

// The OCC server is the model of Marc Brooker's simulator for the AWS
// Architecture Blog post "Exponential Backoff And Jitter" (2015): N clients
// update one versioned row over a network. Time is continuous, in
// milliseconds, and every network hop takes |Normal(HopMean, HopSD)| ms.
// An attempt reads the row's version (two hops), writes carrying that
// version (a third hop) and learns the result (a fourth); the write wins iff
// no other write won since the read. A loser's retry number n increments
// (the first retry has n = 1) and its next read reaches the server one hop
// plus backoff(n) after it learned of the failure. Calls count writes; the
// completion time is when the last winning write's response arrives.
//
// Every trial finishes: a write can only lose to a write that won after its
// read, so between two wins no client waits longer than one attempt plus
// its backoff. The horizon of an OCC scenario is therefore only a guard, in
// milliseconds, and is unbounded by default.
//
// The policy's Base, Cap and FixedDelay are in milliseconds for an OCC
// scenario; Rounding and Capacity play no part.

// OCC is the AWS Architecture Blog's optimistic-concurrency row in
// continuous time; it has no ticks and no capacity.
const OCC Server = 2

type occ struct{}

func (occ) Name() string        { return "occ" }
func (occ) Served(m, k int) int { return upTo(m, k) }
func (occ) Plays() Plays {
	return Plays{Cohort: EventEngine, Milliseconds: true, Models: []string{"closed", "markov", "meanfield"}}
}
func (occ) Words(s Scenario) string {
	return fmt.Sprintf("OCC row (hops |Normal(%g, %g)| ms)", HopMean, HopSD)
}
func (occ) Brief(Scenario) string { return "" }

// policyDefaults are the blog's base, cap and fixed delay, in ms.
func (occ) policyDefaults(p *policy.Policy) {
	p.Base, p.Cap, p.FixedDelay = AWSBase, AWSCap, AWSFixedDelay
}

// horizon is in milliseconds and unbounded: an OCC trial always finishes.
func (occ) horizon(Scenario) int { return MaxHorizon }

// validate: the OCC engine models the blog's simulator, with policies in
// ticks of 1 ms and every client retrying until it wins.
func (occ) validate(s Scenario, bad badField) error {
	p := s.Policy
	switch {
	case p.InSeconds():
		return bad("policy", "one of "+policy.KindNames()+" with --server occ (library presets are defined in ticks)", fmt.Sprintf("%q", p.Kind))
	case p.Retries > 0:
		return bad("retries", "0 with --server occ (its clients retry until they win)", p.Retries)
	case p.MaxElapsed > 0:
		return bad("max-elapsed", "0 with --server occ (its clients retry until they win)", p.MaxElapsed)
	}
	return nil
}

// The network of the blog's simulator: each hop is |Normal(10, 2)| ms (the
// post says "a mean of 10ms and variance of 4ms").
const (
	HopMean = 10.0 // ms
	HopSD   = 2.0  // ms
)

// The blog's policy parameters, in milliseconds. AWSFixedDelay is not in the
// blog; it is the first exponential delay d₁ = 2·base, the same relation the
// seed article's fixed delay 2 has to its base 1, so that "fixed" means the
// same thing in both models.
const (
	AWSBase       = 5.0
	AWSCap        = 2000.0
	AWSFixedDelay = 2 * AWSBase
)

// AWSClients are the client counts of the blog's figures: 10, 20, …, 190.
func AWSClients() []int {
	var n []int
	for c := 10; c <= 190; c += 10 {
		n = append(n, c)
	}
	return n
}

// AWSKinds are the five policies of the blog, in the order of its figures.
func AWSKinds() []policy.Kind {
	return []policy.Kind{policy.None, policy.Expo, policy.Full, policy.Equal, policy.Decorrelated}
}

// AWSScenario is the blog's OCC scenario for n clients and a policy. Its
// other fields are those of Default, so `herd simulate --server occ` with no
// other flag plays the very same trials.
func AWSScenario(n int, kind policy.Kind) Scenario {
	sc := Default()
	sc.Clients, sc.Server = n, OCC
	sc.Policy = policy.Policy{Kind: kind, Base: AWSBase, Cap: AWSCap, FixedDelay: AWSFixedDelay}
	return sc
}

// Continuous reports whether the scenario's time is continuous (OCC, or
// the window server in continuous time; in milliseconds) rather than whole
// ticks.
func (s Scenario) Continuous() bool { return s.Plays().Milliseconds || s.InContinuousTime() }

// TimeUnit names the unit of the scenario's times: "ms" for OCC, else the
// policy's tick unit (Policy.Unit).
func (s Scenario) TimeUnit() string {
	if s.Continuous() {
		return "ms"
	}
	return s.Policy.Unit()
}
