package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

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

// Wilson is k of n with Wilson's score interval at 95%, the interval the
// reproductions of collapse experiments print: it stays inside [0, 1] and
// keeps its level near 0 and 1 better than the normal one.
func Wilson(k, n int) Share {
	s := Share{Count: k, N: n, CI95: Interval{0, 1}}
	if n == 0 {
		return s
	}
	p, nf := float64(k)/float64(n), float64(n)
	z := distuv.UnitNormal.Quantile(1 - (1-Confidence)/2)
	c := (p + z*z/(2*nf)) / (1 + z*z/nf)
	h := z / (1 + z*z/nf) * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf))
	s.Value, s.CI95 = p, Interval{max(0, c-h), min(1, c+h)}
	// At k = 0 and k = n the bound is 0 or 1 exactly; rounding must not
	// move it.
	if k == 0 {
		s.CI95[0] = 0
	}
	if k == n {
		s.CI95[1] = 1
	}
	return s
}
