package plots

import (
	"context"
	"fmt"
	"image/color"

	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// presetGlyph marks a library preset (the textbook policies keep their own
// colours and glyphs).
var presetGlyph = draw.GlyphStyle{Color: grey, Radius: vg.Points(4), Shape: draw.CrossGlyph{}}

// PresetsAudit draws the audit of every library preset and textbook policy
// in rank order: mean completion, the share of clients that gave up, and
// the share of the cohort's first retries within one second (exact, in
// real time), against the synchronization threshold.
func PresetsAudit(ctx context.Context, cfg Config) (*Drawing, error) {
	// The README's audit: study.AuditStudy at its first tick, 1 s.
	st := study.AuditStudy()
	opt := cfg.options(st.Trials)
	a, err := st.Run(ctx, st.Ticks[0], opt, cfg.progress)
	if err != nil {
		return nil, err
	}
	data := study.PresetsAuditData(a)
	if len(data) == 0 {
		return nil, fmt.Errorf("presets audit: no policy finished a trial")
	}
	n := len(data)
	names := make([]string, n)
	at := func(i int) float64 { return float64(n - 1 - i) } // rank 1 on top
	for i, d := range data {
		names[n-1-i] = d.Policy
		if d.Synchronized {
			names[n-1-i] += " *"
		}
	}
	// The panels in the order of the ranking: clients that gave up, calls,
	// completion; then the synchronization of the first retries.
	metrics := []struct {
		title      string
		log        bool
		of         func(study.PresetsAuditPoint) stats.Estimate
		completion bool
	}{
		{"share of clients that gave up", false, func(d study.PresetsAuditPoint) stats.Estimate { return d.GaveUpRate }, false},
		{"calls per client (log axis)", true, func(d study.PresetsAuditPoint) stats.Estimate { return d.CallsPerClient }, false},
		{fmt.Sprintf("completion (%s, log axis)", a.Unit), true, func(d study.PresetsAuditPoint) stats.Estimate { return d.Completion }, true},
		{"share of first retries within 1 s (exact)", false, func(d study.PresetsAuditPoint) stats.Estimate { return d.Sync }, false},
	}
	// Two panels a row, each row's first naming the policies.
	rows := make([]Row, 2)
	for mi, m := range metrics {
		p := newPanel(m.title, "", "")
		// Each estimate is a point whose y is its value, drawn transposed:
		// value along x, rank along y.
		pts := make([]point, n)
		xs := newSpan()
		for i, d := range data {
			pts[i] = meanAt(at(i), m.of(d))
			xs.addPoints(pts[i : i+1])
		}
		if !m.log {
			xs.add(0, 1)
		}
		if err := frame(&p.X, xs, m.log); err != nil {
			return nil, err
		}
		if !m.log {
			p.X.Min, p.X.Max = -0.04, 1.04
		}
		p.Y.Min, p.Y.Max = -0.7, float64(n)-0.3
		p.Y.Tick.Marker = nominalTicks(names)
		if mi%2 > 0 {
			p.Y.Tick.Marker = nominalTicks(make([]string, n))
		}
		if mi == len(metrics)-1 {
			l, err := plotter.NewLine(xyList{{X: vg.Length(a.SyncThreshold), Y: vg.Length(p.Y.Min)}, {X: vg.Length(a.SyncThreshold), Y: vg.Length(p.Y.Max)}})
			if err != nil {
				return nil, err
			}
			l.LineStyle = dotted(black)
			p.Add(l)
		}
		for i, d := range data {
			g, c := presetGlyph, grey
			if !d.Preset {
				g, c = bigger(policyGlyph(policy.Kind(d.Policy))), policyColor(policy.Kind(d.Policy))
			}
			// A completion bought by abandoning clients is not a fast
			// finish: drawn hollow and pale, so that it does not read as
			// one.
			if m.completion && abandons(d) {
				g, c = abandonedGlyph, abandonedColor
			}
			if err := addTransposed(p, pts[i], g, c); err != nil {
				return nil, err
			}
		}
		rows[mi/2].Panels = append(rows[mi/2].Panels, p)
	}
	keys := []Key{{"library preset (its defaults)", []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: presetGlyph}}}}
	for _, k := range policy.Kinds() {
		if !k.IsPreset() {
			keys = append(keys, Key{string(k), []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: bigger(policyGlyph(k))}}})
		}
	}
	keys = append(keys, Key{fmt.Sprintf("completion where >= %.0f%% of clients gave up (early by abandoning them)", 100*abandonShare),
		[]plot.Thumbnailer{&plotter.Scatter{GlyphStyle: abandonedGlyph}}})
	keys = append(keys, Key{fmt.Sprintf("synchronized threshold %.0f%% (* = synchronized)", 100*a.SyncThreshold),
		[]plot.Thumbnailer{&plotter.Line{LineStyle: dotted(black)}}})
	return &Drawing{
		Title:  fmt.Sprintf("Library defaults in a thundering herd: %d clients fail together, capacity %d per %s tick", st.Clients, st.Capacity, a.Scenario.Policy.TickLength()),
		Legend: keys,
		Rows:   rows,
		Note: fmt.Sprintf("herd audit --clients %d --capacity %d: %d trials per policy, seed %d, common random numbers; bars are 95%% Student-t intervals of the mean (often narrower than the marker). "+
			"Ranked (top to bottom) by %s. Textbook policies use base 1, cap 32; presets their libraries' defaults and retry limits. "+
			"Completion and the cohort share are over the trials that finished; a policy whose clients give up finishes early by abandoning them.",
			st.Clients, st.Capacity, opt.Trials, opt.Seed, a.RankedBy),
		Width: paperWidth, Height: vg.Inch * 12,
	}, nil
}

// abandonShare is the share of clients giving up above which a policy's
// completion is drawn as abandoned rather than finished.
const abandonShare = 0.01

func abandons(d study.PresetsAuditPoint) bool { return d.GaveUpRate.Mean >= abandonShare }

var (
	abandonedColor = tint(grey, 0.45)
	abandonedGlyph = draw.GlyphStyle{Color: abandonedColor, Radius: vg.Points(4), Shape: draw.RingGlyph{}}
)

// addTransposed draws an estimate with value along x and position along
// y: a horizontal 95% bar and a glyph.
func addTransposed(p *plot.Plot, q point, g draw.GlyphStyle, c color.Color) error {
	lo, hi := clip(&p.X, q.lo), clip(&p.X, q.hi)
	bars, err := plotter.NewXErrorBars(xErrs{vg.Point{X: vg.Length(q.y), Y: vg.Length(q.x)}, q.y - lo, hi - q.y})
	if err != nil {
		return err
	}
	bars.LineStyle = thin(c)
	bars.CapWidth = vg.Points(4)
	s, err := plotter.NewScatter(xyList{{X: vg.Length(q.y), Y: vg.Length(q.x)}})
	if err != nil {
		return err
	}
	s.GlyphStyle = g
	p.Add(bars, s)
	return nil
}

// xErrs is one point with a horizontal error bar.
type xErrs struct {
	at     vg.Point
	lo, hi float64
}

func (e xErrs) Len() int                      { return 1 }
func (e xErrs) XY(int) (float64, float64)     { return float64(e.at.X), float64(e.at.Y) }
func (e xErrs) XError(int) (float64, float64) { return e.lo, e.hi }
