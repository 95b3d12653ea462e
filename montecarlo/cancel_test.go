package montecarlo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// A cancelled run stops inside a long trial, not after it: each engine
// polls the run's stop flag once per tick or event. The scenarios' single
// trials take minutes; the bound of 5 s (a second is the promise, measured
// on an idle machine from the CLI) leaves room for a loaded test machine.
func TestCancelStopsALongTrial(t *testing.T) {
	huge := model.Default()
	huge.Clients, huge.Capacity = 1<<31, 5
	occ := model.AWSScenario(2_000_000, policy.Full)
	open := model.Default()
	open.Capacity = 20
	for _, c := range []struct {
		name string
		sc   model.Scenario
		w    Workload
		use  EngineName
	}{
		{"count engine, N = 2³¹", huge, Cohort{}, Default},
		{"per-client engine, N = 2·10⁷", func() model.Scenario { s := huge; s.Clients = 20_000_000; return s }(), Cohort{}, Clients},
		{"OCC events, N = 2·10⁶", occ, Cohort{}, Default},
		{"open loop, 10⁷ ticks", open, OpenLoop{Traffic: model.Traffic{Rate: 19, Ticks: 10_000_000}}, Default},
		{"open loop, 10⁵ new requests a tick", func() model.Scenario { s := open; s.Capacity = 200_000; return s }(),
			OpenLoop{Traffic: model.Traffic{Rate: 100_000, Ticks: 1_000_000}}, Default},
		{"queue, a stuck cohort of 10⁶", func() model.Scenario {
			s := model.Default()
			s.Server, s.Clients, s.Capacity, s.Policy.Kind, s.Queue.Timeout = model.Queue, 1_000_000, 5, policy.None, 3
			return s
		}(), Cohort{}, Default},
	} {
		// The memory budget is raised: a cohort of 2³¹ would hold about 10⁹
		// distinct latencies if it ran to the end, which the default budget
		// refuses; cancelled at 200 ms it holds a few thousand.
		p, err := NewPlan(c.sc, c.w, Options{Trials: 1, Seed: 1, Workers: 1, Use: c.use, MaxMemory: 1 << 40})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		folded := 0
		err = p.Run(ctx, func(*Trial) error { folded++; return nil })
		cancel()
		if took := time.Since(start); took > slowdown*5*time.Second {
			t.Errorf("%s: the run took %s after a cancel at 200ms", c.name, took)
		}
		if !errors.Is(err, context.DeadlineExceeded) || folded != 0 {
			t.Errorf("%s: err %v, %d trials folded; want the context's error and nothing folded", c.name, err, folded)
		}
	}
}
