package analysis

import (
	"context"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// herd validate's continuous-time closed-form cases pass, and fail when
// the model is told a wrong capacity (the check can fail).
func TestValidateWindowClosedForm(t *testing.T) {
	var grid []ValidationCase
	for _, sc := range windowClosedScenarios() {
		grid = append(grid, ValidationCase{Method: MethodClosed, Scenario: sc, Trials: 5})
	}
	v, err := Validate(context.Background(), grid, ValidateOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if v.Failed != 0 || len(v.Checks) != 3*len(grid) {
		t.Errorf("%d of %d checks failed: %+v", v.Failed, len(v.Checks), v.Checks)
	}
	v, err = Validate(context.Background(), grid, ValidateOptions{Seed: 1, Perturb: func(sc model.Scenario) model.Scenario {
		sc.Capacity++
		return sc
	}})
	if err != nil {
		t.Fatal(err)
	}
	if v.Failed < len(grid) {
		t.Errorf("a wrong capacity fails only %d checks", v.Failed)
	}
}

// A continuous-time summary is in ms, with give-ups and latency
// quantiles, and its latency quantiles bracket the closed form's waves.
func TestSimulateContinuousSummary(t *testing.T) {
	sc := windowClosedScenarios()[0] // 100 clients, 10 per 100 ms window, expo: waves at 0, 200, …, 19000 ms
	s, err := Simulate(context.Background(), sc, montecarlo.Options{Trials: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Unit != "ms" || s.Calls.Mean != 550 || s.Completion.Mean != 19000 || s.GaveUp == nil || s.Latency == nil || s.Peak != nil {
		t.Fatalf("summary %+v", s)
	}
	// The latencies are the wave times 0, 200, 600, …, 19000 ms, ten
	// clients each: the mean is 6820 ms, the median 3000 ms (the 50th
	// client is in the fifth wave), read within 0.1% above.
	if s.Latency.Mean != 6820 {
		t.Errorf("latency mean %v", s.Latency.Mean)
	}
	if q := s.Latency.Quantiles["p50"].Value; q < 3000 || q > 3000*1.001 {
		t.Errorf("latency p50 %v, want 3000 within 0.1%% above", q)
	}
}
