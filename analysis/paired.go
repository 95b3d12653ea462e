package analysis

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// Difference is a paired difference A − B of a per-trial quantity over
// trials that share their random stream (common random numbers), with its
// 95% Student-t interval. Significant is true when the interval excludes 0.
type Difference struct {
	Estimate
	Significant bool `json:"significant"`
}

func difference(m *Moments) Difference {
	e := m.Estimate()
	return Difference{Estimate: e, Significant: e.CI95 != nil && (e.CI95[0] > 0 || e.CI95[1] < 0)}
}

// Comparison is scenario A against scenario B, trial by trial.
type Comparison struct {
	A, B       model.Scenario
	Trials     int        `json:"trials"`
	Censored   int        `json:"censored"` // trials where A or B was censored; left out of the differences
	Calls      Difference `json:"calls"`
	Completion Difference `json:"completion"`
}

// Compare runs A and B with the same options — so trial i of both draws
// from the same stream when they differ only in their policy — and
// estimates the paired differences A − B of calls and completion.
func Compare(ctx context.Context, a, b model.Scenario, opt montecarlo.Options) (Comparison, error) {
	ra, err := collectOutcomes(ctx, a, opt)
	if err != nil {
		return Comparison{}, fmt.Errorf("scenario A: %w", err)
	}
	rb, err := collectOutcomes(ctx, b, opt)
	if err != nil {
		return Comparison{}, fmt.Errorf("scenario B: %w", err)
	}
	return compareOutcomes(a, b, ra, rb), nil
}

// outcome is what a paired comparison keeps of one trial. Completion is in
// the scenario's unit (ticks, or ms for OCC).
type outcome struct {
	calls, completion float64
	censored          bool
}

func collectOutcomes(ctx context.Context, sc model.Scenario, opt montecarlo.Options) ([]outcome, error) {
	out := make([]outcome, 0, opt.Trials)
	err := montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		out = append(out, outcome{float64(t.Calls), t.CompletionTime(), t.Censored})
		return nil
	})
	return out, err
}

// compareOutcomes pairs trial i of A with trial i of B; the claims registry
// reuses it on cached runs.
func compareOutcomes(a, b model.Scenario, ra, rb []outcome) Comparison {
	c := Comparison{A: a, B: b, Trials: len(ra)}
	var calls, completion Moments
	for i := range ra {
		if ra[i].censored || rb[i].censored {
			c.Censored++
			continue
		}
		calls.Add(ra[i].calls - rb[i].calls)
		completion.Add(ra[i].completion - rb[i].completion)
	}
	c.Calls, c.Completion = difference(&calls), difference(&completion)
	return c
}
