package plots

import (
	"context"
	"fmt"
	"image/color"

	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// The queue server's figures run study.QueueMetastabilityScenario (100
// clients, k = 10, clients timing out after 10 ticks, a total outage from
// tick 100) on each of study.QueueVariants.
const (
	// queueMapTrials per cell, as metastabilityTrials.
	queueMapTrials = 50
	// hysteresisTrials per run, and the ticks each load is held.
	hysteresisTrials = 20
	hysteresisStep   = 200
)

// queueMapGrid is the map's loads λ/k and outage lengths.
func queueMapGrid() study.MapGrid {
	return study.MapGrid{Loads: []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, Outages: []int{0, 5, 10, 20, 50, 100}}
}

// QueueMetastabilityMap draws one map per variant of the queue server:
// λ/k against outage length, each cell coloured by whether the system
// clearly recovers within the horizon, clearly does not, or cannot be told
// apart from ½ (the colours of MetastabilityMap).
func QueueMetastabilityMap(ctx context.Context, cfg Config) (*Drawing, error) {
	opt := cfg.options(queueMapTrials)
	sc, base := study.QueueMetastabilityScenario()
	grid := queueMapGrid()
	variants := study.QueueVariants(sc)
	rows := []Row{{YLabel: "outage length (ticks)"}, {YLabel: "outage length (ticks)"}}
	for i, v := range variants {
		m, err := study.QueueMetastability(ctx, v.Scenario, base, v.Controls, grid, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		cfg.progress(i+1, len(variants))
		p, err := mapPanel(fmt.Sprintf("%s: %d stuck", v.Name, m.StuckBelowCapacity()), m, grid, false)
		if err != nil {
			return nil, err
		}
		r := &rows[min(1, i/5)]
		r.Panels = append(r.Panels, p)
	}
	swatch := func(c color.Color) []plot.Thumbnailer { return []plot.Thumbnailer{&plotter.Polygon{Color: c}} }
	return &Drawing{
		Title: fmt.Sprintf("Does the queue come back after the outage? lambda < k = %d everywhere, clients time out after %d ticks: policies without a control (first two rows), Full Jitter with one (last two)", sc.Capacity, sc.Queue.Timeout),
		Legend: []Key{
			{"recovers (95% interval of the recovered share above 1/2)", swatch(recoversColor)},
			{"stuck: does not recover although lambda < k (interval below 1/2)", swatch(stuckColor)},
			{"cannot tell (interval contains 1/2)", swatch(unclearColor)},
		},
		// Three maps a row: the policies on the first two rows, the
		// controls on the last two.
		Rows: append(reflow(rows[:1], 3), reflow(rows[1:], 3)...),
		Note: fmt.Sprintf("Cell label: percentage of %d trials (seed %d) that recovered within the %d-tick horizon after a total outage from tick %d: the backlog and the queue both fell to k with nobody giving up. "+
			"Queue server: FIFO, k = %d completions per tick, unbounded unless said; a client abandons an attempt without a response within %d ticks and retries, and the server still serves it (wasted work), so a queue longer than k*T answers every request too late. "+
			"Poisson arrivals from %d clients; Full Jitter base 1, cap 32. Trials whose backlog grows by %d after the outage are stopped and count as not recovered; intervals are exact Clopper-Pearson. Panel titles count the stuck cells.",
			opt.Trials, opt.Seed, base.Ticks, base.OutageStart, sc.Capacity, sc.Queue.Timeout, sc.Clients, base.CollapseBacklog),
		Width: paperWidth, Height: vg.Inch * 13,
	}, nil
}

// hysteresisVariants are the variants the hysteresis figure draws, by name
// in study.QueueVariants.
var hysteresisVariants = []int{0, 1, 5, 7, 8, 9}

// QueueHysteresis draws goodput against load as the load rises step by
// step past capacity and falls back, one panel per variant: where the
// falling branch (dashed) lies under the rising one (solid) the overload
// has left the system stuck at loads it served before.
func QueueHysteresis(ctx context.Context, cfg Config) (*Drawing, error) {
	opt := cfg.options(hysteresisTrials)
	sc, _ := study.QueueMetastabilityScenario()
	variants := study.QueueVariants(sc)
	loads := study.HysteresisLoads()
	// Two panels a row.
	rows := make([]Row, (len(hysteresisVariants)+1)/2)
	for i := range rows {
		rows[i].YLabel = "goodput / k (useful completions per tick)"
	}
	xs, ys := newSpan(), newSpan()
	xs.add(loads...)
	ys.add(0, 1.05)
	rising := policyStyle{bluishGreen, draw.TriangleGlyph{}}
	falling := policyStyle{vermillion, draw.PyramidGlyph{}}
	for i, vi := range hysteresisVariants {
		v := variants[vi]
		pts, err := study.Hysteresis(ctx, v.Scenario, v.Controls, loads, hysteresisStep, opt)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", v.Name, err)
		}
		cfg.progress(i+1, len(hysteresisVariants))
		var up, down []point
		for j, p := range pts {
			q := meanAt(p.Load, p.Goodput)
			if p.Rising {
				up = append(up, q)
				continue
			}
			if len(down) == 0 { // the falling branch starts at the peak
				down = append(down, meanAt(pts[j-1].Load, pts[j-1].Goodput))
			}
			down = append(down, q)
		}
		p := newPanel(v.Name, "load lambda/k", "")
		if err := frame(&p.X, xs, false); err != nil {
			return nil, err
		}
		if err := frame(&p.Y, ys, false); err != nil {
			return nil, err
		}
		if err := addBranch(p, up, rising, false); err != nil {
			return nil, err
		}
		if err := addBranch(p, down, falling, true); err != nil {
			return nil, err
		}
		rows[i/2].Panels = append(rows[i/2].Panels, p)
	}
	key := func(s policyStyle, line draw.LineStyle) []plot.Thumbnailer {
		return []plot.Thumbnailer{&plotter.Polygon{Color: translucent(s.color)}, &plotter.Line{LineStyle: line},
			&plotter.Scatter{GlyphStyle: draw.GlyphStyle{Color: s.color, Radius: vg.Points(3), Shape: s.shape}}}
	}
	return &Drawing{
		Title: fmt.Sprintf("Goodput as the load rises past capacity and falls back (queue server, k = %d, timeout %d ticks, Full Jitter unless said)", sc.Capacity, sc.Queue.Timeout),
		Legend: []Key{
			{"load rising", key(rising, thin(rising.color))},
			{"load falling", key(falling, dashed(falling.color))},
		},
		Rows: rows,
		Note: fmt.Sprintf("Each load lambda/k from %g up to %g and back down in steps of 0.1 is held for %d ticks; goodput is the useful completions per tick over the second half of each step, over k, mean of %d trials (seed %d) with 95%% Student-t bands. "+
			"No outage: the only trigger is the overload at the top. Poisson arrivals from %d clients; the server still serves the requests their clients abandoned.",
			loads[0], loads[len(loads)/2], hysteresisStep, opt.Trials, opt.Seed, sc.Clients),
		Width: paperWidth, Height: vg.Inch * 11,
	}, nil
}

// addBranch draws one branch of a hysteresis loop: band, line, glyphs.
func addBranch(p *plot.Plot, pts []point, sty policyStyle, dash bool) error {
	b, err := band(p, pts, translucent(sty.color))
	if err != nil {
		return err
	}
	line := thin(sty.color)
	if dash {
		line = dashed(sty.color)
	}
	l, err := curve(pts, line)
	if err != nil {
		return err
	}
	g, err := scatter(pts, draw.GlyphStyle{Color: sty.color, Radius: vg.Points(3), Shape: sty.shape})
	if err != nil {
		return err
	}
	p.Add(b, l, g)
	return nil
}
