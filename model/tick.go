package model

// TickTime is the tick model: time in whole ticks, the server serving the
// arrivals of each tick together.
const TickTime TimeModel = 0

type tick struct{}

func (tick) Name() string                            { return "tick" }
func (tick) Continuous() bool                        { return false }
func (tick) horizon(Scenario) (int, bool)            { return 0, false }
func (tick) validate(s Scenario, bad badField) error { return s.validateTick(bad) }
