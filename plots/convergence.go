package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// convergenceStyles draw the quantiles of study.TailStudy's Levels, in
// order: each its own colour and glyph (the policy is one, Full Jitter, so
// the colours are free to tell the quantiles apart).
var convergenceStyles = []struct {
	color color.NRGBA
	shape draw.GlyphDrawer
	line  func(color.Color) draw.LineStyle
}{
	{blue, draw.CircleGlyph{}, thin},
	{orange, draw.TriangleGlyph{}, thin},
	{vermillion, draw.SquareGlyph{}, thin},
}

// convergenceCohort is one column of tail-convergence; markov says whether
// its exact quantiles are drawn.
type convergenceCohort struct {
	sc     model.Scenario
	markov bool
}

// convergenceCohorts are the study's cohort small enough for the exact
// Markov chain (N = 10, k = 2: under 2,000 states at any tick, a hundredth
// of a second) and the seed article's N = 100. The chain is not tried on
// N = 100: it needs more than its two million states by tick 2 and takes
// tens of seconds to find out.
func convergenceCohorts(study study.TailQuantiles) []convergenceCohort {
	return []convergenceCohort{{study.Small, true}, {study.Seed, false}}
}

// markovStates bounds the chain of a convergence cohort, so that a cohort
// grown beyond its reach fails fast instead of running for minutes.
const markovStates = 200_000

// TailConvergence draws, for each cohort, the running estimates of p50,
// p95 and p99 of completion with their order-statistic 95% bands as trials
// accumulate, and the bands' half-widths against a 1/sqrt(n) guide.
func TailConvergence(ctx context.Context, cfg Config) (*Drawing, error) {
	st := study.TailStudy()
	opt := cfg.options(st.Trials)
	// Checkpoints from 10 trials up, ten per decade.
	at := study.LogSpaced(10, max(opt.Trials, 10), 10)
	cohorts := convergenceCohorts(st)
	top, bottom := Row{YLabel: "completion (ticks)"}, Row{YLabel: "half-width (ticks)"}
	var withExact []string
	for ci, cohort := range cohorts {
		sc := cohort.sc
		conv, err := st.Run(ctx, sc, opt, at)
		if err != nil {
			return nil, err
		}
		cfg.progress(ci+1, len(cohorts))
		kind := sc.Policy.Kind
		name := fmt.Sprintf("N = %d, k = %d, %s", sc.Clients, sc.Capacity, kind)
		est := newPanel(name+": running quantiles", "trials n", "")
		hw := newPanel(name+": 95% interval half-width", "trials n", "")
		xs, ys, hs := newSpan(), newSpan(), newSpan()
		xs.add(float64(at[0]), float64(at[len(at)-1]))
		paths := make([][]point, len(conv.Paths))
		widths := make([][]point, len(conv.Paths))
		for i, path := range conv.Paths {
			for j, q := range path.At {
				n := float64(path.Trials[j])
				paths[i] = append(paths[i], quantileAt(n, q))
				// A half-width of 0 (both ends the same tick) or +Inf
				// (too few trials for one end) has no place on a log
				// axis; those checkpoints are left out.
				if h := path.HalfWidth(j); h > 0 && !math.IsInf(h, 0) {
					widths[i] = append(widths[i], point{n, h, h, h})
				}
			}
			ys.addPoints(paths[i])
			hs.addPoints(widths[i])
		}
		// The exact quantiles from the Markov chain, where the cohort is
		// within its reach (the small one): a running estimate's band
		// should close in on its line.
		var exact []float64
		if cohort.markov {
			m, err := solve.MarkovChain(sc, solve.MarkovOptions{MaxStates: markovStates})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			if m.Unfinished > 0 {
				return nil, fmt.Errorf("%s: the Markov chain left probability %g unfinished at the horizon", name, m.Unfinished)
			}
			for _, p := range st.Levels {
				q := float64(m.Quantile(p))
				exact = append(exact, q)
				ys.add(q)
			}
			withExact = append(withExact, name)
		}
		for _, err := range []error{frame(&est.X, xs, true), frame(&est.Y, ys, false), frame(&hw.X, xs, true)} {
			if err != nil {
				return nil, err
			}
		}
		guide, err := sqrtGuide(widths)
		if err != nil {
			return nil, err
		}
		if guide != nil {
			hs.add(guide.ys...)
		}
		if err := frame(&hw.Y, hs, true); err != nil {
			return nil, err
		}
		for i, q := range exact {
			line, err := curve([]point{{xs.min, q, q, q}, {xs.max, q, q, q}}, dashed(convergenceStyles[i].color))
			if err != nil {
				return nil, err
			}
			est.Add(line)
		}
		for i, l := range convergenceStyles[:len(st.Levels)] {
			c := l.color
			g := draw.GlyphStyle{Color: c, Radius: vg.Points(2.5), Shape: l.shape}
			b, err := band(est, paths[i], translucent(c))
			if err != nil {
				return nil, err
			}
			line, err := curve(paths[i], l.line(c))
			if err != nil {
				return nil, err
			}
			marks, err := scatter(paths[i], g)
			if err != nil {
				return nil, err
			}
			est.Add(b, line, marks)
			if len(widths[i]) > 0 {
				wl, err := curve(widths[i], l.line(c))
				if err != nil {
					return nil, err
				}
				wm, err := scatter(widths[i], g)
				if err != nil {
					return nil, err
				}
				hw.Add(wl, wm)
			}
		}
		if guide != nil {
			gl, err := curve(guide.points(), dotted(black))
			if err != nil {
				return nil, err
			}
			hw.Add(gl)
		}
		for _, p := range []*plot.Plot{est, hw} {
			p.X.Tick.Marker = logTicks{}
		}
		top.Panels = append(top.Panels, est)
		bottom.Panels = append(bottom.Panels, hw)
	}
	var keys []Key
	for i, p := range st.Levels {
		l := convergenceStyles[i]
		g := draw.GlyphStyle{Color: l.color, Radius: vg.Points(2.5), Shape: l.shape}
		keys = append(keys, Key{fmt.Sprintf("p%.0f with 95%% band", 100*p), []plot.Thumbnailer{
			&plotter.Polygon{Color: translucent(l.color)},
			&plotter.Line{LineStyle: l.line(l.color)}, &plotter.Scatter{GlyphStyle: g}}})
	}
	if len(withExact) > 0 {
		keys = append(keys, Key{"exact value (Markov chain; colour = quantile)", []plot.Thumbnailer{&plotter.Line{LineStyle: dashed(grey)}}})
	}
	keys = append(keys, Key{"guide c/sqrt(n), c = first finite half-width times sqrt(its n)", []plot.Thumbnailer{&plotter.Line{LineStyle: dotted(black)}}})
	return &Drawing{
		Title:  "How many trials does a tail quantile of completion need?",
		Legend: keys,
		Rows:   []Row{top, bottom},
		Note: fmt.Sprintf("One study of %d trials per cohort, seed %d, estimated after its first n trials; bands are exact distribution-free order-statistic 95%% intervals "+
			"(an unbounded end is drawn to the panel edge). Completion is a whole number of ticks, so an interval stops narrowing once it spans "+
			"neighbouring ticks (half-width 0.5), and a half-width of 0 (both ends on one tick) or unbounded is not drawn; the guide is the 1/sqrt(n) rate "+
			"of a continuous quantity, anchored at the first finite half-width (p50's, normally): c is that half-width times the square root of its trial count.%s Base 1, cap 32.", opt.Trials, opt.Seed, exactNote(withExact)),
		Width: paperWidth, Height: vg.Inch * 9,
	}, nil
}

// guideLine is c/sqrt(n) through the first point of the widest path.
type guideLine struct{ xs, ys []float64 }

func (g *guideLine) points() []point {
	pts := make([]point, len(g.xs))
	for i := range g.xs {
		pts[i] = point{g.xs[i], g.ys[i], g.ys[i], g.ys[i]}
	}
	return pts
}

// sqrtGuide anchors the 1/sqrt(n) guide at the earliest finite half-width
// of the first path that has one (p50's, normally), from that n on.
func sqrtGuide(widths [][]point) (*guideLine, error) {
	for _, w := range widths {
		if len(w) == 0 {
			continue
		}
		n0, h0 := w[0].x, w[0].y
		last := n0
		for _, v := range widths {
			for _, q := range v {
				last = math.Max(last, q.x)
			}
		}
		g := &guideLine{}
		for _, n := range []float64{n0, last} {
			g.xs = append(g.xs, n)
			g.ys = append(g.ys, h0*math.Sqrt(n0/n))
		}
		return g, nil
	}
	return nil, nil
}

// exactNote says which cohorts have the exact quantiles drawn.
func exactNote(cohorts []string) string {
	if len(cohorts) == 0 {
		return ""
	}
	return fmt.Sprintf(" Dashed lines: exact quantiles from the Markov chain (%s; the larger cohort is beyond its reach).", strings.Join(cohorts, "; "))
}
