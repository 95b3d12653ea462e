package model

import "fmt"

// RateStep changes open-loop traffic's rate of new requests: from tick From
// on, Rate per tick (until the next step). Steps let a run raise and lower
// the load, to trace how goodput follows it up and down (hysteresis).
type RateStep struct {
	From int
	Rate float64
}

// RateAt is the rate of new requests at tick: Rate before the first step,
// then the rate of the last step at or before tick.
func (t Traffic) RateAt(tick int) float64 {
	r := t.Rate
	for _, s := range t.Steps {
		if s.From > tick {
			break
		}
		r = s.Rate
	}
	return r
}

// validateSteps checks that the steps are in order within the trial, each
// rate in range, and that their new requests stay within the work bound.
func (t Traffic) validateSteps(bad func(flag, valid string, got any) error) error {
	prev, work := 0, 0.0
	rate := t.Rate
	for i, s := range t.Steps {
		switch {
		case s.From <= prev || s.From >= t.Ticks:
			return bad("steps", fmt.Sprintf("ticks increasing within (0, ticks = %d): step %d starts at", t.Ticks, i+1), s.From)
		case !Finite(s.Rate) || s.Rate <= 0 || s.Rate > MaxRate:
			return bad("steps", fmt.Sprintf("rates in (0, %g]: step %d's is", float64(MaxRate), i+1), s.Rate)
		}
		work += rate * float64(s.From-prev)
		prev, rate = s.From, s.Rate
	}
	if work += rate * float64(t.Ticks-prev); work > maxTrafficWork {
		return bad("steps", fmt.Sprintf("rates whose new requests per trial stay ≤ %g; they add up to", float64(maxTrafficWork)), work)
	}
	return nil
}
