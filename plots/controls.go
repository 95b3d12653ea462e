package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Both figures of open-loop traffic run study.MetastabilityScenario (100
// clients, k = 20, Full Jitter, a server where rejecting costs 5% of
// serving, a total outage from tick 100) under study.StandardControls.
const (
	recoveryTrials = 100
	// metastabilityTrials per cell: enough for a Clopper–Pearson interval
	// to tell a cell that always recovers (or never does) from ½.
	metastabilityTrials = 50
	// recoveryOutage is the outage of recovery-vs-load: long enough that
	// without a control the heavier loads do not come back.
	recoveryOutage = 50
)

// recoveryLoads are the loads λ/k of recovery-vs-load, all below capacity.
var recoveryLoads = []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}

// RecoveryVersusLoad draws, for each retry control, the share of trials
// that recover after the outage, the time they take and the calls per new
// request, against the load λ/k.
func RecoveryVersusLoad(ctx context.Context, cfg Config) (*Drawing, error) {
	opt := cfg.options(recoveryTrials)
	sc, base := study.MetastabilityScenario()
	base.OutageLength = recoveryOutage
	ctls := study.StandardControls()
	// The controls run last first: the breaker's trials recover at every
	// load and so play their arrivals to the horizon, which the other
	// controls' runs of the same trials then read from the process's
	// tapes (montecarlo.ArrivalTapes) rather than draw. The order changes
	// no number.
	series := make([]study.RecoverySeries, len(ctls))
	for done := range len(ctls) {
		i := len(ctls) - 1 - done
		s, err := study.RecoveryVersusLoad(ctx, sc, base, []control.Controls{ctls[i]}, recoveryLoads, opt)
		if err != nil {
			return nil, err
		}
		series[i] = s[0]
		cfg.progress(done+1, len(ctls))
	}
	shares := make([][]point, len(ctls))
	times := make([][]point, len(ctls))
	calls := make([][]point, len(ctls))
	ss, ts, cs := newSpan(), newSpan(), newSpan()
	ss.add(0, 1)
	for i, s := range series {
		for _, p := range s.Points {
			r := p.Recovered
			shares[i] = append(shares[i], point{p.Load, r.Value, r.CI95[0], r.CI95[1]})
			// Recovery time exists only for trials that recovered; a load
			// where none did has no point.
			if p.RecoveryTicks != nil {
				times[i] = append(times[i], meanAt(p.Load, *p.RecoveryTicks))
			}
			calls[i] = append(calls[i], meanAt(p.Load, p.Calls))
		}
		ts.addPoints(times[i])
		cs.addPoints(calls[i])
	}
	xs := newSpan()
	xs.add(recoveryLoads[0], recoveryLoads[len(recoveryLoads)-1])
	panels := []struct {
		title string
		pts   [][]point
		ys    span
		log   bool
		// dodge shifts each control's points a little along x and draws
		// error bars instead of bands: the shares of every control sit on
		// 1 together, where bands would hide one another.
		dodge bool
	}{
		{"share of trials that recovered", shares, ss, false, true},
		{"recovery time after the outage (ticks, recovered trials)", times, ts, true, false},
		{"calls per new request", calls, cs, true, false},
	}
	// One panel a row, so that each is as wide as the figure; the shares
	// panel is lower: its story is one drop.
	var rows []Row
	for i, pn := range panels {
		p := newPanel(pn.title, "load lambda/k (new requests per tick over capacity)", "")
		if err := frame(&p.X, xs, false); err != nil {
			return nil, err
		}
		if err := frame(&p.Y, pn.ys, pn.log); err != nil {
			return nil, err
		}
		for i, ctl := range ctls {
			if len(pn.pts[i]) == 0 {
				continue
			}
			if pn.dodge {
				if err := addDodged(p, pn.pts[i], dodge(i, len(ctls)), controlStyle(ctl)); err != nil {
					return nil, err
				}
				continue
			}
			if err := addControl(p, pn.pts[i], controlStyle(ctl)); err != nil {
				return nil, err
			}
		}
		rows = append(rows, Row{Panels: []*plot.Plot{p}, Height: map[bool]float64{true: 0.7, false: 1}[i == 0]})
	}
	return &Drawing{
		Title:  fmt.Sprintf("Recovery after a %d-tick outage against load, with and without retry controls", recoveryOutage),
		Legend: controlKeys(ctls),
		Rows:   rows,
		Note: fmt.Sprintf("Open loop: Poisson arrivals of lambda per tick from %d clients, capacity k = %d, Full Jitter (base 1, cap 32); the server fails every call for %d ticks from tick %d "+
			"and rejecting a request costs %.0f%% of serving one. Recovered: the backlog falls to k within %d ticks (trials stopped once the backlog grows by %d after the outage count as not recovered). "+
			"%d trials per point, seed %d; shares with exact Clopper-Pearson 95%% intervals, means with 95%% Student-t intervals; recovery time is over the trials that recovered (no point where none did).",
			sc.Clients, sc.Capacity, recoveryOutage, base.OutageStart, 100*base.RejectCost, base.Ticks, base.CollapseBacklog, opt.Trials, opt.Seed),
		Width: paperWidth, Height: vg.Inch * 11,
	}, nil
}

// addControl draws one control's estimates: band, joining line and glyphs.
func addControl(p *plot.Plot, pts []point, sty policyStyle) error {
	return addBandedCurve(p, pts, sty.color, draw.GlyphStyle{Color: sty.color, Radius: vg.Points(3), Shape: sty.shape})
}

// addBandedCurve draws one series of estimates in colour c: its 95% band,
// a thin line joining the means and glyph g at each mean.
func addBandedCurve(p *plot.Plot, pts []point, c color.NRGBA, g draw.GlyphStyle) error {
	b, err := band(p, pts, translucent(c))
	if err != nil {
		return err
	}
	l, err := curve(pts, thin(c))
	if err != nil {
		return err
	}
	sc, err := scatter(pts, g)
	if err != nil {
		return err
	}
	p.Add(b, l, sc)
	return nil
}

// dodge is the x offset of series i of n, so that their error bars at one
// load stand side by side.
func dodge(i, n int) float64 { return 0.01 * (float64(i) - float64(n-1)/2) }

// addDodged draws one control's estimates shifted by dx along x: error
// bars, a joining line and glyphs.
func addDodged(p *plot.Plot, pts []point, dx float64, sty policyStyle) error {
	shifted := make([]point, len(pts))
	for i, q := range pts {
		shifted[i] = q
		shifted[i].x += dx
	}
	bars, err := errorBars(p, shifted, sty.color)
	if err != nil {
		return err
	}
	l, err := curve(shifted, thin(sty.color))
	if err != nil {
		return err
	}
	g, err := scatter(shifted, draw.GlyphStyle{Color: sty.color, Radius: vg.Points(3), Shape: sty.shape})
	if err != nil {
		return err
	}
	p.Add(l, bars, g)
	return nil
}

// controlKeys are the legend entries of estimates by retry control.
func controlKeys(ctls []control.Controls) []Key {
	var keys []Key
	for _, ctl := range ctls {
		s := controlStyle(ctl)
		keys = append(keys, Key{controlName(ctl), []plot.Thumbnailer{
			&plotter.Polygon{Color: translucent(s.color)},
			&plotter.Line{LineStyle: thin(s.color)},
			&plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: s.color, Radius: vg.Points(3), Shape: s.shape}}}})
	}
	return keys
}

// Cell colours of the metastability map, by what the 95% interval of the
// recovered share says.
var (
	recoversColor = tint(bluishGreen, 0.3)
	stuckColor    = vermillion
	unclearColor  = tint(orange, 0.45)
)

// MetastabilityMap draws one map per retry control: λ/k against outage
// length, each cell coloured by whether the system clearly recovers within
// the horizon, clearly does not, or cannot be told apart from ½, and
// labelled with the recovered percentage.
func MetastabilityMap(ctx context.Context, cfg Config) (*Drawing, error) {
	opt := cfg.options(metastabilityTrials)
	sc, base := study.MetastabilityScenario()
	grid := study.DefaultMapGrid()
	ctls := study.StandardControls()
	row := Row{YLabel: "outage length (ticks)"}
	for i, ctl := range ctls {
		m, err := study.Metastability(ctx, sc, base, ctl, grid, opt)
		if err != nil {
			return nil, err
		}
		cfg.progress(i+1, len(ctls))
		p, err := mapPanel(fmt.Sprintf("%s: %d of %d stuck", controlName(ctl), m.StuckBelowCapacity(), len(m.Cells)), m, grid, true)
		if err != nil {
			return nil, err
		}
		row.Panels = append(row.Panels, p)
	}
	swatch := func(c color.Color) []plot.Thumbnailer { return []plot.Thumbnailer{&plotter.Polygon{Color: c}} }
	return &Drawing{
		Title: fmt.Sprintf("Does the system come back after the outage? Full Jitter, lambda < k = %d everywhere, by retry control", sc.Capacity),
		Legend: []Key{
			{"recovers (95% interval of the recovered share above 1/2; darker = slower)", swatch(recoversColor)},
			{"stuck: does not recover although lambda < k (interval below 1/2)", swatch(stuckColor)},
			{"cannot tell (interval contains 1/2)", swatch(unclearColor)},
		},
		Rows: reflow([]Row{row}, 3),
		Note: fmt.Sprintf("Cell label: where every trial recovered, the mean ticks from the outage's end until the backlog fell back to k; elsewhere the percentage of %d trials (seed %d) "+
			"that recovered within the %d-tick horizon after a total outage from tick %d; intervals of the recovered share are exact Clopper-Pearson. "+
			"Open loop: Poisson arrivals from %d clients, capacity k = %d, Full Jitter (base 1, cap 32); rejecting a request costs %.0f%% of serving one, so goodput falls under overload. "+
			"Trials whose backlog grows by %d after the outage are stopped and count as not recovered. Panel titles count the stuck cells.",
			opt.Trials, opt.Seed, base.Ticks, base.OutageStart, sc.Clients, sc.Capacity, 100*base.RejectCost, base.CollapseBacklog),
		Width: paperWidth, Height: vg.Inch * 8.5,
	}, nil
}

// recoveryShade is the recovered colour for a mean recovery time of t
// ticks: from light (a tick) to dark (a thousand), on a log scale.
func recoveryShade(t float64) color.NRGBA {
	f := math.Min(1, math.Log10(1+math.Max(0, t))/3)
	return tint(bluishGreen, 0.15+0.6*f)
}

// mapPanel draws one metastability map as coloured cells on a grid of
// loads (columns) and outage lengths (rows).
//
// With times, a cell where every trial recovered is labelled with its
// mean recovery time in ticks and shaded darker the slower it is (so that
// panels in which everything recovers still tell the controls apart);
// other cells, and every cell without times, with the percentage of trials
// that recovered.
func mapPanel(title string, m study.MetastabilityMap, g study.MapGrid, times bool) (*plot.Plot, error) {
	p := newPanel(title, "load lambda/k", "")
	col := map[float64]int{}
	for i, l := range g.Loads {
		col[l] = i
	}
	rowOf := map[int]int{}
	for i, o := range g.Outages {
		rowOf[o] = i
	}
	labels := plotter.XYLabels{}
	var fills []color.NRGBA
	for _, c := range m.Cells {
		x, y := float64(col[c.Load]), float64(rowOf[c.Outage])
		fill := unclearColor
		switch {
		case c.Stuck():
			fill = stuckColor
		case c.Recovers():
			fill = recoversColor
			if times && c.RecoveryTicks != nil {
				fill = recoveryShade(c.RecoveryTicks.Mean)
			}
		}
		cell, err := plotter.NewPolygon(xyList{
			{X: vg.Length(x - 0.5), Y: vg.Length(y - 0.5)}, {X: vg.Length(x + 0.5), Y: vg.Length(y - 0.5)},
			{X: vg.Length(x + 0.5), Y: vg.Length(y + 0.5)}, {X: vg.Length(x - 0.5), Y: vg.Length(y + 0.5)}})
		if err != nil {
			return nil, err
		}
		cell.Color = fill
		fills = append(fills, fill)
		cell.LineStyle = draw.LineStyle{Color: color.White, Width: vg.Points(1)}
		p.Add(cell)
		labels.XYs = append(labels.XYs, plotter.XY{X: x, Y: y})
		label := fmt.Sprintf("%.0f", 100*c.Recovered.Value)
		if times && c.Recovered.Value == 1 && c.RecoveryTicks != nil {
			label = fmt.Sprintf("%.0f", c.RecoveryTicks.Mean)
		} else if times {
			label += "%"
		}
		labels.Labels = append(labels.Labels, label)
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, err
	}
	for i := range l.TextStyle {
		l.TextStyle[i] = textStyle(p.X.Tick.Label.Font, draw.XCenter)
		l.TextStyle[i].YAlign = draw.YCenter
		if f := fills[i]; 0.299*float64(f.R)+0.587*float64(f.G)+0.114*float64(f.B) < 140 { // a dark fill
			l.TextStyle[i].Color = color.White
		}
	}
	p.Add(l)
	loads := make([]string, len(g.Loads))
	for i, v := range g.Loads {
		loads[i] = formatTick(v)
	}
	outages := make([]string, len(g.Outages))
	for i, v := range g.Outages {
		outages[i] = formatTick(float64(v))
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = nominalTicks(loads), nominalTicks(outages)
	p.X.Min, p.X.Max = -0.5, float64(len(loads))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(outages))-0.5
	return p, nil
}
