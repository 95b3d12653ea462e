package model

import "fmt"

// The flaky server is the setting of Brooker's retry simulations
// (github.com/mbrooker/simulator_example, retry_sim): a backend that fails
// each call with a probability p that does not depend on the load. In a
// tick with m arrivals it first takes min(m, k) of them, chosen uniformly
// at random, as the capacity server does (the others fail), and each call
// it took then fails on its own with probability p = Scenario.FailureRate.
// With k above any tick's arrivals (-k 1000000) capacity plays no part and
// every call fails independently with probability p, so a request allowed
// A attempts makes (1 − p^A)/(1 − p) calls on average, the closed form of
// Amplification with one layer.
//
// During an outage the capacity is the outage's capacity, so the server
// takes fewer calls and each of those still fails with probability p.
//
// The flaky server is played by the request engines (open-loop and
// closed-loop traffic); the cohort's engines and the analytical models are
// those of load-dependent servers and refuse it.

// MaxFailureRate is the largest failure rate: every call fails.
const MaxFailureRate = 1

// CallFails reports whether a call the flaky server took fails, given u
// uniform on [0, 1).
func (s Scenario) CallFails(u float64) bool { return u < s.FailureRate }

// validateFlaky checks the failure rate: a probability on the flaky
// server, 0 elsewhere.
func (s Scenario) validateFlaky(bad func(flag, valid string, got any) error) error {
	p := s.FailureRate
	switch {
	case s.Server == Flaky && (!Finite(p) || p < 0 || p > MaxFailureRate):
		return bad("failure-rate", "a probability in [0, 1]", p)
	case s.Server != Flaky && p != 0:
		return bad("failure-rate", fmt.Sprintf("0 unless --server flaky (the %s server's failures come from its load)", s.Server), p)
	}
	return nil
}
