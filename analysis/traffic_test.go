package analysis

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

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
	ctx := WithCache(context.Background(), nil)
	sc, base := MetastabilityScenario()
	base.Ticks, base.RejectCost = 800, 0.05
	opt := montecarlo.Options{Trials: 12, Seed: 4}
	type cell struct {
		sc  model.Scenario
		tr  model.Traffic
		ctl model.Controls
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
	cells = append(cells, cell{qsc, qbase, model.Controls{}})
	for _, c := range cells {
		name := fmt.Sprintf("%s λ=%g outage %d %s", c.sc.Server, c.tr.Rate, c.tr.OutageLength, c.ctl)
		full, err := SimulateTraffic(ctx, c.sc, c.tr, c.ctl, opt)
		if err != nil {
			t.Fatal(name, err)
		}
		r, err := SimulateRecovery(ctx, c.sc, c.tr, c.ctl, opt)
		if err != nil {
			t.Fatal(name, err)
		}
		var ticks *stats.Estimate
		if full.RecoveryTicks != nil {
			ticks = &full.RecoveryTicks.Estimate
		}
		want, _ := json.Marshal(RecoverySummary{Recovered: full.Recovered, RecoveryTicks: ticks})
		got, _ := json.Marshal(r)
		if string(got) != string(want) {
			t.Errorf("%s: SimulateRecovery says %s, SimulateTraffic %s", name, got, want)
		}
	}
}
