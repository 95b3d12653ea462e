package study

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// Queue metastability in a small system, computed exactly and
// simulated: a queue (k = 1, limit 4, clients timing out after 2 ticks, no
// backoff) at λ/k = 0.5 after a 4-tick outage recovers within 100 ticks
// with probability 0.283 and no more — the chain's other paths are still
// stuck at tick 100 or have passed its bound — while two attempts per
// request make it recover with probability above 0.999; the queue engine
// agrees within 4σ of the exact values.
func TestQueueMetastableCellExactAndSimulated(t *testing.T) {
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity, sc.Policy.Kind = model.Queue, 10, 1, policy.None
	sc.Queue = model.Queueing{Limit: 4, Timeout: 2}
	tr := model.Traffic{Rate: 0.5, Ticks: 100, OutageStart: 3, OutageLength: 4}
	for _, c := range []struct {
		ctl      control.Controls
		recovers bool
	}{{control.Controls{}, false}, {control.Controls{MaxAttempts: 2}, true}} {
		q, err := solve.QueueChainOf(context.Background(), sc, &tr, c.ctl, solve.QueueChainOptions{MaxBacklog: 60})
		if err != nil {
			t.Fatal(err)
		}
		lo, hi := q.Recovered, q.Recovered+q.Overflow+q.Truncated // what the chain cannot rule out
		if c.recovers != (lo > 0.5) || c.recovers == (hi < 0.5) || (c.recovers && lo < 0.999) {
			t.Errorf("%s: exact P(recovered within %d ticks) in [%.4g, %.4g]", c.ctl, tr.Ticks, lo, hi)
		}
		s, err := analysis.SimulateTraffic(context.Background(), sc, tr, c.ctl, montecarlo.Options{Trials: 4000, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Recovered
		if se := math.Sqrt(lo * (1 - lo) / float64(r.N)); r.Value < lo-4*se || r.Value > hi+4*se {
			t.Errorf("%s: simulated share %.4g outside the exact [%.4g, %.4g] ± 4σ", c.ctl, r.Value, lo, hi)
		}
		if c.recovers != (r.CI95[0] > 0.5) || c.recovers == (r.CI95[1] < 0.5) {
			t.Errorf("%s: simulated share %.4g %v", c.ctl, r.Value, r.CI95)
		}
		t.Logf("%s: exact [%.4g, %.4g], simulated %.4g %v", c.ctl, lo, hi, r.Value, r.CI95)
	}
}

// The same in the figures' larger system (100 clients, k = 10, timeout 10
// ticks, Full Jitter): at λ/k = 0.5 after a 50-tick outage no trial
// recovers without a control, and every one does with the breaker,
// Brooker's bucket or a queue limit of k·T.
func TestQueueMetastableCellSimulatedAtScale(t *testing.T) {
	sc, base := QueueMetastabilityScenario()
	base.Rate, base.OutageLength = 0.5*float64(sc.Capacity), 50
	for _, v := range QueueVariants(sc) {
		want := 0
		switch v.Name {
		case "Full Jitter", "expo", "decorrelated", "no backoff (none)":
			want = -1
		case "Full Jitter + breaker", "Full Jitter + brooker bucket", "Full Jitter, queue limit k·T = 100", "Full Jitter, no timeout":
			want = 1
		default:
			continue
		}
		s, err := analysis.SimulateTraffic(context.Background(), v.Scenario, base, v.Controls, montecarlo.Options{Trials: 50, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		r := s.Recovered
		if (want < 0 && r.CI95[1] >= 0.5) || (want > 0 && r.CI95[0] <= 0.5) {
			t.Errorf("%s: recovered %.3g %v", v.Name, r.Value, r.CI95)
		}
	}
}

// Metastability on the queue server plays each trial only until it
// recovers (or provably cannot), and QueueMetastability besides plays the
// ticks before the outage once for every outage length; both must give
// the cells that SimulateTraffic's full trials give, byte for byte in what
// the map draws (the recovered share and the mean ticks to recover): over the queue
// map's full grid, its 50 trials and the figures' seed 1, with 1 and with
// 3 workers; every variant in the long suite (about 50 CPU-s), the first
// and the last (no control, the queue limit) in the default run; skipped
// with -short.
func TestQueueMetastabilityMapIsTheFullTrials(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the queue map's every cell in full")
	}
	sc, base := QueueMetastabilityScenario()
	g := MapGrid{Loads: []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9}, Outages: []int{0, 5, 10, 20, 50, 100}}
	drawn := func(m MetastabilityMap) string {
		type cell struct {
			Load          float64
			Outage        int
			Recovered     stats.Share
			RecoveryTicks *stats.Estimate
		}
		var cs []cell
		for _, c := range m.Cells {
			cs = append(cs, cell{c.Load, c.Outage, c.Recovered, c.RecoveryTicks})
		}
		b, err := json.Marshal(cs)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	recovered, stuck := 0, 0
	variants := QueueVariants(sc)
	if !longSuite {
		variants = []QueueVariant{variants[0], variants[len(variants)-1]}
	}
	for _, v := range variants {
		full := MetastabilityMap{Cells: make([]MetastabilityCell, len(g.Outages)*len(g.Loads))}
		for i := range full.Cells {
			out, load := g.Outages[i/len(g.Loads)], g.Loads[i%len(g.Loads)]
			tr := base
			tr.Rate, tr.OutageLength = load*float64(sc.Capacity), out
			s, err := analysis.SimulateTraffic(context.Background(), v.Scenario, tr, v.Controls, montecarlo.Options{Trials: 50, Seed: 1, Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			c := MetastabilityCell{Load: load, Outage: out, Recovered: s.Recovered}
			if s.RecoveryTicks != nil {
				c.RecoveryTicks = &s.RecoveryTicks.Estimate
			}
			full.Cells[i] = c
		}
		want := drawn(full)
		for _, workers := range []int{1, 3} {
			for name, f := range map[string]func(context.Context, model.Scenario, model.Traffic, control.Controls, MapGrid, montecarlo.Options) (MetastabilityMap, error){
				"Metastability": Metastability, "QueueMetastability": QueueMetastability} {
				m, err := f(context.Background(), v.Scenario, base, v.Controls, g, montecarlo.Options{Trials: 50, Seed: 1, Workers: workers})
				if err != nil {
					t.Fatal(err)
				}
				if got := drawn(m); got != want {
					t.Errorf("%s, %s, %d workers: stopped early %s, played in full %s", name, v.Name, workers, got, want)
				}
			}
		}
		for _, c := range full.Cells {
			if c.RecoveryTicks != nil {
				recovered++
			}
			if c.Recovered.Value < 1 {
				stuck++
			}
		}
	}
	if recovered == 0 || stuck == 0 {
		t.Errorf("%d cells with a recovery, %d with a trial that did not: the map should have both", recovered, stuck)
	}
}
