package study

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// SimulateRecovery stops each trial at its recovery, and must say what
// SimulateTraffic says of the same run about recovery, byte for byte: on
// cells of the metastability map that recover, collapse or hover, under
// each standard control, and on the queue server (whose engine plays every
// tick).
func TestSimulateRecoveryIsSimulateTrafficsRecovery(t *testing.T) {
	ctx := analysis.WithCache(context.Background(), nil)
	sc, base := MetastabilityScenario()
	base.Ticks, base.RejectCost = 800, 0.05
	opt := montecarlo.Options{Trials: 12, Seed: 4}
	type cell struct {
		sc  model.Scenario
		tr  model.Traffic
		ctl control.Controls
	}
	var cells []cell
	for _, ctl := range StandardControls() {
		for _, c := range []struct {
			load   float64
			outage int
		}{{0.3, 0}, {0.7, 50}, {0.9, 200}} {
			tr := base
			tr.Rate, tr.OutageLength = c.load*float64(sc.Capacity), c.outage
			cells = append(cells, cell{sc, tr, ctl})
		}
	}
	qsc, qbase := QueueMetastabilityScenario()
	qbase.Rate, qbase.OutageLength, qbase.Ticks = 0.6*float64(qsc.Capacity), 20, 400
	cells = append(cells, cell{qsc, qbase, control.Controls{}})
	for _, c := range cells {
		name := fmt.Sprintf("%s λ=%g outage %d %s", c.sc.Server, c.tr.Rate, c.tr.OutageLength, c.ctl)
		full, err := analysis.SimulateTraffic(ctx, c.sc, c.tr, c.ctl, opt)
		if err != nil {
			t.Fatal(name, err)
		}
		r, err := analysis.SimulateRecovery(ctx, c.sc, c.tr, c.ctl, opt)
		if err != nil {
			t.Fatal(name, err)
		}
		var ticks *stats.Estimate
		if full.RecoveryTicks != nil {
			ticks = &full.RecoveryTicks.Estimate
		}
		want, _ := json.Marshal(analysis.RecoverySummary{Recovered: full.Recovered, RecoveryTicks: ticks})
		got, _ := json.Marshal(r)
		if string(got) != string(want) {
			t.Errorf("%s: SimulateRecovery says %s, SimulateTraffic %s", name, got, want)
		}
	}
}

// StuckBelowCapacity stops each cell once its trials decide it, and must
// count what the full map counts: under each standard control, on a grid
// whose cells recover, collapse or are undecided at 40 trials, and at a
// budget of 12 trials too.
func TestStuckBelowCapacityIsTheMapsCount(t *testing.T) {
	ctx := analysis.WithCache(context.Background(), nil)
	sc, base := MetastabilityScenario()
	base.Ticks, base.RejectCost = 800, 0.05
	g := MapGrid{Loads: []float64{0.5, 0.7, 0.8, 0.9}, Outages: []int{25, 100, 200}}
	some := false
	for _, trials := range []int{40, 12} {
		opt := montecarlo.Options{Trials: trials, Seed: 2, Workers: 1 + trials/12} // 4 workers at 40 trials, 2 at 12
		for _, ctl := range StandardControls() {
			m, err := Metastability(ctx, sc, base, ctl, g, opt)
			if err != nil {
				t.Fatal(err)
			}
			c, err := StuckBelowCapacity(ctx, sc, base, ctl, g, opt)
			if err != nil {
				t.Fatal(err)
			}
			if want := m.StuckBelowCapacity(); c.Stuck != want || c.Cells != len(m.Cells) || c.Controls.Name != m.Controls.Name {
				t.Errorf("%d trials, %s: %+v, the map says %d stuck of %d", trials, ctl, c, want, len(m.Cells))
			}
			some = some || c.Stuck > 0
		}
	}
	if !some {
		t.Error("no stuck cell anywhere: the grid does not test the count")
	}
}

// The stuck rule is "at most so many recover", fewer than half, at every
// budget claims and figures use (at 2 trials no cell can be stuck: −1).
func TestStuckAtMost(t *testing.T) {
	for _, n := range []int{2, 12, 40, 50, 1000} {
		k, ok := stuckAtMost(n)
		if !ok || k >= n/2 {
			t.Errorf("%d trials: stuck at most %d recovered (rule of that form: %v)", n, k, ok)
		}
	}
}
