package analysis

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// Simulate is deterministic: the same seed gives the same JSON whatever
// the worker count.
func TestSimulateDeterministic(t *testing.T) {
	sc := model.Default()
	sc.Policy.Kind = model.Equal
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
	b.Policy.Kind = model.Fixed
	c, err = Compare(context.Background(), a, b, montecarlo.Options{Trials: 200, Seed: 1})
	if err != nil || !c.Calls.Significant || c.Calls.Mean > -200 {
		t.Fatalf("full vs fixed: %+v, %v", c.Calls, err)
	}
}
