package montecarlo

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

func TestScratchChainVsEngine(t *testing.T) {
	type cs struct {
		sc  model.Scenario
		tr  *model.Traffic
		ctl model.Controls
	}
	var cases []cs
	tr := model.Traffic{Rate: 0.5, Ticks: 60, OutageStart: 5, OutageLength: 6}
	cases = append(cases, cs{sc: queueScenario(10, 1, 2, 0, model.None), tr: &tr})
	cases = append(cases, cs{sc: queueScenario(10, 1, 2, 0, model.None), tr: &tr, ctl: model.Controls{MaxAttempts: 2}})
	f := queueScenario(10, 1, 2, 6, model.Fixed)
	f.Policy.FixedDelay = 2
	cases = append(cases, cs{sc: f, tr: &tr})
	tr2 := model.Traffic{Rate: 0.8, Ticks: 60, OutageStart: 5, OutageLength: 4}
	cases = append(cases, cs{sc: queueScenario(10, 2, 2, 5, model.None), tr: &tr2})
	for _, c := range cases {
		t0 := time.Now()
		q, err := model.QueueChainOf(c.sc, c.tr, c.ctl, model.QueueChainOptions{Tail: 1e-12})
		if err != nil {
			t.Fatal(err)
		}
		var w Workload = Cohort{}
		if c.tr != nil {
			w = OpenLoop{Traffic: *c.tr, Controls: c.ctl}
		}
		const n = 40000
		var calls, wasted, useful, comp, rec float64
		ok := 0
		p, _ := NewPlan(c.sc, w, Options{Trials: n, Seed: 1})
		p.Run(context.Background(), func(tr *Trial) error {
			if c.tr == nil && tr.Censored {
				return nil
			}
			ok++
			calls += float64(tr.Calls)
			wasted += float64(tr.Queue.Wasted)
			useful += float64(tr.Served)
			comp += float64(tr.Completion)
			if tr.Open != nil && tr.Open.Recovered {
				rec++
			}
			return nil
		})
		z := func(mc float64, m model.Moment) float64 { return (mc/float64(ok) - m.Mean) / (m.SD / math.Sqrt(float64(ok))) }
		fmt.Printf("time %v states %d peak %d ovf %.3g trunc %.3g unf %.3g\n", time.Since(t0), q.States, q.PeakStates, q.Overflow, q.Truncated, q.Unfinished)
		fmt.Printf("  calls %.4f vs %.4f z=%.2f\n", calls/float64(ok), q.Calls.Mean, z(calls, q.Calls))
		fmt.Printf("  wasted %.4f vs %.4f z=%.2f\n", wasted/float64(ok), q.Wasted.Mean, z(wasted, q.Wasted))
		fmt.Printf("  useful %.4f vs %.4f z=%.2f\n", useful/float64(ok), q.Useful.Mean, z(useful, q.Useful))
		if c.tr == nil {
			fmt.Printf("  comp %.4f vs %.4f z=%.2f\n", comp/float64(ok), q.Completion.Mean, z(comp, q.Completion))
		} else {
			pr := q.Recovered
			fmt.Printf("  recovered %.4f vs %.4f z=%.2f\n", rec/n, pr, (rec/n-pr)/math.Sqrt(pr*(1-pr)/n))
		}
	}
}
