package montecarlo

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// A cancelled run stops a window-engine trial with a latency per flight
// (the machine and its line of answers) and the machine's stalls inside
// the trial, not after it. Each trial takes seconds to minutes; the bound of
// 5 s (a second is the promise, on an idle machine from the CLI) leaves
// room for a loaded test machine.
func TestCancelStopsAMachineTrial(t *testing.T) {
	for _, kv := range [][]string{
		{"clients", "200000", "capacity", "10", "time", "continuous", "latency-per-flight", "1ms", "stalls", "1s,100ms"},
		// The machine stops every microsecond and the retries come 1,000
		// windows (of 1 s) later, so the first retry carried passes about
		// 5·10⁸ stops on its way.
		{"clients", "20", "capacity", "1", "time", "continuous", "latency-per-flight", "1ms", "stalls", "1us,1us", "policy", "fixed", "fixed-delay", "1000"},
	} {
		sc, err := model.ScenarioOf(kv...)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(sc, CohortOf(sc), Options{Trials: 1, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		start := time.Now()
		folded := 0
		err = p.Run(ctx, func(*Trial) error { folded++; return nil })
		cancel()
		took := time.Since(start)
		if took > slowdown*5*time.Second {
			t.Errorf("%v: the run took %s after a cancel at 200ms", kv, took)
		}
		if !errors.Is(err, context.DeadlineExceeded) || folded != 0 {
			t.Errorf("%v: err %v, %d trials folded; want the context's error and nothing folded", kv, err, folded)
		}
	}
}
