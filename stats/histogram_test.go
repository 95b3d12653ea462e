package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// A histogram keeps one run per distinct value whatever the order of
// additions, and a value of 10¹² takes one run.
func TestHistogramRuns(t *testing.T) {
	var h Histogram
	for _, v := range []int64{5, 3, 5, 9, 1, 3, 1e12, 0} {
		h.Add(v, 1)
	}
	h.Add(7, 0) // adds nothing
	if got, want := h.String(), "{0:1 1:1 3:2 5:2 9:1 1000000000000:1}"; got != want {
		t.Fatalf("runs %s, want %s", got, want)
	}
	if h.Total() != 8 || h.Distinct() != 6 || h.Max() != 1e12 || h.Count(3) != 2 || h.Count(4) != 0 {
		t.Fatalf("total %d distinct %d max %d", h.Total(), h.Distinct(), h.Max())
	}
	h.Reset()
	if _, ok := h.Mean(); ok || h.Max() != -1 {
		t.Fatal("a reset histogram is not empty")
	}
}

// denseCDF is the pooled latency CDF kept at every latency 0, 1, …, the
// definition the sparse LatencyCDF must reproduce bit for bit.
type denseCDF struct {
	n       int
	sum, sq []float64
}

func (c *denseCDF) add(hist []int64) {
	var total int64
	for _, h := range hist {
		total += h
	}
	if total == 0 {
		return
	}
	c.n++
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

func (c *denseCDF) quantile(p float64) Quantile {
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

// The sparse fold gives the dense definition's quantiles and intervals
// exactly, for trials whose supports overlap, nest, precede and follow one
// another, and so does Histogram.Quantile against the dense order
// statistics.
func TestLatencyCDFSparseIsDense(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for rep := range 300 {
		var sparse LatencyCDF
		var dense denseCDF
		var all Histogram
		var allDense []int64
		for range 1 + r.IntN(40) {
			hist := make([]int64, 1+r.IntN(60))
			lo := r.IntN(len(hist))
			for range r.IntN(8) {
				v := lo + r.IntN(len(hist)-lo)
				hist[v] += int64(1 + r.IntN(5))
			}
			sparse.Add(HistogramOf(hist))
			dense.add(hist)
			for v, c := range hist {
				all.Add(int64(v), c)
				for len(allDense) <= v {
					allDense = append(allDense, 0)
				}
				allDense[v] += c
			}
		}
		for _, p := range []float64{1e-13, 0.01, 0.25, 0.5, 0.9, 0.99, 1} {
			if a, b := sparse.Quantile(p), dense.quantile(p); a != b && !(math.IsNaN(a.Value) && math.IsNaN(b.Value)) {
				t.Fatalf("rep %d p %g: sparse %+v, dense %+v", rep, p, a, b)
			}
			a, b := all.Quantile(p), denseQuantile(allDense, p)
			if a != b && !(math.IsNaN(a.Value) && math.IsNaN(b.Value)) {
				t.Fatalf("rep %d p %g: histogram %+v, dense %+v", rep, p, a, b)
			}
		}
	}
}

// denseQuantile is the order-statistic quantile read off a dense histogram.
func denseQuantile(hist []int64, p float64) Quantile {
	var vals []float64
	for v, c := range hist {
		for range c {
			vals = append(vals, float64(v))
		}
	}
	return QuantileOfSorted(vals, p)
}
