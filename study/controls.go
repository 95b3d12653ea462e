package study

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// MetastabilityCell is one (λ/k, outage length) point of a metastability
// map: the share of trials that recovered within the horizon.
type MetastabilityCell struct {
	Load      float64     `json:"load"` // λ/k
	Outage    int         `json:"outage"`
	Recovered stats.Share `json:"recovered"`
	// RecoveryTicks is the mean over recovered trials (absent when none).
	RecoveryTicks *stats.Estimate `json:"recovery_ticks,omitempty"`
}

// Stuck reports whether the cell clearly does not recover: the 95% interval
// of its recovered share lies below one half.
func (c MetastabilityCell) Stuck() bool { return c.Recovered.CI95[1] < 0.5 }

// Recovers reports whether the cell clearly recovers: the interval lies
// above one half.
func (c MetastabilityCell) Recovers() bool { return c.Recovered.CI95[0] > 0.5 }

// MetastabilityMap is a grid of cells for one policy and set of controls.
type MetastabilityMap struct {
	Scenario model.Scenario        `json:"scenario"`
	Traffic  analysis.TrafficJSON  `json:"traffic"`
	Controls analysis.ControlsJSON `json:"controls"`
	Cells    []MetastabilityCell   `json:"cells"`
}

// StuckBelowCapacity counts the cells with λ < k that clearly do not
// recover: the metastable region.
func (m MetastabilityMap) StuckBelowCapacity() int {
	n := 0
	for _, c := range m.Cells {
		if c.Load < 1 && c.Stuck() {
			n++
		}
	}
	return n
}

// MapGrid is where a metastability map is evaluated.
type MapGrid struct {
	Loads   []float64 // λ/k
	Outages []int     // outage lengths in ticks
}

// DefaultMapGrid spans light to heavy load and no outage to a long one.
func DefaultMapGrid() MapGrid {
	return MapGrid{
		Loads:   []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9},
		Outages: []int{0, 10, 25, 50, 100, 200},
	}
}

// MetastabilityScenario is the setting of herd's metastability figures and
// claims: 100 clients, capacity 20 per tick, Full Jitter (base 1, cap 32),
// a server where rejecting a request costs 5% of serving one (so goodput
// falls to 0 at 20× overload), a total outage from tick 100, 1,500 ticks,
// and trials stopped as collapsed once 50 ticks of capacity are backlogged.
func MetastabilityScenario() (model.Scenario, model.Traffic) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 100, 20
	return sc, model.Traffic{Ticks: 3000, OutageStart: 100, RejectCost: 0.05, CollapseBacklog: 50 * sc.Capacity}
}

// Metastability evaluates the map of one policy and set of controls: for
// each load and outage length, opt.Trials trials of the base traffic with
// that rate and outage, each played until it recovers (SimulateRecovery).
func Metastability(ctx context.Context, sc model.Scenario, base model.Traffic, ctl control.Controls, g MapGrid, opt montecarlo.Options) (MetastabilityMap, error) {
	m := MetastabilityMap{Scenario: sc, Traffic: analysis.NewTrafficJSON(sc, base), Controls: analysis.NewControlsJSON(ctl)}
	m.Cells = make([]MetastabilityCell, len(g.Outages)*len(g.Loads))
	err := analysis.EachPoint(ctx, len(m.Cells), opt.Workers, func(ctx context.Context, i int) error {
		out, load := g.Outages[i/len(g.Loads)], g.Loads[i%len(g.Loads)]
		tr := base
		tr.Rate, tr.OutageLength = load*float64(sc.Capacity), out
		s, err := analysis.SimulateRecovery(ctx, sc, tr, ctl, opt)
		if err != nil {
			return fmt.Errorf("λ/k = %g, outage %d: %w", load, out, err)
		}
		m.Cells[i] = MetastabilityCell{Load: load, Outage: out, Recovered: s.Recovered, RecoveryTicks: s.RecoveryTicks}
		return nil
	}, nil)
	if err != nil {
		return MetastabilityMap{Scenario: sc, Traffic: m.Traffic, Controls: m.Controls}, err
	}
	return m, nil
}

// StuckCount is how many cells of a metastability map with λ < k clearly
// do not recover (MetastabilityMap.StuckBelowCapacity), of how many.
type StuckCount struct {
	Controls analysis.ControlsJSON `json:"controls"`
	Cells    int                   `json:"cells"`
	Stuck    int                   `json:"stuck"`
}

// StuckBelowCapacity is Metastability(ctx, sc, base, ctl, g,
// opt).StuckBelowCapacity() — the same count — playing each cell's trials
// only until the ones played decide whether it is stuck
// (montecarlo.OpenLoopUntilDecided): at n trials a cell is stuck when at
// most stuckAtMost(n) of them recover, so once more have recovered, or too
// few trials are left to pass it, the rest cannot change the count.
func StuckBelowCapacity(ctx context.Context, sc model.Scenario, base model.Traffic, ctl control.Controls, g MapGrid, opt montecarlo.Options) (StuckCount, error) {
	n := len(g.Outages) * len(g.Loads)
	stuck := make([]bool, n)
	atMost, ok := stuckAtMost(opt.Trials)
	err := analysis.EachPoint(ctx, n, opt.Workers, func(ctx context.Context, i int) error {
		out, load := g.Outages[i/len(g.Loads)], g.Loads[i%len(g.Loads)]
		if load >= 1 {
			return nil
		}
		tr := base
		tr.Rate, tr.OutageLength = load*float64(sc.Capacity), out
		var err error
		if !ok {
			var s analysis.RecoverySummary
			s, err = analysis.SimulateRecovery(ctx, sc, tr, ctl, opt)
			stuck[i] = MetastabilityCell{Recovered: s.Recovered}.Stuck()
		} else {
			stuck[i], err = stuckCell(ctx, sc, tr, ctl, atMost, opt)
		}
		if err != nil {
			return fmt.Errorf("λ/k = %g, outage %d: %w", load, out, err)
		}
		return nil
	}, nil)
	c := StuckCount{Controls: analysis.NewControlsJSON(ctl), Cells: n}
	for _, s := range stuck {
		if s {
			c.Stuck++
		}
	}
	return c, err
}

// stuckAtMost is the most recoveries out of n trials that leave a cell
// stuck (the 95% interval of its recovered share below ½); ok is false if
// the rule were not "at most so many" (it is: the interval's upper end
// grows with the recoveries).
func stuckAtMost(n int) (atMost int, ok bool) {
	atMost = -1
	for k := 0; k <= n; k++ {
		if (MetastabilityCell{Recovered: stats.NewShare(k, n)}).Stuck() {
			if atMost != k-1 {
				return 0, false
			}
			atMost = k
		}
	}
	return atMost, true
}

// stuckCell reports whether at most atMost of the traffic's opt.Trials
// trials recover, from the trials up to the first ones that decide it.
func stuckCell(ctx context.Context, sc model.Scenario, tr model.Traffic, ctl control.Controls, atMost int, opt montecarlo.Options) (bool, error) {
	type question struct {
		Work   montecarlo.OpenLoop
		AtMost int
	}
	w := montecarlo.OpenLoop{Traffic: tr, Controls: ctl}
	return analysis.CachedWith(ctx, "stuck", sc, opt, question{w, atMost}, func() (bool, error) {
		plan, err := montecarlo.NewPlan(sc, montecarlo.NewOpenLoopUntilDecided(w, atMost, opt.Trials), analysis.WithTapes(ctx, opt))
		if err != nil {
			return false, err
		}
		recovered, played, decided := 0, 0, false
		err = plan.Run(ctx, func(t *montecarlo.Trial) error {
			if decided {
				return nil // perhaps not played: the trials before decided
			}
			played++
			if t.Open.Recovered {
				recovered++
			}
			decided = montecarlo.Decides(recovered, played, atMost, opt.Trials)
			return nil
		})
		return recovered <= atMost, err
	})
}

// RecoveryPoint is the recovery at one load.
type RecoveryPoint struct {
	Load          float64         `json:"load"`
	Recovered     stats.Share     `json:"recovered"`
	RecoveryTicks *stats.Estimate `json:"recovery_ticks,omitempty"`
	Goodput       stats.Estimate  `json:"goodput_after_outage"`
	ServedShare   stats.Estimate  `json:"served_share"`
	Calls         stats.Estimate  `json:"load_factor"`
}

// RecoverySeries is recovery against load for one set of controls.
type RecoverySeries struct {
	Controls analysis.ControlsJSON `json:"controls"`
	Points   []RecoveryPoint       `json:"points"`
}

// RecoveryVersusLoad measures, for each set of controls, the time to
// recover after the base traffic's outage at each load λ/k.
func RecoveryVersusLoad(ctx context.Context, sc model.Scenario, base model.Traffic, ctls []control.Controls, loads []float64, opt montecarlo.Options) ([]RecoverySeries, error) {
	out := make([]RecoverySeries, len(ctls))
	for i, ctl := range ctls {
		out[i] = RecoverySeries{Controls: analysis.NewControlsJSON(ctl), Points: make([]RecoveryPoint, len(loads))}
	}
	err := analysis.EachPoint(ctx, len(ctls)*len(loads), opt.Workers, func(ctx context.Context, i int) error {
		ctl, load := ctls[i/len(loads)], loads[i%len(loads)]
		tr := base
		tr.Rate = load * float64(sc.Capacity)
		s, err := analysis.SimulateTraffic(ctx, sc, tr, ctl, opt)
		if err != nil {
			return fmt.Errorf("%s, λ/k = %g: %w", ctl, load, err)
		}
		p := RecoveryPoint{Load: load, Recovered: s.Recovered, Goodput: s.Goodput, ServedShare: s.ServedShare, Calls: s.Load}
		if s.RecoveryTicks != nil {
			e := s.RecoveryTicks.Estimate
			p.RecoveryTicks = &e
		}
		out[i/len(loads)].Points[i%len(loads)] = p
		return nil
	}, nil)
	if err != nil {
		return nil, err
	}
	return out, nil
}

// StandardControls are the sets of controls herd compares: none, at most
// three attempts (the AWS SDKs' default), the AWS SDK's retry bucket,
// Brooker's adaptive bucket, and the default breaker.
func StandardControls() []control.Controls {
	return []control.Controls{
		{},
		{MaxAttempts: 3},
		{Bucket: control.DefaultBucket(control.AWSBucket)},
		{Bucket: control.DefaultBucket(control.BrookerBucket)},
		{Breaker: control.DefaultBreaker()},
	}
}

// FirstWindowRow is one first-request window's cohort: peak sends in a
// tick, calls and completion.
type FirstWindowRow struct {
	Window     int             `json:"window"`
	Peak       *stats.Estimate `json:"peak_arrivals"`
	Calls      *stats.Estimate `json:"calls"`
	Completion *stats.Estimate `json:"completion"`
	Censored   int             `json:"censored"`
}

// FirstWindowEffect simulates the scenario's cohort with each first-request
// window W (first sends uniform on ticks 0…W−1).
func FirstWindowEffect(ctx context.Context, sc model.Scenario, windows []int, opt montecarlo.Options) ([]FirstWindowRow, error) {
	var rows []FirstWindowRow
	for _, w := range windows {
		s := sc
		s.FirstWindow = w
		sum, err := analysis.Simulate(ctx, s, opt)
		if err != nil {
			return nil, fmt.Errorf("first window %d: %w", w, err)
		}
		r := FirstWindowRow{Window: w, Peak: sum.Peak, Calls: sum.Calls, Censored: sum.Censored}
		if sum.Completion != nil {
			c := sum.Completion.Estimate
			r.Completion = &c
		}
		rows = append(rows, r)
	}
	return rows, nil
}

// StackCheck is the closed form of a stack's amplification beside its
// simulation.
type StackCheck struct {
	Failure    float64        `json:"failure"`
	Attempts   []int          `json:"attempts"`
	ClosedForm float64        `json:"closed_form"`
	Simulated  stats.Estimate `json:"simulated"`
	// Exact says every simulated trial sent exactly the closed form's
	// calls, as it must when p is 0 or 1.
	Exact bool `json:"exact"`
}

// Amplify simulates a stack and sets its closed form beside it.
func Amplify(ctx context.Context, p float64, attempts []int, opt montecarlo.Options) (StackCheck, error) {
	// The scenario only names the random streams of the stack's trials.
	plan, err := montecarlo.NewPlan(model.Default(), montecarlo.Layers{Failure: p, Attempts: attempts}, opt)
	if err != nil {
		return StackCheck{}, err
	}
	c := StackCheck{Failure: p, Attempts: attempts, ClosedForm: model.Amplification(p, attempts), Exact: true}
	var m stats.Moments
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		m.Add(float64(t.Calls))
		c.Exact = c.Exact && float64(t.Calls) == c.ClosedForm
		return nil
	})
	c.Simulated = m.Estimate()
	return c, err
}
