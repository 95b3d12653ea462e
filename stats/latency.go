package stats

import "math"

// LatencyCDF accumulates, over trials, each trial's empirical distribution
// function of client latency, F_i(x) = share of the trial's clients served
// within x ticks. Latencies of the clients of one trial are dependent, so
// the trial — not the client — is the independent unit: the pooled
// distribution F(x) = mean over trials of F_i(x) gets a standard error from
// the spread of F_i(x) across trials, and a quantile's interval comes from
// inverting those pointwise intervals (Woodruff's method with clustered
// standard errors).
type LatencyCDF struct {
	n       int
	sum, sq []float64 // Σ F_i(x) and Σ F_i(x)² over trials, x = 0, 1, …
}

// Add folds one trial's latency histogram (hist[l] clients with latency l).
func (c *LatencyCDF) Add(hist []int64) {
	var total int64
	for _, h := range hist {
		total += h
	}
	if total == 0 {
		return
	}
	c.n++
	// Extend earlier trials' CDFs, which are 1 beyond their support.
	for len(c.sum) < len(hist) {
		c.sum = append(c.sum, float64(c.n-1))
		c.sq = append(c.sq, float64(c.n-1))
	}
	var cum int64
	for x := range c.sum {
		if x < len(hist) {
			cum += hist[x]
		}
		f := float64(cum) / float64(total)
		c.sum[x] += f
		c.sq[x] += f * f
	}
}

// Quantile is the p-quantile of the pooled latency distribution with its
// 95% interval; NaN when no trial was folded.
func (c *LatencyCDF) Quantile(p float64) Quantile {
	q := Quantile{P: p, Value: math.NaN(), CI95: Interval{math.Inf(-1), math.Inf(1)}}
	if c.n == 0 {
		return q
	}
	n := float64(c.n)
	t := math.Inf(1)
	if c.n >= 2 {
		t = TQuantile(c.n - 1)
	}
	found := [3]bool{}
	for x := range c.sum {
		f := c.sum[x] / n
		se := 0.0
		if c.n >= 2 {
			v := (c.sq[x] - n*f*f) / (n - 1)
			se = math.Sqrt(math.Max(v, 0) / n)
		}
		hi, lo := f+t*se, f-t*se
		if !found[0] && hi >= p {
			q.CI95[0], found[0] = float64(x), true
		}
		if !found[1] && f >= p-1e-12 {
			q.Value, found[1] = float64(x), true
		}
		if !found[2] && lo >= p {
			q.CI95[1], found[2] = float64(x), true
		}
	}
	return q
}
