package model

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

// Flaky fails each call it takes with probability FailureRate, whatever
// the load.
const Flaky Server = 3

type flaky struct{}

func (flaky) Name() string        { return "flaky" }
func (flaky) Served(m, k int) int { return upTo(m, k) }
func (flaky) Plays() Plays {
	return Plays{Cohort: NoCohort, OpenLoop: true, ClosedLoop: true, FailureRate: true,
		Unmodelled: "the flaky server fails calls at random whatever the load, which the cohort models do not follow; simulate it with --rate or --loop closed"}
}
func (flaky) Words(Scenario) string  { return "" }
func (flaky) Brief(Scenario) string  { return "" }
func (flaky) horizon(s Scenario) int { return s.everyTickServes(0) }
func (flaky) validate(s Scenario, bad badField) error {
	if p := s.FailureRate; !Finite(p) || p < 0 || p > MaxFailureRate {
		return bad("failure-rate", "a probability in [0, 1]", p)
	}
	return nil
}

// MaxFailureRate is the largest failure rate: every call fails.
const MaxFailureRate = 1

// CallFails reports whether a call the flaky server took fails, given u
// uniform on [0, 1).
func (s Scenario) CallFails(u float64) bool { return u < s.FailureRate }

// Fails reports whether the scenario's server fails calls whatever the
// load.
func (s Scenario) Fails() bool { return s.Server == Flaky && s.FailureRate > 0 }

// Help is the server in a paragraph of herd simulate's help.
func (flaky) Help() string {
	return `--server flaky --failure-rate p fails each call the server takes with
probability p whatever the load (-k still caps a tick; -k 1000000 does not):
the setting of Brooker's retry simulations, where a request allowed A
attempts makes (1 − p^A)/(1 − p) calls. It runs open or closed loops, and
drains them by default (--drain: after the last tick no new requests, and
pending ones play out), so that calls per request count whole lives.`
}
