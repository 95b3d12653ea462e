package analysis

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/control"
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
	// Queue is the queue server's goodput, wasted work, response times
	// and latencies (queue.go); absent on other servers.
	Queue    *QueueStats `json:"queue,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
}

// GaveUpCause is the mean number of requests given up per trial, by cause
// (control.Cause). The causes of controls that were not on are absent, but
// for the first three, which every output has always carried.
type GaveUpCause struct {
	Limit      stats.Estimate  `json:"attempts_limit"`
	Bucket     stats.Estimate  `json:"token_bucket"`
	Breaker    stats.Estimate  `json:"circuit_breaker"`
	Budget     *stats.Estimate `json:"retry_budget,omitempty"`
	Throttling *stats.Estimate `json:"retry_throttling,omitempty"`
	Adaptive   *stats.Estimate `json:"adaptive_throttling,omitempty"`
}

func gaveUpCause(ctl control.Controls, by []stats.Moments) GaveUpCause {
	g := GaveUpCause{Limit: by[control.ByAttempts].Estimate(), Bucket: by[control.ByBucket].Estimate(), Breaker: by[control.ByBreaker].Estimate()}
	for _, k := range ctl.List() {
		e := by[k.Cause()].Estimate()
		switch k.Cause() {
		case control.ByBudget:
			g.Budget = &e
		case control.ByThrottling:
			g.Throttling = &e
		case control.ByAdaptive:
			g.Adaptive = &e
		}
	}
	return g
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
	// Drain and StartCohort are absent when off; Loop and Think are the
	// closed loop's, absent in an open loop.
	Drain       bool   `json:"drain,omitempty"`
	StartCohort bool   `json:"start_cohort,omitempty"`
	Loop        string `json:"loop,omitempty"`
	Think       *int   `json:"think_time,omitempty"`
}

// ControlsJSON is control.Controls in the JSON shape of herd's outputs; a
// control that is off is absent.
type ControlsJSON struct {
	Name        string                   `json:"name"`
	MaxAttempts int                      `json:"max_attempts"`
	Bucket      *control.Bucket          `json:"bucket,omitempty"`
	Breaker     *BreakerJSON             `json:"breaker,omitempty"`
	SimBreaker  *control.SimBreaker      `json:"brooker_sim_breaker,omitempty"`
	Budget      *RetryBudgetJSON         `json:"retry_budget,omitempty"`
	Throttling  *control.RetryThrottling `json:"retry_throttling,omitempty"`
	Adaptive    *AdaptiveThrottlingJSON  `json:"adaptive_throttling,omitempty"`
}

// RetryBudgetJSON is control.RetryBudget with its TTL as a duration string.
type RetryBudgetJSON struct {
	TTL              string  `json:"ttl"`
	MinRetriesPerSec int     `json:"min_retries_per_sec"`
	PercentCanRetry  float64 `json:"percent_can_retry"`
}

// AdaptiveThrottlingJSON is control.AdaptiveThrottling with its window as
// a duration string.
type AdaptiveThrottlingJSON struct {
	K      float64 `json:"k"`
	Window string  `json:"window"`
}

// BreakerJSON is control.Breaker in JSON.
type BreakerJSON struct {
	Window    int     `json:"window"`
	Threshold float64 `json:"threshold"`
	MinCalls  int     `json:"min_calls"`
	Cooldown  int     `json:"cooldown"`
}

func NewControlsJSON(c control.Controls) ControlsJSON {
	j := ControlsJSON{Name: c.String(), MaxAttempts: c.MaxAttempts}
	if c.Bucket.Kind != control.NoBucket && c.Bucket.Kind != "" {
		b := c.Bucket
		j.Bucket = &b
	}
	if k := c.Breaker; k.Window > 0 {
		j.Breaker = &BreakerJSON{k.Window, k.Threshold, k.MinCalls, k.Cooldown}
	}
	if k := c.SimBreaker; k.MaxFailureRatio > 0 {
		j.SimBreaker = &k
	}
	if b := c.Budget; b.TTL > 0 {
		j.Budget = &RetryBudgetJSON{b.TTL.String(), b.MinRetriesPerSec, b.PercentCanRetry}
	}
	if r := c.Throttling; r.MaxTokens > 0 {
		j.Throttling = &r
	}
	if a := c.Adaptive; a.K > 0 {
		j.Adaptive = &AdaptiveThrottlingJSON{a.K, a.Window.String()}
	}
	return j
}

func NewTrafficJSON(sc model.Scenario, t model.Traffic) TrafficJSON {
	return TrafficJSON{
		Rate: t.Rate, Load: t.Rate / float64(sc.Capacity), Ticks: t.Ticks, OutageStart: t.OutageStart,
		OutageLength: t.OutageLength, OutageCapacity: t.OutageCapacity, RejectCost: t.RejectCost,
		RecoveredBacklog: t.RecoveryBacklog(sc.Capacity), Drain: t.Drain, StartCohort: t.StartCohort,
	}
}

// SimulateTraffic runs opt.Trials open-loop trials of sc under the traffic
// and controls and summarizes them.
func SimulateTraffic(ctx context.Context, sc model.Scenario, tr model.Traffic, ctl control.Controls, opt montecarlo.Options) (TrafficSummary, error) {
	w := montecarlo.OpenLoop{Traffic: tr, Controls: ctl}
	return CachedWith(ctx, "traffic", sc, opt, w, func() (TrafficSummary, error) {
		return simulateRequests(ctx, sc, tr, w, ctl, opt)
	})
}

// SimulateClosedLoop runs opt.Trials closed-loop trials of sc (each
// client one request at a time, the next after its think time) under the
// traffic's ticks, outage and drain and the controls, and summarizes them
// as SimulateTraffic does.
func SimulateClosedLoop(ctx context.Context, sc model.Scenario, tr model.Traffic, l model.ClosedLoop, ctl control.Controls, opt montecarlo.Options) (TrafficSummary, error) {
	w := montecarlo.ClosedLoop{Traffic: tr, Loop: l, Controls: ctl}
	return CachedWith(ctx, "closed-loop", sc, opt, w, func() (TrafficSummary, error) {
		s, err := simulateRequests(ctx, sc, tr, w, ctl, opt)
		s.Traffic.Loop, s.Traffic.Think = "closed", &l.Think
		return s, err
	})
}

// RecoverySummary is whether and how soon the trials of a traffic
// recovered after its outage: all a metastability map asks of a run.
type RecoverySummary struct {
	Recovered stats.Share `json:"recovered"`
	// RecoveryTicks is the mean over the trials that recovered (absent
	// when none did).
	RecoveryTicks *stats.Estimate `json:"recovery_ticks,omitempty"`
}

// SimulateRecovery runs opt.Trials open-loop trials of sc under the
// traffic and controls, each only until it recovers
// (montecarlo.OpenLoopToRecovery), and says how many recovered and how
// soon. Its numbers are SimulateTraffic's Recovered and
// RecoveryTicks.Estimate for the same run, byte for byte: the ticks after
// a trial's recovery, which SimulateTraffic plays for its other numbers,
// change neither.
func SimulateRecovery(ctx context.Context, sc model.Scenario, tr model.Traffic, ctl control.Controls, opt montecarlo.Options) (RecoverySummary, error) {
	w := montecarlo.OpenLoopToRecovery{OpenLoop: montecarlo.OpenLoop{Traffic: tr, Controls: ctl}}
	return CachedWith(ctx, "recovery", sc, opt, w, func() (RecoverySummary, error) {
		plan, err := montecarlo.NewPlan(sc, w, WithTapes(ctx, opt))
		if err != nil {
			return RecoverySummary{}, err
		}
		var rec stats.Moments
		recovered := 0
		err = plan.Run(ctx, func(t *montecarlo.Trial) error {
			if t.Open.Recovered {
				recovered++
				rec.Add(float64(t.Open.RecoveryTicks))
			}
			return nil
		})
		if err != nil {
			return RecoverySummary{}, err
		}
		s := RecoverySummary{Recovered: stats.NewShare(recovered, opt.Trials)}
		if recovered > 0 {
			e := rec.Estimate()
			s.RecoveryTicks = &e
		}
		return s, nil
	})
}

// simulateRequests plays a workload of the request engine and folds its
// trials.
func simulateRequests(ctx context.Context, sc model.Scenario, tr model.Traffic, w montecarlo.Workload, ctl control.Controls, opt montecarlo.Options) (TrafficSummary, error) {
	plan, err := montecarlo.NewPlan(sc, w, WithTapes(ctx, opt))
	if err != nil {
		return TrafficSummary{}, err
	}
	var fresh, calls, load, served, share, goodput, gaveUp, backlog, peakBacklog, peak stats.Moments
	byCause := make([]stats.Moments, control.Causes)
	pending := 0 // trials with requests still pending after their drain
	var recHist []int64
	var rec stats.Moments
	recovered, collapsed := 0, 0
	var sends, good, back []float64
	var queue queueFold
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		queue.add(t)
		o := t.Open
		fresh.Add(float64(o.NewRequests))
		calls.Add(float64(t.Calls))
		if o.NewRequests > 0 {
			load.Add(float64(t.Calls) / float64(o.NewRequests))
			share.Add(float64(t.Served) / float64(o.NewRequests))
		}
		served.Add(float64(t.Served))
		if after := float64(t.Completion) - float64(tr.OutageEnd()); after > 0 && tr.Rate > 0 {
			goodput.Add(float64(o.ServedAfter) / after / tr.Rate)
		}
		if tr.Drain && o.Backlog > 0 {
			pending++
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
		Scenario: sc, Traffic: NewTrafficJSON(sc, tr), Controls: NewControlsJSON(ctl),
		Trials: opt.Trials, Seed: opt.Seed, Engine: plan.Choice, Recovered: stats.NewShare(recovered, opt.Trials),
		NewRequests: fresh.Estimate(), Calls: calls.Estimate(), Load: load.Estimate(),
		Served: served.Estimate(), ServedShare: share.Estimate(), Goodput: goodput.Estimate(),
		GaveUp: gaveUp.Estimate(), Backlog: backlog.Estimate(), PeakBacklog: peakBacklog.Estimate(), Peak: peak.Estimate(),
		GaveUpBy: gaveUpCause(ctl, byCause),
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
	if pending > 0 {
		s.Warnings = append(s.Warnings, fmt.Sprintf("%d trials still had requests pending after draining for %d ticks; their calls per request are undercounted", pending, tr.DrainTicks()))
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
	s.Queue = queue.stats(sc)
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
