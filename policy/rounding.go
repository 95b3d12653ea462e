package policy

import (
	"fmt"
	"math"
	"strings"
)

// Rounding turns a policy's continuous delay into whole ticks.
type Rounding int

const (
	// HalfEven rounds to the nearest integer, ties to even, as Python's
	// round does in the seed article's simulator.
	HalfEven Rounding = iota
	// HalfUp rounds to the nearest integer, ties away from zero.
	HalfUp
	// Ceil rounds up.
	Ceil
	// Floor rounds down.
	Floor
)

var roundingNames = []string{"half-even", "half-up", "ceil", "floor"}

// RoundingNames lists the valid spellings, in the order of the constants.
func RoundingNames() []string { return append([]string(nil), roundingNames...) }

func (r Rounding) String() string {
	if r < 0 || int(r) >= len(roundingNames) {
		return fmt.Sprintf("Rounding(%d)", int(r))
	}
	return roundingNames[r]
}

// ParseRounding reads one of RoundingNames.
func ParseRounding(s string) (Rounding, error) {
	for i, n := range roundingNames {
		if s == n {
			return Rounding(i), nil
		}
	}
	return 0, fmt.Errorf("rounding must be one of %s, got %q", strings.Join(roundingNames, ", "), s)
}

// Round applies the rounding to a delay x ≥ 0.
func (r Rounding) Round(x float64) float64 {
	switch r {
	case HalfUp:
		return math.Floor(x + 0.5)
	case Ceil:
		return math.Ceil(x)
	case Floor:
		return math.Floor(x)
	default:
		return math.RoundToEven(x)
	}
}

// Ticks is the wait, in ticks, before a retry whose policy delay is x:
// max(1, round(x)).
func (r Rounding) Ticks(x float64) int {
	t := r.Round(x)
	if t < 1 {
		return 1
	}
	return int(t)
}

// Interval is the set of delays x ≥ 0 with Ticks(x) == t, as [Lo, Hi) or
// (Lo, Hi] depending on the rounding; the analytical models only need its
// end points because a continuous law puts no mass on them. The interval
// for t = 1 also holds every x that rounds below 1.
func (r Rounding) Interval(t int) (lo, hi float64) {
	ft := float64(t)
	switch r {
	case Ceil:
		lo, hi = ft-1, ft
	case Floor:
		lo, hi = ft, ft+1
	default:
		lo, hi = ft-0.5, ft+0.5
	}
	if t == 1 {
		lo = math.Inf(-1)
	}
	return lo, hi
}
