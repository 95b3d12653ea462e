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
//
// Every F_i is a step function that only rises at the latencies trial i
// saw, so the sums are kept at the union of those latencies alone (memory
// grows with the distinct latencies, not with the largest): between two
// points of the union every F_i, hence every sum, is the one at the point
// below.
type LatencyCDF struct {
	n       int
	at      []int64   // the latencies any folded trial saw, increasing
	sum, sq []float64 // Σ F_i(x) and Σ F_i(x)² over trials at x = at[j]
}

// Add folds one trial's latency histogram.
func (c *LatencyCDF) Add(hist Histogram) {
	total := hist.Total()
	if total == 0 {
		return
	}
	c.insert(hist.Runs())
	c.n++
	runs := hist.Runs()
	var cum int64
	r := 0
	for j, x := range c.at {
		for r < len(runs) && runs[r].Value <= x {
			cum += runs[r].Count
			r++
		}
		f := float64(cum) / float64(total)
		c.sum[j] += f
		c.sq[j] += f * f
	}
}

// insert adds the runs' values missing from at, each with the sums of the
// point below it (the earlier trials' F_i do not rise in between), or 0
// below every point (no earlier trial had served anyone yet). It merges
// from the back, in place.
func (c *LatencyCDF) insert(runs []Run) {
	missing, j := 0, 0
	for _, r := range runs {
		for j < len(c.at) && c.at[j] < r.Value {
			j++
		}
		if j == len(c.at) || c.at[j] != r.Value {
			missing++
		}
	}
	if missing == 0 {
		return
	}
	old := len(c.at)
	for range missing {
		c.at, c.sum, c.sq = append(c.at, 0), append(c.sum, 0), append(c.sq, 0)
	}
	// i walks the old points, k the runs, w the slots, all from the back.
	i, k := old-1, len(runs)-1
	for w := len(c.at) - 1; w >= 0 && k >= 0; w-- {
		switch {
		case i >= 0 && c.at[i] >= runs[k].Value:
			if c.at[i] == runs[k].Value {
				k--
			}
			c.at[w], c.sum[w], c.sq[w] = c.at[i], c.sum[i], c.sq[i]
			i--
		default: // runs[k].Value is new: it takes the sums of the point below
			c.at[w], c.sum[w], c.sq[w] = runs[k].Value, 0, 0
			if i >= 0 {
				c.sum[w], c.sq[w] = c.sum[i], c.sq[i]
			}
			k--
		}
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
	// The first latency where a condition holds is 0, where every F_i is
	// still 0 (no client is served within 0 ticks), or a point of the union.
	check := func(x int64, sum, sq float64) {
		f := sum / n
		se := 0.0
		if c.n >= 2 {
			v := (sq - n*f*f) / (n - 1)
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
	if len(c.at) == 0 || c.at[0] > 0 {
		check(0, 0, 0)
	}
	for j, x := range c.at {
		check(x, c.sum[j], c.sq[j])
	}
	return q
}
