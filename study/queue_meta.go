package study

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// QueueMetastabilityScenario is the setting of herd's metastability figures
// on the queue server: 100 clients, capacity k = 10 per tick, an unbounded
// FIFO queue whose clients time out after 10 ticks (so a queue of more than
// k·T = 100 requests answers every new request too late), Full Jitter
// (base 1, cap 32), a total outage from tick 100, 1,000 ticks, and trials
// stopped as collapsed once 50 ticks of capacity are backlogged.
func QueueMetastabilityScenario() (model.Scenario, model.Traffic) {
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity = model.Queue, 100, 10
	sc.Queue.Timeout = 10
	return sc, model.Traffic{Ticks: 1000, OutageStart: 100, CollapseBacklog: 50 * sc.Capacity}
}

// QueueVariant is one panel of the queue server's metastability map: a
// policy, the timeout and queue limit, and the retry controls.
type QueueVariant struct {
	Name     string
	Scenario model.Scenario
	Controls control.Controls
}

// QueueVariants are the panels of the queue server's metastability map:
// the policies without a retry control (and Full Jitter without a
// timeout), then Full Jitter under each of StandardControls' controls and
// under a queue limited to k·T requests, whose waits cannot pass the
// timeout (load shedding at the server).
func QueueVariants(sc model.Scenario) []QueueVariant {
	with := func(kind policy.Kind, edit func(*model.Scenario)) model.Scenario {
		s := sc
		s.Policy.Kind = kind
		if edit != nil {
			edit(&s)
		}
		return s
	}
	v := []QueueVariant{
		{"Full Jitter, no timeout", with(policy.Full, func(s *model.Scenario) { s.Queue.Timeout = 0 }), control.Controls{}},
		{"Full Jitter", with(policy.Full, nil), control.Controls{}},
		{"expo", with(policy.Expo, nil), control.Controls{}},
		{"decorrelated", with(policy.Decorrelated, nil), control.Controls{}},
		{"no backoff (none)", with(policy.None, nil), control.Controls{}},
	}
	for _, ctl := range StandardControls()[1:] {
		v = append(v, QueueVariant{"Full Jitter + " + ctl.String(), with(policy.Full, nil), ctl})
	}
	limit := sc.Capacity * sc.Queue.Timeout
	return append(v, QueueVariant{fmt.Sprintf("Full Jitter, queue limit k·T = %d", limit),
		with(policy.Full, func(s *model.Scenario) { s.Queue.Limit = limit }), control.Controls{}})
}

// QueueMetastability is Metastability on the queue server, the same map
// cell for cell, with each load's outage lengths played in one run
// (montecarlo.OpenLoopOutages): each trial's ticks before the outage,
// which the outage's length does not change, are played once for all of
// them.
func QueueMetastability(ctx context.Context, sc model.Scenario, base model.Traffic, ctl control.Controls, g MapGrid, opt montecarlo.Options) (MetastabilityMap, error) {
	m := MetastabilityMap{Scenario: sc, Traffic: analysis.NewTrafficJSON(sc, base), Controls: analysis.NewControlsJSON(ctl)}
	m.Cells = make([]MetastabilityCell, len(g.Outages)*len(g.Loads))
	err := analysis.EachPoint(ctx, len(g.Loads), opt.Workers, func(ctx context.Context, i int) error {
		load := g.Loads[i]
		tr := base
		tr.Rate = load * float64(sc.Capacity)
		col, err := recoveryByOutage(ctx, sc, tr, ctl, g.Outages, opt)
		if err != nil {
			return fmt.Errorf("λ/k = %g: %w", load, err)
		}
		for j, out := range g.Outages {
			m.Cells[j*len(g.Loads)+i] = MetastabilityCell{Load: load, Outage: out, Recovered: col[j].Recovered, RecoveryTicks: col[j].RecoveryTicks}
		}
		return nil
	}, nil)
	if err != nil {
		return MetastabilityMap{Scenario: sc, Traffic: m.Traffic, Controls: m.Controls}, err
	}
	return m, nil
}

// recoveryByOutage is SimulateRecovery of the traffic with each of the
// outage lengths, from one run.
func recoveryByOutage(ctx context.Context, sc model.Scenario, tr model.Traffic, ctl control.Controls, outages []int, opt montecarlo.Options) ([]analysis.RecoverySummary, error) {
	w := montecarlo.OpenLoopOutages{OpenLoopToRecovery: montecarlo.OpenLoopToRecovery{OpenLoop: montecarlo.OpenLoop{Traffic: tr, Controls: ctl}}, Outages: outages}
	return analysis.CachedWith(ctx, "recovery-by-outage", sc, opt, w, func() ([]analysis.RecoverySummary, error) {
		plan, err := montecarlo.NewPlan(sc, w, opt)
		if err != nil {
			return nil, err
		}
		rec := make([]stats.Moments, len(outages))
		recovered := make([]int, len(outages))
		err = plan.Run(ctx, func(t *montecarlo.Trial) error {
			for j, r := range t.Open.ByOutage {
				if r.Recovered {
					recovered[j]++
					rec[j].Add(float64(r.RecoveryTicks))
				}
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out := make([]analysis.RecoverySummary, len(outages))
		for j := range out {
			out[j].Recovered = stats.NewShare(recovered[j], opt.Trials)
			if recovered[j] > 0 {
				e := rec[j].Estimate()
				out[j].RecoveryTicks = &e
			}
		}
		return out, nil
	})
}

// HysteresisPoint is the goodput at one step of a load that rises and then
// falls: the mean over trials of the useful completions per tick over the
// step's second half, over the capacity.
type HysteresisPoint struct {
	Load    float64        `json:"load"` // λ/k during the step
	Rising  bool           `json:"rising"`
	Goodput stats.Estimate `json:"goodput"` // useful completions per tick / k
	Backlog stats.Estimate `json:"backlog"` // live requests at the step's end
}

// HysteresisLoads are the loads λ/k of the hysteresis figure: up from 0.2
// to 1.2 in steps of 0.1, then down again to 0.2.
func HysteresisLoads() []float64 {
	var up []float64
	for i := 2; i <= 12; i++ {
		up = append(up, float64(i)/10)
	}
	loads := append([]float64(nil), up...)
	for i := len(up) - 2; i >= 0; i-- {
		loads = append(loads, up[i])
	}
	return loads
}

// Hysteresis plays traffic whose rate steps through loads (λ/k), each held
// for stepTicks, with no outage: the goodput at each step as the load rises
// and as it falls. Where the falling branch lies below the rising one at
// the same load the system is metastable: the overload has left it in a
// state that a load it handled on the way up does not get it out of.
func Hysteresis(ctx context.Context, sc model.Scenario, ctl control.Controls, loads []float64, stepTicks int, opt montecarlo.Options) ([]HysteresisPoint, error) {
	if len(loads) == 0 || stepTicks < 2 {
		return nil, fmt.Errorf("hysteresis needs loads and steps of at least 2 ticks")
	}
	k := float64(sc.Capacity)
	tr := model.Traffic{Rate: loads[0] * k, Ticks: stepTicks * len(loads)}
	for i, l := range loads[1:] {
		tr.Steps = append(tr.Steps, model.RateStep{From: (i + 1) * stepTicks, Rate: l * k})
	}
	opt.Arrivals = true
	// Only each tick's goodput and backlog are read: a queue that provably
	// serves nobody usefully again plays on with its arrivals alone.
	plan, err := montecarlo.NewPlan(sc, montecarlo.OpenLoopGoodput{OpenLoop: montecarlo.OpenLoop{Traffic: tr, Controls: ctl}}, opt)
	if err != nil {
		return nil, err
	}
	good := make([]stats.Moments, len(loads))
	back := make([]stats.Moments, len(loads))
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		o := t.Open
		for i := range loads {
			from, to := i*stepTicks+stepTicks/2, (i+1)*stepTicks
			if to > len(o.Goodput) {
				return fmt.Errorf("trial %d stopped at tick %d, before the steps ended", t.Index, len(o.Goodput))
			}
			var s int64
			for _, g := range o.Goodput[from:to] {
				s += g
			}
			good[i].Add(float64(s) / float64(to-from) / k)
			back[i].Add(float64(o.BacklogAt[to-1]))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	out := make([]HysteresisPoint, len(loads))
	peak := 0
	for i, l := range loads {
		if l > loads[peak] {
			peak = i
		}
	}
	for i, l := range loads {
		out[i] = HysteresisPoint{Load: l, Rising: i <= peak, Goodput: good[i].Estimate(), Backlog: back[i].Estimate()}
	}
	return out, nil
}
