package plots

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

const comparisonTrials = 1000

// comparisonClients are the cohorts of the seed article's table.
var comparisonClients = []int{50, 100, 200}

// PolicyComparison draws calls and completion by policy for N = 50, 100,
// 200 and k = 10 with 95% error bars, beside the seed article's published
// means (30 trials each; the article has no row for none).
func PolicyComparison(ctx context.Context, cfg Config) (*Drawing, error) {
	opt := cfg.options(comparisonTrials)
	kinds := policy.Kinds()
	total := len(comparisonClients) * len(kinds)
	rows, err := reproduce.ReproduceSeed(ctx, opt, func(done, _ int) { cfg.progress(done, total) })
	if err != nil {
		return nil, err
	}
	type cell struct {
		sum       analysis.Summary
		published *[2]stats.Published // calls, completion: the article's mean ± sd
	}
	cells := map[int]map[policy.Kind]cell{}
	for _, n := range comparisonClients {
		cells[n] = map[policy.Kind]cell{}
	}
	for _, r := range rows {
		cells[r.Clients][policy.Kind(r.Policy)] = cell{r.Summary, &[2]stats.Published{r.Calls.Published, r.Completion.Published}}
	}
	var missing []model.Scenario
	for _, n := range comparisonClients {
		for _, kind := range kinds {
			if _, ok := cells[n][kind]; !ok {
				missing = append(missing, reproduce.SeedScenario(n, kind))
			}
		}
	}
	sums, err := analysis.SimulateEach(ctx, missing, opt, func(done, _ int) { cfg.progress(len(rows)+done, total) })
	if err != nil {
		return nil, err
	}
	for _, s := range sums {
		cells[s.Scenario.Clients][s.Scenario.Policy.Kind] = cell{sum: s}
	}

	metrics := []struct {
		label string
		log   bool
		of    func(analysis.Summary) stats.Estimate
		pub   int
	}{
		{"calls (all attempts, all clients)", false, func(s analysis.Summary) stats.Estimate { return *s.Calls }, 0},
		{"completion (ticks, log axis)", true, func(s analysis.Summary) stats.Estimate { return s.Completion.Estimate }, 1},
	}
	// Six names under a panel half the figure wide: "decorrelated" is
	// shortened so that it does not run into "equal".
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
		if k == policy.Decorrelated {
			names[i] = "decorr."
		}
	}
	// One row per N, calls beside completion.
	out := make([]Row, len(comparisonClients))
	for _, m := range metrics {
		for ni, n := range comparisonClients {
			p := newPanel(fmt.Sprintf("N = %d clients: %s", n, m.label), "", "")
			pts := map[policy.Kind]point{}
			ys := newSpan()
			var published []point
			for i, kind := range kinds {
				c := cells[n][kind]
				if c.sum.Calls == nil {
					return nil, fmt.Errorf("%s, N = %d: every trial was censored", kind, n)
				}
				pts[kind] = meanAt(float64(i)-0.12, m.of(c.sum))
				ys.addPoints([]point{pts[kind]})
				if c.published != nil {
					// The article's mean ± its sd over its 30 trials: the
					// spread of one trial, not an interval of the mean.
					v := c.published[m.pub]
					published = append(published, point{float64(i) + 0.12, v.Mean, v.Mean - v.SD, v.Mean + v.SD})
					ys.add(v.Mean)
					ys.addEnds(v.Mean-v.SD, v.Mean+v.SD)
				}
			}
			if !m.log {
				ys.add(0)
			}
			if err := frame(&p.Y, ys, m.log); err != nil {
				return nil, err
			}
			p.X.Min, p.X.Max = -0.6, float64(len(kinds))-0.4
			p.X.Tick.Marker = nominalTicks(names)
			p.X.Tick.Label.Font.Size = tickSize
			for _, kind := range kinds {
				bars, err := errorBars(p, []point{pts[kind]}, policyColor(kind))
				if err != nil {
					return nil, err
				}
				g, err := scatter([]point{pts[kind]}, bigger(policyGlyph(kind)))
				if err != nil {
					return nil, err
				}
				p.Add(bars, g)
			}
			sd, err := errorBars(p, published, grey)
			if err != nil {
				return nil, err
			}
			pub, err := scatter(published, articleGlyph)
			if err != nil {
				return nil, err
			}
			p.Add(sd, pub)
			out[ni].Panels = append(out[ni].Panels, p)
		}
	}
	keys := policyMarkerKeys(kinds)
	keys = append(keys, Key{"seed article: mean +/- sd of its 30 trials", []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: articleGlyph}}})
	return &Drawing{
		Title:  "Calls and completion by policy, capacity k = 10 requests/tick",
		Legend: keys,
		Rows:   out,
		Note: fmt.Sprintf("Monte Carlo (left of each tick): %d trials per point, seed %d, the numbers of herd reproduce seed --trials %d --seed %d (none: herd simulate -n N --policy none --trials %d); "+
			"bars are 95%% Student-t intervals of the mean (often narrower than the marker). The article's grey bars are its printed standard deviations, "+
			"the spread of single trials (its standard error is sd/sqrt(30), about a fifth of the bar). Base 1, cap 32, fixed delay 2 ticks.", opt.Trials, opt.Seed, opt.Trials, opt.Seed, opt.Trials),
		Width: paperWidth, Height: vg.Inch * 11,
	}, nil
}

// articleGlyph marks a value printed in the seed article.
var articleGlyph = draw.GlyphStyle{Color: black, Radius: vg.Points(4.5), Shape: draw.PlusGlyph{}}

// policyMarkerKeys are legend entries for estimates drawn as glyphs with
// error bars.
func policyMarkerKeys(kinds []policy.Kind) []Key {
	var keys []Key
	for _, kind := range kinds {
		keys = append(keys, Key{string(kind), []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: bigger(policyGlyph(kind))}}})
	}
	return keys
}

// bigger is a glyph for a panel with few, spread-out points.
func bigger(g draw.GlyphStyle) draw.GlyphStyle {
	g.Radius = vg.Points(4)
	return g
}

// nominalTicks label the integer positions 0, 1, … with names.
func nominalTicks(names []string) plot.ConstantTicks {
	t := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		t[i] = plot.Tick{Value: float64(i), Label: n}
	}
	return t
}
