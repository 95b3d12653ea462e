package montecarlo

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// lf is log(x!) straight from lgamma: independent of logFactorialStep, and
// precise enough (better than 1e-7) for the populations these tests use.
func lf(x float64) float64 { v, _ := math.Lgamma(x + 1); return v }

func hyperLogPMF(good, bad, draws int64) func(int64) float64 {
	g, b, n := float64(good), float64(bad), float64(draws)
	norm := lf(g) + lf(b) - lf(g+b) + lf(n) + lf(g+b-n)
	return func(x int64) float64 {
		k := float64(x)
		if k < 0 || k > g || n-k < 0 || n-k > b {
			return math.Inf(-1)
		}
		return norm - lf(k) - lf(g-k) - lf(n-k) - lf(b-n+k)
	}
}

func binomLogPMF(n int64, p float64) func(int64) float64 {
	fn := float64(n)
	return func(x int64) float64 {
		k := float64(x)
		if k < 0 || k > fn {
			return math.Inf(-1)
		}
		return lf(fn) - lf(k) - lf(fn-k) + k*math.Log(p) + (fn-k)*math.Log1p(-p)
	}
}

// chiSquareP is the p-value of Pearson's goodness-of-fit test of values
// against a pmf on [lo, hi] (the mass outside is below e^{-70}), with
// adjacent cells pooled until each expects at least 5 values.
func chiSquareP(values []int64, lo, hi int64, logPMF func(int64) float64) (p float64, cells int) {
	n := float64(len(values))
	obs := make([]float64, hi-lo+1)
	for _, v := range values {
		obs[min(max(v, lo), hi)-lo]++
	}
	var stat, e, o, total float64
	pmf := make([]float64, len(obs))
	for i := range pmf {
		pmf[i] = math.Exp(logPMF(lo + int64(i)))
		total += pmf[i]
	}
	var pooled [][2]float64
	for i := range obs {
		e += n * pmf[i] / total
		o += obs[i]
		if e >= 5 {
			pooled = append(pooled, [2]float64{o, e})
			e, o = 0, 0
		}
	}
	if len(pooled) == 0 {
		return 1, 0
	}
	pooled[len(pooled)-1][0] += o
	pooled[len(pooled)-1][1] += e
	for _, c := range pooled {
		stat += (c[0] - c[1]) * (c[0] - c[1]) / c[1]
	}
	if len(pooled) < 2 {
		return 1, len(pooled)
	}
	return distuv.ChiSquared{K: float64(len(pooled) - 1)}.Survival(stat), len(pooled)
}

type samplerCase struct {
	name   string
	draw   func(*rand.PCG) int64
	logPMF func(int64) float64
	mean   float64
	sd     float64
}

func hyperCase(good, bad, draws int64) samplerCase {
	pop := float64(good + bad)
	p := float64(good) / pop
	v := float64(draws) * p * (1 - p) * (pop - float64(draws)) / math.Max(1, pop-1)
	return samplerCase{
		name:   fmt.Sprintf("hypergeometric(good=%d,bad=%d,draws=%d)", good, bad, draws),
		draw:   func(s *rand.PCG) int64 { return hypergeometric(s, good, bad, draws) },
		logPMF: hyperLogPMF(good, bad, draws),
		mean:   float64(draws) * p, sd: math.Sqrt(v),
	}
}

func binomCase(n int64, p float64) samplerCase {
	return samplerCase{
		name:   fmt.Sprintf("binomial(n=%d,p=%g)", n, p),
		draw:   func(s *rand.PCG) int64 { return binomial(s, n, p) },
		logPMF: binomLogPMF(n, p),
		mean:   float64(n) * p, sd: math.Sqrt(float64(n) * p * (1 - p)),
	}
}

// checkSampler draws values and returns the chi-square p-value against the
// exact pmf.
func checkSampler(c samplerCase, samples int, seed uint64) (float64, int) {
	src := rand.NewPCG(seed, 7)
	values := make([]int64, samples)
	for i := range values {
		values[i] = c.draw(src)
	}
	lo := int64(math.Max(0, math.Floor(c.mean-12*c.sd-1)))
	hi := int64(math.Ceil(c.mean + 12*c.sd + 1))
	return chiSquareP(values, lo, hi, c.logPMF)
}

// samplerCases cover every branch: direct and ratio-of-uniforms
// hypergeometric (with both symmetries and the Stirling path of
// logFactorialStep), inversion and rejection binomials.
func samplerCases() []samplerCase {
	return []samplerCase{
		hyperCase(5, 7, 4),
		hyperCase(30, 70, 20),
		hyperCase(500, 300, 100),
		hyperCase(50, 5000, 900),
		hyperCase(1000, 1000, 1500),
		hyperCase(20, 1_000_000, 50_000),
		hyperCase(100_000, 1_000_000, 100_000),
		hyperCase(3_000_000, 4_000_000, 2_000_000),
		binomCase(10, 0.3),
		binomCase(1000, 0.01),
		binomCase(100, 0.7),
		binomCase(1_000_000, 0.2),
		binomCase(1_000_000_000, 1e-8),
		binomCase(1_000_000_000, 0.4),
	}
}

// TestSamplersMatchExactLaws runs Pearson's test on each sampler against
// its exact pmf; the family of tests is held at 99.9% by Bonferroni.
func TestSamplersMatchExactLaws(t *testing.T) {
	cases := samplerCases()
	alpha := 0.001 / float64(len(cases))
	for i, c := range cases {
		p, cells := checkSampler(c, 100_000, uint64(i+1))
		t.Logf("%s: p = %.3g over %d cells", c.name, p, cells)
		if cells < 2 && c.sd > 1 {
			t.Errorf("%s: only %d cells", c.name, cells)
		}
		if p < alpha {
			t.Errorf("%s: chi-square p = %.3g over %d cells, below %.3g", c.name, p, cells, alpha)
		}
	}
}

// TestSamplerCheckCanFail shows that the same check rejects a sampler whose
// law is slightly off: 2% more good items than the pmf says.
func TestSamplerCheckCanFail(t *testing.T) {
	right := hyperCase(500, 1500, 400)
	wrong := hyperCase(510, 1490, 400)
	wrong.logPMF, wrong.mean, wrong.sd = right.logPMF, right.mean, right.sd
	if p, cells := checkSampler(wrong, 100_000, 3); p >= 0.001/float64(len(samplerCases())) {
		t.Errorf("a hypergeometric with 2%% more good items passed the check: p = %.3g over %d cells", p, cells)
	}
}

// TestLogFactorialStep compares the Stirling path with a direct sum of logs.
func TestLogFactorialStep(t *testing.T) {
	for _, c := range []struct{ x, d float64 }{{2e5, 37}, {1e6, -250}, {5e7, 1000}, {1e5, 3}} {
		want := 0.0
		if c.d > 0 {
			for i := 1.0; i <= c.d; i++ {
				want += math.Log(c.x + i)
			}
		} else {
			for i := 0.0; i < -c.d; i++ {
				want -= math.Log(c.x - i)
			}
		}
		if got := logFactorialStep(c.x, c.d); math.Abs(got-want) > 1e-9*math.Abs(want) {
			t.Errorf("logFactorialStep(%g, %g) = %.15g, want %.15g", c.x, c.d, got, want)
		}
	}
}

// BenchmarkSamplers shows that draws cost the same at n = 10⁴ and 10⁹.
func BenchmarkSamplers(b *testing.B) {
	src := rand.NewPCG(1, 2)
	for _, n := range []int64{10_000, 1_000_000_000} {
		b.Run(fmt.Sprintf("binomial/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				binomial(src, n, 0.3)
			}
		})
		b.Run(fmt.Sprintf("hypergeometric/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				hypergeometric(src, n/3, n-n/3, n/10)
			}
		})
	}
}
