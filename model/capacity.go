package model

// Capacity accepts min(m, k) of the m arrivals of a tick, chosen uniformly
// at random (the seed article's server).
const Capacity Server = 0

type capacity struct{}

func (capacity) Name() string        { return "capacity" }
func (capacity) Served(m, k int) int { return upTo(m, k) }
func (capacity) Plays() Plays {
	return Plays{Cohort: TickEngines, OpenLoop: true, ClosedLoop: true, ContinuousTime: true, RejectCost: true,
		Models: []string{"closed", "markov", "meanfield"}}
}
func (capacity) Words(Scenario) string             { return "" }
func (capacity) Brief(Scenario) string             { return "" }
func (capacity) validate(Scenario, badField) error { return nil }
func (capacity) horizon(s Scenario) int            { return s.everyTickServes(0) }

// everyTickServes is the default horizon of a server on which every tick
// with arrivals serves at least one client and the next tick with
// arrivals follows within MaxDelayTicks (+ extra): the last success comes
// by W − 1 + N·(MaxDelayTicks + extra).
func (s Scenario) everyTickServes(extra int) int {
	h := float64(s.FirstWindow) + float64(s.Clients)*float64(s.MaxDelayTicks()+extra)
	if h > MaxHorizon {
		return MaxHorizon
	}
	return int(h)
}
