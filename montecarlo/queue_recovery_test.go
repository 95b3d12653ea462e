package montecarlo

import (
	"context"
	"fmt"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// recoveryOutcome is what a metastability map reads of a trial.
type recoveryOutcome struct {
	recovered bool
	ticks     int64
}

// queueMapCells plays OpenLoopToRecovery trials over the queue map's grid
// (loads 0.3…0.9, outages 0…100 from tick 100, 1,000 ticks, collapse at 50
// ticks of capacity) with the recovery bound edited by edit (nil: as built),
// and returns each trial's outcome and how many trials the bound stopped.
func queueMapCells(t *testing.T, sc model.Scenario, ctl control.Controls, trials int, edit func(*recoveryBound)) ([]recoveryOutcome, int) {
	t.Helper()
	var out []recoveryOutcome
	stopped := 0
	for _, outage := range []int{0, 5, 10, 20, 50, 100} {
		for _, load := range []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9} {
			tr := model.Traffic{Rate: load * float64(sc.Capacity), Ticks: 1000, OutageStart: 100, OutageLength: outage, CollapseBacklog: 50 * sc.Capacity}
			w := OpenLoopToRecovery{OpenLoop{Traffic: tr, Controls: ctl}}
			opt := Options{Trials: trials, Seed: 1, build: func(sc model.Scenario) (Engine, error) {
				e, err := w.build(sc, Choice{Engine: QueueName})
				if err == nil && edit != nil {
					edit(&e.(*QueueEngine).bound)
				}
				return e, err
			}}
			p, err := NewPlan(sc, w, opt)
			if err != nil {
				t.Fatal(err)
			}
			err = p.Run(context.Background(), func(x *Trial) error {
				out = append(out, recoveryOutcome{x.Open.Recovered, x.Open.RecoveryTicks})
				if x.Open.CannotRecover {
					stopped++
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	return out, stopped
}

// The queue engine stops an OpenLoopToRecovery trial that provably cannot
// recover by its last tick (recoveryBound) without changing what any trial
// of the queue map says: over the map's grid, with 10 trials a cell, each
// trial recovers at the same tick, or not at all, as with the bound off —
// under the absorbing rule (policies without a control: Full Jitter, no
// backoff) and the drain rule alone (three attempts, the AWS bucket, no
// timeout). The bound must stop trials in every setting, and each rule made
// too eager must change some trial's outcome, so that the comparison is
// shown to fail on a wrong bound: the absorbing rule assuming the server
// completes half the requests a tick it does, the drain rule assuming the
// traffic's last tick is 600 rather than 999.
func TestQueueStopsOnlyTrialsThatCannotRecover(t *testing.T) {
	sc := queueScenario(100, 10, 10, 0, policy.Full)
	none := sc
	none.Policy.Kind = policy.None
	untimed := sc
	untimed.Queue.Timeout = 0
	eager := []struct {
		name string
		edit func(*recoveryBound)
	}{
		{"half the capacity", func(b *recoveryBound) { b.serve /= 2 }},
		{"last tick 600", func(b *recoveryBound) { b.last = 600 }},
	}
	caught := make([]int, len(eager))
	for _, c := range []struct {
		name string
		sc   model.Scenario
		ctl  control.Controls
	}{
		{"Full Jitter", sc, control.Controls{}},
		{"no backoff", none, control.Controls{}},
		{"Full Jitter + 3 attempts", sc, control.Controls{MaxAttempts: 3}},
		{"Full Jitter + aws bucket", sc, control.Controls{Bucket: control.DefaultBucket(control.AWSBucket)}},
		{"Full Jitter, no timeout", untimed, control.Controls{}},
	} {
		want, _ := queueMapCells(t, c.sc, c.ctl, 10, func(b *recoveryBound) { b.on = false })
		got, stopped := queueMapCells(t, c.sc, c.ctl, 10, nil)
		if d := differences(want, got); d != "" {
			t.Errorf("%s: the bound changed trials: %s", c.name, d)
		}
		if stopped == 0 {
			t.Errorf("%s: the bound stopped none of %d trials", c.name, len(got))
		}
		t.Logf("%s: the bound stopped %d of %d trials", c.name, stopped, len(got))
		for i, e := range eager {
			bad, _ := queueMapCells(t, c.sc, c.ctl, 10, e.edit)
			if d := differences(want, bad); d != "" {
				caught[i]++
				t.Logf("%s, a bound assuming %s: %s", c.name, e.name, d)
			}
		}
	}
	for i, e := range eager {
		if caught[i] == 0 {
			t.Errorf("a bound assuming %s changed no trial: the comparison cannot tell a wrong bound", e.name)
		}
	}
}

// differences describes the first trials whose outcomes differ.
func differences(want, got []recoveryOutcome) string {
	if len(want) != len(got) {
		return fmt.Sprintf("%d trials, want %d", len(got), len(want))
	}
	s, n := "", 0
	for i := range want {
		if want[i] != got[i] {
			n++
			if n <= 3 {
				s += fmt.Sprintf(" trial %d: %+v, want %+v;", i, got[i], want[i])
			}
		}
	}
	if n > 0 {
		return fmt.Sprintf("%d trials differ:%s", n, s)
	}
	return ""
}

// goodputTrial is what a hysteresis loop reads of a trial, and how it
// ended.
type goodputTrial struct {
	goodput, backlog  string
	collapsed         bool
	completion, fresh int64
	peak              int64
}

// goodputTrials plays trials of OpenLoopGoodput (with the engine's fields
// edited by edit) or, with full, of OpenLoop, and returns what a
// hysteresis loop reads of each, and how many trials the absorbing rule
// shortened.
func goodputTrials(t *testing.T, sc model.Scenario, w OpenLoop, trials int, full bool, edit func(*QueueEngine)) ([]goodputTrial, int) {
	t.Helper()
	var work Workload = OpenLoopGoodput{w}
	if full {
		work = w
	}
	opt := Options{Trials: trials, Seed: 1, Arrivals: true}
	if edit != nil {
		opt.build = func(sc model.Scenario) (Engine, error) {
			e, err := OpenLoopGoodput{w}.build(sc, Choice{Engine: QueueName})
			if err == nil {
				edit(e.(*QueueEngine))
			}
			return e, err
		}
	}
	p, err := NewPlan(sc, work, opt)
	if err != nil {
		t.Fatal(err)
	}
	var out []goodputTrial
	short := 0
	err = p.Run(context.Background(), func(x *Trial) error {
		o := x.Open
		out = append(out, goodputTrial{fmt.Sprint(o.Goodput), fmt.Sprint(o.BacklogAt), o.Collapsed, x.Completion, o.NewRequests, o.PeakBacklog})
		if len(x.Arrivals) < len(o.Goodput) {
			short++
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out, short
}

// An OpenLoopGoodput trial on the queue server records the OpenLoop
// trial's goodput and backlog at every tick, its collapse and completion:
// on the hysteresis figure's traffic (100 clients, k = 10, timeout 10,
// loads 0.2 … 1.2 … 0.2, each for 200 ticks) under Full Jitter and no
// backoff, where the overload leaves the queue absorbed, and no timeout or
// three attempts, where the rule never holds; and on the queue map's
// traffic (an outage of 50 ticks at λ/k = 0.5), whose absorbed trials
// collapse. The rule must shorten trials, and made too eager — assuming
// the server completes half the requests a tick it does — it must change
// some trial, so that the comparison is shown to fail on a wrong rule.
func TestQueueGoodputIsTheFullTrials(t *testing.T) {
	sc := queueScenario(100, 10, 10, 0, policy.Full)
	none := sc
	none.Policy.Kind = policy.None
	untimed := sc
	untimed.Queue.Timeout = 0
	loads := []float64{0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1, 1.1, 1.2, 1.1, 1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2}
	loop := model.Traffic{Rate: loads[0] * 10, Ticks: 200 * len(loads)}
	for i, l := range loads[1:] {
		loop.Steps = append(loop.Steps, model.RateStep{From: (i + 1) * 200, Rate: l * 10})
	}
	outage := model.Traffic{Rate: 5, Ticks: 1000, OutageStart: 100, OutageLength: 50, CollapseBacklog: 500}
	shortened, caught, collapsed := 0, 0, 0
	for _, c := range []struct {
		name string
		sc   model.Scenario
		w    OpenLoop
	}{
		{"Full Jitter", sc, OpenLoop{Traffic: loop}},
		{"no backoff", none, OpenLoop{Traffic: loop}},
		{"no timeout", untimed, OpenLoop{Traffic: loop}},
		{"3 attempts", sc, OpenLoop{Traffic: loop, Controls: control.Controls{MaxAttempts: 3}}},
		{"Full Jitter after an outage", sc, OpenLoop{Traffic: outage}},
	} {
		want, _ := goodputTrials(t, c.sc, c.w, 4, true, nil)
		got, short := goodputTrials(t, c.sc, c.w, 4, false, nil)
		for i := range want {
			if got[i] != want[i] {
				t.Errorf("%s trial %d: OpenLoopGoodput differs from OpenLoop", c.name, i)
				break
			}
		}
		bad, _ := goodputTrials(t, c.sc, c.w, 4, false, func(e *QueueEngine) { e.bound.serve /= 2 })
		for i := range want {
			if bad[i] != want[i] {
				caught++
				t.Logf("%s trial %d: the rule assuming half the capacity changes it", c.name, i)
				break
			}
		}
		shortened += short
		for _, x := range got {
			if x.collapsed && short > 0 {
				collapsed++
			}
		}
		t.Logf("%s: %d of %d trials played on with arrivals only", c.name, short, len(got))
	}
	if shortened == 0 || collapsed == 0 {
		t.Errorf("%d trials played on with arrivals only, %d collapsed in settings where some did: the test needs both", shortened, collapsed)
	}
	if caught == 0 {
		t.Errorf("a rule assuming half the capacity changed no trial: the comparison cannot tell a wrong rule")
	}
}
