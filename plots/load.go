package plots

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// loadSweep is the Monte Carlo summary of every (k, policy, load) of
// study.LoadStudy, which calls-vs-load and completion-vs-load share
// through the run's analysis.Cache.
type loadSweep struct {
	study.LoadSweep
	trials int
	seed   uint64
	// at[i][policy][j] summarizes k = Capacities[i], load Loads[j].
	at []map[policy.Kind][]analysis.Summary
}

// runLoadSweep simulates the sweep, each point once per run (its second
// figure finds the points in the run's cache).
func runLoadSweep(ctx context.Context, cfg Config) (loadSweep, error) {
	st := study.LoadStudy()
	opt := cfg.options(st.Trials)
	at, err := st.Run(ctx, opt, cfg.progress)
	return loadSweep{LoadSweep: st, trials: opt.Trials, seed: opt.Seed, at: at}, err
}

// meanFields is the mean field (default options) of every scenario, in
// their order: several at once (analysis.EachPoint), each computed once
// per run (analysis.Cached; it depends on the scenario alone).
func meanFields(ctx context.Context, scs []model.Scenario, workers int) ([]solve.MeanField, error) {
	out := make([]solve.MeanField, len(scs))
	err := analysis.EachPoint(ctx, len(scs), workers, func(ctx context.Context, i int) error {
		m, err := analysis.Cached(ctx, "mean-field", scs[i], montecarlo.Options{}, func() (solve.MeanField, error) {
			return solve.MeanFieldModel(scs[i], solve.MeanFieldOptions{})
		})
		if err != nil {
			return fmt.Errorf("mean field of %s, k = %d, N = %d: %w", scs[i].Policy.Kind, scs[i].Capacity, scs[i].Clients, err)
		}
		out[i] = m
		return nil
	}, nil)
	return out, err
}

// CallsVersusLoad draws calls per client against N/k, one panel per k.
func CallsVersusLoad(ctx context.Context, cfg Config) (*Drawing, error) {
	s, err := runLoadSweep(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s.draw(ctx, cfg, "Calls per client against load N/k",
		"calls per client",
		func(sum analysis.Summary) stats.Estimate {
			return sum.Calls.Scale(1 / float64(sum.Scenario.Clients))
		},
		func(c solve.Closed) float64 { return float64(c.Calls) / float64(c.Scenario.Clients) },
		func(m solve.MeanField) float64 { return m.Calls / float64(m.Scenario.Clients) })
}

// CompletionVersusLoad draws completion against N/k, one panel per k.
func CompletionVersusLoad(ctx context.Context, cfg Config) (*Drawing, error) {
	s, err := runLoadSweep(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return s.draw(ctx, cfg, "Completion time against load N/k",
		"completion (ticks)",
		func(sum analysis.Summary) stats.Estimate { return sum.Completion.Estimate },
		func(c solve.Closed) float64 { return float64(c.Completion) },
		func(m solve.MeanField) float64 { return m.Completion })
}

// draw makes one panel per capacity with every policy's Monte Carlo means
// and 95% bands, the closed form of the policies without jitter (solid) and
// the mean field of the jittered ones (dashed), on shared log axes.
func (s loadSweep) draw(ctx context.Context, cfg Config, title, yLabel string, metric func(analysis.Summary) stats.Estimate,
	exact func(solve.Closed) float64, approx func(solve.MeanField) float64) (*Drawing, error) {
	kinds := s.Kinds
	ys := newSpan()
	pts := make([]map[policy.Kind][]point, len(s.at))
	for i, byKind := range s.at {
		pts[i] = map[policy.Kind][]point{}
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
	closed := make([]map[policy.Kind][]point, len(s.at))
	for i, k := range s.Capacities {
		closed[i] = map[policy.Kind][]point{}
		for _, kind := range kinds {
			for _, load := range s.Loads {
				c, err := solve.ClosedForm(s.Scenario(k, load, kind))
				var no *solve.Unsupported
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
	var approxed []model.Scenario
	for i, k := range s.Capacities {
		for _, kind := range kinds {
			if closed[i][kind] == nil {
				for _, load := range s.Loads {
					approxed = append(approxed, s.Scenario(k, load, kind))
				}
			}
		}
	}
	fields, err := meanFields(ctx, approxed, cfg.Workers)
	if err != nil {
		return nil, err
	}
	field := make([]map[policy.Kind][]point, len(s.at))
	for i := range s.Capacities {
		field[i] = map[policy.Kind][]point{}
		for _, kind := range kinds {
			if closed[i][kind] != nil {
				continue
			}
			for _, load := range s.Loads {
				v := approx(fields[0])
				fields = fields[1:]
				field[i][kind] = append(field[i][kind], point{float64(load), v, v, v})
			}
			ys.addPoints(field[i][kind])
		}
	}
	xs := newSpan()
	xs.add(float64(s.Loads[0])/loadDodge, float64(s.Loads[len(s.Loads)-1])*loadDodge)
	// The second row: each Monte Carlo mean and its band relative to its
	// model's value, in percent. On the first row the bands are narrower
	// than the glyphs; here they show, and so does how far the mean field
	// is from the simulation.
	resid := make([]map[policy.Kind][]point, len(s.at))
	rs := newSpan()
	for i := range s.at {
		resid[i] = map[policy.Kind][]point{}
		for _, kind := range kinds {
			ref := closed[i][kind]
			if ref == nil {
				ref = field[i][kind]
			}
			for j, q := range pts[i][kind] {
				v := ref[j].y
				rel := func(y float64) float64 { return 100 * (y/v - 1) }
				resid[i][kind] = append(resid[i][kind], point{q.x, rel(q.y), rel(q.lo), rel(q.hi)})
			}
			rs.addPoints(resid[i][kind])
		}
	}
	row := Row{YLabel: yLabel}
	residRow := Row{YLabel: "Monte Carlo / model - 1 (%)", Height: 0.6}
	for i, k := range s.Capacities {
		p := newPanel(fmt.Sprintf("k = %d requests/tick (N = %d to %d)", k, k*s.Loads[0], k*s.Loads[len(s.Loads)-1]),
			"load N/k (clients per unit of capacity)", "")
		r := newPanel("", "load N/k", "")
		for _, ax := range []*plot.Axis{&p.X, &r.X} {
			if err := frame(ax, xs, true); err != nil {
				return nil, err
			}
		}
		if err := frame(&p.Y, ys, true); err != nil {
			return nil, err
		}
		if err := frame(&r.Y, rs, false); err != nil {
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
		zero, err := curve([]point{{xs.min, 0, 0, 0}, {xs.max, 0, 0, 0}}, thin(grey))
		if err != nil {
			return nil, err
		}
		r.Add(zero)
		for _, kind := range kinds {
			if err := addEstimates(p, sideBySide(pts[i][kind], kinds, kind), kind); err != nil {
				return nil, err
			}
			if err := addEstimates(r, sideBySide(resid[i][kind], kinds, kind), kind); err != nil {
				return nil, err
			}
		}
		row.Panels = append(row.Panels, p)
		residRow.Panels = append(residRow.Panels, r)
	}
	return &Drawing{
		Title: title,
		Legend: append(policyKeys(kinds),
			Key{"closed form (none, fixed, expo; colour = policy)", []plot.Thumbnailer{&plotter.Line{LineStyle: solid(black)}}},
			Key{"mean field (full, equal, decorrelated)", []plot.Thumbnailer{&plotter.Line{LineStyle: dashed(black)}}}),
		// Two capacities a row, each model panel above its residuals.
		Rows: reflow([]Row{row, residRow}, 2),
		Note: fmt.Sprintf("Monte Carlo (markers): %d trials per point, seed %d; bands are 95%% Student-t intervals of the mean, narrower than the markers in the upper panels "+
			"and shown against each policy's model in the panel under each (0 = the model's value; the closed form is exact, so none, fixed and expo sit on 0 with no spread). "+
			"Markers are offset sideways by up to %.0f%% of N/k so that policies with equal values (none, fixed and expo always) stay apart; the lines are at the true N/k. "+
			"Lines are models: the exact closed form where every wait is certain, the mean field (an approximation for large N that follows expected numbers and their "+
			"fluctuations; herd validate holds it within 0.5%% in calls, 2%% in completion from N = 1,000 and N/k = 3 up) for the jittered policies. Capacity server; base 1, cap 32, fixed delay 2 ticks. "+
			"Each panel's points are %s.",
			s.trials, s.seed, 100*(loadDodge-1), s.commands()),
		Width: paperWidth, Height: vg.Inch * 12,
	}, nil
}

// commands is the herd sweep of each panel, as typed, with the sweep's
// trials and seed: what reproduces the figure's points.
func (s loadSweep) commands() string {
	var kinds []string
	for _, k := range s.Kinds {
		kinds = append(kinds, string(k))
	}
	var cmds []string
	for _, k := range s.Capacities {
		var ns []string
		for _, load := range s.Loads {
			ns = append(ns, strconv.Itoa(load*k))
		}
		cmds = append(cmds, fmt.Sprintf("herd sweep -k %d -n %s --policy %s --trials %d --seed %d", k, strings.Join(ns, ","), strings.Join(kinds, ","), s.trials, s.seed))
	}
	return strings.Join(cmds, "; ")
}

// loadDodge is the largest factor by which sideBySide moves a glyph along the
// log N/k axis.
const loadDodge = 1.12

// sideBySide offsets kind's points along a log x axis by its place among kinds,
// so that the glyphs of policies with equal values lie side by side: the
// policies without jitter (the first half) and the jittered ones each
// spread from 1/loadDodge to loadDodge.
func sideBySide(pts []point, kinds []policy.Kind, kind policy.Kind) []point {
	i := slices.Index(kinds, kind)
	group := len(kinds) / 2
	if group < 2 || i < 0 {
		return pts
	}
	pos := float64(i%group)/float64(group-1)*2 - 1 // -1 … 1
	f := math.Pow(loadDodge, pos)
	out := make([]point, len(pts))
	for j, q := range pts {
		q.x *= f
		out[j] = q
	}
	return out
}

// addEstimates draws one policy's Monte Carlo estimates: the 95% band and
// a glyph at each mean. The means are not joined: every policy has a
// model's line (closed form or mean field) beside them.
func addEstimates(p *plot.Plot, pts []point, kind policy.Kind) error {
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
func policyKeys(kinds []policy.Kind) []Key {
	var keys []Key
	for _, kind := range kinds {
		sw := &plotter.Polygon{Color: translucent(policyColor(kind))}
		g := &plotter.Scatter{GlyphStyle: policyGlyph(kind)}
		keys = append(keys, Key{Label: string(kind), Thumbs: []plot.Thumbnailer{sw, g}})
	}
	return keys
}
