package plots

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// awsTrials per point of the AWS blog's figures: five times the blog's own
// 100, so that the bands are narrow beside the gaps between policies.
const awsTrials = 500

// awsRows is `herd reproduce aws` at the figure's trial count, shared by
// both AWS figures through the cache.
func awsRows(ctx context.Context, cfg Config) ([]analysis.AWSRow, error) {
	opt := cfg.options(awsTrials)
	key := fmt.Sprintf("aws/%d/%d", opt.Trials, opt.Seed)
	return remember(cfg.Cache, key, func() ([]analysis.AWSRow, error) {
		rows, err := analysis.ReproduceAWS(ctx, model.AWSClients(), model.AWSKinds(), opt, cfg.progress)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			if r.Censored > 0 {
				return nil, fmt.Errorf("%s, N = %d: %d trials were censored at the horizon", r.Policy, r.Clients, r.Censored)
			}
		}
		return rows, nil
	})
}

// AWSCallsVersusClients draws the AWS blog's first figure rerun by herd:
// mean calls (writes) against the number of clients, per policy, with 95%
// bands.
func AWSCallsVersusClients(ctx context.Context, cfg Config) (*Drawing, error) {
	rows, err := awsRows(ctx, cfg)
	if err != nil {
		return nil, err
	}
	return drawAWS(cfg, rows, analysis.AWSCallsVersusClients(rows), "Calls (writes) against clients: the AWS blog's OCC simulation rerun by herd",
		"calls (writes, all clients)", false)
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
	return drawAWS(cfg, rows, analysis.AWSTimeVersusClients(rows), "Completion time against clients: the AWS blog's OCC simulation rerun by herd",
		"completion (ms, log axis)", true)
}

// drawAWS draws one panel of series against the client count.
func drawAWS(cfg Config, rows []analysis.AWSRow, series []analysis.Series, title, yLabel string, log bool) (*Drawing, error) {
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no data", title)
	}
	p := newPanel("", "clients N", "")
	xs, ys := newSpan(), newSpan()
	pts := make([][]point, len(series))
	for i, s := range series {
		for _, q := range s.Points {
			pts[i] = append(pts[i], meanAt(q.X, q.Estimate))
			xs.add(q.X)
		}
		ys.addPoints(pts[i])
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
	var kinds []model.Kind
	for i, s := range series {
		kind := model.Kind(s.Policy)
		kinds = append(kinds, kind)
		b, err := band(p, pts[i], translucent(policyColor(kind)))
		if err != nil {
			return nil, err
		}
		l, err := curve(pts[i], thin(policyColor(kind)))
		if err != nil {
			return nil, err
		}
		g, err := scatter(pts[i], policyGlyph(kind))
		if err != nil {
			return nil, err
		}
		p.Add(b, l, g)
	}
	var keys []Key
	for _, kind := range kinds {
		keys = append(keys, Key{string(kind), []plot.Thumbnailer{
			&plotter.Polygon{Color: translucent(policyColor(kind))},
			&plotter.Line{LineStyle: thin(policyColor(kind))},
			&plotter.Scatter{GlyphStyle: policyGlyph(kind)}}})
	}
	sc, opt := rows[0].Scenario, cfg.options(awsTrials)
	return &Drawing{
		Title:  title,
		Legend: keys,
		Rows:   []Row{{Panels: []*plot.Plot{p}, YLabel: yLabel}},
		Note: fmt.Sprintf("herd reproduce aws --trials %d: %d trials per point, seed %d; bands are 95%% Student-t intervals of the mean (often narrower than the line). "+
			"N clients update one row under optimistic concurrency control, every network hop taking |Normal(10, 2)| ms; base %g ms, cap %g ms, as in %s.",
			opt.Trials, opt.Trials, opt.Seed, sc.Policy.Base, sc.Policy.Cap, analysis.AWSSource),
		Width: vg.Inch * 10, Height: vg.Inch * 6.5,
	}, nil
}
