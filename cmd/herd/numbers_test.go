package main

import (
	"math"
	"testing"

	"github.com/herdlab/herd/stats"
)

// One precision rule: the half-width to two significant digits, the mean
// to the same place; asymmetric intervals in brackets; whole numbers whole.
func TestPrecisionRule(t *testing.T) {
	iv := func(lo, hi float64) *stats.Interval { return &stats.Interval{lo, hi} }
	for _, c := range []struct {
		x    float64
		iv   *stats.Interval
		want string
	}{
		{9.092, iv(9.059, 9.125), "9.092 ± 0.033"},
		{18.71, iv(18.6, 18.82), "18.71 ± 0.11"},
		{316.6549, iv(316.0783, 317.2316), "316.65 ± 0.58"},
		{35223.2, iv(35216.9, 35229.5), "35223.2 ± 6.3"},
		{1234.5, iv(1200, 1269), "1234 ± 34"},
		{100, iv(100, 100), "100 ± 0"},
		{-12.36, iv(-12.74, -11.98), "-12.36 ± 0.38"},
		{20, iv(19, 21), "20 ± 1"},
		{5.3, iv(4.302, 6.298), "5.3 ± 1.0"},
		{3.5, nil, "3.5"},
		{20, iv(20, 31), "20 [20, 31]"},
		{0.504, iv(0.5, 0.51), "0.5040 [0.5000, 0.5100]"},
		{37, iv(34, math.Inf(1)), "37 [34, ∞]"},
	} {
		if got := valueCI(c.x, c.iv); got != c.want {
			t.Errorf("valueCI(%g, %v) = %q, want %q", c.x, c.iv, got, c.want)
		}
	}
}
