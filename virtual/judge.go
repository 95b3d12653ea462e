package virtual

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/herdlab/herd/stats"
)

// Relative is the tolerance on a mean that no interval need justify: herd
// and the real code agree when their means differ by at most 2% of herd's.
const Relative = 0.02

// FamilyAlpha is the chance, over a whole check, that some comparison of
// a correct preset disagrees by chance: each of a check's tests runs at
// FamilyAlpha divided by their number (Bonferroni).
const FamilyAlpha = 0.05

// Mean is one measure's comparison: herd's and the virtual runs' means,
// their difference and the tolerance it is judged by.
type Mean struct {
	Name          string
	Herd, Virtual stats.Estimate
	Diff, Tol     float64
	Agree         bool
}

func estimate(xs []float64) stats.Estimate {
	var m stats.Moments
	for _, x := range xs {
		m.Add(x)
	}
	return m.Estimate()
}

// compareMeans judges a measure: the means agree when they differ by at
// most the larger of Relative·|herd's| and z standard errors of the
// difference of two independent means (herd's and the runs').
func compareMeans(name string, herd, virtual []float64, z float64) Mean {
	h, v := estimate(herd), estimate(virtual)
	m := Mean{Name: name, Herd: h, Virtual: v, Diff: v.Mean - h.Mean}
	m.Tol = max(Relative*math.Abs(h.Mean), z*math.Hypot(h.SE(), v.SE()))
	m.Agree = math.Abs(m.Diff) <= m.Tol
	return m
}

// KS is the two-sample Kolmogorov–Smirnov test of the law of completion.
type KS struct {
	D, P  float64
	Agree bool // P ≥ the test's level
}

// micro rounds a time in ms to whole nanoseconds, so that herd's float
// arithmetic and the bubble's integer clock give the same atom of a
// law without jitter.
func micro(x float64) float64 { return math.Round(x*1e6) / 1e6 }

// ksTest compares two samples at level alpha: the statistic D and its
// asymptotic p-value, Q_KS((√nₑ + 0.12 + 0.11/√nₑ)·D) with nₑ = nm/(n+m)
// (Stephens' correction for small samples).
func ksTest(a, b []float64, alpha float64) KS {
	x, y := make([]float64, len(a)), make([]float64, len(b))
	for i, v := range a {
		x[i] = micro(v)
	}
	for i, v := range b {
		y[i] = micro(v)
	}
	slices.Sort(x)
	slices.Sort(y)
	d := stat.KolmogorovSmirnov(x, nil, y, nil)
	ne := float64(len(x)) * float64(len(y)) / float64(len(x)+len(y))
	p := kolmogorovQ((math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d)
	return KS{D: d, P: p, Agree: p >= alpha}
}

// kolmogorovQ is the Kolmogorov distribution's upper tail,
// 2·Σ_{j≥1} (−1)^{j−1}·exp(−2j²λ²), 1 at λ = 0.
func kolmogorovQ(lambda float64) float64 {
	if lambda < 0.2 {
		return 1
	}
	var sum float64
	sign := 1.0
	for j := 1.0; j <= 100; j++ {
		term := sign * math.Exp(-2*j*j*lambda*lambda)
		sum += term
		if math.Abs(term) < 1e-12 {
			break
		}
		sign = -sign
	}
	return math.Min(1, math.Max(0, 2*sum))
}

// levels are the level of each test and the z of each mean's interval
// when a check makes tests tests in all.
func levels(tests int) (alpha, z float64) {
	alpha = FamilyAlpha / float64(tests)
	return alpha, distuv.UnitNormal.Quantile(1 - alpha/2)
}
