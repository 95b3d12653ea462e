package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

func TestMomentsMatchGonum(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	xs := make([]float64, 1000)
	var m Moments
	for i := range xs {
		xs[i] = r.NormFloat64()*3 + 1e6
		m.Add(xs[i])
	}
	mean, v := stat.MeanVariance(xs, nil)
	e := m.Estimate()
	if math.Abs(e.Mean-mean) > 1e-9 || math.Abs(e.SD-math.Sqrt(v)) > 1e-9 {
		t.Fatalf("Moments %v, gonum mean %g sd %g", e, mean, math.Sqrt(v))
	}
	h := (e.CI95[1] - e.CI95[0]) / 2
	if want := 1.962341 * e.SD / math.Sqrt(1000); math.Abs(h-want) > 1e-5 {
		t.Fatalf("half-width %g, want t(999)·sd/√n = %g", h, want)
	}
}

func TestTQuantile(t *testing.T) {
	for df, want := range map[int]float64{1: 12.7062, 9: 2.2622, 29: 2.0452, 1000: 1.9623} {
		if got := TQuantile(df); math.Abs(got-want) > 1e-4 {
			t.Errorf("t(%d) = %g, want %g", df, got, want)
		}
	}
}

// The textbook ranks of the median's 95% interval for n = 100 are 40 and
// 61, and for n = 30 are 10 and 21; a p99 cannot be bounded above with 100
// values.
func TestOrderStatisticRanks(t *testing.T) {
	for _, c := range []struct {
		n    int
		p    float64
		l, u int
	}{{100, 0.5, 40, 61}, {30, 0.5, 10, 21}} {
		if l, u := OrderStatisticRanks(c.n, c.p); l != c.l || u != c.u {
			t.Errorf("n=%d p=%g: ranks %d, %d; want %d, %d", c.n, c.p, l, u, c.l, c.u)
		}
	}
	if _, u := OrderStatisticRanks(100, 0.99); u <= 100 {
		t.Errorf("p99 of 100 values got an upper rank %d", u)
	}
}

// The order-statistic interval covers the true quantile at least 95% of the
// time: 2,000 repetitions on a discrete law (so ties are exercised), with a
// 4σ allowance below 95%.
func TestQuantileCoverage(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	law := distuv.Poisson{Lambda: 20, Src: r}
	for _, p := range []float64{0.5, 0.9, 0.99} {
		truth := 0.0
		for law.CDF(truth) < p {
			truth++
		}
		const reps, n = 2000, 1000
		covered := 0
		for range reps {
			hist := make([]int64, 80)
			for range n {
				hist[min(int(law.Rand()), 79)]++
			}
			if QuantileOf(hist, p).CI95.Contains(truth) {
				covered++
			}
		}
		floor := 0.95 - 4*math.Sqrt(0.95*0.05/reps)
		if got := float64(covered) / reps; got < floor {
			t.Errorf("p=%g: coverage %g < %g", p, got, floor)
		}
	}
}

func TestQuantileOfPoint(t *testing.T) {
	// 1…10 once each: the median is X(5) = 5.
	hist := make([]int64, 11)
	for v := 1; v <= 10; v++ {
		hist[v] = 1
	}
	if q := QuantileOf(hist, 0.5); q.Value != 5 {
		t.Fatalf("median of 1…10 = %g", q.Value)
	}
	if q := QuantileOf(nil, 0.5); !math.IsNaN(q.Value) {
		t.Fatalf("quantile of nothing = %g", q.Value)
	}
}

// The pooled latency quantile is the quantile of the mixture of the trials'
// distributions, and its interval covers the truth at the nominal rate
// (clustered by trial, each trial a random shift of a common pattern).
func TestLatencyCDF(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	// Each trial: 50 clients with latency 1…5 (10 each) plus a shift of 0
	// or 5 with probability ½ — strongly dependent within a trial. The
	// pooled law is uniform on 1…10, whose 0.75-quantile is 8.
	const reps, trials = 500, 200
	covered := 0
	for range reps {
		var c LatencyCDF
		for range trials {
			hist := make([]int64, 11)
			shift := 5 * r.IntN(2)
			for l := 1; l <= 5; l++ {
				hist[l+shift] = 10
			}
			c.Add(HistogramOf(hist))
		}
		if c.Quantile(0.75).CI95.Contains(8) {
			covered++
		}
	}
	floor := 0.95 - 4*math.Sqrt(0.95*0.05/reps)
	if got := float64(covered) / reps; got < floor {
		t.Errorf("coverage %g < %g", got, floor)
	}
}

func TestAgree(t *testing.T) {
	if !Agree(Estimate{Mean: 150}, Published{150, 0, 30}).Agrees {
		t.Error("exact equal values disagree")
	}
	if Agree(Estimate{Mean: 151}, Published{150, 0, 30}).Agrees {
		t.Error("exact different values agree")
	}
	// se = √(0.1² + (3/√30)²) ≈ 0.5568; 3.29·se ≈ 1.83.
	e := Estimate{Mean: 101.8, SD: 10, N: 10000}
	if !Agree(e, Published{100, 3, 30}).Agrees {
		t.Error("difference within 3.29 se disagrees")
	}
	e.Mean = 101.9
	if Agree(e, Published{100, 3, 30}).Agrees {
		t.Error("difference beyond 3.29 se agrees")
	}
}

func TestIntervalJSON(t *testing.T) {
	b, _ := json.Marshal(Interval{1, math.Inf(1)})
	if string(b) != "[1,null]" {
		t.Fatalf("got %s", b)
	}
	var iv Interval
	if err := json.Unmarshal(b, &iv); err != nil || iv[0] != 1 || !math.IsInf(iv[1], 1) {
		t.Fatalf("round trip: %v %v", iv, err)
	}
}

func TestEstimateScale(t *testing.T) {
	e := Estimate{Mean: 10, SD: 2, N: 5, CI95: &Interval{8, 12}}
	got := e.Scale(-0.5)
	if got.Mean != -5 || got.SD != 1 || got.N != 5 || *got.CI95 != (Interval{-6, -4}) {
		t.Errorf("Scale(-0.5) = %+v %v, want mean -5, sd 1, n 5, [-6, -4]", got, *got.CI95)
	}
	if e.CI95[0] != 8 {
		t.Error("Scale modified its receiver's interval")
	}
	if got := Exact(3).Scale(2); got.Mean != 6 || got.CI95 != nil {
		t.Errorf("Exact(3).Scale(2) = %+v, want exact 6", got)
	}
}

// Pearson's test accepts a histogram drawn from its law and rejects one
// drawn from a law with a 6% larger mean; an observation where the law has
// no mass rejects outright.
func TestChiSquare(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	draw := func(lambda float64) []int64 {
		law := distuv.Poisson{Lambda: lambda, Src: r}
		hist := make([]int64, 40)
		for range 20_000 {
			hist[min(int(law.Rand()), 39)]++
		}
		return hist
	}
	law := make([]float64, 40)
	for v := range law {
		law[v] = distuv.Poisson{Lambda: 5}.Prob(float64(v))
	}
	if fit := ChiSquare(draw(5), law, 1); fit.P < 0.001 || fit.DF < 5 {
		t.Errorf("the right law: %+v", fit)
	}
	if fit := ChiSquare(draw(5.3), law, 1); fit.P > 1e-6 {
		t.Errorf("a wrong law passes: %+v", fit)
	}
	if fit := ChiSquare([]int64{3, 1}, []float64{1, 0}, 1); fit.P != 0 || !math.IsInf(fit.ChiSquare, 1) {
		t.Errorf("an impossible observation: %+v", fit)
	}
	if fit := ChiSquare([]int64{10}, []float64{2}, 2); fit.P != 1 || fit.DF != 0 {
		t.Errorf("one bin: %+v", fit)
	}
}

// A paired difference is significant exactly when its interval excludes 0.
func TestDifference(t *testing.T) {
	var same, shifted Moments
	for _, x := range []float64{-1, 1, -2, 2, 0} {
		same.Add(x)
		shifted.Add(x + 5)
	}
	if d := same.Difference(); d.Significant || d.Mean != 0 {
		t.Errorf("centred on 0: %+v", d)
	}
	if d := shifted.Difference(); !d.Significant || d.CI95[0] <= 0 {
		t.Errorf("shifted by 5: %+v", d)
	}
	var one Moments
	one.Add(3)
	if d := one.Difference(); d.Significant {
		t.Errorf("one value is significant: %+v", d)
	}
}

// The pooled test: a reference sample whose variance is zero because a
// rare event did not happen in it agrees with an estimate that saw the
// event (the separate-errors test calls them different), while a real
// shift of several pooled standard errors disagrees.
func TestAgreePooled(t *testing.T) {
	e := Estimate{Mean: 1.0001, SD: 0.0003, N: 200}
	p := Published{Mean: 1, SD: 0, N: 20}
	if a := AgreeAt(e, p, 0.999); a.Agrees {
		t.Errorf("separate errors: z = %g agrees", a.Z)
	}
	if a := AgreePooled(e, p, 0.999); !a.Agrees || math.Abs(a.Z-0.0001/(math.Sqrt(199*0.0003*0.0003/218)*math.Sqrt(1.0/200+1.0/20))) > 1e-9 {
		t.Errorf("pooled: z = %g, agrees %v", a.Z, a.Agrees)
	}
	if a := AgreePooled(Estimate{Mean: 1.01, SD: 0.01, N: 200}, Published{Mean: 1, SD: 0.01, N: 20}, 0.999); a.Agrees {
		t.Errorf("a shift of 4.3 pooled SE agrees (z = %g)", a.Z)
	}
	if a := AgreePooled(Estimate{Mean: 1, N: 5}, Published{Mean: 1, N: 5}, 0.999); !a.Agrees {
		t.Error("equal constants disagree")
	}
}
