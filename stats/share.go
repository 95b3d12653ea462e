package stats

import "gonum.org/v1/gonum/stat/distuv"

// Share is a proportion with its exact (Clopper–Pearson) 95% interval.
type Share struct {
	Count int      `json:"count"`
	N     int      `json:"n"`
	Value float64  `json:"value"`
	CI95  Interval `json:"ci95"`
}

// NewShare is k of n with its exact interval.
func NewShare(k, n int) Share {
	s := Share{Count: k, N: n, CI95: Interval{0, 1}}
	if n == 0 {
		return s
	}
	s.Value = float64(k) / float64(n)
	a := (1 - Confidence) / 2
	if k > 0 {
		s.CI95[0] = distuv.Beta{Alpha: float64(k), Beta: float64(n - k + 1)}.Quantile(a)
	}
	if k < n {
		s.CI95[1] = distuv.Beta{Alpha: float64(k + 1), Beta: float64(n - k)}.Quantile(1 - a)
	}
	return s
}
