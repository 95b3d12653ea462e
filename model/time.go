package model

import (
	"fmt"
	"strings"
)

// TimeModel names how time passes in a scenario; its behaviour is its
// TimeVariant.
type TimeModel int

// A TimeVariant is one time model: which of the scenario's fields belong
// to it and its default horizon. Each lives in its own file (tick.go,
// timemodel.go) and is registered once, in timeModels.
type TimeVariant interface {
	// Name is the time model's spelling on the command line and in JSON.
	Name() string
	// Continuous: times are real, not whole ticks.
	Continuous() bool
	// horizon is the default horizon, when the time model sets it rather
	// than the server.
	horizon(s Scenario) (int, bool)
	validate(s Scenario, bad badField) error
}

// timeModels is the registry of time models, by kind.
var timeModels = []TimeVariant{
	TickTime:       tick{},
	ContinuousTime: continuous{},
}

// Variant is the time model's variant.
func (m TimeModel) Variant() TimeVariant {
	if m < 0 || int(m) >= len(timeModels) {
		return nil
	}
	return timeModels[m]
}

func (m TimeModel) String() string {
	if v := m.Variant(); v != nil {
		return v.Name()
	}
	return fmt.Sprintf("TimeModel(%d)", int(m))
}

// TimeNames lists the valid spellings of --time.
func TimeNames() []string {
	names := make([]string, len(timeModels))
	for i, v := range timeModels {
		names[i] = v.Name()
	}
	return names
}

// ParseTime reads one of TimeNames.
func ParseTime(s string) (TimeModel, error) {
	for i, v := range timeModels {
		if s == v.Name() {
			return TimeModel(i), nil
		}
	}
	return 0, fmt.Errorf("time must be one of %s, got %q", strings.Join(TimeNames(), ", "), s)
}

// InContinuousTime reports whether the scenario runs in continuous time
// against the window server.
func (s Scenario) InContinuousTime() bool {
	v := s.Time.Variant()
	return v != nil && v.Continuous()
}

// validateTime checks the fields that belong to the time model.
func (s Scenario) validateTime(bad badField) error {
	v := s.Time.Variant()
	if v == nil {
		return bad("time", "one of "+strings.Join(TimeNames(), ", "), int(s.Time))
	}
	return v.validate(s, bad)
}
