package stats

import (
	"encoding/json"
	"math"
	"sort"

	"gonum.org/v1/gonum/stat/distuv"
)

// Confidence is the level of every interval herd reports.
const Confidence = 0.95

// Interval is a confidence interval [Lo, Hi]. An end that the data cannot
// bound (too few trials for a tail quantile) is infinite and is written as
// null in JSON.
type Interval [2]float64

// MarshalJSON writes [lo, hi] with null for an infinite end.
func (iv Interval) MarshalJSON() ([]byte, error) {
	end := func(x float64) any {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return nil
		}
		return x
	}
	return json.Marshal([2]any{end(iv[0]), end(iv[1])})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (iv *Interval) UnmarshalJSON(b []byte) error {
	var v [2]*float64
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	iv[0], iv[1] = math.Inf(-1), math.Inf(1)
	if v[0] != nil {
		iv[0] = *v[0]
	}
	if v[1] != nil {
		iv[1] = *v[1]
	}
	return nil
}

// Contains reports whether x lies in the interval.
func (iv Interval) Contains(x float64) bool { return iv[0] <= x && x <= iv[1] }

// Estimate is a mean with its standard deviation, sample size and 95%
// Student-t interval. An exact value has N = 0 and no interval.
type Estimate struct {
	Mean float64   `json:"mean"`
	SD   float64   `json:"sd"`
	N    int       `json:"n,omitempty"`
	CI95 *Interval `json:"ci95,omitempty"`
}

// SE is the standard error of the mean.
func (e Estimate) SE() float64 {
	if e.N < 1 {
		return 0
	}
	return e.SD / math.Sqrt(float64(e.N))
}

// Exact is an estimate without uncertainty, as a model gives.
func Exact(x float64) Estimate { return Estimate{Mean: x} }

// Moments accumulates a mean and variance one value at a time (Welford).
// Folding the same values in the same order gives the same bits.
type Moments struct {
	n        int
	mean, m2 float64
}

// Add folds one value.
func (m *Moments) Add(x float64) {
	m.n++
	d := x - m.mean
	m.mean += d / float64(m.n)
	m.m2 += d * (x - m.mean)
}

// N is the number of values folded.
func (m *Moments) N() int { return m.n }

// Estimate is the mean with its 95% Student-t interval; with fewer than two
// values the interval is unbounded.
func (m *Moments) Estimate() Estimate {
	e := Estimate{Mean: m.mean, N: m.n}
	if m.n < 2 {
		e.CI95 = &Interval{math.Inf(-1), math.Inf(1)}
		return e
	}
	e.SD = math.Sqrt(m.m2 / float64(m.n-1))
	h := TQuantile(m.n-1) * e.SD / math.Sqrt(float64(m.n))
	e.CI95 = &Interval{m.mean - h, m.mean + h}
	return e
}

// TQuantile is the two-sided 95% critical value of Student's t with df
// degrees of freedom.
func TQuantile(df int) float64 {
	return distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(df)}.Quantile(1 - (1-Confidence)/2)
}

// Quantile is a quantile estimate with its 95% interval.
type Quantile struct {
	P     float64  `json:"-"`
	Value float64  `json:"value"`
	CI95  Interval `json:"ci95"`
}

// OrderStatisticRanks returns the 1-based ranks l ≤ u such that
// [X(l), X(u)] is a distribution-free interval for the p-quantile of n
// independent values with coverage P(l ≤ B < u) ≥ 95%, B ~ Binomial(n, p).
// A rank of 0 or n+1 means that side cannot be bounded with n values.
func OrderStatisticRanks(n int, p float64) (l, u int) {
	b := distuv.Binomial{N: float64(n), P: p}
	alpha := (1 - Confidence) / 2
	// l: the largest rank with P(B ≤ l−1) ≤ α; u: the smallest with
	// P(B ≤ u−1) ≥ 1−α.
	l = sort.Search(n+1, func(r int) bool { return b.CDF(float64(r)) > alpha }) // r = l
	u = sort.Search(n+1, func(r int) bool { return b.CDF(float64(r)) >= 1-alpha }) + 1
	return l, u
}

// QuantileOf is the p-quantile X(⌈np⌉) of the values summarized by the
// histogram hist (hist[v] values equal to v) with its exact order-statistic
// interval.
func QuantileOf(hist []int64, p float64) Quantile {
	return HistogramOf(hist).Quantile(p)
}

// QuantileOfSorted is the p-quantile X(⌈np⌉) of sorted values with its
// exact order-statistic interval, for quantities measured in continuous
// time.
func QuantileOfSorted(sorted []float64, p float64) Quantile {
	n := len(sorted)
	q := Quantile{P: p, Value: math.NaN(), CI95: Interval{math.Inf(-1), math.Inf(1)}}
	if n == 0 {
		return q
	}
	l, u := OrderStatisticRanks(n, p)
	q.Value = sorted[max(1, int(math.Ceil(float64(n)*p)))-1]
	if l >= 1 {
		q.CI95[0] = sorted[l-1]
	}
	if u <= n {
		q.CI95[1] = sorted[u-1]
	}
	return q
}

// Percentiles are the quantiles herd reports, by name.
var Percentiles = []struct {
	Name string
	P    float64
}{{"p50", 0.50}, {"p90", 0.90}, {"p99", 0.99}}

// Scale is the estimate of c·X from the estimate of X (as calls per client
// is calls / N): mean and interval scale alike, the interval keeps its
// coverage, and the standard deviation scales by |c|.
func (e Estimate) Scale(c float64) Estimate {
	s := Estimate{Mean: c * e.Mean, SD: math.Abs(c) * e.SD, N: e.N}
	if e.CI95 != nil {
		lo, hi := c*e.CI95[0], c*e.CI95[1]
		s.CI95 = &Interval{math.Min(lo, hi), math.Max(lo, hi)}
	}
	return s
}

// Scaled is the estimate of f times the quantity (f > 0): a change of
// unit.
func (e Estimate) Scaled(f float64) Estimate {
	e.Mean, e.SD = e.Mean*f, e.SD*f
	if e.CI95 != nil {
		iv := Interval{e.CI95[0] * f, e.CI95[1] * f}
		e.CI95 = &iv
	}
	return e
}

// Scaled is the quantile of f times the quantity (f > 0).
func (q Quantile) Scaled(f float64) Quantile {
	return Quantile{P: q.P, Value: q.Value * f, CI95: Interval{q.CI95[0] * f, q.CI95[1] * f}}
}

// finite is x, or nil (JSON's null) where x is NaN or infinite: a mean of
// no values, the quantile of an empty sample. JSON has no such numbers.
func finite(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// orNaN reads what finite writes: null is NaN.
func orNaN(p *float64) float64 {
	if p == nil {
		return math.NaN()
	}
	return *p
}

type quantileJSON struct {
	Value *float64 `json:"value"`
	CI95  Interval `json:"ci95"`
}

// MarshalJSON writes the quantile with null for a value that is not a
// number (an empty sample).
func (q Quantile) MarshalJSON() ([]byte, error) {
	return json.Marshal(quantileJSON{finite(q.Value), q.CI95})
}

// UnmarshalJSON reads what MarshalJSON writes (P is not written).
func (q *Quantile) UnmarshalJSON(b []byte) error {
	var v quantileJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*q = Quantile{Value: orNaN(v.Value), CI95: v.CI95}
	return nil
}
