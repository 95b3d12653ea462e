package render

import (
	"fmt"
	"math"
	"testing"

	"github.com/herdlab/herd/stats"
)

func iv(lo, hi float64) *stats.Interval { return &stats.Interval{lo, hi} }

// One precision rule: the half-width to two significant digits, the mean
// to the same place; asymmetric intervals in brackets; whole numbers whole.
func TestPrecisionRule(t *testing.T) {
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
		{2.5, iv(math.Inf(-1), math.Inf(1)), "2.5 [−∞, ∞]"},
		// Rounding error past 12 significant digits is no width.
		{202.99999999999997, iv(202.99999999999997, 203.00000000000003), "203 ± 0"},
		{201.71, iv(201.6, 201.82), "201.71 ± 0.11"},
	} {
		if got := Value(c.x, c.iv); got != c.want {
			t.Errorf("Value(%g, %v) = %q, want %q", c.x, c.iv, got, c.want)
		}
	}
}

// A value without an interval prints compactly.
func TestNumber(t *testing.T) {
	for _, c := range []struct {
		x    float64
		want string
	}{{3, "3"}, {-0.5, "-0.5"}, {1234.56, "1234.6"}, {0.000123456, "0.0001235"}, {math.Inf(1), "∞"}, {math.NaN(), "—"}} {
		if got := Number(c.x); got != c.want {
			t.Errorf("Number(%g) = %q, want %q", c.x, got, c.want)
		}
	}
}

// The TeX style spells the same digits for LaTeX, at fixed decimals, with
// every interval in brackets.
func TestTeX(t *testing.T) {
	for _, c := range []struct {
		x    float64
		d    int
		want string
	}{
		{41000, 0, `41\,000`},
		{1234567.25, 1, `1\,234\,567.2`},
		{2100, 0, "2100"},
		{-0.001, 1, "0.0"},
		{-6.14, 1, "$-$6.1"},
		{0.5, 2, "0.50"},
		{math.Inf(1), 0, `$\infty$`},
	} {
		if got := TeX(c.d).Number(c.x); got != c.want {
			t.Errorf("TeX(%d).Number(%g) = %q, want %q", c.d, c.x, got, c.want)
		}
	}
	e := stats.Estimate{Mean: 316.98, SD: 3, N: 100, CI95: iv(316.9, 317.06)}
	if got, want := TeX(1).Estimate(&e), `317.0\,{\footnotesize[316.9,\,317.1]}`; got != want {
		t.Errorf("TeX(1).Estimate = %q, want %q", got, want)
	}
	same := stats.Estimate{Mean: 42, N: 10, CI95: iv(42, 42)}
	if got := TeX(1).Estimate(&same); got != "42.0" {
		t.Errorf("an estimate without spread: %q, want it alone", got)
	}
	q := stats.Quantile{Value: 12000, CI95: stats.Interval{11000, 13000}}
	if got, want := TeX(0).Quantile(q), `12\,000\,{\footnotesize[11\,000,\,13\,000]}`; got != want {
		t.Errorf("TeX(0).Quantile = %q, want %q", got, want)
	}
	if got, want := TeX(2).Interval(-0.5, 1.25), `[$-$0.50,\,1.25]`; got != want {
		t.Errorf("TeX(2).Interval = %q, want %q", got, want)
	}
}

// A difference is signed, marked when not significant.
func TestDifference(t *testing.T) {
	for _, c := range []struct {
		d    stats.Difference
		want string
	}{
		{stats.Difference{Estimate: stats.Estimate{Mean: 2.5, N: 9, CI95: iv(1.3, 3.7)}, Significant: true}, "+2.5 ± 1.2"},
		{stats.Difference{Estimate: stats.Estimate{Mean: -0.4, N: 9, CI95: iv(-1.6, 0.8)}}, "-0.4 ± 1.2 ~"},
		{stats.Difference{Estimate: stats.Estimate{N: 9, CI95: iv(0, 0)}}, "0"},
		{stats.Difference{}, "—"},
	} {
		if got := Difference(c.d); got != c.want {
			t.Errorf("Difference(%+v) = %q, want %q", c.d, got, c.want)
		}
	}
}

func ExampleStyle_Value() {
	calls := &stats.Interval{316.0783, 317.2316}
	fmt.Println(Text.Value(316.6549, calls))
	fmt.Println(TeX(1).Value(316.6549, calls))
	fmt.Println(Quantile(stats.Quantile{Value: 20, CI95: stats.Interval{20, 31}}))
	// Output:
	// 316.65 ± 0.58
	// 316.7\,{\footnotesize[316.1,\,317.2]}
	// 20 [20, 31]
}

// A quantile whose value and interval differ only by rounding error (203 ms
// computed from seconds) prints whole, not at 15 decimals.
func TestQuantileRoundingError(t *testing.T) {
	q := stats.Quantile{Value: 202.99999999999997, CI95: stats.Interval{202.99999999999997, 203.00000000000003}}
	if got, want := Quantile(q), "203 [203, 203]"; got != want {
		t.Errorf("Quantile = %q, want %q", got, want)
	}
}
