package plots

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/analysis"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// serviceStyles are the looks of the policies of one comparison, in the
// order they were given: a comparison names its own policies (presets,
// one textbook policy twice with other parameters), so the look goes by
// position, from the same palette as every figure.
var serviceStyles = []policyStyle{
	{blue, draw.SquareGlyph{}},
	{vermillion, draw.RingGlyph{}},
	{bluishGreen, draw.TriangleGlyph{}},
	{reddishPurple, draw.PyramidGlyph{}},
	{orange, draw.BoxGlyph{}},
	{black, draw.CircleGlyph{}},
}

func serviceStyle(i int) policyStyle { return serviceStyles[i%len(serviceStyles)] }

// ServiceComparison draws a comparison of policies on one service: the
// mean arrival rate over time against the server's capacity, and the
// distribution of completion (share of trials finished by each time), one
// colour per policy. Times are real: unit is their unit and perUnit the
// units in one tick; capacity is the server's requests per tick. note is
// the figure's small print (the cite line).
func ServiceComparison(c analysis.ServiceComparison, unit string, perTick float64, capacity int, note string) (*Drawing, error) {
	if !(perTick > 0) {
		return nil, fmt.Errorf("a comparison figure needs the real length of a tick, got %g %s", perTick, unit)
	}
	perSecond := map[string]float64{"ms": 1000, "s": 1}[unit]
	if perSecond == 0 {
		return nil, fmt.Errorf("unknown time unit %q (want ms or s)", unit)
	}
	// The panels say their y quantity in the title: gonum/plot misplaces
	// a panel's own y label beside a log axis.
	rate := newPanel("Retries per second over time (mean over trials; log scale)", "time since the failure ("+unit+")", "")
	title := "Share of trials in which every client was served"
	for _, o := range c.Policies {
		if o.Summary.GaveUp != nil && o.Summary.GaveUp.Mean > 0 {
			// Clients that gave up were never served.
			title = "Share of trials finished (every client served or given up)"
		}
	}
	cdf := newPanel(title, "time since the failure ("+unit+")", "")
	xs, ys, cs := newSpan(), newSpan(), newSpan()
	ys.add(float64(capacity) / perTick * perSecond)
	cdfY := newSpan()
	cdfY.add(0, 1)
	var keys []Key
	for i, o := range c.Policies {
		sty := serviceStyle(i)
		if len(o.Summary.Arrivals) == 0 { // only finished trials have arrivals to show
			keys = append(keys, Key{o.Label + " (every trial censored)", []plot.Thumbnailer{&plotter.Line{LineStyle: solid(sty.color)}}})
			continue
		}
		var pts []point
		at, perTickRate := o.ArrivalRate(analysis.ArrivalRateBins)
		for j := range at {
			// Mean arrivals per tick over the bin, as a rate per second,
			// at the bin's middle.
			r := perTickRate[j] / perTick * perSecond
			x := at[j] * perTick
			xs.add(x)
			if r > 0 { // a log axis: the quiet end is left out
				pts = append(pts, point{x, r, r, r})
				ys.add(r)
			}
		}
		if len(pts) > 0 {
			l, err := curve(pts, solid(sty.color))
			if err != nil {
				return nil, err
			}
			rate.Add(l)
		}
		at, share := o.CompletionCDF()
		var steps []point
		for j := range at {
			x := at[j] * perTick
			if j == 0 {
				steps = append(steps, point{x, 0, 0, 0})
			} else {
				steps = append(steps, point{x, share[j-1], 0, 0})
			}
			steps = append(steps, point{x, share[j], 0, 0})
			cs.add(x)
		}
		if len(steps) > 0 {
			s, err := curve(steps, solid(sty.color))
			if err != nil {
				return nil, err
			}
			cdf.Add(s)
		}
		keys = append(keys, Key{o.Label, []plot.Thumbnailer{&plotter.Line{LineStyle: solid(sty.color)}}})
	}
	if xs.min > xs.max {
		// No client retried (or every trial was censored): the rate panel
		// says so and shows the capacity over the completion's times.
		rate.Title.Text = "No client retried: no retries to show, the capacity for reference"
		xs.add(0, 1)
		xs.add(cs.min, cs.max)
	}
	if cs.min > cs.max {
		cs.add(0, 1)
	}
	if err := frame(&rate.X, xs, false); err != nil {
		return nil, err
	}
	if err := frame(&rate.Y, ys, true); err != nil {
		return nil, err
	}
	rate.X.Min = 0
	if err := frame(&cdf.X, cs, false); err != nil {
		return nil, err
	}
	if err := frame(&cdf.Y, cdfY, false); err != nil {
		return nil, err
	}
	capLine := float64(capacity) / perTick * perSecond
	guide, err := plotter.NewLine(xyList{{X: vg.Length(rate.X.Min), Y: vg.Length(capLine)}, {X: vg.Length(rate.X.Max), Y: vg.Length(capLine)}})
	if err != nil {
		return nil, err
	}
	guide.LineStyle = dotted(black)
	rate.Add(guide)
	keys = append(keys, Key{fmt.Sprintf("server capacity (%s requests/s)", formatTick(capLine)), []plot.Thumbnailer{&plotter.Line{LineStyle: dotted(black)}}})
	if math.IsInf(rate.Y.Max, 0) {
		return nil, fmt.Errorf("arrival rate axis is unbounded")
	}
	return &Drawing{
		Title:  fmt.Sprintf("One service under %d retry policies (%d trials each, common random numbers)", len(c.Policies), c.Trials),
		Legend: keys,
		Rows:   []Row{{Panels: []*plot.Plot{rate, cdf}}},
		Note: fmt.Sprintf("Arrivals: retries, mean over trials, pooled into bins of equal length (the first wave, every client at once, is left out). "+
			"Completion: share of all %d trials in which the last client was served by each time (censored trials never finish). %s", c.Trials, note),
		Width: vg.Inch * 12, Height: vg.Inch * 5.5,
	}, nil
}
