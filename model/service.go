package model

// Service is the continuous-time service server: c FIFO workers behind a
// waiting room, clients whose requests cross a network each way and time
// out, as deployed services are (docs/servers.md). Its runs are a
// service.Run, played by package service's engine and `herd service`;
// the tick-model commands refuse it.
const Service Server = 7

type service struct{}

func (service) Name() string        { return "service" }
func (service) Served(m, k int) int { return upTo(m, k) }
func (service) Plays() Plays {
	return Plays{Cohort: NoCohort,
		Unmodelled: "the service server runs in continuous time with its own engine; use herd service"}
}
func (service) Words(Scenario) string  { return "continuous-time service server" }
func (service) Brief(Scenario) string  { return "" }
func (service) horizon(s Scenario) int { return s.everyTickServes(1) }
func (service) validate(s Scenario, bad badField) error {
	return bad("server", "capacity, collision, occ, flaky or queue here (the service server runs in continuous time: herd service)", "service")
}
