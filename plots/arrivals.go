package plots

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

const timelineTrials = 1000

// ArrivalsTimeline draws arrivals per tick for N = 100, k = 10: for each
// policy one trial (trial 0 of the study, the same stream for every policy)
// and the mean over trials with its 95% band, against the capacity line.
func ArrivalsTimeline(ctx context.Context, cfg Config) (*Drawing, error) {
	kinds := policy.Kinds()
	opt := cfg.options(timelineTrials)
	opt.Arrivals = true
	one := opt
	one.Trials = 1
	sc := model.Default()
	var rows []Row
	var row Row
	for i, kind := range kinds {
		sc.Policy.Kind = kind
		mean, err := analysis.Simulate(ctx, sc, opt)
		if err != nil {
			return nil, err
		}
		trial, err := analysis.Simulate(ctx, sc, one)
		if err != nil {
			return nil, err
		}
		cfg.progress(i+1, len(kinds))
		if mean.Completion == nil || trial.Completion == nil {
			return nil, fmt.Errorf("%s: every trial was censored", kind)
		}
		var band, single []point
		for t, e := range mean.Arrivals {
			band = append(band, meanAt(float64(t), e))
		}
		for t, e := range trial.Arrivals {
			single = append(single, point{float64(t), e.Mean, e.Mean, e.Mean})
		}
		// Show the ticks up to the p99 of completion or the end of the
		// shown trial, whichever is later; the mean is ≈ 0 beyond.
		end := math.Max(mean.Completion.Quantiles["p99"].Value, float64(len(single)))
		p, err := timelinePanel(kind, band, single, end, sc.Capacity)
		if err != nil {
			return nil, err
		}
		row.Panels = append(row.Panels, p)
		if len(row.Panels) == 2 {
			row.YLabel = "arrivals per tick"
			rows, row = append(rows, row), Row{}
		}
	}
	keys := []Key{
		{"one trial", []plot.Thumbnailer{&plotter.Line{LineStyle: thin(grey)}}},
		{"mean over trials with 95% band (colour = policy)", []plot.Thumbnailer{
			&plotter.Polygon{Color: translucent(black)}, &plotter.Line{LineStyle: solid(black)}}},
		{fmt.Sprintf("capacity k = %d requests/tick", sc.Capacity), []plot.Thumbnailer{&plotter.Line{LineStyle: dotted(black)}}},
	}
	return &Drawing{
		Title:  fmt.Sprintf("Arrivals per tick, N = %d clients, capacity k = %d", sc.Clients, sc.Capacity),
		Legend: keys,
		Rows:   rows,
		Note: fmt.Sprintf("Mean over %d trials, seed %d, with 95%% Student-t band; the single trial is trial 0 (the same random stream for every policy). "+
			"Square-root y axis; base 1, cap 32, fixed delay 2 ticks.", opt.Trials, opt.Seed),
		Width: paperWidth, Height: vg.Inch * 10,
	}, nil
}

func timelinePanel(kind policy.Kind, mean, single []point, end float64, k int) (*plot.Plot, error) {
	p := newPanel(string(kind), "tick", "")
	xs, ys := newSpan(), newSpan()
	xs.add(0, end)
	ys.add(0)
	ys.addPoints(mean)
	ys.addPoints(single)
	if err := frame(&p.X, xs, false); err != nil {
		return nil, err
	}
	if err := frame(&p.Y, ys, false); err != nil {
		return nil, err
	}
	p.X.Min, p.Y.Min = 0, 0
	p.Y.Scale = sqrtScale{}
	p.Y.Tick.Marker = powerTicks{0, 5, 10, 20, 40, 60, 80, 100, 150, 200}
	// The band goes first so that the lines are drawn over it.
	b, err := band(p, mean, translucent(policyColor(kind)))
	if err != nil {
		return nil, err
	}
	one, err := curve(single, thin(grey))
	if err != nil {
		return nil, err
	}
	m, err := curve(mean, solid(policyColor(kind)))
	if err != nil {
		return nil, err
	}
	capLine := plotter.NewFunction(func(float64) float64 { return float64(k) })
	capLine.LineStyle = dotted(black)
	p.Add(b, one, m, capLine)
	return p, nil
}

// sqrtScale is a square-root axis: it keeps 0 (a tick without arrivals)
// while giving the counts near capacity room beside the first tick's N.
type sqrtScale struct{}

func (sqrtScale) Normalize(min, max, x float64) float64 {
	s := func(v float64) float64 { return math.Sqrt(math.Max(v, 0)) }
	return (s(x) - s(min)) / (s(max) - s(min))
}
