package claims

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/stats"
)

// The trend rule: every growth or stability verdict is judged from how the
// evidence moves over successive doublings (of n, or of time), so that a
// finite run cannot mistake an approach for a failure. A claim fails only
// when the evidence lies outside what the claim allows and is not moving
// toward it; when it is moving toward it, the verdict is inconclusive:
// pre-asymptotic, with the trend.

// logMean is one rung of a ladder: x = lg n, y = lg of the mean, se the
// standard error of y (delta method), df its degrees of freedom.
type logMean struct {
	x, y, se float64
	df       int
}

// logMeanOf is a rung's logMean from the estimate of its mean at n.
func logMeanOf(n int, e stats.Estimate) logMean {
	if e.N < 2 || !(e.Mean > 0) {
		return logMean{x: math.Log2(float64(n)), y: math.NaN()}
	}
	return logMean{x: math.Log2(float64(n)), y: math.Log2(e.Mean), se: e.SD / math.Sqrt(float64(e.N)) / e.Mean / math.Ln2, df: e.N - 1}
}

// Trend is the log-log slope of a quantity against a form (the growth a
// claim names) where a ladder ends, and how that slope moves per doubling:
// the weighted least-squares fit y − lg form = c₀ + c₁x + c₂x² with
// x = lg(n/n_top) over the ladder's top rungs gives the slope at the top,
// c₁, and its change per doubling, 2c₂, each with a t interval.
type Trend struct {
	Slope  stats.Estimate
	Change stats.Estimate
	// Windows are the slopes over successive two-doubling windows, shown
	// beside the fit (not judged).
	Windows []Window
}

// Window is the slope of a ratio between rungs From and To.
type Window struct {
	From, To int
	Slope    float64
}

// fitTrend fits the trend of pts (at least four rungs, x increasing) less
// the form's exponents: form(x) is lg of the form at x = lg n.
func fitTrend(pts []logMean, form func(x float64) float64) (Trend, bool) {
	if len(pts) < 4 {
		return Trend{}, false
	}
	top := pts[len(pts)-1].x
	// Normal equations of the weighted quadratic fit.
	var a [3][3]float64
	var b [3]float64
	df := math.MaxInt
	for _, p := range pts {
		if math.IsNaN(p.y) || !(p.se > 0) {
			return Trend{}, false
		}
		x, y, w := p.x-top, p.y-form(p.x), 1/(p.se*p.se)
		v := [3]float64{1, x, x * x}
		for i := range 3 {
			for j := range 3 {
				a[i][j] += w * v[i] * v[j]
			}
			b[i] += w * v[i] * y
		}
		df = min(df, p.df)
	}
	inv, ok := invert3(a)
	if !ok {
		return Trend{}, false
	}
	var c [3]float64
	for i := range 3 {
		for j := range 3 {
			c[i] += inv[i][j] * b[j]
		}
	}
	q := stats.TQuantile(df)
	est := func(m, sd float64) stats.Estimate {
		return stats.Estimate{Mean: m, SD: sd, CI95: &stats.Interval{m - q*sd, m + q*sd}}
	}
	t := Trend{Slope: est(c[1], math.Sqrt(inv[1][1])), Change: est(2*c[2], 2*math.Sqrt(inv[2][2]))}
	for i := 0; i+2 < len(pts); i += 2 {
		p, r := pts[i], pts[i+2]
		t.Windows = append(t.Windows, Window{From: int(math.Round(math.Exp2(p.x))), To: int(math.Round(math.Exp2(r.x))),
			Slope: (r.y - form(r.x) - p.y + form(p.x)) / (r.x - p.x)})
	}
	return t, true
}

// invert3 inverts a symmetric positive-definite 3×3 matrix.
func invert3(m [3][3]float64) ([3][3]float64, bool) {
	var inv [3][3]float64
	det := m[0][0]*(m[1][1]*m[2][2]-m[1][2]*m[2][1]) - m[0][1]*(m[1][0]*m[2][2]-m[1][2]*m[2][0]) + m[0][2]*(m[1][0]*m[2][1]-m[1][1]*m[2][0])
	if !(math.Abs(det) > 0) {
		return inv, false
	}
	for i := range 3 {
		for j := range 3 {
			// cofactor of (j, i)
			r0, r1 := (j+1)%3, (j+2)%3
			c0, c1 := (i+1)%3, (i+2)%3
			inv[i][j] = (m[r0][c0]*m[r1][c1] - m[r0][c1]*m[r1][c0]) / det
		}
	}
	return inv, true
}

// Direction is where a trend's slope lies against the band ±τ a claim
// allows, and where it moves.
type Direction int

const (
	// Within: the slope's interval lies inside the band (with τ = 0:
	// contains 0, the form is consistent with the data).
	Within Direction = iota
	// Toward: outside the band, and its change per doubling brings it
	// back (the change's interval lies on the band's side): pre-asymptotic.
	Toward
	// Away: outside the band and not moving back: the data rejects it.
	Away
	// Undecided: the slope's interval reaches the band's edge.
	Undecided
)

// direction classifies a trend against the band ±tau.
func (t Trend) direction(tau float64) Direction {
	lo, hi := t.Slope.CI95[0], t.Slope.CI95[1]
	ch := *t.Change.CI95
	switch {
	case tau == 0 && lo <= 0 && hi >= 0, tau > 0 && lo >= -tau && hi <= tau:
		return Within
	case lo > tau:
		if ch[1] < 0 {
			return Toward
		}
		return Away
	case hi < -tau:
		if ch[0] > 0 {
			return Toward
		}
		return Away
	}
	return Undecided
}

// toward reports whether a deviation dev outside the band ±tau is moving
// back into it: the change's interval lies on the band's side.
func (t Trend) toward(dev, tau float64) bool {
	ch := *t.Change.CI95
	return dev > tau && ch[1] < 0 || dev < -tau && ch[0] > 0
}

// words says a trend in one line: the slope at the top, its change per
// doubling, and the windows' slopes.
func (t Trend) words() string {
	s := fmt.Sprintf("slope %+.3f [%+.3f, %+.3f] at the top, changing %+.3f [%+.3f, %+.3f] per doubling",
		t.Slope.Mean, t.Slope.CI95[0], t.Slope.CI95[1], t.Change.Mean, t.Change.CI95[0], t.Change.CI95[1])
	if len(t.Windows) > 0 {
		s += "; over successive windows"
		for i, w := range t.Windows {
			sep := ","
			if i == 0 {
				sep = ""
			}
			s += fmt.Sprintf("%s %d–%d: %+.3f", sep, w.From, w.To, w.Slope)
		}
	}
	return s
}
