package plots

import (
	"fmt"
	"image/color"
	"math"
	"strconv"

	"github.com/herdlab/herd/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// point is an estimate at x: the value y and its 95% interval [lo, hi].
// An end the data cannot bound is infinite; a point with no uncertainty has
// lo = hi = y.
type point struct{ x, y, lo, hi float64 }

// meanAt is a Student-t estimate of a mean as a point.
func meanAt(x float64, e stats.Estimate) point {
	p := point{x, e.Mean, e.Mean, e.Mean}
	if e.CI95 != nil {
		p.lo, p.hi = e.CI95[0], e.CI95[1]
	}
	return p
}

// quantileAt is an order-statistic quantile estimate as a point.
func quantileAt(x float64, q stats.Quantile) point {
	return point{x, q.Value, q.CI95[0], q.CI95[1]}
}

// newPanel is an empty panel with herd's fonts and light grid lines.
func newPanel(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font = font.From(titleFont, panelSize)
	p.Title.Padding = vg.Points(4)
	for _, ax := range []*plot.Axis{&p.X, &p.Y} {
		ax.Label.TextStyle.Font = font.From(bodyFont, labelSize)
		ax.Tick.Label.Font = font.From(bodyFont, tickSize)
		ax.Tick.Marker = plainTicks{}
	}
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.Add(&plotter.Grid{
		Vertical:   draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)},
		Horizontal: draw.LineStyle{Color: gridColor, Width: vg.Points(0.5)},
	})
	return p
}

// span is the range a panel's axis must show: the values themselves (a
// mean, a quantile, a model's curve) and, where they fit, the ends of their
// intervals.
type span struct{ min, max, endMin, endMax float64 }

func newSpan() span { return span{math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)} }

// add widens the span to the finite values among xs.
func (s *span) add(xs ...float64) {
	for _, x := range xs {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			s.min, s.max = math.Min(s.min, x), math.Max(s.max, x)
		}
	}
}

// addEnds widens the span to the finite interval ends among xs; on a log
// axis, ends ≤ 0 are left out (and clipped when drawn).
func (s *span) addEnds(xs ...float64) {
	for _, x := range xs {
		if !math.IsInf(x, 0) && !math.IsNaN(x) {
			s.endMin, s.endMax = math.Min(s.endMin, x), math.Max(s.endMax, x)
		}
	}
}

// addPoints widens the span to the points' values and interval ends.
func (s *span) addPoints(pts []point) {
	for _, p := range pts {
		s.add(p.y)
		s.addEnds(p.lo, p.hi)
	}
}

// frame fixes an axis to the span with a small margin. On a logarithmic
// axis every value must be positive: a value ≤ 0 there is a bug in the
// figure, reported as an error rather than gonum/plot's panic; interval
// ends ≤ 0 do not widen a log axis.
func frame(ax *plot.Axis, s span, log bool) error {
	if s.min > s.max {
		return fmt.Errorf("axis %q has no finite value to show", ax.Label.Text)
	}
	lo, hi := s.min, math.Max(s.max, s.endMax)
	if !log || s.endMin > 0 {
		lo = math.Min(lo, s.endMin)
	}
	if log {
		if s.min <= 0 {
			return fmt.Errorf("logarithmic axis %q received %g ≤ 0", ax.Label.Text, s.min)
		}
		pad := math.Max(math.Pow(hi/lo, 0.03), 1.05)
		ax.Min, ax.Max = lo/pad, hi*pad
		ax.Scale = plot.LogScale{}
		ax.Tick.Marker = logTicks{}
		return nil
	}
	pad := 0.04 * (hi - lo)
	if pad == 0 {
		pad = math.Max(1, math.Abs(hi)*0.1)
	}
	ax.Min, ax.Max = lo-pad, hi+pad
	return nil
}

// clip keeps v inside the axis range, so that an unbounded interval end is
// drawn to the panel's edge and a lower end ≤ 0 never reaches a log axis.
func clip(ax *plot.Axis, v float64) float64 {
	return math.Max(ax.Min, math.Min(ax.Max, v))
}

// xyList is a list of (x, y) for gonum's plotters.
type xyList []vg.Point

func (l xyList) Len() int                    { return len(l) }
func (l xyList) XY(i int) (float64, float64) { return float64(l[i].X), float64(l[i].Y) }

// band is the 95% band of pts as a filled polygon: the upper ends from left
// to right, then the lower ends from right to left, clipped to the axes.
// The panel's axes must be framed first.
func band(p *plot.Plot, pts []point, c color.Color) (*plotter.Polygon, error) {
	ring := make(xyList, 0, 2*len(pts))
	for _, q := range pts {
		ring = append(ring, vg.Point{X: vg.Length(q.x), Y: vg.Length(clip(&p.Y, q.hi))})
	}
	for i := len(pts) - 1; i >= 0; i-- {
		ring = append(ring, vg.Point{X: vg.Length(pts[i].x), Y: vg.Length(clip(&p.Y, pts[i].lo))})
	}
	poly, err := plotter.NewPolygon(ring)
	if err != nil {
		return nil, err
	}
	poly.Color = c
	poly.LineStyle.Width = 0
	return poly, nil
}

// errorBars draws each point's 95% interval as a vertical bar, clipped to
// the axes, which must be framed first.
func errorBars(p *plot.Plot, pts []point, c color.Color) (*plotter.YErrorBars, error) {
	e := errs{}
	for _, q := range pts {
		lo, hi := clip(&p.Y, q.lo), clip(&p.Y, q.hi)
		e.xy = append(e.xy, vg.Point{X: vg.Length(q.x), Y: vg.Length(q.y)})
		e.err = append(e.err, [2]float64{q.y - lo, hi - q.y})
	}
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return nil, err
	}
	bars.LineStyle = thin(c)
	bars.CapWidth = vg.Points(4)
	return bars, nil
}

type errs struct {
	xy  xyList
	err [][2]float64
}

func (e errs) Len() int                        { return e.xy.Len() }
func (e errs) XY(i int) (float64, float64)     { return e.xy.XY(i) }
func (e errs) YError(i int) (float64, float64) { return e.err[i][0], e.err[i][1] }

// scatter marks the points' values with glyphs.
func scatter(pts []point, g draw.GlyphStyle) (*plotter.Scatter, error) {
	xy := make(xyList, len(pts))
	for i, q := range pts {
		xy[i] = vg.Point{X: vg.Length(q.x), Y: vg.Length(q.y)}
	}
	s, err := plotter.NewScatter(xy)
	if err != nil {
		return nil, err
	}
	s.GlyphStyle = g
	return s, nil
}

// curve joins the points' values with a line.
func curve(pts []point, sty draw.LineStyle) (*plotter.Line, error) {
	xy := make(xyList, len(pts))
	for i, q := range pts {
		xy[i] = vg.Point{X: vg.Length(q.x), Y: vg.Length(q.y)}
	}
	l, err := plotter.NewLine(xy)
	if err != nil {
		return nil, err
	}
	l.LineStyle = sty
	return l, nil
}

// plainTicks are linear ticks at 1, 2 or 5 × 10ⁿ steps, three to six
// labelled per axis with an unlabelled tick half way between, labelled
// plainly (never in exponent notation).
type plainTicks struct{}

func (plainTicks) Ticks(min, max float64) []plot.Tick {
	if !(max > min) {
		return []plot.Tick{{Value: min, Label: formatTick(min)}}
	}
	raw := (max - min) / 6
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := 10 * mag
	for _, m := range []float64{1, 2, 5} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	var ticks []plot.Tick
	for i := math.Ceil(min / step * 2); i/2*step <= max; i++ {
		v := i / 2 * step
		t := plot.Tick{Value: v}
		if math.Mod(i, 2) == 0 {
			t.Label = formatTick(v)
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// logTicks label every integer × 10ⁿ when the axis spans about a decade,
// 1, 2 and 5 × 10ⁿ up to about two decades and 10ⁿ beyond, with unlabelled
// minor ticks at the other integers.
type logTicks struct{}

func (logTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	decades := math.Log10(max / min)
	for e := math.Floor(math.Log10(min)); math.Pow(10, e) <= max; e++ {
		dec := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * dec
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 || decades < 1.2 || (decades < 2.3 && (m == 2 || m == 5)) {
				t.Label = formatTick(v)
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}

// powerTicks are ticks at the given values, all labelled (the caps of a
// log₂ axis, the trial counts of a study).
type powerTicks []float64

func (t powerTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for _, v := range t {
		if v >= min && v <= max {
			ticks = append(ticks, plot.Tick{Value: v, Label: formatTick(v)})
		}
	}
	return ticks
}

// formatTick writes a tick value plainly: 0.25, 4, 1000, 100000.
func formatTick(v float64) string {
	v = math.Round(v*1e9) / 1e9 // 0.30000000000000004 is 0.3
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}
