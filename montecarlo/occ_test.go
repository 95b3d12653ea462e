package montecarlo

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

// A lone client's attempt always wins: one call, and the time is the sum of
// four hops, mean 4·10 ms and variance 4·2² ms² (|Normal(10, 2)| differs
// from Normal(10, 2) with probability 3·10⁻⁷). The tolerance is 4 standard
// errors.
func TestOCCLoneClient(t *testing.T) {
	sc := model.AWSScenario(1, model.Full)
	const trials = 20000
	var sum, sq float64
	err := Run(context.Background(), sc, Options{Trials: trials, Seed: 3}, func(tr *Trial) error {
		if tr.Calls != 1 || tr.Served != 1 || tr.Censored || !tr.Continuous {
			t.Fatalf("trial %d: calls %d served %d censored %v continuous %v", tr.Index, tr.Calls, tr.Served, tr.Censored, tr.Continuous)
		}
		sum += tr.Time
		sq += tr.Time * tr.Time
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mean := sum / trials
	variance := sq/trials - mean*mean
	se := math.Sqrt(16.0 / trials)
	if math.Abs(mean-40) > 4*se {
		t.Errorf("mean time %.3f ms, want 40 ± %.3f", mean, 4*se)
	}
	// The variance of a sample variance of a normal is 2σ⁴/(n−1).
	if sev := math.Sqrt(2 * 16 * 16 / float64(trials-1)); math.Abs(variance-16) > 4*sev {
		t.Errorf("time variance %.3f ms², want 16 ± %.3f", variance, 4*sev)
	}
}

// Every client is served exactly once, every trial makes at least N calls,
// and with `none` two clients contend: the first to write wins; the second
// has read before that win unless its read came after it, so the calls are
// 2 or more, never fewer.
func TestOCCServesEveryone(t *testing.T) {
	for _, kind := range model.AWSKinds() {
		sc := model.AWSScenario(30, kind)
		err := Run(context.Background(), sc, Options{Trials: 200, Seed: 1, Arrivals: true}, func(tr *Trial) error {
			if tr.Served != 30 || tr.Calls < 30 || tr.Censored {
				t.Fatalf("%s trial %d: served %d calls %d censored %v", kind, tr.Index, tr.Served, tr.Calls, tr.Censored)
			}
			if int64(len(tr.CallTimes)) != tr.Calls {
				t.Fatalf("%s: %d call times for %d calls", kind, len(tr.CallTimes), tr.Calls)
			}
			for i := 1; i < len(tr.CallTimes); i++ {
				if tr.CallTimes[i] < tr.CallTimes[i-1] {
					t.Fatalf("%s: call times out of order at %d", kind, i)
				}
			}
			if last := tr.CallTimes[len(tr.CallTimes)-1]; tr.Time <= last {
				t.Fatalf("%s: completion %.3f not after the last write %.3f", kind, tr.Time, last)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The first attempt of every client does not depend on the policy (common
// random numbers), so with N = 1 every policy gives the same time, bit for
// bit, trial by trial.
func TestOCCCommonRandomNumbers(t *testing.T) {
	times := map[model.Kind][]float64{}
	for _, kind := range model.AWSKinds() {
		err := Run(context.Background(), model.AWSScenario(1, kind), Options{Trials: 50, Seed: 9}, func(tr *Trial) error {
			times[kind] = append(times[kind], tr.Time)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range model.AWSKinds() {
		for i, x := range times[kind] {
			if x != times[model.None][i] {
				t.Fatalf("%s trial %d: time %v, none %v", kind, i, x, times[model.None][i])
			}
		}
	}
}

// The horizon censors: a horizon of 1 ms stops every trial before its first
// write (a read and two hops take about 30 ms).
func TestOCCHorizonCensors(t *testing.T) {
	sc := model.AWSScenario(5, model.Full)
	sc.Horizon = 1
	err := Run(context.Background(), sc, Options{Trials: 10, Seed: 1}, func(tr *Trial) error {
		if !tr.Censored || tr.Calls != 0 {
			t.Fatalf("trial %d: censored %v calls %d", tr.Index, tr.Censored, tr.Calls)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Results do not depend on the number of workers.
func TestOCCWorkersInvariant(t *testing.T) {
	sc := model.AWSScenario(40, model.Decorrelated)
	collect := func(workers int) []float64 {
		var out []float64
		if err := Run(context.Background(), sc, Options{Trials: 300, Seed: 5, Workers: workers}, func(tr *Trial) error {
			out = append(out, float64(tr.Calls), tr.Time)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := collect(1), collect(3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("value %d: %v with 1 worker, %v with 3", i, a[i], b[i])
		}
	}
}

// The plan gives the OCC server its event engine and nothing else, and
// refuses a cohort beyond it naming --clients (exit 2 in the CLI).
func TestPlanOCCEngine(t *testing.T) {
	sc := model.AWSScenario(10, model.Full)
	for _, want := range []EngineName{Clients, Counts} {
		if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1, Use: want}); err == nil {
			t.Errorf("--engine %s accepted the OCC server", want)
		}
	}
	if p, err := NewPlan(sc, Cohort{}, Options{Trials: 1}); err != nil || p.Choice.Engine != Events {
		t.Errorf("OCC plan: %+v, %v; want the event engine", p, err)
	}
	if c, _ := Choose(model.Default(), Auto); c.Engine == Events {
		t.Error("a capacity scenario got the OCC event engine")
	}
	sc.Clients = MaxOCCClients + 1
	if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1}); err == nil || !strings.Contains(err.Error(), "--clients") {
		t.Errorf("OCC with %d clients: %v; want a LimitError naming --clients", sc.Clients, err)
	}
}
