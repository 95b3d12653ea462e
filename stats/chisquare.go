package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// GoodnessOfFit is Pearson's chi-square test of observed counts against a
// law: the statistic, its degrees of freedom and the p-value (the chance of
// a statistic at least as large if the counts were drawn from the law).
type GoodnessOfFit struct {
	ChiSquare float64
	DF        int
	P         float64
}

// ChiSquare tests the histogram (hist[v] observations of value v) against
// the law p (p[v] / total is the probability of v), with adjacent values
// pooled until every bin expects at least 5; df = bins − 1. An observation
// where the law has no mass makes the statistic infinite and P 0; with a
// single bin (df 0) P is 1 unless the statistic is positive.
func ChiSquare(hist []int64, p []float64, total float64) GoodnessOfFit {
	stat, df := pearson(hist, p, total)
	fit := GoodnessOfFit{ChiSquare: stat, DF: df, P: 1}
	switch {
	case df > 0:
		fit.P = distuv.ChiSquared{K: float64(df)}.Survival(stat)
	case stat > 0:
		fit.P = 0
	}
	return fit
}

// pearson is the pooled statistic of ChiSquare and its degrees of freedom.
func pearson(hist []int64, p []float64, total float64) (float64, int) {
	var n int64
	for _, c := range hist {
		n += c
	}
	size := max(len(hist), len(p))
	var exp, obs []float64
	ce, co := 0.0, 0.0
	for v := range size {
		pv := 0.0
		if v < len(p) {
			pv = p[v] / total
		}
		var ov int64
		if v < len(hist) {
			ov = hist[v]
		}
		if pv == 0 && ov > 0 {
			return math.Inf(1), 0
		}
		ce += pv * float64(n)
		co += float64(ov)
		if ce >= 5 {
			exp, obs = append(exp, ce), append(obs, co)
			ce, co = 0, 0
		}
	}
	if ce > 0 || co > 0 { // the remainder joins the last bin
		if len(exp) == 0 {
			exp, obs = []float64{0}, []float64{0}
		}
		exp[len(exp)-1] += ce
		obs[len(obs)-1] += co
	}
	stat := 0.0
	for i := range exp {
		d := obs[i] - exp[i]
		stat += d * d / exp[i]
	}
	return stat, len(exp) - 1
}
