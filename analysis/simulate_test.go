package analysis

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// Simulate is deterministic: the same seed gives the same JSON whatever
// the worker count.
func TestSimulateDeterministic(t *testing.T) {
	sc := model.Default()
	sc.Policy.Kind = policy.Equal
	run := func(workers int) string {
		s, err := Simulate(context.Background(), sc, montecarlo.Options{Trials: 600, Seed: 9, Workers: workers, Arrivals: true})
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(s)
		return string(b)
	}
	if a, b := run(1), run(2); a != b {
		t.Fatalf("1 worker and 2 workers differ:\n%s\n%s", a, b)
	}
}

// The paired difference of a policy with itself is exactly zero, and Full
// against fixed at N = 100 saves calls significantly.
func TestCompare(t *testing.T) {
	a := model.Default()
	c, err := Compare(context.Background(), a, a, montecarlo.Options{Trials: 200, Seed: 1})
	if err != nil || c.Calls.Mean != 0 || c.Calls.SD != 0 || c.Calls.Significant {
		t.Fatalf("self-comparison: %+v, %v", c, err)
	}
	b := a
	b.Policy.Kind = policy.Fixed
	c, err = Compare(context.Background(), a, b, montecarlo.Options{Trials: 200, Seed: 1})
	if err != nil || !c.Calls.Significant || c.Calls.Mean > -200 {
		t.Fatalf("full vs fixed: %+v, %v", c.Calls, err)
	}
}

// On the window server the arrivals are counted per window, the continuous
// time's tick: every trial's add up to its calls, so their means add up to
// the mean calls; and with first sends over the first half window and a
// fixed delay of two windows, window 0 has exactly the N first sends and
// window 1 none.
func TestSimulateWindowArrivals(t *testing.T) {
	sc := specScenario(t, "policy", "fixed", "fixed-delay", "2", "clients", "100", "capacity", "5", "window", "10ms", "first-spread", "5ms")
	sum, err := Simulate(context.Background(), sc, montecarlo.Options{Trials: 200, Seed: 3, Arrivals: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Arrivals) == 0 {
		t.Fatal("no arrivals per window")
	}
	total := 0.0
	for _, a := range sum.Arrivals {
		total += a.Mean
	}
	if d := total - sum.Calls.Mean; d > 1e-9*sum.Calls.Mean || d < -1e-9*sum.Calls.Mean {
		t.Errorf("arrivals per window add up to %v, calls %v", total, sum.Calls.Mean)
	}
	// Every first send is within the first half window: window 0 has all
	// 100 in every trial.
	if a := sum.Arrivals[0]; a.Mean != 100 || a.SD != 0 {
		t.Errorf("window 0: %+v arrivals, want all 100 first sends", a)
	}
	if a := sum.Arrivals[1]; a.Mean != 0 {
		t.Errorf("window 1: %+v arrivals, want none", a)
	}
}

// The OCC server has no ticks or windows, so --arrivals gives none and
// says so rather than leaving them out silently.
func TestSimulateOCCArrivalsWarn(t *testing.T) {
	sc := specScenario(t, "policy", "full", "clients", "20", "server", "occ")
	sum, err := Simulate(context.Background(), sc, montecarlo.Options{Trials: 10, Seed: 3, Arrivals: true})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range sum.Warnings {
		warned = warned || strings.Contains(w, "no arrivals per tick")
	}
	if len(sum.Arrivals) != 0 || !warned {
		t.Errorf("OCC with arrivals: %d windows of arrivals, warnings %q", len(sum.Arrivals), sum.Warnings)
	}
}

// specScenario is the scenario of the flag and value pairs kv, as herd's
// commands read them (model.Spec).
func specScenario(t *testing.T, kv ...string) model.Scenario {
	t.Helper()
	sc, err := model.ScenarioOf(kv...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}
