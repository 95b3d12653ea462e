package study

import (
	"math"
	"testing"

	"github.com/herdlab/herd/stats"
)

// TrialsFor gives the fewest trials (at least the pilot) at which a mean
// of the given coefficient of variation reaches the relative half-width
// that gives each local exponent ±HalfWidth; one trial fewer does not.
func TestTrialsForIsTheFewestThatSuffice(t *testing.T) {
	s := ScalingStudy()
	target := s.HalfWidth * math.Ln2 / math.Sqrt2
	half := func(n int, cv float64) float64 { return stats.TQuantile(n-1) * cv / math.Sqrt(float64(n)) }
	prev := 0
	for _, cv := range []float64{0, 0.001, 0.01, 0.03, 0.1, 0.3, 1} {
		n := s.TrialsFor(cv)
		if n < prev || n < s.Pilot || n > s.MaxTrials {
			t.Errorf("cv %g: %d trials (after %d for a smaller cv)", cv, n, prev)
		}
		if n < s.MaxTrials && half(n, cv) > target {
			t.Errorf("cv %g: %d trials give a relative half-width %g > %g", cv, n, half(n, cv), target)
		}
		if n > s.Pilot && half(n-1, cv) <= target {
			t.Errorf("cv %g: %d trials, but %d already suffice", cv, n, n-1)
		}
		prev = n
	}
}

// The delta-method exponent of two rungs whose means double and quadruple
// is 1 and 2, its interval narrows as the trials grow, and an exact pair
// has none.
func TestLocalExponentDeltaMethod(t *testing.T) {
	rung := func(n int, mean, sd float64, trials int) Rung {
		e := stats.Estimate{Mean: mean, SD: sd, N: trials}
		return Rung{Clients: n, Trials: trials, Calls: e, Completion: e}
	}
	e := LocalExponent(rung(100, 1000, 50, 20), rung(200, 4000, 200, 20), RungCalls)
	if math.Abs(e.Value-2) > 1e-12 {
		t.Errorf("exponent %g, want 2", e.Value)
	}
	// var log m̂ = (0.05²/20)·2 → SE of the exponent 0.05·√(2/20)/ln 2.
	if want := 0.05 * math.Sqrt(2.0/20) / math.Ln2; math.Abs(e.SE-want) > 1e-12 || math.Abs(e.DF-38) > 1e-9 {
		t.Errorf("SE %g, DF %g; want %g, 38", e.SE, e.DF, want)
	}
	wide := LocalExponent(rung(100, 1000, 50, 5), rung(200, 4000, 200, 5), RungCalls)
	if !(wide.CI95[1]-wide.CI95[0] > e.CI95[1]-e.CI95[0]) {
		t.Errorf("5 trials give %v, no wider than 20 trials' %v", wide.CI95, e.CI95)
	}
	if x := LocalExponent(rung(100, 550, 0, 5), rung(200, 2100, 0, 5), RungCalls); x.SE != 0 || x.CI95[0] != x.CI95[1] {
		t.Errorf("exact rungs: %+v", x)
	}
}
