package montecarlo

import (
	"context"
	"fmt"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// outageTrials plays OpenLoopOutages and returns trial i's Recovery for
// outage j at [j][i].
func outageTrials(t *testing.T, sc model.Scenario, w OpenLoopOutages, opt Options) [][]Recovery {
	t.Helper()
	p, err := NewPlan(sc, w, opt)
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]Recovery, len(w.Outages))
	err = p.Run(context.Background(), func(x *Trial) error {
		for j, r := range x.Open.ByOutage {
			out[j] = append(out[j], r)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// An OpenLoopOutages trial records, for each outage length, the Recovery
// of the OpenLoopToRecovery trial of the same index on the traffic with
// that outage: over the queue map's outages (0…100 from tick 100) at
// loads 0.3, 0.5, 0.7 and 0.9, 10 trials, with one and three workers, for
// policies without a control (Full Jitter, no backoff, no timeout), three attempts
// and a queue limit, whose ticks before the outage are played once, and
// the breaker, whose state makes each length play from the first tick.
// Made wrong — the shared ticks running one tick into the outage, played
// as if there were none — it must differ at high loads, so that the
// comparison is shown to fail on a wrong engine.
func TestQueueOutagesAreTheSeparateRuns(t *testing.T) {
	sc := queueScenario(100, 10, 10, 0, policy.Full)
	none := sc
	none.Policy.Kind = policy.None
	untimed := sc
	untimed.Queue.Timeout = 0
	limited := sc
	limited.Queue.Limit = 100
	outages := []int{0, 5, 10, 20, 50, 100}
	late := 0
	for _, c := range []struct {
		name string
		sc   model.Scenario
		ctl  control.Controls
	}{
		{"Full Jitter", sc, control.Controls{}},
		{"no backoff", none, control.Controls{}},
		{"no timeout", untimed, control.Controls{}},
		{"3 attempts", sc, control.Controls{MaxAttempts: 3}},
		{"queue limit", limited, control.Controls{}},
		{"breaker", sc, control.Controls{Breaker: control.DefaultBreaker()}},
	} {
		for _, load := range []float64{0.3, 0.5, 0.7, 0.9} {
			tr := model.Traffic{Rate: load * 10, Ticks: 1000, OutageStart: 100, CollapseBacklog: 500}
			w := OpenLoopOutages{OpenLoopToRecovery{OpenLoop{Traffic: tr, Controls: c.ctl}}, outages}
			for _, workers := range []int{1, 3} {
				got := outageTrials(t, c.sc, w, Options{Trials: 10, Seed: 1, Workers: workers})
				for j, l := range outages {
					one := tr
					one.OutageLength = l
					var want []Recovery
					for _, x := range queueTrials(t, c.sc, OpenLoopToRecovery{OpenLoop{Traffic: one, Controls: c.ctl}}, Options{Trials: 10, Seed: 1}) {
						want = append(want, Recovery{x.Open.Recovered, x.Open.RecoveryTicks})
					}
					for i := range want {
						if got[j][i] != want[i] {
							t.Fatalf("%s λ/k=%g outage %d, %d workers, trial %d: %+v, the separate run %+v", c.name, load, l, workers, i, got[j][i], want[i])
						}
					}
				}
			}
			if c.name == "Full Jitter" && load >= 0.7 {
				opt := Options{Trials: 10, Seed: 1, build: func(sc model.Scenario) (Engine, error) {
					e, err := w.build(sc, Choice{Engine: QueueName})
					if err == nil {
						e.(*QueueEngine).shareLate = 1
					}
					return e, err
				}}
				wrong := outageTrials(t, c.sc, w, opt)
				right := outageTrials(t, c.sc, w, Options{Trials: 10, Seed: 1})
				if fmt.Sprint(wrong) != fmt.Sprint(right) {
					late++
				}
			}
		}
	}
	if late == 0 {
		t.Errorf("sharing a tick of the outage changed no trial: the comparison cannot tell a wrong engine")
	}
}
