package paperdata

import (
	"math"

	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// equivalenceAlpha is the level of each of the two one-sided tests.
const equivalenceAlpha = 0.05

// equivalenceMultiple is the margin of the equivalence test in standard
// errors of the article's mean (sd/√n, the precision of its own number):
// z(1−α) + z(0.975), the smallest margin that two one-sided tests at level
// α confirm 95% of the time when herd is exactly right and its own standard
// error negligible. It follows from the article's trial count alone, never
// from the differences observed.
func equivalenceMultiple() float64 {
	return distuv.UnitNormal.Quantile(1-equivalenceAlpha) + distuv.UnitNormal.Quantile(0.975)
}

// equivalence is the two one-sided tests (TOST) of herd's estimate against
// a published mean: equivalent when the difference's 1−2α interval,
// d ± z(1−α)·√(SE² + sd²/n), lies within ±margin, the margin being
// equivalenceMultiple standard errors of the published mean. Without
// variance on either side the two are equivalent only when equal. margin
// is returned in the unit of the means.
func equivalence(e stats.Estimate, p stats.Published) (equivalent bool, margin float64) {
	seA := 0.0
	if p.N > 0 {
		seA = p.SD / math.Sqrt(float64(p.N))
	}
	se := math.Hypot(e.SE(), seA)
	d := math.Abs(e.Mean - p.Mean)
	if se == 0 {
		return d == 0, 0
	}
	margin = equivalenceMultiple() * seA
	return d+distuv.UnitNormal.Quantile(1-equivalenceAlpha)*se < margin, margin
}
