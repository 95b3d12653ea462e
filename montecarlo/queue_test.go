package montecarlo

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// queueTrials plays trials of a workload on the queue server and returns
// deep copies of them (the engine reuses a trial's buffers).
func queueTrials(t *testing.T, sc model.Scenario, w Workload, opt Options) []Trial {
	t.Helper()
	p, err := NewPlan(sc, w, opt)
	if err != nil {
		t.Fatal(err)
	}
	if p.Choice.Engine != QueueName {
		t.Fatalf("the plan chose %s for the queue server", p.Choice.Engine)
	}
	var out []Trial
	err = p.Run(context.Background(), func(tr *Trial) error {
		c := *tr
		c.Latency = tr.Latency.Clone()
		c.Arrivals = append([]int64(nil), tr.Arrivals...)
		q := *tr.Queue
		q.Response = q.Response.Clone()
		q.QueueAt = append([]int64(nil), q.QueueAt...)
		q.WastedAt = append([]int64(nil), q.WastedAt...)
		c.Queue = &q
		if tr.Open != nil {
			o := *tr.Open
			c.Open = &o
		}
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func queueScenario(n, k, timeout, limit int, kind policy.Kind) model.Scenario {
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity, sc.Policy.Kind = model.Queue, n, k, kind
	sc.Queue = model.Queueing{Limit: limit, Timeout: timeout}
	return sc
}

// A cohort of N that reaches an empty queue
// server together waits up to ⌈N/k⌉ ticks for its last response (the
// queueing delay), and wastes work exactly when the timeout is below it —
// in every trial, for every policy: with T ≥ ⌈N/k⌉ nobody times out, calls
// are N and completion ⌈N/k⌉; with T < ⌈N/k⌉ the last client's first
// attempt is abandoned and later served for nothing.
func TestQueueWastesWorkExactlyWhenTimeoutBelowQueueingDelay(t *testing.T) {
	for _, kind := range []policy.Kind{policy.None, policy.Fixed, policy.Full, policy.Decorrelated} {
		for _, nk := range [][2]int{{1, 1}, {5, 1}, {25, 10}, {40, 3}, {100, 10}} {
			n, k := nk[0], nk[1]
			delay := model.Default()
			delay.Capacity = k
			d := delay.ServiceDelay(n)
			for timeout := 1; timeout <= d+2; timeout++ {
				sc := queueScenario(n, k, timeout, 0, kind)
				sc.Horizon = 300 // a stuck cohort (policy none, T = 1) grows its queue for ever
				for _, x := range queueTrials(t, sc, Cohort{}, Options{Trials: 200, Seed: 3}) {
					q := x.Queue
					if timeout < d {
						if q.Wasted == 0 || q.TimedOut == 0 || x.Calls <= int64(n) {
							t.Fatalf("%s N=%d k=%d T=%d < delay %d: trial %d wasted %d, timed out %d, calls %d; want all > 0 (> N)", kind, n, k, timeout, d, x.Index, q.Wasted, q.TimedOut, x.Calls)
						}
						continue
					}
					if q.Wasted != 0 || q.TimedOut != 0 || x.Calls != int64(n) || x.Completion != int64(d) || x.Served != int64(n) {
						t.Fatalf("%s N=%d k=%d T=%d ≥ delay %d: trial %d wasted %d, timed out %d, calls %d, completion %d; want 0, 0, %d, %d", kind, n, k, timeout, d, x.Index, q.Wasted, q.TimedOut, x.Calls, x.Completion, n, d)
					}
				}
			}
		}
	}
}

// The same line for open-loop traffic: under sustained overload a queue
// limited to L holds up to L requests, so its queueing delay is ⌈L/k⌉; a
// timeout at or above it never fires and nothing is wasted, one below it
// wastes work in every trial.
func TestQueueOpenLoopWastesWorkExactlyWhenTimeoutBelowQueueingDelay(t *testing.T) {
	for _, lk := range [][2]int{{1, 1}, {7, 2}, {30, 10}} {
		l, k := lk[0], lk[1]
		sc := model.Default()
		sc.Capacity = k
		d := sc.ServiceDelay(l)
		for timeout := 1; timeout <= d+1; timeout++ {
			sc := queueScenario(10, k, timeout, l, policy.Full)
			tr := model.Traffic{Rate: 2 * float64(k), Ticks: 300}
			for _, x := range queueTrials(t, sc, OpenLoop{Traffic: tr}, Options{Trials: 50, Seed: 5}) {
				q := x.Queue
				if q.PeakQueue > int64(l) {
					t.Fatalf("L=%d: the queue held %d", l, q.PeakQueue)
				}
				if (q.Wasted > 0) != (timeout < d) || (q.TimedOut > 0) != (timeout < d) {
					t.Fatalf("L=%d k=%d T=%d, delay %d: trial %d wasted %d, timed out %d", l, k, timeout, d, x.Index, q.Wasted, q.TimedOut)
				}
			}
		}
	}
}

// Without a timeout and a limit the queue serves a cohort in ⌈N/k⌉ waves
// of k with no retry: calls N, k latencies of each 1…⌈N/k⌉ − 1 and the rest
// at ⌈N/k⌉, and response time equal to latency.
func TestQueueCohortWithoutTimeout(t *testing.T) {
	sc := queueScenario(47, 5, 0, 0, policy.Full)
	for _, x := range queueTrials(t, sc, Cohort{}, Options{Trials: 20, Seed: 1}) {
		want := []int64{0, 5, 5, 5, 5, 5, 5, 5, 5, 5, 2}
		if x.Calls != 47 || x.Completion != 10 || fmt.Sprint(x.Latency.Dense()) != fmt.Sprint(want) || fmt.Sprint(x.Queue.Response.Dense()) != fmt.Sprint(want) {
			t.Fatalf("trial %+v, queue %+v", x, *x.Queue)
		}
	}
}

// A queue limit rejects at once what does not fit: a cohort of N > L with
// no timeout sends N + (rejections) and never holds more than L.
func TestQueueLimitRejects(t *testing.T) {
	sc := queueScenario(30, 2, 0, 4, policy.Fixed)
	for _, x := range queueTrials(t, sc, Cohort{}, Options{Trials: 20, Seed: 1}) {
		q := x.Queue
		if q.PeakQueue > 4 || q.Rejected == 0 || x.Calls != 30+q.Rejected || q.Admitted != 30 || q.Wasted != 0 || x.Served != 30 {
			t.Fatalf("trial %+v, queue %+v", x, *q)
		}
	}
}

// digest hashes everything a trial records.
func digest(trials []Trial) uint64 {
	h := fnv.New64a()
	for _, x := range trials {
		fmt.Fprint(h, x.Index, x.Calls, x.Completion, x.Censored, x.Served, x.GaveUp, x.Peak, x.Latency, x.Arrivals, *x.Queue)
		if x.Open != nil {
			fmt.Fprint(h, *x.Open)
		}
	}
	return h.Sum64()
}

// Same seed, same bytes, whatever the workers, in a cohort and in open-loop
// traffic with controls; another seed gives other trials (the digest can
// tell them apart).
func TestQueueWorkersDoNotChangeResults(t *testing.T) {
	sc := queueScenario(60, 4, 6, 50, policy.Decorrelated)
	tr := model.Traffic{Rate: 3, Ticks: 400, OutageStart: 50, OutageLength: 40}
	ctl := control.Controls{MaxAttempts: 4, Bucket: control.DefaultBucket(control.BrookerBucket), Breaker: control.DefaultBreaker()}
	for _, w := range []Workload{Cohort{}, OpenLoop{Traffic: tr, Controls: ctl}} {
		run := func(workers int, seed uint64) uint64 {
			return digest(queueTrials(t, sc, w, Options{Trials: 150, Seed: seed, Workers: workers, Arrivals: true}))
		}
		a, b, c := run(1, 7), run(4, 7), run(3, 8)
		if a != b {
			t.Errorf("%s: 1 and 4 workers differ", w.Name())
		}
		if a == c {
			t.Errorf("%s: seeds 7 and 8 gave the same trials", w.Name())
		}
	}
}

// After its buffers have grown, a cohort trial allocates nothing, however
// many requests it sends; an open-loop trial only its OpenTrial and the
// arrivals' stream.
func TestQueueEngineDoesNotAllocatePerRequest(t *testing.T) {
	for _, c := range []struct {
		w    Workload
		most float64
	}{
		{Cohort{}, 0},
		{OpenLoop{Traffic: model.Traffic{Rate: 8, Ticks: 500, OutageStart: 50, OutageLength: 50}}, 2},
	} {
		sc := queueScenario(2000, 10, 8, 0, policy.Full)
		sc.Horizon = 1000
		p, err := NewPlan(sc, c.w, Options{Trials: 1})
		if err != nil {
			t.Fatal(err)
		}
		e, err := p.Work.build(sc, p.Choice)
		if err != nil {
			t.Fatal(err)
		}
		var tr Trial
		src := rand.NewPCG(1, 2)
		play := func() {
			tr.reset(0)
			src.Seed(1, 2)
			e.Play(src, &tr, false)
		}
		play()
		play()
		if n := testing.AllocsPerRun(5, play); n > c.most {
			t.Errorf("%s: %g allocations per trial of %d calls, want at most %g", c.w.Name(), n, tr.Calls, c.most)
		}
		if tr.Calls < 10000 {
			t.Errorf("%s: only %d calls, the test needs a large trial", c.w.Name(), tr.Calls)
		}
	}
}

// The plan refuses another engine for the queue server, and a queue limit
// that would not fit the memory budget, before allocating it.
func TestQueuePlanRefuses(t *testing.T) {
	sc := queueScenario(10, 2, 3, 0, policy.Full)
	var le *LimitError
	for _, want := range []EngineName{Clients, Counts} {
		if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1, Use: want}); !errors.As(err, &le) {
			t.Errorf("--engine %s on the queue server: %v", want, err)
		}
	}
	sc.Queue.Limit = model.MaxQueueLimit
	_, err := NewPlan(sc, Cohort{}, Options{Trials: 1, MaxMemory: 1 << 30})
	if !errors.As(err, &le) {
		t.Fatalf("a queue of 2^32 requests in 1 GiB: %v", err)
	}
	t.Log(err)
}

// An OpenLoopToRecovery trial on the queue server is the OpenLoop trial of the same stream up to
// the tick it recovers, and stops there: on the queue map's scenario
// (100 clients, k = 10, timeout 10, Full Jitter, outage from tick 100)
// at loads and outages that recover at once, late or never, under no
// control, three attempts, the breaker and a queue limit of k·T, each
// trial recovers (or not) at the same tick, its per-tick series are the
// full trial's first recovery tick + 1 entries, and one that does not
// recover is the full trial — or, when it stopped because it could not
// recover any more (CannotRecover), the full trial's first ticks.
func TestOpenLoopToRecoveryOnTheQueueServer(t *testing.T) {
	sc := queueScenario(100, 10, 10, 0, policy.Full)
	limited := sc
	limited.Queue.Limit = 100
	type cell struct {
		sc  model.Scenario
		ctl control.Controls
	}
	cells := []cell{{sc, control.Controls{}}, {sc, control.Controls{MaxAttempts: 3}}, {sc, control.Controls{Breaker: control.DefaultBreaker()}}, {limited, control.Controls{}}}
	stopped, stuck := 0, 0
	for _, c := range cells {
		for _, lo := range []struct {
			load   float64
			outage int
		}{{0.3, 0}, {0.6, 20}, {0.9, 50}} {
			tr := model.Traffic{Rate: lo.load * 10, Ticks: 600, OutageStart: 100, OutageLength: lo.outage, CollapseBacklog: 500}
			name := fmt.Sprintf("limit %d %s λ/k=%g outage %d", c.sc.Queue.Limit, c.ctl, lo.load, lo.outage)
			w := OpenLoop{Traffic: tr, Controls: c.ctl}
			opt := Options{Trials: 8, Seed: 3, Arrivals: true}
			full := queueTrials(t, c.sc, w, opt)
			part := queueTrials(t, c.sc, OpenLoopToRecovery{w}, opt)
			for i := range full {
				f, p := full[i], part[i]
				if f.Open.Recovered != p.Open.Recovered || f.Open.RecoveryTicks != p.Open.RecoveryTicks || (f.Open.Collapsed != p.Open.Collapsed && !p.Open.CannotRecover) {
					t.Fatalf("%s trial %d: recovered %v at %d (collapsed %v) in full, %v at %d (%v) stopped", name, i,
						f.Open.Recovered, f.Open.RecoveryTicks, f.Open.Collapsed, p.Open.Recovered, p.Open.RecoveryTicks, p.Open.Collapsed)
				}
				n := len(f.Arrivals)
				if f.Open.Recovered {
					n = tr.OutageEnd() + int(f.Open.RecoveryTicks)
					if p.Completion != int64(n) {
						t.Errorf("%s trial %d: stopped trial completes at %d, its recovery tick + 1 is %d", name, i, p.Completion, n)
					}
					if n < len(f.Arrivals) {
						stopped++
					}
				} else if p.Open.CannotRecover {
					stuck++
					n = int(p.Completion)
					if n >= len(f.Arrivals) {
						t.Errorf("%s trial %d: stopped as unable to recover at tick %d, the full trial ends at %d", name, i, n, len(f.Arrivals))
					}
				} else {
					stuck++
					if p.Completion != f.Completion || p.Calls != f.Calls || p.Served != f.Served || p.Censored != f.Censored {
						t.Errorf("%s trial %d: a trial that does not recover differs when asked to stop at recovery", name, i)
					}
				}
				for _, s := range []struct {
					what       string
					full, part []int64
				}{{"sends", f.Arrivals, p.Arrivals}, {"goodput", f.Open.Goodput, p.Open.Goodput}, {"backlog", f.Open.BacklogAt, p.Open.BacklogAt},
					{"queue", f.Queue.QueueAt, p.Queue.QueueAt}, {"wasted", f.Queue.WastedAt, p.Queue.WastedAt}} {
					if len(s.part) != n || fmt.Sprint(s.part) != fmt.Sprint(s.full[:n]) {
						t.Fatalf("%s trial %d: the stopped trial's %s (%d ticks) are not the full trial's first %d", name, i, s.what, len(s.part), n)
					}
				}
			}
		}
	}
	if stopped == 0 || stuck == 0 {
		t.Errorf("%d trials stopped before the horizon and %d never recovered: the cells should have both", stopped, stuck)
	}
	t.Logf("%d trials stopped at recovery before the horizon, %d did not recover", stopped, stuck)
}
