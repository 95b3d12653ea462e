package model

import (
	"context"
	"errors"
	"fmt"
	"github.com/herdlab/herd/policy"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// sampleN is the number of Monte Carlo paths the analyser is checked
// against.
const sampleN = 1_000_000

// testOptions is a coarser lattice than the default, so that the tests are
// quick; its bounds are still far tighter than the sampling intervals.
var testOptions = policy.DelayOptions{Cells: 1 << 16}

// samplePaths draws m paths of a policy's first k delays with a fixed seed,
// carrying the state as Law.Sample returns it: delays[n][i] is path i's
// delay n+1, waits[n][i] its total after n+1 delays.
func samplePaths(p policy.Policy, k, m int, seed uint64) (delays, waits [][]float64) {
	r := rand.New(rand.NewPCG(seed, 7))
	delays, waits = make([][]float64, k), make([][]float64, k)
	for n := range k {
		delays[n], waits[n] = make([]float64, m), make([]float64, m)
	}
	scale := 1.0
	if t := p.TickLength(); t > 0 {
		scale = t.Seconds()
	}
	for i := range m {
		state, total := p.Start(), 0.0
		for n := range k {
			d, s := p.Law(n+1, state).Sample(r.Float64())
			state, total = s, total+d
			delays[n][i], waits[n][i] = d*scale, total*scale
		}
	}
	return delays, waits
}

// orderInterval is the interval between the order statistics that contain
// the p-quantile of the law a sorted sample was drawn from with
// probability about 1 − 6e-5 (4 binomial standard deviations either side
// of rank N·p).
func orderInterval(sorted []float64, p float64) (lo, hi float64) {
	n := float64(len(sorted))
	sd := math.Sqrt(n * p * (1 - p))
	a := int(math.Floor(n*p - 4*sd - 1))
	b := int(math.Ceil(n*p + 4*sd))
	return sorted[max(a, 0)], sorted[min(b, len(sorted)-1)]
}

// agreesWithSample reports whether an exact quantile's bound meets the
// sample's order-statistic interval for it.
func agreesWithSample(b policy.Bound, sorted []float64, p float64) bool {
	lo, hi := orderInterval(sorted, p)
	return b.Hi >= lo && b.Lo <= hi
}

// meanAgrees reports whether an exact mean's bound is within 4 standard
// errors of the sample mean.
func meanAgrees(b policy.Bound, x []float64) bool {
	var s, ss float64
	for _, v := range x {
		s += v
	}
	mean := s / float64(len(x))
	for _, v := range x {
		ss += (v - mean) * (v - mean)
	}
	se := math.Sqrt(ss / float64(len(x)-1) / float64(len(x)))
	return mean >= b.Lo-4*se-1e-12*math.Abs(mean) && mean <= b.Hi+4*se+1e-12*math.Abs(mean)
}

func preset(name string) policy.Policy {
	p, ok := policy.LookupPreset(policy.Kind(name))
	if !ok {
		panic(name)
	}
	return p.Policy(0)
}

// checkSummary compares a summary with a sample of the same law.
func checkSummary(t *testing.T, what string, s policy.Summary, x []float64) {
	t.Helper()
	sorted := slices.Clone(x)
	slices.Sort(sorted)
	for _, q := range s.Quantiles() {
		if !agreesWithSample(q.Bound, sorted, q.P) {
			lo, hi := orderInterval(sorted, q.P)
			t.Errorf("%s %s: exact %+v, sample interval [%g, %g]", what, q.Name, q.Bound, lo, hi)
		}
	}
	if !meanAgrees(s.Mean, x) {
		t.Errorf("%s mean: exact %+v, sample mean differs by more than 4 standard errors", what, s.Mean)
	}
	if s.Min.Lo > sorted[0] || s.Max.Hi < sorted[len(sorted)-1] {
		t.Errorf("%s: sample range [%g, %g] outside the support [%g, %g]", what, sorted[0], sorted[len(sorted)-1], s.Min.Lo, s.Max.Hi)
	}
}

// TestDelaysAgainstSampling checks the exact laws of delays and totals of
// policies of every kind the analyser handles — independent (uniform,
// clamped, stepped, point masses), the monotone chain (decorrelated) and
// the increment chain (Polly) — against 10⁶ sampled paths.
func TestDelaysAgainstSampling(t *testing.T) {
	polly := preset("polly-v8-expo-jitter")
	polly.Retries = 4
	policies := []policy.Policy{
		polly,
		{Kind: policy.Decorrelated, Base: 1, Cap: 32},
		{Kind: policy.Full, Base: 1, Cap: 32},
		preset("go-retry-expo-jitter"),
		preset("gcloud-truncated-expo"),
		preset("grpc-go-connect"),
		preset("aws-go-v2-legacy"),
	}
	if testing.Short() || !longSuite { // all seven under -tags long
		policies = policies[:2]
	}
	for i, p := range policies {
		t.Run(string(p.Kind), func(t *testing.T) {
			const k = 6
			a, err := policy.Delays(p, k, testOptions)
			if err != nil {
				t.Fatal(err)
			}
			delays, waits := samplePaths(p, k, sampleN, uint64(i+1))
			for n := range k {
				checkSummary(t, fmt.Sprintf("delay %d", n+1), a.Rows[n].Delay, delays[n])
				checkSummary(t, fmt.Sprintf("wait %d", n+1), a.Rows[n].Wait, waits[n])
			}
		})
	}
}

// TestPollyMedians: Polly v8's V2 formula is built so that the retry
// times — the total wait until retry n — have medians near f·2ⁿ⁻¹; an
// independent computation of the medians of the total wait from its
// formula gives 0.90f, 1.99f, 4.03f and 8.07f for the first four
// (f = the configured Delay, 2 s by default). The delays themselves, the
// increments, have medians 0.90f, 1.14f, 2.02f, 4.01f.
func TestPollyMedians(t *testing.T) {
	p := preset("polly-v8-expo-jitter")
	p.Retries = 4
	a, err := policy.Delays(p, 4, policy.DelayOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const f = 2.0 // the preset's Delay, in seconds
	wantWait := []float64{0.90, 1.99, 4.03, 8.07}
	wantDelay := []float64{0.90, 1.14, 2.02, 4.01}
	for n, r := range a.Rows {
		if got := r.Wait.Median.Value / f; math.Abs(got-wantWait[n]) > 0.005 {
			t.Errorf("median total wait until retry %d = %.4ff, want %.2ff", n+1, got, wantWait[n])
		}
		if got := r.Delay.Median.Value / f; math.Abs(got-wantDelay[n]) > 0.005 {
			t.Errorf("median delay %d = %.4ff, want %.2ff", n+1, got, wantDelay[n])
		}
		if e := math.Max(r.Wait.Median.RelErr(), r.Delay.Median.RelErr()); e > 1e-4 {
			t.Errorf("retry %d: median known only to %.2g relative", n+1, e)
		}
	}
	// The total is (f/1.4)·w(n − 1 + U): its largest value is (f/1.4)·w(n),
	// the answer to "what is the maximum total delay of V2?".
	for n, r := range a.Rows {
		want := f / 1.4 * math.Exp2(float64(n+1)) * math.Tanh(math.Sqrt(4*float64(n+1)))
		if math.Abs(r.Wait.Max.Value-want) > 1e-9*want {
			t.Errorf("largest total wait until retry %d = %g, want %g", n+1, r.Wait.Max.Value, want)
		}
	}
	if a.GiveUp == nil || a.GiveUp.Max != a.Rows[3].Wait.Max || !a.GiveUp.Proven {
		t.Errorf("give-up time with 4 retries: %+v, want the total wait until retry 4", a.GiveUp)
	}
}

// TestPollySampleCheckCanFail plants an error in the exact medians — 1%,
// and the first delay's median moved to the first total's second retry —
// and asserts that the sampling check rejects it.
func TestPollySampleCheckCanFail(t *testing.T) {
	p := preset("polly-v8-expo-jitter")
	p.Retries = 2
	a, err := policy.Delays(p, 2, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	delays, waits := samplePaths(p, 2, sampleN, 1)
	sorted := slices.Clone(delays[1])
	slices.Sort(sorted)
	if !agreesWithSample(a.Rows[1].Delay.Median, sorted, 0.5) {
		t.Fatal("the true median fails the check")
	}
	off := a.Rows[1].Delay.Median.Times(1.01)
	if agreesWithSample(off, sorted, 0.5) {
		t.Error("a median 1% off passes the sampling check")
	}
	// Confusing the delay with the total (the slip that makes Polly's delays
	// look like 0.90f, 1.99f, …) must fail too.
	if agreesWithSample(a.Rows[1].Wait.Median, sorted, 0.5) {
		t.Error("the median of the total passes as the median of the delay")
	}
	if meanAgrees(a.Rows[1].Wait.Mean.Times(1.001), waits[1]) {
		t.Error("a mean 0.1% off passes the 4σ check")
	}
}

// TestExpoClosedForm: expo's delays are certain, so the total until retry n
// is Σₖ min(cap, base·2ᵏ), exactly (dyadic values) or within the bound.
func TestExpoClosedForm(t *testing.T) {
	for _, p := range []policy.Policy{{Kind: policy.Expo, Base: 1, Cap: 32}, {Kind: policy.Expo, Base: 0.3, Cap: 10}, {Kind: policy.Fixed, FixedDelay: 2.5}} {
		a, err := policy.Delays(p, 12, testOptions)
		if err != nil {
			t.Fatal(err)
		}
		total := 0.0
		for n, r := range a.Rows {
			d := math.Min(p.Cap, p.Base*math.Exp2(float64(n+1)))
			if p.Kind == policy.Fixed {
				d = p.FixedDelay
			}
			total += d
			for _, b := range []policy.Bound{r.Wait.Median, r.Wait.Mean, r.Wait.P10, r.Wait.P99, r.Wait.Min, r.Wait.Max} {
				if b.Lo > total*(1+1e-12) || b.Hi < total*(1-1e-12) || b.Err() > 1e-6*total {
					t.Errorf("%s wait %d: %+v, want %g", p.Kind, n+1, b, total)
				}
			}
			if p.Base == 1 && (r.Wait.Median.Lo != total || r.Wait.Median.Hi != total) {
				t.Errorf("%s wait %d: %+v, want exactly %g (dyadic)", p.Kind, n+1, r.Wait.Median, total)
			}
			if r.Delay.Median.Lo > d || r.Delay.Median.Hi < d {
				t.Errorf("%s delay %d: %+v, want %g", p.Kind, n+1, r.Delay.Median, d)
			}
		}
	}
}

// uniformSumCDF is P(U₁ + … + Uₙ ≤ x) for independent Uᵢ on [0, wᵢ]:
// Σ over subsets S of (−1)^|S| (x − Σ_S w)₊ⁿ / (n! Π w).
func uniformSumCDF(w []float64, x float64) float64 {
	n := len(w)
	s, prod := 0.0, 1.0
	for _, v := range w {
		prod *= v
	}
	for mask := 0; mask < 1<<n; mask++ {
		shift, sign := 0.0, 1.0
		for i := range n {
			if mask&(1<<i) != 0 {
				shift += w[i]
				sign = -sign
			}
		}
		if x > shift {
			s += sign * math.Pow(x-shift, float64(n))
		}
	}
	fact := 1.0
	for i := 2; i <= n; i++ {
		fact *= float64(i)
	}
	return s / (fact * prod)
}

// TestFullClosedForm: full jitter's total is a sum of independent
// uniforms U(0, dₖ); with dₖ all equal (cap = 2·base) it is Irwin–Hall.
// The analyser's CDF and quantile bounds must contain the closed form.
func TestFullClosedForm(t *testing.T) {
	for _, p := range []policy.Policy{{Kind: policy.Full, Base: 1, Cap: 2}, {Kind: policy.Full, Base: 1, Cap: 1e6}} {
		a, err := policy.Delays(p, 6, testOptions)
		if err != nil {
			t.Fatal(err)
		}
		var w []float64
		for n, r := range a.Rows {
			w = append(w, p.Ceiling(n+1))
			sum := 0.0
			for _, v := range w {
				sum += v
			}
			if r.Wait.Mean.Lo > sum/2 || r.Wait.Mean.Hi < sum/2 {
				t.Errorf("%g: mean of wait %d = %+v, want %g", p.Cap, n+1, r.Wait.Mean, sum/2)
			}
			for _, x := range []float64{0.1, 0.37, 0.5, 0.81} {
				got, want := a.Waits[n].CDF(x*sum), uniformSumCDF(w, x*sum)
				// The figure's coarse lattice (4096 cells) bounds the CDF.
				if got.Lo > want+1e-9 || got.Hi < want-1e-9 {
					t.Errorf("cap %g: P(wait %d ≤ %g) = %+v, closed form %g", p.Cap, n+1, x*sum, got, want)
				}
			}
			for _, q := range r.Wait.Quantiles() {
				if f := uniformSumCDF(w, q.Bound.Lo); f > q.P+1e-9 {
					t.Errorf("cap %g wait %d %s: lower end %g has CDF %g > %g", p.Cap, n+1, q.Name, q.Bound.Lo, f, q.P)
				}
				if f := uniformSumCDF(w, q.Bound.Hi); f < q.P-1e-9 {
					t.Errorf("cap %g wait %d %s: upper end %g has CDF %g < %g", p.Cap, n+1, q.Name, q.Bound.Hi, f, q.P)
				}
			}
		}
	}
}

// TestDecorrelatedClosedForm: without a cap, decorrelated's delay has
// E[Xₙ | Xₙ₋₁] = (base + 3·Xₙ₋₁)/2, so E[Xₙ] = base·(2·1.5ⁿ − 1).
func TestDecorrelatedClosedForm(t *testing.T) {
	p := policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 1e9}
	a, err := policy.Delays(p, 8, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	total := 0.0
	for n, r := range a.Rows {
		m := 2*math.Pow(1.5, float64(n+1)) - 1
		total += m
		if r.Delay.Mean.Lo > m || r.Delay.Mean.Hi < m {
			t.Errorf("mean delay %d = %+v, want %g", n+1, r.Delay.Mean, m)
		}
		if r.Wait.Mean.Lo > total || r.Wait.Mean.Hi < total {
			t.Errorf("mean wait %d = %+v, want %g", n+1, r.Wait.Mean, total)
		}
		if want := math.Pow(3, float64(n+1)); r.Delay.Max.Value != want {
			t.Errorf("largest delay %d = %g, want 3^n = %g", n+1, r.Delay.Max.Value, want)
		}
	}
}

// TestGiveUpElapsed checks cenkalti's time to give up (15 minutes of
// elapsed time) against sampled paths, and that a retry limit alone
// makes it the total wait until the last retry.
func TestGiveUpElapsed(t *testing.T) {
	p := preset("cenkalti-v4")
	a, err := policy.Delays(p, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	g := a.GiveUp
	if g == nil || g.Proven || g.Unresolved > 1e-12 {
		t.Fatalf("give-up: %+v", g)
	}
	r := rand.New(rand.NewPCG(5, 7))
	limit := p.MaxElapsed.Seconds()
	x := make([]float64, 200_000)
	for i := range x {
		s := 0.0
		for n := 1; ; n++ {
			d := p.Law(n, 0).Draw(r.Float64()) // seconds: the default tick is 1 s
			if s+d > limit {
				break
			}
			s += d
		}
		x[i] = s
	}
	checkSummary(t, "give-up", g.Summary, x)

	q := policy.Policy{Kind: policy.Full, Base: 1, Cap: 32, Retries: 5}
	b, err := policy.Delays(q, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	w, _ := policy.WaitLaw(q, 5, testOptions)
	if b.GiveUp == nil || !b.GiveUp.Proven || b.GiveUp.Summary != w.Summary() {
		t.Errorf("give-up with 5 retries: %+v, want the total wait until retry 5 %+v", b.GiveUp, w.Summary())
	}
}

// TestDelayLawMatchesDelays: the one-retry entry points agree with the
// analysis.
func TestDelayLawMatchesDelays(t *testing.T) {
	p := preset("polly-v8-expo-jitter")
	a, err := policy.Delays(p, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	d, err := policy.DelayLaw(p, 3, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if d.Summary() != a.Rows[2].Delay {
		t.Errorf("DelayLaw(3) = %+v, Delays row 3 = %+v", d.Summary(), a.Rows[2].Delay)
	}
	if _, err := policy.Delays(p, 0, testOptions); err == nil {
		t.Error("count 0 accepted")
	}
	if a.Unit != "s" {
		t.Errorf("a preset's unit is %q, want s", a.Unit)
	}
	b, err := policy.Delays(policy.Policy{Kind: policy.Full, Base: 100, Cap: 400, Tick: 10 * time.Millisecond}, 1, testOptions)
	if err != nil {
		t.Fatal(err)
	}
	if b.Unit != "s" || math.Abs(b.Rows[0].Delay.Mean.Value-1) > 1e-6 {
		t.Errorf("full, base 100 ticks of 10ms: mean first delay %+v %s, want 1 s", b.Rows[0].Delay.Mean, b.Unit)
	}
}

// ExampleDelays prints the medians of Polly v8's first delays and of the
// total wait until each retry (Delay 2 s, 4 retries).
func ExampleDelays() {
	p, _ := policy.LookupPreset("polly-v8-expo-jitter")
	pol := p.Policy(0)
	pol.Retries = 4
	a, err := policy.Delays(pol, 4, policy.DelayOptions{Cells: 1 << 16})
	if err != nil {
		panic(err)
	}
	for _, r := range a.Rows {
		fmt.Printf("retry %d: median delay %.3f %s, median total wait %.3f %s\n", r.N, r.Delay.Median.Value, a.Unit, r.Wait.Median.Value, a.Unit)
	}
	fmt.Printf("longest total wait: %.3f %s\n", a.GiveUp.Max.Value, a.Unit)
	// Output:
	// retry 1: median delay 1.795 s, median total wait 1.795 s
	// retry 2: median delay 2.278 s, median total wait 3.981 s
	// retry 3: median delay 4.036 s, median total wait 8.052 s
	// retry 4: median delay 8.013 s, median total wait 16.144 s
	// longest total wait: 22.842 s
}

// A cancelled analysis stops between lattice operations, whichever way it
// computes the laws: each run below takes tens of seconds to the end (200
// retries on the default lattice), and must return the context's error
// within a few seconds of a cancel at 50 ms.
func TestDelaysStopWhenCancelled(t *testing.T) {
	for _, c := range []struct {
		name string
		p    policy.Policy
	}{
		{"independent laws", policy.Policy{Kind: policy.Full, Base: 1, Cap: 1 << 20}},
		{"the lattice chain", policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 1 << 20}},
		{"increments of a curve", preset("polly-v8-expo-jitter")},
		{"time to give up", preset("cenkalti-v4")},
	} {
		ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
		start := time.Now()
		_, err := policy.Delays(c.p, policy.MaxDelayRetries, policy.DelayOptions{Context: ctx})
		cancel()
		if took := time.Since(start); took > 5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v after %v, want the context's error within 5 s", c.name, err, took.Round(time.Millisecond))
		}
	}
}
