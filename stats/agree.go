package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Published is a mean ± sd over N values as a source printed it.
type Published struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
	N    int     `json:"n"`
}

// Agreement compares an estimate with a published value by a two-sided z
// test at level 99.9% on the difference of means, with standard error
// √(SE² + (sd/√n)²). With both standard errors zero the two agree only
// when equal.
type Agreement struct {
	Published Published `json:"article"`
	Z         float64   `json:"z"`
	Agrees    bool      `json:"agrees"`
}

// AgreementLevel is the confidence level of Agreement's z test.
const AgreementLevel = 0.999

// Agree compares an estimate with a published value.
func Agree(e Estimate, p Published) Agreement { return AgreeAt(e, p, AgreementLevel) }

// AgreeAt is Agree at another confidence level (a Bonferroni level over
// many comparisons, say).
func AgreeAt(e Estimate, p Published, level float64) Agreement {
	a := Agreement{Published: p}
	se := math.Hypot(e.SE(), p.SD/math.Sqrt(float64(p.N)))
	d := e.Mean - p.Mean
	if se == 0 {
		a.Agrees = d == 0
		if !a.Agrees {
			a.Z = math.Copysign(math.MaxFloat64, d)
		}
		return a
	}
	a.Z = d / se
	zc := distuv.UnitNormal.Quantile(1 - (1-level)/2)
	a.Agrees = math.Abs(a.Z) <= zc
	return a
}

// AgreePooled compares the mean of an estimate with that of another
// sample by a two-sided two-sample t test at the given level with the
// pooled variance: the test of two simulators that, under the null
// hypothesis, draw from one law. Unlike AgreeAt's separate standard errors
// it stays valid when one sample's variance is zero only because a rare
// event did not happen in it (a few runs of a breaker that almost never
// retries). Z is then the t statistic; with both variances zero the two
// agree only when equal.
func AgreePooled(e Estimate, p Published, level float64) Agreement {
	a := Agreement{Published: p}
	n1, n2 := float64(e.N), float64(p.N)
	d := e.Mean - p.Mean
	df := n1 + n2 - 2
	if df < 1 {
		return AgreeAt(e, p, level)
	}
	pooled := ((n1-1)*e.SD*e.SD + (n2-1)*p.SD*p.SD) / df
	se := math.Sqrt(pooled * (1/n1 + 1/n2))
	if se == 0 {
		a.Agrees = d == 0
		if !a.Agrees {
			a.Z = math.Copysign(math.MaxFloat64, d)
		}
		return a
	}
	a.Z = d / se
	tc := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: df}.Quantile(1 - (1-level)/2)
	a.Agrees = math.Abs(a.Z) <= tc
	return a
}
