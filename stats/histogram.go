package stats

import (
	"fmt"
	"math"
	"sort"
	"strings"
)

// Histogram counts integer values — a trial's client latencies in ticks,
// the completions of a run's trials — as runs of equal values in
// increasing order. Its memory grows with the number of distinct values,
// not with the largest one: a latency of 10⁸ ticks takes one run, where a
// slice indexed by the value would take 800 MB. The zero value is empty.
type Histogram struct {
	runs []Run
}

// A Run is Count values equal to Value (Count > 0).
type Run struct {
	Value, Count int64
}

// HistogramOf is the histogram of a dense count slice (dense[v] values
// equal to v).
func HistogramOf(dense []int64) Histogram {
	var h Histogram
	for v, c := range dense {
		h.Add(int64(v), c)
	}
	return h
}

// Add counts n more values equal to v; n ≤ 0 adds nothing. Values mostly
// come in increasing order (latencies grow with the tick), which appends;
// a smaller value is inserted in place.
func (h *Histogram) Add(v, n int64) {
	if n <= 0 {
		return
	}
	last := len(h.runs) - 1
	switch {
	case last < 0 || v > h.runs[last].Value:
		h.runs = append(h.runs, Run{v, n})
		return
	case v == h.runs[last].Value:
		h.runs[last].Count += n
		return
	}
	i := sort.Search(len(h.runs), func(i int) bool { return h.runs[i].Value >= v })
	if h.runs[i].Value == v {
		h.runs[i].Count += n
		return
	}
	h.runs = append(h.runs, Run{})
	copy(h.runs[i+1:], h.runs[i:])
	h.runs[i] = Run{v, n}
}

// Reset empties the histogram, keeping its storage for reuse.
func (h *Histogram) Reset() { h.runs = h.runs[:0] }

// Runs are the histogram's distinct values with their counts, in
// increasing order of value. The slice is the histogram's own: do not
// modify it.
func (h Histogram) Runs() []Run { return h.runs }

// Distinct is the number of distinct values counted.
func (h Histogram) Distinct() int { return len(h.runs) }

// Total is the number of values counted.
func (h Histogram) Total() int64 {
	var n int64
	for _, r := range h.runs {
		n += r.Count
	}
	return n
}

// Max is the largest value counted, or -1 when empty.
func (h Histogram) Max() int64 {
	if len(h.runs) == 0 {
		return -1
	}
	return h.runs[len(h.runs)-1].Value
}

// Count is the number of values equal to v.
func (h Histogram) Count(v int64) int64 {
	i := sort.Search(len(h.runs), func(i int) bool { return h.runs[i].Value >= v })
	if i < len(h.runs) && h.runs[i].Value == v {
		return h.runs[i].Count
	}
	return 0
}

// Mean is the mean of the values counted; false when empty.
func (h Histogram) Mean() (float64, bool) {
	var n, sum int64
	for _, r := range h.runs {
		n += r.Count
		sum += r.Value * r.Count
	}
	if n == 0 {
		return 0, false
	}
	return float64(sum) / float64(n), true
}

// Clone is a copy that shares no storage with h.
func (h Histogram) Clone() Histogram {
	return Histogram{runs: append([]Run(nil), h.runs...)}
}

// Dense is the histogram as a slice indexed by value (dense[v] values equal
// to v), for tests and small histograms.
func (h Histogram) Dense() []int64 {
	d := make([]int64, h.Max()+1)
	for _, r := range h.runs {
		d[r.Value] = r.Count
	}
	return d
}

// String lists the runs as value:count.
func (h Histogram) String() string {
	parts := make([]string, len(h.runs))
	for i, r := range h.runs {
		parts[i] = fmt.Sprintf("%d:%d", r.Value, r.Count)
	}
	return "{" + strings.Join(parts, " ") + "}"
}

// Quantile is the p-quantile X(⌈np⌉) of the values counted with its exact
// order-statistic interval.
func (h Histogram) Quantile(p float64) Quantile {
	n := h.Total()
	q := Quantile{P: p, Value: math.NaN(), CI95: Interval{math.Inf(-1), math.Inf(1)}}
	if n == 0 {
		return q
	}
	l, u := OrderStatisticRanks(int(n), p)
	rank := max(1, int64(math.Ceil(float64(n)*p)))
	q.Value = float64(h.rank(rank))
	if l >= 1 {
		q.CI95[0] = float64(h.rank(int64(l)))
	}
	if u <= int(n) {
		q.CI95[1] = float64(h.rank(int64(u)))
	}
	return q
}

// rank is the r-th smallest (1-based) value counted, r ≤ Total.
func (h Histogram) rank(r int64) int64 {
	var seen int64
	for _, run := range h.runs {
		seen += run.Count
		if seen >= r {
			return run.Value
		}
	}
	return h.Max()
}
