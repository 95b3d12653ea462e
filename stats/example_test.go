package stats_test

import (
	"fmt"

	"github.com/herdlab/herd/stats"
)

// A mean with its Student-t interval, folded one value at a time.
func ExampleMoments() {
	var m stats.Moments
	for _, x := range []float64{9, 11, 10, 12, 8} {
		m.Add(x)
	}
	e := m.Estimate()
	fmt.Printf("mean %.1f, sd %.2f, n %d, 95%% CI [%.2f, %.2f]\n", e.Mean, e.SD, e.N, e.CI95[0], e.CI95[1])
	// Output:
	// mean 10.0, sd 1.58, n 5, 95% CI [8.04, 11.96]
}

// Paired differences A − B over common random numbers: significant when the
// interval excludes 0.
func ExampleMoments_Difference() {
	a := []float64{120, 131, 118, 125, 122, 129}
	b := []float64{117, 128, 116, 121, 120, 125}
	var m stats.Moments
	for i := range a {
		m.Add(a[i] - b[i])
	}
	d := m.Difference()
	fmt.Printf("A − B = %.2f [%.2f, %.2f], significant: %v\n", d.Mean, d.CI95[0], d.CI95[1], d.Significant)
	// Output:
	// A − B = 3.00 [2.06, 3.94], significant: true
}

// A share with its exact Clopper–Pearson interval: 3 of 40 trials
// recovered.
func ExampleNewShare() {
	s := stats.NewShare(3, 40)
	fmt.Printf("%d of %d = %.3f, 95%% CI [%.4f, %.4f]\n", s.Count, s.N, s.Value, s.CI95[0], s.CI95[1])
	// Output:
	// 3 of 40 = 0.075, 95% CI [0.0157, 0.2039]
}

// The 90th percentile of completion times kept as a histogram (hist[v]
// trials took v ticks), with its distribution-free order-statistic
// interval.
func ExampleQuantileOf() {
	hist := []int64{0, 0, 5, 20, 40, 25, 10}
	q := stats.QuantileOf(hist, 0.9)
	fmt.Printf("p90 %g ticks, 95%% CI [%g, %g]\n", q.Value, q.CI95[0], q.CI95[1])
	// Output:
	// p90 5 ticks, 95% CI [5, 6]
}

// A fair die's 600 rolls against its law, by Pearson's chi-square test.
func ExampleChiSquare() {
	rolls := []int64{0, 95, 108, 97, 103, 92, 105}
	law := []float64{0, 1, 1, 1, 1, 1, 1}
	fit := stats.ChiSquare(rolls, law, 6)
	fmt.Printf("χ² = %.2f, df %d, p = %.2f\n", fit.ChiSquare, fit.DF, fit.P)
	// Output:
	// χ² = 1.96, df 5, p = 0.85
}
