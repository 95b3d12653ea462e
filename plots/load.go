package plots

import (
	"context"
	"errors"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// loadSweep is the Monte Carlo summary of every (k, policy, load) of
// analysis.LoadStudy, shared by calls-vs-load and completion-vs-load.
type loadSweep struct {
	analysis.LoadSweep
	trials int
	// at[i][policy][j] summarizes k = Capacities[i], load Loads[j].
	at []map[model.Kind][]analysis.Summary
}

// runLoadSweep simulates the sweep, or takes it from the cache.
func runLoadSweep(ctx context.Context, cfg Config) (loadSweep, error) {
	study := analysis.LoadStudy()
	opt := cfg.options(study.Trials)
	key := fmt.Sprintf("load-sweep/%d/%d", opt.Trials, opt.Seed)
	return remember(cfg.Cache, key, func() (loadSweep, error) {
		at, err := study.Run(ctx, opt, cfg.progress)
		return loadSweep{LoadSweep: study, trials: opt.Trials, at: at}, err
	})
}

// CallsVersusLoad draws calls per client against N/k, one panel per k.
func CallsVersusLoad(ctx context.Context, cfg Config) (*Drawing, error) {
	s, err := runLoadSweep(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s.draw("Calls per client against load N/k",
		"calls per client",
		func(sum analysis.Summary) stats.Estimate {
			return sum.Calls.Scale(1 / float64(sum.Scenario.Clients))
		},
		func(c model.Closed) float64 { return float64(c.Calls) / float64(c.Scenario.Clients) },
		func(m model.MeanField) float64 { return m.Calls / float64(m.Scenario.Clients) })
}

// CompletionVersusLoad draws completion against N/k, one panel per k.
func CompletionVersusLoad(ctx context.Context, cfg Config) (*Drawing, error) {
	s, err := runLoadSweep(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s.draw("Completion time against load N/k",
		"completion (ticks)",
		func(sum analysis.Summary) stats.Estimate { return sum.Completion.Estimate },
		func(c model.Closed) float64 { return float64(c.Completion) },
		func(m model.MeanField) float64 { return m.Completion })
}

// draw makes one panel per capacity with every policy's Monte Carlo means
// and 95% bands, the closed form of the policies without jitter (solid) and
// the mean field of the jittered ones (dashed), on shared log axes.
func (s loadSweep) draw(title, yLabel string, metric func(analysis.Summary) stats.Estimate,
	exact func(model.Closed) float64, approx func(model.MeanField) float64) (*Drawing, error) {
	kinds := s.Kinds
	ys := newSpan()
	pts := make([]map[model.Kind][]point, len(s.at))
	for i, byKind := range s.at {
		pts[i] = map[model.Kind][]point{}
		for _, kind := range kinds {
			for j, sum := range byKind[kind] {
				if sum.Calls == nil {
					return nil, fmt.Errorf("%s, k = %d, N = %d: every trial was censored", kind, s.Capacities[i], s.Loads[j]*s.Capacities[i])
				}
				pts[i][kind] = append(pts[i][kind], meanAt(float64(s.Loads[j]), metric(sum)))
			}
			ys.addPoints(pts[i][kind])
		}
	}
	// The closed form of each policy whose waits are certain (none, fixed,
	// expo: ClosedForm refuses the others, which is how they are told apart).
	closed := make([]map[model.Kind][]point, len(s.at))
	for i, k := range s.Capacities {
		closed[i] = map[model.Kind][]point{}
		for _, kind := range kinds {
			for _, load := range s.Loads {
				c, err := model.ClosedForm(s.Scenario(k, load, kind))
				var no *model.Unsupported
				if errors.As(err, &no) {
					break
				}
				if err != nil {
					return nil, err
				}
				v := exact(c)
				closed[i][kind] = append(closed[i][kind], point{float64(load), v, v, v})
			}
			ys.addPoints(closed[i][kind])
		}
	}
	// The mean field of the policies the closed form refuses (the jittered
	// ones): an approximation, drawn dashed.
	field := make([]map[model.Kind][]point, len(s.at))
	for i, k := range s.Capacities {
		field[i] = map[model.Kind][]point{}
		for _, kind := range kinds {
			if closed[i][kind] != nil {
				continue
			}
			for _, load := range s.Loads {
				m, err := model.MeanFieldModel(s.Scenario(k, load, kind), model.MeanFieldOptions{})
				if err != nil {
					return nil, fmt.Errorf("mean field of %s, k = %d, N = %d: %w", kind, k, load*k, err)
				}
				v := approx(m)
				field[i][kind] = append(field[i][kind], point{float64(load), v, v, v})
			}
			ys.addPoints(field[i][kind])
		}
	}
	xs := newSpan()
	xs.add(float64(s.Loads[0]), float64(s.Loads[len(s.Loads)-1]))
	row := Row{YLabel: yLabel}
	for i, k := range s.Capacities {
		p := newPanel(fmt.Sprintf("k = %d requests/tick (N = %d to %d)", k, k*s.Loads[0], k*s.Loads[len(s.Loads)-1]),
			"load N/k (clients per unit of capacity)", "")
		if err := frame(&p.X, xs, true); err != nil {
			return nil, err
		}
		if err := frame(&p.Y, ys, true); err != nil {
			return nil, err
		}
		// Model lines first, so that the Monte Carlo glyphs of the policies
		// whose lines coincide stay visible on top of them.
		for _, kind := range kinds {
			if exactPts := closed[i][kind]; exactPts != nil {
				l, err := curve(exactPts, solid(policyColor(kind)))
				if err != nil {
					return nil, err
				}
				p.Add(l)
			}
			if approxPts := field[i][kind]; approxPts != nil {
				l, err := curve(approxPts, dashed(policyColor(kind)))
				if err != nil {
					return nil, err
				}
				p.Add(l)
			}
		}
		for _, kind := range kinds {
			if err := addEstimates(p, pts[i][kind], kind); err != nil {
				return nil, err
			}
		}
		row.Panels = append(row.Panels, p)
	}
	return &Drawing{
		Title: title,
		Legend: append(policyKeys(kinds),
			Key{"closed form (none, fixed, expo; colour = policy)", []plot.Thumbnailer{&plotter.Line{LineStyle: solid(black)}}},
			Key{"mean field (full, equal, decorrelated)", []plot.Thumbnailer{&plotter.Line{LineStyle: dashed(black)}}}),
		Rows: []Row{row},
		Note: fmt.Sprintf("Monte Carlo (markers): %d trials per point, seed 1; bands are 95%% Student-t intervals of the mean. "+
			"Lines are models: the exact closed form where every wait is certain, the mean field (an approximation for large N that follows expected numbers and their "+
			"fluctuations; herd validate holds it within 0.5%% in calls, 2%% in completion from N = 1,000 and N/k = 3 up) for the jittered policies. Capacity server; base 1, cap 32, fixed delay 2 ticks.", s.trials),
		Width: vg.Inch * 13, Height: vg.Inch * 6,
	}, nil
}

// addEstimates draws one policy's Monte Carlo estimates: the 95% band and
// a glyph at each mean. The means are not joined: every policy has a
// model's line (closed form or mean field) beside them.
func addEstimates(p *plot.Plot, pts []point, kind model.Kind) error {
	b, err := band(p, pts, translucent(policyColor(kind)))
	if err != nil {
		return err
	}
	p.Add(b)
	g, err := scatter(pts, policyGlyph(kind))
	if err != nil {
		return err
	}
	p.Add(g)
	return nil
}

// policyKeys are the legend entries of Monte Carlo estimates by policy.
func policyKeys(kinds []model.Kind) []Key {
	var keys []Key
	for _, kind := range kinds {
		sw := &plotter.Polygon{Color: translucent(policyColor(kind))}
		g := &plotter.Scatter{GlyphStyle: policyGlyph(kind)}
		keys = append(keys, Key{Label: string(kind), Thumbs: []plot.Thumbnailer{sw, g}})
	}
	return keys
}
