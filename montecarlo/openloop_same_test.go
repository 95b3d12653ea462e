package montecarlo

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// requestCase is one setting of the request engine that its speedups must
// play draw for draw as the reference engine did.
type requestCase struct {
	name   string
	sc     model.Scenario
	tr     model.Traffic
	ctl    control.Controls
	closed *model.ClosedLoop
}

// requestCases span what the request engine does: both loops, every server
// it plays, every control, stateless and stateful policies, outages,
// overload with a reject cost, collapse, rate steps, a start cohort, a
// drain, first windows and the policy's own retry limit.
func requestCases() []requestCase {
	meta := func(load float64, outage int, cost float64, ctl control.Controls) requestCase {
		sc := openScenario(100, 20, policy.Full)
		tr := model.Traffic{Rate: load * 20, Ticks: 600, OutageStart: 100, OutageLength: outage, RejectCost: cost, CollapseBacklog: 1000}
		return requestCase{name: fmt.Sprintf("meta/%g/%d/%g/%s", load, outage, cost, ctl), sc: sc, tr: tr, ctl: ctl}
	}
	var cs []requestCase
	for _, ctl := range []control.Controls{{}, {MaxAttempts: 3}, {Bucket: control.DefaultBucket(control.AWSBucket)},
		{Bucket: control.DefaultBucket(control.BrookerBucket)}, {Breaker: control.DefaultBreaker()}} {
		cs = append(cs, meta(0.9, 200, 0.05, ctl), meta(0.6, 50, 0.05, ctl), meta(0.5, 25, 0, ctl))
	}
	flaky := func(clients int, p float64, kind policy.Kind, tick time.Duration) model.Scenario {
		sc := openScenario(clients, 1_000_000, kind)
		sc.Server, sc.FailureRate = model.Flaky, p
		sc.Policy.Tick = tick
		return sc
	}
	coll := openScenario(100, 100, policy.Full)
	coll.Server = model.Collision
	cs = append(cs, requestCase{name: "collision", sc: coll, ctl: control.Controls{Breaker: control.DefaultBreaker()},
		tr: model.Traffic{Rate: 50, Ticks: 400, OutageStart: 100, OutageLength: 20, CollapseBacklog: 5000}})
	budget := control.DefaultRetryBudget()
	cs = append(cs,
		requestCase{name: "budget", sc: flaky(10, 1, policy.None, time.Second), tr: model.Traffic{Rate: 100, Ticks: 120}, ctl: control.Controls{Budget: budget}},
		requestCase{name: "throttling", sc: flaky(10, 0.5, policy.None, time.Second), tr: model.Traffic{Rate: 30, Ticks: 200, Drain: true},
			ctl: control.Controls{MaxAttempts: 4, Throttling: control.DefaultRetryThrottling()}},
		requestCase{name: "adaptive", sc: flaky(10, 0.8, policy.None, time.Second), tr: model.Traffic{Rate: 30, Ticks: 300},
			ctl: control.Controls{MaxAttempts: 1, Adaptive: control.DefaultAdaptiveThrottling()}},
		requestCase{name: "sim-breaker", sc: flaky(20, 0.3, policy.Equal, 0), tr: model.Traffic{Rate: 10, Ticks: 300},
			ctl: control.Controls{SimBreaker: control.DefaultSimBreaker(), Bucket: control.DefaultBucket(control.BrookerSimBucket)}},
		requestCase{name: "aws-2026", sc: openScenario(30, 8, policy.Decorrelated), tr: model.Traffic{Rate: 7, Ticks: 400, OutageStart: 50, OutageLength: 60},
			ctl: control.Controls{Bucket: control.DefaultBucket(control.AWS2026Bucket)}},
	)
	steps := openScenario(50, 10, policy.Expo)
	steps.Policy.Retries = 5
	cs = append(cs, requestCase{name: "steps-cohort-drain", sc: steps, tr: model.Traffic{Rate: 4, Ticks: 300, StartCohort: true, Drain: true,
		Steps: []model.RateStep{{From: 100, Rate: 12}, {From: 150, Rate: 3}}}})
	// Requests that wait out a 5,000-tick outage: latencies past the
	// engine's dense counts.
	cs = append(cs, requestCase{name: "long-latencies", sc: openScenario(5, 5, policy.Full),
		tr: model.Traffic{Rate: 0.5, Ticks: 5400, OutageStart: 20, OutageLength: 5000}})
	fixed := openScenario(1, 3, policy.Fixed)
	cs = append(cs, requestCase{name: "one-client", sc: fixed, tr: model.Traffic{Rate: 2.5, Ticks: 300, OutageStart: 10, OutageLength: 40, OutageCapacity: 1}})
	for _, think := range []int{0, 10} {
		sc := flaky(100, 0.5, policy.Expo, 10*time.Millisecond)
		sc.FirstWindow = 7
		l := model.ClosedLoop{Think: think}
		cs = append(cs, requestCase{name: fmt.Sprintf("closed/%d", think), sc: sc, tr: model.Traffic{Ticks: 500, Drain: true}, ctl: control.Controls{MaxAttempts: 4}, closed: &l})
	}
	closedCap := openScenario(40, 5, policy.Full)
	l := model.ClosedLoop{Think: 3}
	cs = append(cs, requestCase{name: "closed/capacity/bucket", sc: closedCap, tr: model.Traffic{Ticks: 400, OutageStart: 50, OutageLength: 30},
		ctl: control.Controls{Bucket: control.DefaultBucket(control.AWSBucket)}, closed: &l})
	return cs
}

// trialText is everything a trial of the request engine records, as text
// (nil and empty slices print alike).
func trialText(t *Trial) string {
	return fmt.Sprintf("calls %d completion %d censored %v served %d gaveup %d peak %d latency %v arrivals %v open %+v",
		t.Calls, t.Completion, t.Censored, t.Served, t.GaveUp, t.Peak, t.Latency.Runs(), t.Arrivals, *t.Open)
}

// TestOpenLoopSameAsReference plays every request case with the engine and
// with the reference (the engine before its speedups, openloop_ref_test.go)
// on the same streams: every trial must record the same numbers.
func TestOpenLoopSameAsReference(t *testing.T) {
	trials := 12
	if testing.Short() {
		trials = 3
	}
	for _, c := range requestCases() {
		t.Run(c.name, func(t *testing.T) {
			var e, r Engine
			var err error
			if c.closed != nil {
				e, err = NewClosedLoopEngine(c.sc, c.tr, *c.closed, c.ctl)
				if err == nil {
					r, err = newRefClosedLoopEngine(c.sc, c.tr, *c.closed, c.ctl)
				}
			} else {
				e, err = NewOpenLoopEngine(c.sc, c.tr, c.ctl)
				if err == nil {
					r, err = newRefOpenLoopEngine(c.sc, c.tr, c.ctl)
				}
			}
			if err != nil {
				t.Fatal(err)
			}
			var got, want Trial
			for i := range trials {
				arrivals := i%2 == 1
				got.reset(i)
				want.reset(i)
				e.Play(Stream(5, c.sc, i), &got, arrivals)
				r.Play(Stream(5, c.sc, i), &want, arrivals)
				if g, w := trialText(&got), trialText(&want); g != w {
					t.Fatalf("trial %d differs from the reference:\n got %s\nwant %s", i, g, w)
				}
			}
		})
	}
}

// BenchmarkOpenLoop plays trials of the settings that cost herd claims
// most — cells of the metastability map (100 clients, k = 20, 3,000 ticks,
// reject cost 0.05, collapse at 1,000) and Finagle's budget at total
// failure — with the reference engine (old, the engine before its
// speedups) and the engine (new), trial by trial in turn, so that both see
// the same machine; each side's CPU is its thread's (robust to a busy
// machine, where ns/op is not). It reports old and new CPU per send and
// their ratio, old/new.
func BenchmarkOpenLoop(b *testing.B) {
	meta := func(load float64, outage int, ctl control.Controls) requestCase {
		sc := openScenario(100, 20, policy.Full)
		return requestCase{sc: sc, ctl: ctl, tr: model.Traffic{Rate: load * 20, Ticks: 3000, OutageStart: 100, OutageLength: outage, RejectCost: 0.05, CollapseBacklog: 1000}}
	}
	for _, c := range []struct {
		name string
		requestCase
	}{
		{"meta-0.6-50-none", meta(0.6, 50, control.Controls{})},
		{"meta-0.9-200-none", meta(0.9, 200, control.Controls{})},
		{"meta-0.8-100-aws", meta(0.8, 100, control.Controls{Bucket: control.DefaultBucket(control.AWSBucket)})},
		{"meta-0.7-100-breaker", meta(0.7, 100, control.Controls{Breaker: control.DefaultBreaker()})},
		{"budget", flakyBench()},
	} {
		b.Run(c.name, func(b *testing.B) {
			old, err := newRefOpenLoopEngine(c.sc, c.tr, c.ctl)
			if err != nil {
				b.Fatal(err)
			}
			eng, err := NewOpenLoopEngine(c.sc, c.tr, c.ctl)
			if err != nil {
				b.Fatal(err)
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var t Trial
			var sends int64
			var cpu [2]time.Duration
			for i := range b.N {
				for side, e := range []Engine{old, eng} {
					c0, ok := threadCPU()
					t.reset(i % 40)
					e.Play(Stream(1, c.sc, i%40), &t, false)
					if c1, _ := threadCPU(); ok {
						cpu[side] += c1 - c0
					}
				}
				sends += t.Calls
			}
			b.ReportMetric(float64(sends)/float64(b.N), "sends/op")
			if cpu[1] > 0 {
				b.ReportMetric(float64(cpu[0].Nanoseconds())/float64(sends), "old-ns/send")
				b.ReportMetric(float64(cpu[1].Nanoseconds())/float64(sends), "new-ns/send")
				b.ReportMetric(float64(cpu[0])/float64(cpu[1]), "old/new")
			}
		})
	}
}

// flakyBench is claims' Finagle setting: 10 clients at 100 requests per
// second each, every call failing, Finagle's default budget without its
// minimum.
func flakyBench() requestCase {
	sc := openScenario(10, 1_000_000, policy.None)
	sc.Server, sc.FailureRate, sc.Policy.Tick = model.Flaky, 1, time.Second
	b := control.DefaultRetryBudget()
	b.MinRetriesPerSec = 0
	return requestCase{sc: sc, tr: model.Traffic{Rate: 1000, Ticks: 600}, ctl: control.Controls{Budget: b}}
}

// TestOpenLoopTapesSameAsReference plays every request case as
// TestOpenLoopSameAsReference does, but through one store of arrival
// tapes, three times a trial: over half the horizon (which records a
// tape), over the whole horizon (which reads it and records a longer
// one past it) and over the whole horizon again (which reads it all).
// Every play must record what the reference does with the same traffic.
func TestOpenLoopTapesSameAsReference(t *testing.T) {
	trials := 8
	if testing.Short() {
		trials = 3
	}
	for _, c := range requestCases() {
		if c.closed != nil {
			continue
		}
		t.Run(c.name, func(t *testing.T) {
			tapes := NewArrivalTapes()
			half := c.tr
			half.Ticks = c.tr.Ticks / 2
			var got, want Trial
			for _, tr := range []model.Traffic{half, c.tr, c.tr} {
				e, err := NewOpenLoopEngine(c.sc, tr, c.ctl)
				if err != nil {
					t.Fatal(err)
				}
				e.tapes = tapes
				r, err := newRefOpenLoopEngine(c.sc, tr, c.ctl)
				if err != nil {
					t.Fatal(err)
				}
				for i := range trials {
					arrivals := i%2 == 1
					got.reset(i)
					want.reset(i)
					e.Play(Stream(5, c.sc, i), &got, arrivals)
					r.Play(Stream(5, c.sc, i), &want, arrivals)
					if g, w := trialText(&got), trialText(&want); g != w {
						t.Fatalf("%d ticks, trial %d differs from the reference:\n got %s\nwant %s", tr.Ticks, i, g, w)
					}
				}
			}
			if e := (&OpenLoopEngine{tapes: tapes, sc: c.sc, tr: c.tr}); e.tapeable() && len(tapes.m) == 0 {
				t.Fatal("no tape was recorded")
			}
		})
	}
}
