package stats

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// Equivalence is two one-sided tests (TOST) of an estimate against a
// published mean: the two are equivalent when the 1−2α interval of the
// difference, d ± z(1−α)·√(SE² + (sd/√n)²), lies within ±Margin.
type Equivalence struct {
	Published  Published `json:"article"`
	Margin     float64   `json:"margin"`
	Equivalent bool      `json:"equivalent"`
}

// EquivalenceAlpha is the level of each of the two one-sided tests.
const EquivalenceAlpha = 0.05

// PowerMultiple is the margin, in standard errors of the published mean,
// that the two one-sided tests at level α confirm with probability power
// when the estimate is exactly right and its own standard error negligible:
// z(1−α) + z((1+power)/2). It depends on the published trial count alone,
// never on the differences observed.
func PowerMultiple(alpha, power float64) float64 {
	return distuv.UnitNormal.Quantile(1-alpha) + distuv.UnitNormal.Quantile((1+power)/2)
}

// Equivalent tests e against p at level EquivalenceAlpha with a margin of
// multiple standard errors of the published mean (sd/√n, the precision of
// the source's own number). Without variance on either side the two are
// equivalent only when equal (Margin 0).
func Equivalent(e Estimate, p Published, multiple float64) Equivalence {
	out := Equivalence{Published: p}
	seP := 0.0
	if p.N > 0 {
		seP = p.SD / math.Sqrt(float64(p.N))
	}
	se := math.Hypot(e.SE(), seP)
	d := math.Abs(e.Mean - p.Mean)
	if se == 0 {
		out.Equivalent = d == 0
		return out
	}
	out.Margin = multiple * seP
	out.Equivalent = d+distuv.UnitNormal.Quantile(1-EquivalenceAlpha)*se < out.Margin
	return out
}
