package plots

import (
	"context"
	"fmt"
	"image/color"
	"math"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/palette/moreland"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// SensitivityBaseCap draws calls and completion against cap for each base
// and jittered policy, then the paired difference full − decorrelated over
// the (base, cap) grid, estimated with common random numbers.
func SensitivityBaseCap(ctx context.Context, cfg Config) (*Drawing, error) {
	st := study.SensitivityStudy()
	opt := cfg.options(st.Trials)
	nc := len(st.Caps)
	// sums[kind][b][c], and the paired differences diff[b][c] from the
	// same trials.
	sums, diff, err := st.RunPaired(ctx, opt, cfg.progress)
	if err != nil {
		return nil, err
	}

	metrics := []struct {
		label string
		log   bool
		of    func(analysis.Summary) stats.Estimate
	}{
		{"calls (all attempts)", false, func(s analysis.Summary) stats.Estimate { return *s.Calls }},
		{"completion (ticks)", false, func(s analysis.Summary) stats.Estimate { return s.Completion.Estimate }},
	}
	xs := newSpan()
	xs.add(st.Caps[0], st.Caps[nc-1])
	var rows []Row
	for mi, m := range metrics {
		pts := map[policy.Kind][][]point{}
		ys := newSpan()
		for _, kind := range st.Kinds {
			for b := range st.Bases {
				var line []point
				for c, s := range sums[kind][b] {
					if s.Calls == nil {
						return nil, fmt.Errorf("%s, base %g, cap %g: every trial was censored", kind, st.Bases[b], st.Caps[c])
					}
					line = append(line, meanAt(st.Caps[c], m.of(s)))
				}
				ys.addPoints(line)
				pts[kind] = append(pts[kind], line)
			}
		}
		row := Row{YLabel: m.label}
		for b, base := range st.Bases {
			// Calls above completion: the title on the upper panel, the
			// cap axis's label on the lower.
			title, xLabel := fmt.Sprintf("base %s ticks", formatTick(base)), ""
			if mi > 0 {
				title, xLabel = "", "cap (ticks, log2 axis)"
			}
			p := newPanel(title, xLabel, "")
			if err := frame(&p.X, xs, true); err != nil {
				return nil, err
			}
			p.X.Tick.Marker = powerTicks{4, 16, 64, 256, 1024}
			if err := frame(&p.Y, ys, m.log); err != nil {
				return nil, err
			}
			for _, kind := range st.Kinds {
				line := pts[kind][b]
				bars, err := errorBars(p, line, policyColor(kind))
				if err != nil {
					return nil, err
				}
				l, err := curve(line, thin(policyColor(kind)))
				if err != nil {
					return nil, err
				}
				g, err := scatter(line, policyGlyph(kind))
				if err != nil {
					return nil, err
				}
				p.Add(l, bars, g)
			}
			row.Panels = append(row.Panels, p)
		}
		rows = append(rows, row)
	}
	// Five bases are too many panels across the figure: three a row, and
	// each heat map on a row of its own.
	rows = reflow(rows, 3)
	for _, m := range []struct {
		label string
		of    func(analysis.Comparison) stats.Difference
	}{
		{"calls", func(c analysis.Comparison) stats.Difference { return c.Calls }},
		{"completion (ticks)", func(c analysis.Comparison) stats.Difference { return c.Completion }},
	} {
		hm, bar, err := differenceMap(st, "full - decorrelated: "+m.label, "full - decorrelated, "+m.label, diff, m.of)
		if err != nil {
			return nil, err
		}
		rows = append(rows, Row{Panels: []*plot.Plot{hm, bar}, Widths: []float64{1, 0.12}, Height: 1.6})
	}
	sc := st.Scenario(st.Kinds[0], st.Bases[0], st.Caps[0])
	keys := policyMarkerKeys(st.Kinds)
	keys = append(keys, Key{"heat maps: paired difference and its 95% half-width (+/-), or n.s. where the interval contains 0", nil})
	return &Drawing{
		Title:  "Sensitivity to base and cap, N = 100 clients, capacity k = 10 requests/tick",
		Legend: keys,
		Rows:   rows,
		Note: fmt.Sprintf("Monte Carlo: %d trials per point, seed %d; error bars and the paired differences are 95%% Student-t intervals; "+
			"the differences use common random numbers (trial i of both policies draws from one stream). Every point is herd sweep -n %d -k %d --policy %s --base %s --cap %s --trials %d --seed %d.",
			opt.Trials, opt.Seed, sc.Clients, sc.Capacity, joinKinds(st.Kinds), joinValues(st.Bases), joinValues(st.Caps), opt.Trials, opt.Seed),
		Width: paperWidth, Height: vg.Inch * 13.5,
	}, nil
}

// grid is the (cap, base) grid of a heat map: column c is cap c, row r is
// base r, both at integer positions so that the cells are square on the
// log₂ grid.
type grid struct{ z [][]float64 } // z[base][cap]

func (g grid) Dims() (c, r int)   { return len(g.z[0]), len(g.z) }
func (g grid) Z(c, r int) float64 { return g.z[r][c] }
func (g grid) X(c int) float64    { return float64(c) }
func (g grid) Y(r int) float64    { return float64(r) }

// differenceMap draws the paired differences as a heat map on a diverging
// blue–red scale centred on 0, each cell labelled with its estimate or
// marked n.s., and returns it with its colour bar.
func differenceMap(study study.SensitivityGrid, title, barLabel string, diff [][]analysis.Comparison, of func(analysis.Comparison) stats.Difference) (*plot.Plot, *plot.Plot, error) {
	g := grid{}
	lim := 0.0
	labels := plotter.XYLabels{}
	var styles []text.Style
	for b, row := range diff {
		var z []float64
		for c, cmp := range row {
			d := of(cmp)
			z = append(z, d.Mean)
			lim = math.Max(lim, math.Abs(d.Mean))
			// The estimate and its 95% half-width, so that each cell
			// shows how sure it is; n.s. where the interval holds 0.
			s := fmt.Sprintf("%+.3g", d.Mean)
			switch {
			case !d.Significant:
				s += "\nn.s."
			case d.CI95 != nil:
				s += fmt.Sprintf("\n+/-%.2g", (d.CI95[1]-d.CI95[0])/2)
			}
			labels.XYs = append(labels.XYs, plotter.XY{X: float64(c), Y: float64(b)})
			labels.Labels = append(labels.Labels, s)
			_ = c
		}
		g.z = append(g.z, z)
	}
	if lim == 0 {
		lim = 1
	}
	cmap := moreland.SmoothBlueRed()
	cmap.SetMin(-lim)
	cmap.SetMax(lim)
	hm := plotter.NewHeatMap(g, cmap.Palette(255))
	hm.Min, hm.Max = -lim, lim
	p := newPanel(title, "cap (ticks)", "base (ticks)")
	p.Add(hm)
	for b := range diff {
		for c := range diff[b] {
			d := g.z[b][c] / lim
			sty := textStyle(p.X.Tick.Label.Font, draw.XCenter)
			sty.YAlign = draw.YCenter
			if math.Abs(d) > 0.6 {
				sty.Color = color.White
			}
			styles = append(styles, sty)
		}
	}
	l, err := plotter.NewLabels(labels)
	if err != nil {
		return nil, nil, err
	}
	l.TextStyle = styles
	p.Add(l)
	capNames := make([]string, len(study.Caps))
	for i, c := range study.Caps {
		capNames[i] = formatTick(c)
	}
	baseNames := make([]string, len(study.Bases))
	for i, b := range study.Bases {
		baseNames[i] = formatTick(b)
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = nominalTicks(capNames), nominalTicks(baseNames)
	p.X.Min, p.X.Max = -0.5, float64(len(capNames))-0.5
	p.Y.Min, p.Y.Max = -0.5, float64(len(baseNames))-0.5

	bar := newPanel("", "", barLabel)
	// A fixed number of colours, not one per point of the bar's height: the
	// PDF backend orders images of equal width at random, and bars of one
	// size and map are one image, written once.
	bar.Add(&plotter.ColorBar{ColorMap: cmap, Vertical: true, Colors: 256})
	bar.HideX()
	bar.X.Min, bar.X.Max = 0, 1
	bar.Y.Min, bar.Y.Max = -lim, lim
	return p, bar, nil
}

// joinKinds and joinValues write a sweep's lists as its flags take them.
func joinKinds(ks []policy.Kind) string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return strings.Join(out, ",")
}

func joinValues(vs []float64) string {
	var out []string
	for _, v := range vs {
		out = append(out, formatTick(v))
	}
	return strings.Join(out, ",")
}
