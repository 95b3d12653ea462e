package plots

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/policy"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// delayFigureOptions resolve the registered figure's laws finely enough
// for a line's width and quickly enough for the golden test.
var delayFigureOptions = policy.DelayOptions{Cells: 1 << 14, JointCells: 1 << 18}

// delayPanels are the policies of the delay-waits figure: Polly's V2 (the
// library question), decorrelated (whose backing off is in doubt), Full
// Jitter and cenkalti/backoff beside them, each with its own retry count.
func delayPanels() []struct {
	Policy policy.Policy
	Count  int
} {
	polly, _ := policy.LookupPreset("polly-v8-expo-jitter")
	cenkalti, _ := policy.LookupPreset("cenkalti-v4")
	return []struct {
		Policy policy.Policy
		Count  int
	}{
		{polly.Policy(0), polly.Retries},
		{policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 32}, 10},
		{policy.Policy{Kind: policy.Full, Base: 1, Cap: 32}, 10},
		{cenkalti.Policy(0), 10},
	}
}

// DelayWaits draws, for four policies, the exact law of the total wait
// until each retry (delay-waits).
func DelayWaits(ctx context.Context, cfg Config) (*Drawing, error) {
	var rows []Row
	var row Row
	panels := delayPanels()
	for i, pc := range panels {
		o := delayFigureOptions
		o.Context = ctx
		a, err := policy.Delays(pc.Policy, pc.Count, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", pc.Policy.Kind, err)
		}
		p, err := waitPanel(a, delayPanelTitle(pc.Policy))
		if err != nil {
			return nil, err
		}
		cfg.progress(i+1, len(panels))
		row.Panels = append(row.Panels, p)
		if len(row.Panels) == 2 {
			row.YLabel = "P(total wait until retry n <= x)"
			rows, row = append(rows, row), Row{}
		}
	}
	return &Drawing{
		Title:  "Total wait until retry n: exact laws of the unrounded delays",
		Legend: waitKeys(),
		Rows:   rows,
		Note: "Exact CDFs, computed on lattices that bound each law from below and above (both within a line's width); " +
			"no Monte Carlo, no tick rounding (what a library waits). Presets with their default retry limits, in seconds; " +
			"textbook policies base 1, cap 32, in ticks. herd delays --policy P prints the medians, means, quantiles and bounds.",
		Width: vg.Inch * 11, Height: vg.Inch * 8.5,
	}, nil
}

// WaitFigure draws the laws of one analysis' total waits: the figure of
// herd delays --figure.
func WaitFigure(a policy.DelayAnalysis) (*Drawing, error) {
	p, err := waitPanel(a, delayPanelTitle(a.Policy))
	if err != nil {
		return nil, err
	}
	return &Drawing{
		Title:  "Total wait until retry n, " + string(a.Policy.Kind),
		Legend: waitKeys(),
		Rows:   []Row{{Panels: []*plot.Plot{p}, YLabel: "P(total wait until retry n <= x)"}},
		Note: fmt.Sprintf("Exact CDFs of the unrounded delays (no tick rounding), bounded from below and above by lattice computations; "+
			"medians and means within %.1g relative. Drawn by herd delays.", a.RelErr()),
		Width: vg.Inch * 7, Height: vg.Inch * 5,
	}, nil
}

func waitKeys() []Key {
	return []Key{
		{"P(total wait <= x), retry 1 (light) to the last (dark)", []plot.Thumbnailer{&plotter.Line{LineStyle: solid(blue)}}},
		{"median, labelled with n", []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}}}},
	}
}

func delayPanelTitle(p policy.Policy) string {
	switch p.Kind {
	case policy.Expo, policy.Full, policy.Equal, policy.Decorrelated:
		return fmt.Sprintf("%s (base %g, cap %g)", p.Kind, p.Base, p.Cap)
	case policy.Fixed:
		return fmt.Sprintf("fixed (delay %g)", p.FixedDelay)
	}
	s := string(p.Kind)
	switch {
	case p.Retries > 0:
		s += fmt.Sprintf(" (%d retries)", p.Retries)
	case p.MaxElapsed > 0:
		s += fmt.Sprintf(" (gives up past %s)", p.MaxElapsed)
	}
	return s
}

// waitPanel draws the CDF of the total wait until each retry of a, the
// later retries darker, with each median marked and labelled.
func waitPanel(a policy.DelayAnalysis, title string) (*plot.Plot, error) {
	unit := "ticks"
	if a.Unit == "s" {
		unit = "s"
	}
	p := newPanel(title, "total wait x ("+unit+")", "")
	last := a.Rows[len(a.Rows)-1].Wait
	// Show up to the last total's 99th percentile and a little more (its
	// supremum can be far out, as for decorrelated).
	end := math.Min(last.Max.Value, 1.1*last.P99.Value)
	if !(end > 0) {
		end = 1
	}
	xs, ys := newSpan(), newSpan()
	xs.add(0, end)
	ys.add(0, 1)
	if err := frame(&p.X, xs, false); err != nil {
		return nil, err
	}
	if err := frame(&p.Y, ys, false); err != nil {
		return nil, err
	}
	p.X.Min, p.Y.Min, p.Y.Max = 0, 0, 1.02
	const samples = 400
	labels := plotter.XYLabels{}
	var medians xyList
	for i, r := range a.Rows {
		shade := 0.35 + 0.65*float64(i)/math.Max(1, float64(len(a.Rows)-1))
		pts := make([]point, 0, samples+1)
		for j := 0; j <= samples; j++ {
			x := end * float64(j) / samples
			y := a.WaitCDF(r.N, x).Value
			pts = append(pts, point{x, y, y, y})
		}
		l, err := curve(pts, solid(tint(blue, shade)))
		if err != nil {
			return nil, err
		}
		p.Add(l)
		m := r.Wait.Median.Value
		if m <= end {
			medians = append(medians, vg.Point{X: vg.Length(m), Y: 0.5})
			// Label a median only clear of the last labelled one.
			if k := len(labels.XYs); k == 0 || m-labels.XYs[k-1].X > 0.035*end {
				labels.XYs = append(labels.XYs, plotter.XY{X: m, Y: 0.5})
				labels.Labels = append(labels.Labels, fmt.Sprint(r.N))
			}
		}
	}
	if len(medians) > 0 {
		s, err := plotter.NewScatter(medians)
		if err != nil {
			return nil, err
		}
		s.GlyphStyle = draw.GlyphStyle{Color: black, Radius: vg.Points(2.5), Shape: draw.CircleGlyph{}}
		l, err := plotter.NewLabels(labels)
		if err != nil {
			return nil, err
		}
		for i := range l.TextStyle {
			l.TextStyle[i] = textStyle(p.X.Tick.Label.Font, draw.XLeft)
			l.TextStyle[i].YAlign = draw.YBottom
		}
		l.Offset = vg.Point{X: vg.Points(3), Y: vg.Points(3)}
		p.Add(s, l)
	}
	return p, nil
}
