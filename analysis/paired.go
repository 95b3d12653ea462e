package analysis

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// Comparison is scenario A against scenario B, trial by trial.
type Comparison struct {
	A, B       model.Scenario
	Trials     int              `json:"trials"`
	Censored   int              `json:"censored"` // trials where A or B was censored; left out of the differences
	Calls      stats.Difference `json:"calls"`
	Completion stats.Difference `json:"completion"`
}

// Compare runs A and B with the same options — so trial i of both draws
// from the same stream when they differ only in their policy — and
// estimates the paired differences A − B of calls and completion.
func Compare(ctx context.Context, a, b model.Scenario, opt montecarlo.Options) (Comparison, error) {
	ra, err := Outcomes(ctx, a, opt)
	if err != nil {
		return Comparison{}, fmt.Errorf("scenario A: %w", err)
	}
	rb, err := Outcomes(ctx, b, opt)
	if err != nil {
		return Comparison{}, fmt.Errorf("scenario B: %w", err)
	}
	return CompareOutcomes(a, b, ra, rb), nil
}

// Outcome is what a paired comparison keeps of one trial. Completion is in
// the scenario's unit (ticks, or ms for OCC).
type Outcome struct {
	Calls, Completion float64
	Censored          bool
}

// Outcomes runs sc and keeps every trial's Outcome, in trial order, for
// comparisons that pair trial i of one scenario with trial i of another;
// under a Cache (WithCache) a run already played is not played again, and
// the summary of the trials played is kept too (Simulate finds it).
func Outcomes(ctx context.Context, sc model.Scenario, opt montecarlo.Options) ([]Outcome, error) {
	out, _, err := simulateOutcomes(ctx, sc, opt)
	return out, err
}

// SimulateOutcomes is Simulate and Outcomes of sc from one play of its
// trials (under a Cache, from none when both are kept already).
func SimulateOutcomes(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (Summary, []Outcome, error) {
	out, s, err := simulateOutcomes(ctx, sc, opt)
	if err != nil {
		return Summary{}, nil, err
	}
	if s != nil {
		return *s, out, nil
	}
	sum, err := Simulate(ctx, sc, opt) // the outcomes came from the cache
	return sum, out, err
}

// simulateOutcomes is Outcomes, with the summary of the trials when this
// call played them (nil when the outcomes came from the cache).
func simulateOutcomes(ctx context.Context, sc model.Scenario, opt montecarlo.Options) ([]Outcome, *Summary, error) {
	var played *Summary
	out, err := Cached(ctx, "outcomes", sc, opt, func() ([]Outcome, error) {
		out := make([]Outcome, 0, opt.Trials)
		s, err := simulate(ctx, sc, opt, func(t *montecarlo.Trial) {
			out = append(out, Outcome{float64(t.Calls), t.CompletionTime(), t.Censored})
		})
		if err != nil {
			return nil, err
		}
		played = &s
		offer(ctx, "summary", sc, opt, s)
		return out, nil
	})
	return out, played, err
}

// CompareOutcomes pairs trial i of A with trial i of B, leaving out the
// pairs where either was censored; Compare runs it on fresh trials, the
// claims' Lab on cached ones.
func CompareOutcomes(a, b model.Scenario, ra, rb []Outcome) Comparison {
	c := Comparison{A: a, B: b, Trials: len(ra)}
	var calls, completion stats.Moments
	for i := range ra {
		if ra[i].Censored || rb[i].Censored {
			c.Censored++
			continue
		}
		calls.Add(ra[i].Calls - rb[i].Calls)
		completion.Add(ra[i].Completion - rb[i].Completion)
	}
	c.Calls, c.Completion = calls.Difference(), completion.Difference()
	return c
}
