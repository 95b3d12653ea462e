package analysis

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// The queue chain agrees with the queue engine on every case of herd
// validate's queue grid (at least 20 scenarios, cohorts and open-loop
// traffic): exact means within the Bonferroni interval, laws by
// chi-square.
func TestQueueChainAgreesWithQueueEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of Monte Carlo; run without -short")
	}
	grid := queueValidationGrid()
	if len(grid) < 20 {
		t.Fatalf("%d queue-chain cases, want at least 20", len(grid))
	}
	grid = queueCasesToRun(grid)
	v, err := Validate(context.Background(), grid, ValidateOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, c := range v.Checks {
		if c.Verdict != Pass {
			t.Errorf("%s on %+v: %s", c.Quantity, c.Scenario, c.Detail)
		}
		kinds[c.Quantity[:min(len(c.Quantity), 12)]]++
	}
	if v.Statistical != len(v.Checks) {
		t.Errorf("%d checks, %d counted for Bonferroni", len(v.Checks), v.Statistical)
	}
	t.Logf("%d checks (|z| ≤ %.2f): %v", len(v.Checks), v.Critical, kinds)
}

// queueCasesToRun is the grid in the long suite and every second case of
// it in the default run (cohorts and open loop both, every policy), which
// takes half the time.
func queueCasesToRun(grid []ValidationCase) []ValidationCase {
	if longSuite {
		return grid
	}
	var half []ValidationCase
	for i, c := range grid {
		if i%2 == 0 {
			half = append(half, c)
		}
	}
	return half
}

// A planted bug — the chain's timeout and queue limit one longer than the
// engine's — fails checks in most cases, cohorts and open loop alike; delay
// laws stretched by 10% fail some.
func TestPerturbedQueueChainFailsTheChecks(t *testing.T) {
	if testing.Short() {
		t.Skip("about a minute of Monte Carlo; run without -short")
	}
	grid := queueCasesToRun(queueValidationGrid())
	for _, c := range []struct {
		name    string
		opt     ValidateOptions
		atLeast int // scenarios with a failing check
	}{
		{"timeout and limit +1", ValidateOptions{Seed: 1, Perturb: PerturbQueue(1)}, len(grid) * 2 / 3},
		{"delays ×1.1", ValidateOptions{Seed: 1, Perturb: PerturbDelays(1.1)}, 3},
	} {
		if !longSuite && c.name == "delays ×1.1" {
			continue // the long suite's; the default run has the other models' (TestPerturbedModelsFailTheChecks)
		}
		v, err := Validate(context.Background(), grid, c.opt)
		if err != nil {
			t.Fatal(err)
		}
		failing := map[string]bool{}
		open := 0
		for _, ch := range v.Checks {
			if ch.Verdict != Fail {
				continue
			}
			if strings.Contains(ch.Detail, "open loop") {
				open++
			}
			failing[fmt.Sprint(ch.Scenario)] = true
		}
		t.Logf("%s: %d of %d checks failed, in %d scenarios (%d checks in open loop)", c.name, v.Failed, len(v.Checks), len(failing), open)
		if len(failing) < c.atLeast {
			t.Errorf("%s: failing checks in %d scenarios, want at least %d", c.name, len(failing), c.atLeast)
		}
		if c.atLeast > 3 && (open == 0 || open == v.Failed) {
			t.Errorf("%s: %d of %d failing checks in open loop; want both kinds to fail", c.name, open, v.Failed)
		}
	}
}
