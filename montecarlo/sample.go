package montecarlo

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// The count engine draws how many of a group of exchangeable clients do
// something: a binomial for independent choices, a hypergeometric for the
// winners of a tick. Both samplers cost O(1) per draw however large the
// group (up to the cost of small means, which is bounded by a constant),
// so a cohort of 10⁹ clients costs what a cohort of 10⁴ does.

// smallMean is the mean below which binomial draws invert the CDF from 0
// (expected cost O(mean), exact); above it gonum's rejection sampler runs
// in O(1).
const smallMean = 30

// binomial draws from Binomial(n, p).
func binomial(src *rand.PCG, n int64, p float64) int64 {
	switch {
	case n <= 0 || p <= 0:
		return 0
	case p >= 1:
		return n
	}
	if p > 0.5 {
		return n - binomial(src, n, 1-p)
	}
	if float64(n)*p < smallMean {
		return binomialInversion(src, n, p)
	}
	// gonum's Binomial.Rand uses an exact Cauchy-envelope rejection for
	// means ≥ 1; its pmf ratio is computed from lgamma, which keeps about
	// ten significant digits at n = 10⁹.
	return int64(distuv.Binomial{N: float64(n), P: p, Src: src}.Rand())
}

// binomialInversion walks the CDF of Binomial(n, p) from 0 with the pmf
// recursion f(x+1) = f(x)·(n−x)/(x+1)·p/q. It is exact up to rounding and
// costs O(np) steps, so it is used only for small means.
func binomialInversion(src *rand.PCG, n int64, p float64) int64 {
	q := 1 - p
	r := p / q
	f := math.Exp(float64(n) * math.Log1p(-p)) // P(X = 0) ≥ e^{-smallMean}·…
	u := uniform(src)
	var x int64
	for u >= f && x < n {
		u -= f
		f *= float64(n-x) / float64(x+1) * r
		x++
		if f == 0 { // rounding left u above the whole mass: the tail is empty
			break
		}
	}
	return x
}

// logFactorialStep is log((x+d)!) − log(x!) for x ≥ 0 and x+d ≥ 0, accurate
// to about 1e-14·|d| even when x is 10¹²: the difference of two lgamma
// values of 10¹³ would lose everything below 10⁻³. Large arguments use
// Stirling's series, written so that the large terms cancel analytically.
func logFactorialStep(x, d float64) float64 {
	if d == 0 {
		return 0
	}
	lo := math.Min(x, x+d)
	if lo < 1e5 {
		a, _ := math.Lgamma(x + d + 1)
		b, _ := math.Lgamma(x + 1)
		return a - b
	}
	// log Γ(z) = (z−½)log z − z + ½log 2π + 1/(12z) − 1/(360z³) + O(z⁻⁵)
	z1, z2 := x+1, x+d+1
	s := (z1-0.5)*math.Log1p(d/z1) + d*math.Log(z2) - d
	s += (1/z2 - 1/z1) / 12
	s -= (1/(z2*z2*z2) - 1/(z1*z1*z1)) / 360
	return s
}

// Ratio-of-uniforms constants for unimodal discrete laws (Stadlober 1989):
// a box of half-width D1·√(σ² + ½) + D2 around the mean + ½ encloses the
// acceptance region of every hypergeometric law.
const (
	rouD1 = 1.7155277699214135 // 2·√(2/e)
	rouD2 = 0.8989161620588988 // 3 − 2·√(3/e)
)

// hypergeometric draws the number of good items among draws items taken
// without replacement from good good and bad bad ones.
func hypergeometric(src *rand.PCG, good, bad, draws int64) int64 {
	pop := good + bad
	switch {
	case draws <= 0 || good <= 0:
		return 0
	case bad <= 0:
		return draws
	case draws >= pop:
		return good
	}
	// Draw the smaller of the sample and its complement: the goods drawn are
	// good minus the goods left behind.
	if draws > pop-draws {
		return good - hypergeometric(src, good, bad, pop-draws)
	}
	// Count the rarer kind: the goods drawn are draws minus the bads drawn.
	if good > bad {
		return draws - hypergeometric(src, bad, good, draws)
	}
	if draws < 16 {
		return hypergeometricDirect(src, good, bad, draws)
	}
	return hypergeometricRatio(src, good, bad, draws)
}

// hypergeometricDirect draws one item at a time: O(draws), exact.
func hypergeometricDirect(src *rand.PCG, good, bad, draws int64) int64 {
	var x int64
	pop := good + bad
	for range draws {
		if int64(below(src, uint64(pop))) < good {
			good--
			x++
		}
		pop--
	}
	return x
}

// hypergeometricRatio is the ratio-of-uniforms sampler (Stadlober's H2PE
// companion "HRUA") for good ≤ bad and draws ≤ (good+bad)/2, with the pmf
// ratio f(K)/f(mode) computed from logFactorialStep so that it stays exact
// for populations of 10¹².
func hypergeometricRatio(src *rand.PCG, good, bad, draws int64) int64 {
	pop := float64(good + bad)
	n, g, b := float64(draws), float64(good), float64(bad)
	p := g / pop
	mean := n * p
	variance := (pop - n) * n * p * (1 - p) / (pop - 1)
	c := math.Sqrt(variance + 0.5)
	a := mean + 0.5
	h := rouD1*c + rouD2
	mode := math.Floor((n + 1) * (g + 1) / (pop + 2))
	// Beyond 16 standard deviations the mass is below e^{-128}.
	upper := math.Min(math.Min(n, g)+1, math.Floor(a+16*c))
	for {
		u := uniform(src)
		if u == 0 {
			continue
		}
		x := a + h*(uniform(src)-0.5)/u
		if x < 0 || x >= upper {
			continue
		}
		k := math.Floor(x)
		d := k - mode
		// log f(k) − log f(mode) with f(k) ∝ 1/(k!(g−k)!(n−k)!(b−n+k)!).
		t := -(logFactorialStep(mode, d) + logFactorialStep(g-mode, -d) +
			logFactorialStep(n-mode, -d) + logFactorialStep(b-n+mode, d))
		if 2*math.Log(u) <= t {
			return int64(k)
		}
	}
}
