package plots

import (
	"context"
	_ "embed" // the AWS blog simulator's own output
	"encoding/csv"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/study"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// awsTrials per point of the AWS blog's figures: five times the blog's own
// 100, so that the bands are narrow beside the gaps between policies.
const awsTrials = 500

// awsRows is `herd reproduce aws` at the figure's trial count; both AWS
// figures ask for it, and the second finds its points in the run's
// analysis.Cache.
func awsRows(ctx context.Context, cfg Config) ([]reproduce.AWSRow, error) {
	rows, err := reproduce.ReproduceAWS(ctx, model.AWSClients(), model.AWSKinds(), cfg.options(awsTrials), cfg.progress)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r.Censored > 0 {
			return nil, fmt.Errorf("%s, N = %d: %d trials were censored at the horizon", r.Policy, r.Clients, r.Censored)
		}
	}
	return rows, nil
}

// AWSCallsVersusClients draws the AWS blog's first figure rerun by herd:
// mean calls (writes) against the number of clients, per policy, with 95%
// bands.
func AWSCallsVersusClients(ctx context.Context, cfg Config) (*Drawing, error) {
	rows, err := awsRows(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return drawAWS(cfg, rows, reproduce.AWSCallsVersusClients(rows), "Calls (writes) against clients: the AWS blog's OCC simulation rerun by herd",
		"calls (writes, all clients)", false, func(b blogMean) float64 { return b.calls })
}

// AWSTimeVersusClients draws the AWS blog's second figure rerun by herd:
// mean completion time against the number of clients, on a log axis so
// that expo, an order of magnitude slower, stays on the graph with the
// others readable.
func AWSTimeVersusClients(ctx context.Context, cfg Config) (*Drawing, error) {
	rows, err := awsRows(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return drawAWS(cfg, rows, reproduce.AWSTimeVersusClients(rows), "Completion time against clients: the AWS blog's OCC simulation rerun by herd",
		"completion (ms, log axis)", true, func(b blogMean) float64 { return b.time })
}

// blogOutput is what the AWS blog's own simulator (backoff_simulator.py,
// github.com/aws-samples/aws-arch-backoff-simulator) wrote when run once
// unchanged with Python 2.7.18: its backoff_results.csv, the means over
// its 100 unseeded trials per point, truncated to integers by the script.
// Committed data, not code: the figures overlay it on herd's rerun.
//
//go:embed data/aws-blog-simulator.csv
var blogOutput string

// blogFile is where blogOutput lives, for error messages.
const blogFile = "plots/data/aws-blog-simulator.csv"

// blogMean is one row of the blog simulator's output.
type blogMean struct{ time, calls float64 }

// blogPolicies are the simulator's names of herd's policies.
var blogPolicies = map[string]policy.Kind{
	"None": policy.None, "Exponential": policy.Expo, "FullJitter": policy.Full,
	"EqualJitter": policy.Equal, "Decorr": policy.Decorrelated,
}

// blogMeans parses blogOutput by policy and client count.
func blogMeans() (map[policy.Kind]map[int]blogMean, error) {
	recs, err := csv.NewReader(strings.NewReader(blogOutput)).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", blogFile, err)
	}
	if len(recs) < 2 || strings.Join(recs[0], ",") != "clients,time,calls,Algorithm" {
		return nil, fmt.Errorf("%s: want the simulator's header clients,time,calls,Algorithm and rows", blogFile)
	}
	out := map[policy.Kind]map[int]blogMean{}
	for i, r := range recs[1:] {
		kind, ok := blogPolicies[r[3]]
		if !ok {
			return nil, fmt.Errorf("%s:%d: unknown algorithm %q", blogFile, i+2, r[3])
		}
		n, errN := strconv.Atoi(r[0])
		t, errT := strconv.ParseFloat(r[1], 64)
		c, errC := strconv.ParseFloat(r[2], 64)
		if errN != nil || errT != nil || errC != nil || t <= 0 || c <= 0 {
			return nil, fmt.Errorf("%s:%d: want clients, time and calls > 0, got %q", blogFile, i+2, strings.Join(r, ","))
		}
		if out[kind] == nil {
			out[kind] = map[int]blogMean{}
		}
		out[kind][n] = blogMean{t, c}
	}
	return out, nil
}

// blogGlyph marks a mean printed by the blog's simulator.
var blogGlyph = draw.GlyphStyle{Color: black, Radius: vg.Points(3.5), Shape: draw.CrossGlyph{}}

// awsSideBySide is how far (in clients) full and equal are moved apart
// along x: their calls are within 2% of each other, and full would hide
// under equal.
var awsSideBySide = map[policy.Kind]float64{policy.Full: -1.5, policy.Equal: 1.5}

// drawAWS draws one panel of series against the client count, with the
// blog simulator's means (blog picks the metric) overlaid.
func drawAWS(cfg Config, rows []reproduce.AWSRow, series []reproduce.Series, title, yLabel string, log bool, blog func(blogMean) float64) (*Drawing, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no data", title)
	}
	means, err := blogMeans()
	if err != nil {
		return nil, err
	}
	p := newPanel("", "clients N", "")
	xs, ys := newSpan(), newSpan()
	pts := make([][]point, len(series))
	var blogPts []point
	for i, s := range series {
		kind := policy.Kind(s.Policy)
		for _, q := range s.Points {
			pts[i] = append(pts[i], meanAt(q.X+awsSideBySide[kind], q.Estimate))
			xs.add(q.X)
			if b, ok := means[kind][int(q.X)]; ok {
				v := blog(b)
				blogPts = append(blogPts, point{q.X + awsSideBySide[kind], v, v, v})
				ys.add(v)
			}
		}
		ys.addPoints(pts[i])
	}
	if len(blogPts) == 0 {
		return nil, fmt.Errorf("%s: %s has no row at herd's client counts", title, blogFile)
	}
	if !log {
		ys.add(0)
	}
	if err := frame(&p.X, xs, false); err != nil {
		return nil, err
	}
	if err := frame(&p.Y, ys, log); err != nil {
		return nil, err
	}
	p.X.Tick.Marker = powerTicks{10, 50, 100, 150, 190}
	if log {
		// 1, 2 and 5 × 10ⁿ ms: logTicks would label only the decades of
		// this two-and-a-half-decade axis.
		p.Y.Tick.Marker = powerTicks{200, 500, 1000, 2000, 5000, 10_000, 20_000, 50_000, 100_000, 200_000}
	}
	var kinds []policy.Kind
	for i, s := range series {
		kind := policy.Kind(s.Policy)
		kinds = append(kinds, kind)
		if err := addBandedCurve(p, pts[i], policyColor(kind), policyGlyph(kind)); err != nil {
			return nil, err
		}
	}
	bg, err := scatter(blogPts, blogGlyph)
	if err != nil {
		return nil, err
	}
	p.Add(bg)
	// On a linear axis the jittered policies, within a few per cent of
	// each other, lie on one line: a second panel gives each one's mean
	// relative to full's at the same N (the blog's relative to its own).
	var ratio []Row
	if !log {
		r, err := awsRatioPanel(series, pts, means, blog, xs)
		if err != nil {
			return nil, err
		}
		ratio = []Row{{Panels: []*plot.Plot{r}, YLabel: "relative to full", Height: 0.55}}
	}
	var keys []Key
	for _, kind := range kinds {
		keys = append(keys, Key{string(kind), []plot.Thumbnailer{
			&plotter.Polygon{Color: translucent(policyColor(kind))},
			&plotter.Line{LineStyle: thin(policyColor(kind))},
			&plotter.Scatter{GlyphStyle: policyGlyph(kind)}}})
	}
	keys = append(keys, Key{"the blog's own simulator (mean of its 100 trials)", []plot.Thumbnailer{&plotter.Scatter{GlyphStyle: blogGlyph}}})
	sc, opt := rows[0].Scenario, cfg.options(awsTrials)
	height, ratioNote := vg.Inch*6.5, ""
	if ratio != nil {
		height = vg.Inch * 8.5
		ratioNote = " Bottom: each jittered policy's mean over full's at the same N (its interval divided likewise), the blog's over its own full."
	}
	return &Drawing{
		Title:  title,
		Legend: keys,
		Rows:   append([]Row{{Panels: []*plot.Plot{p}, YLabel: yLabel}}, ratio...),
		Note: fmt.Sprintf("herd reproduce aws --trials %d: %d trials per point, seed %d; bands are 95%% Student-t intervals of the mean (often narrower than the line). "+
			"N clients update one row under optimistic concurrency control, every network hop taking |Normal(10, 2)| ms; base %g ms, cap %g ms, as in %s. "+
			"Crosses: the means printed by the blog's own simulator (backoff_simulator.py, run once unchanged, 100 unseeded trials per point; %s). "+
			"full and equal are drawn 1.5 clients left and right of their N, which they would otherwise share.%s",
			opt.Trials, opt.Trials, opt.Seed, sc.Policy.Base, sc.Policy.Cap, reproduce.AWSSource, blogFile, ratioNote),
		Width: vg.Inch * 10, Height: height,
	}, nil
}

// awsRatioPanel draws the jittered policies' means divided by full's mean
// at the same N, with their 95% intervals divided likewise (full's own
// uncertainty, under 1%, is left out), and the blog simulator's ratios.
func awsRatioPanel(series []reproduce.Series, pts [][]point, means map[policy.Kind]map[int]blogMean, blog func(blogMean) float64, xs span) (*plot.Plot, error) {
	var full []point
	for i, s := range series {
		if policy.Kind(s.Policy) == policy.Full {
			full = pts[i]
		}
	}
	if full == nil {
		return nil, fmt.Errorf("the AWS figure has no full series to compare with")
	}
	p := newPanel("", "clients N", "")
	ys := newSpan()
	ys.add(1)
	ratios := map[policy.Kind][]point{}
	var blogPts []point
	for i, s := range series {
		kind := policy.Kind(s.Policy)
		if !slices.Contains(study.Jittered, kind) {
			continue
		}
		for j, q := range pts[i] {
			f := full[j].y
			ratios[kind] = append(ratios[kind], point{q.x, q.y / f, q.lo / f, q.hi / f})
			n := int(math.Round(q.x - awsSideBySide[kind]))
			if b, ok := means[kind][n]; ok {
				if bf, ok := means[policy.Full][n]; ok {
					blogPts = append(blogPts, point{q.x, blog(b) / blog(bf), 0, 0})
					blogPts[len(blogPts)-1].lo, blogPts[len(blogPts)-1].hi = blogPts[len(blogPts)-1].y, blogPts[len(blogPts)-1].y
				}
			}
		}
		ys.addPoints(ratios[kind])
	}
	ys.addPoints(blogPts)
	if err := frame(&p.X, xs, false); err != nil {
		return nil, err
	}
	if err := frame(&p.Y, ys, false); err != nil {
		return nil, err
	}
	p.X.Tick.Marker = powerTicks{10, 50, 100, 150, 190}
	for _, kind := range study.Jittered {
		if err := addBandedCurve(p, ratios[kind], policyColor(kind), policyGlyph(kind)); err != nil {
			return nil, err
		}
	}
	bg, err := scatter(blogPts, blogGlyph)
	if err != nil {
		return nil, err
	}
	p.Add(bg)
	return p, nil
}
