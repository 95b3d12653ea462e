package analysis

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// TrafficSummary is what an open-loop Monte Carlo run says. Recovery time
// is over the trials that recovered (Recovered says how many): a trial that
// has not recovered by the horizon has no recovery time, and is never
// folded in as if it had one.
type TrafficSummary struct {
	Scenario model.Scenario `json:"scenario"`
	Traffic  TrafficJSON    `json:"traffic"`
	Controls ControlsJSON   `json:"controls"`
	Trials   int            `json:"trials"`
	Seed     uint64         `json:"seed"`
	// Engine is the engine that played the trials and why (the plan's).
	Engine    montecarlo.Choice `json:"engine"`
	Recovered stats.Share       `json:"recovered"`
	// RecoveryTicks: ticks from the outage's end until the backlog fell to
	// the recovery level, over recovered trials.
	RecoveryTicks *Distribution  `json:"recovery_ticks,omitempty"`
	NewRequests   stats.Estimate `json:"new_requests"`
	Calls         stats.Estimate `json:"calls"`
	// Load is calls per new request in each trial: 1 without retries.
	Load   stats.Estimate `json:"load"`
	Served stats.Estimate `json:"served"`
	// ServedShare is served per new request in each trial.
	ServedShare stats.Estimate `json:"served_share"`
	// Goodput is the mean requests served per tick from the outage's end
	// to the horizon (or to an early stop), as a share of the new-request
	// rate.
	Goodput     stats.Estimate `json:"goodput_after_outage"`
	GaveUp      stats.Estimate `json:"gave_up"`
	GaveUpBy    GaveUpCause    `json:"gave_up_by"`
	Backlog     stats.Estimate `json:"backlog_at_horizon"`
	PeakBacklog stats.Estimate `json:"peak_backlog"`
	Peak        stats.Estimate `json:"peak_sends"`
	// Series are the per-tick means of sends, goodput and backlog over all
	// trials, when asked with Options.Arrivals.
	Sends     []float64 `json:"sends,omitempty"`
	GoodputAt []float64 `json:"goodput,omitempty"`
	BacklogAt []float64 `json:"backlog,omitempty"`
	Warnings  []string  `json:"warnings,omitempty"`
}

// GaveUpCause is the mean number of requests given up per trial, by cause.
type GaveUpCause struct {
	Limit   stats.Estimate `json:"attempts_limit"`
	Bucket  stats.Estimate `json:"token_bucket"`
	Breaker stats.Estimate `json:"circuit_breaker"`
}

// TrafficJSON is model.Traffic in the JSON shape of herd's outputs.
type TrafficJSON struct {
	Rate             float64 `json:"rate"`
	Load             float64 `json:"load"` // rate / capacity
	Ticks            int     `json:"ticks"`
	OutageStart      int     `json:"outage_start"`
	OutageLength     int     `json:"outage"`
	OutageCapacity   int     `json:"outage_capacity"`
	RejectCost       float64 `json:"reject_cost"`
	RecoveredBacklog int     `json:"recovered_backlog"`
}

// ControlsJSON is model.Controls in the JSON shape of herd's outputs.
type ControlsJSON struct {
	Name        string        `json:"name"`
	MaxAttempts int           `json:"max_attempts"`
	Bucket      *model.Bucket `json:"bucket,omitempty"`
	Breaker     *BreakerJSON  `json:"breaker,omitempty"`
}

// BreakerJSON is model.Breaker in JSON.
type BreakerJSON struct {
	Window    int     `json:"window"`
	Threshold float64 `json:"threshold"`
	MinCalls  int     `json:"min_calls"`
	Cooldown  int     `json:"cooldown"`
}

func controlsJSON(c model.Controls) ControlsJSON {
	j := ControlsJSON{Name: c.String(), MaxAttempts: c.MaxAttempts}
	if c.Bucket.Kind != model.NoBucket && c.Bucket.Kind != "" {
		b := c.Bucket
		j.Bucket = &b
	}
	if k := c.Breaker; k.Window > 0 {
		j.Breaker = &BreakerJSON{k.Window, k.Threshold, k.MinCalls, k.Cooldown}
	}
	return j
}

func trafficJSON(sc model.Scenario, t model.Traffic) TrafficJSON {
	return TrafficJSON{
		Rate: t.Rate, Load: t.Rate / float64(sc.Capacity), Ticks: t.Ticks, OutageStart: t.OutageStart,
		OutageLength: t.OutageLength, OutageCapacity: t.OutageCapacity, RejectCost: t.RejectCost,
		RecoveredBacklog: t.RecoveryBacklog(sc.Capacity),
	}
}

// SimulateTraffic runs opt.Trials open-loop trials of sc under the traffic
// and controls and summarizes them.
func SimulateTraffic(ctx context.Context, sc model.Scenario, tr model.Traffic, ctl model.Controls, opt montecarlo.Options) (TrafficSummary, error) {
	plan, err := montecarlo.NewPlan(sc, montecarlo.OpenLoop{Traffic: tr, Controls: ctl}, opt)
	if err != nil {
		return TrafficSummary{}, err
	}
	var fresh, calls, load, served, share, goodput, gaveUp, backlog, peakBacklog, peak stats.Moments
	var byCause [3]stats.Moments
	var recHist []int64
	var rec stats.Moments
	recovered, collapsed := 0, 0
	var sends, good, back []float64
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		o := t.Open
		fresh.Add(float64(o.NewRequests))
		calls.Add(float64(t.Calls))
		if o.NewRequests > 0 {
			load.Add(float64(t.Calls) / float64(o.NewRequests))
			share.Add(float64(t.Served) / float64(o.NewRequests))
		}
		served.Add(float64(t.Served))
		if after := float64(t.Completion) - float64(tr.OutageEnd()); after > 0 {
			goodput.Add(float64(o.ServedAfter) / after / tr.Rate)
		}
		if o.Collapsed {
			collapsed++
		}
		gaveUp.Add(float64(o.GaveUp))
		for i := range byCause {
			byCause[i].Add(float64(o.GaveUpBy[i]))
		}
		backlog.Add(float64(o.Backlog))
		peakBacklog.Add(float64(o.PeakBacklog))
		peak.Add(float64(t.Peak))
		if o.Recovered {
			recovered++
			rec.Add(float64(o.RecoveryTicks))
			for int64(len(recHist)) <= o.RecoveryTicks {
				recHist = append(recHist, 0)
			}
			recHist[o.RecoveryTicks]++
		}
		if opt.Arrivals {
			sends = addSeries(sends, t.Arrivals)
			good = addSeries(good, o.Goodput)
			back = addSeries(back, o.BacklogAt)
		}
		return nil
	})
	if err != nil {
		return TrafficSummary{}, err
	}
	s := TrafficSummary{
		Scenario: sc, Traffic: trafficJSON(sc, tr), Controls: controlsJSON(ctl),
		Trials: opt.Trials, Seed: opt.Seed, Engine: plan.Choice, Recovered: stats.NewShare(recovered, opt.Trials),
		NewRequests: fresh.Estimate(), Calls: calls.Estimate(), Load: load.Estimate(),
		Served: served.Estimate(), ServedShare: share.Estimate(), Goodput: goodput.Estimate(),
		GaveUp: gaveUp.Estimate(), Backlog: backlog.Estimate(), PeakBacklog: peakBacklog.Estimate(), Peak: peak.Estimate(),
		GaveUpBy: GaveUpCause{byCause[0].Estimate(), byCause[1].Estimate(), byCause[2].Estimate()},
	}
	if recovered > 0 {
		s.RecoveryTicks = &Distribution{Estimate: rec.Estimate(), Quantiles: map[string]stats.Quantile{}}
		for _, pc := range stats.Percentiles {
			s.RecoveryTicks.Quantiles[pc.Name] = stats.QuantileOf(recHist, pc.P)
		}
	}
	if recovered < opt.Trials {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d of %d trials had not recovered by the horizon (tick %d): their backlog never fell to %d after the outage; recovery time covers only the %d that did",
			opt.Trials-recovered, opt.Trials, tr.Ticks, tr.RecoveryBacklog(sc.Capacity), recovered))
	}
	if collapsed > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d trials stopped early when their backlog passed %d (--collapse-backlog); they count as not recovered", collapsed, tr.CollapseBacklog))
	}
	for _, x := range [][]float64{sends, good, back} {
		for i := range x {
			x[i] /= float64(opt.Trials)
		}
	}
	s.Sends, s.GoodputAt, s.BacklogAt = sends, good, back
	return s, nil
}

func addSeries(acc []float64, x []int64) []float64 {
	for len(acc) < len(x) {
		acc = append(acc, 0)
	}
	for i, v := range x {
		acc[i] += float64(v)
	}
	return acc
}
