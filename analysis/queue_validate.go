package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// queueValidationGrid is herd validate's part for the queue server: the
// exact chain (solve.QueueChainOf) against the queue engine on small
// cohorts — every textbook policy with a certain or random wait, timeouts
// from 1 tick up, queue limits, retry limits, first windows, some
// certain (a timeout exactly at or below the queueing delay) and some
// random — and on small open-loop systems with an outage, some of which
// recover and some of which, at a load below capacity, mostly stay stuck.
func queueValidationGrid() []ValidationCase {
	var g []ValidationCase
	cohort := func(n, k, timeout, limit int, kind policy.Kind, cap float64, edit func(*model.Scenario)) {
		sc := scenario(n, k, model.Queue, kind, 1, cap, policy.HalfEven)
		sc.Queue = model.Queueing{Limit: limit, Timeout: timeout}
		if edit != nil {
			edit(&sc)
		}
		g = append(g, ValidationCase{Method: MethodChain, Scenario: sc, Trials: 100_000})
	}
	retries := func(r int) func(*model.Scenario) { return func(sc *model.Scenario) { sc.Policy.Retries = r } }
	window := func(w int) func(*model.Scenario) { return func(sc *model.Scenario) { sc.FirstWindow = w } }
	cohort(6, 2, 2, 0, policy.Full, 32, nil)  // certain: 2 of 6 time out at tick 1
	cohort(8, 2, 4, 0, policy.Full, 32, nil)  // certain: T = ⌈N/k⌉, nothing wasted
	cohort(8, 2, 3, 0, policy.Full, 32, nil)  // certain: T = ⌈N/k⌉ − 1
	cohort(6, 2, 1, 3, policy.Fixed, 32, nil) // certain, with a limit
	cohort(5, 1, 2, 0, policy.Expo, 8, nil)
	cohort(7, 1, 4, 0, policy.Equal, 16, nil)
	cohort(7, 2, 2, 0, policy.Equal, 8, nil)
	cohort(10, 3, 2, 6, policy.Equal, 32, nil)
	cohort(9, 2, 0, 4, policy.Full, 32, nil) // a limit without timeouts
	cohort(5, 2, 2, 0, policy.Full, 32, window(3))
	cohort(6, 2, 3, 0, policy.Expo, 4, window(4))
	cohort(4, 1, 2, 0, policy.Full, 32, retries(2))
	cohort(8, 1, 3, 0, policy.Full, 8, retries(3))
	cohort(6, 1, 2, 3, policy.Full, 4, retries(4))
	cohort(9, 2, 2, 0, policy.Full, 6, retries(4))

	open := func(k, timeout, limit int, kind policy.Kind, fixed, rate float64, outage, outCap, attempts int) {
		sc := scenario(10, k, model.Queue, kind, 1, 32, policy.HalfEven)
		sc.Policy.FixedDelay = fixed
		sc.Queue = model.Queueing{Limit: limit, Timeout: timeout}
		tr := model.Traffic{Rate: rate, Ticks: 40, OutageStart: 3, OutageLength: outage, OutageCapacity: outCap}
		g = append(g, ValidationCase{Method: MethodChain, Scenario: sc, Trials: 50_000, Traffic: &tr, Controls: control.Controls{MaxAttempts: attempts}})
	}
	open(1, 2, 4, policy.None, 2, 0.5, 4, 0, 0) // λ/k = 0.5, mostly stuck
	open(1, 2, 3, policy.Fixed, 1, 0.4, 5, 0, 0)
	open(2, 2, 5, policy.None, 2, 0.8, 4, 0, 0)
	open(1, 2, 3, policy.None, 2, 0.6, 0, 0, 0) // no outage
	open(1, 0, 3, policy.None, 2, 0.5, 4, 0, 0) // no timeout: recovers
	open(3, 2, 7, policy.None, 2, 1.5, 3, 1, 0) // a partial outage
	open(1, 4, 5, policy.None, 2, 0.5, 5, 0, 0)
	open(1, 2, 4, policy.None, 2, 0.5, 4, 0, 2) // an attempt limit
	open(2, 2, 5, policy.Fixed, 2, 0.8, 4, 0, 3)
	return g
}

// chainChecks is the number of statistical checks of a queue-chain case:
// calls, completion, wasted work and (when nobody can give up) the law of
// completion for a cohort; the recovered probability, useful and wasted
// work and the queue's law at one tick for open-loop traffic.
func chainChecks(c ValidationCase) int {
	if c.Traffic != nil || (c.Scenario.Policy.Retries == 0 && c.Controls.MaxAttempts == 0) {
		return 4
	}
	return 3
}

// validateChain compares the queue chain with the queue engine: exact
// means against Monte Carlo means in exact standard errors, and laws by
// chi-square, each at the Bonferroni share of the family-wise level.
func validateChain(ctx context.Context, c ValidationCase, msc model.Scenario, opt montecarlo.Options, critical, alpha float64) ([]Check, error) {
	sc := c.Scenario
	q, err := solve.QueueChainOf(ctx, msc, c.Traffic, c.Controls, solve.QueueChainOptions{Tail: 1e-13})
	if err != nil {
		return []Check{notApplicable(MethodChain, sc, err)}, nil
	}
	var w montecarlo.Workload = montecarlo.Cohort{}
	if a := c.Controls.MaxAttempts; c.Traffic == nil && a > 0 && (sc.Policy.Retries == 0 || a-1 < sc.Policy.Retries) {
		sc.Policy.Retries = a - 1 // a cohort's attempt limit is its retry limit
	}
	tStar := 0
	if c.Traffic != nil {
		w = montecarlo.OpenLoop{Traffic: *c.Traffic, Controls: c.Controls}
		opt.Arrivals = true
		for t, m := range q.QueueMean { // the queue's law where it is longest
			if m > q.QueueMean[tStar] {
				tStar = t
			}
		}
	}
	plan, err := montecarlo.NewPlan(sc, w, opt)
	if err != nil {
		return nil, err
	}
	var calls, completion, wasted, useful, recovered stats.Moments
	var hist []int64
	censored := 0
	bump := func(v int64) {
		for int64(len(hist)) <= v {
			hist = append(hist, 0)
		}
		hist[v]++
	}
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		if c.Traffic == nil {
			if t.Censored {
				censored++
				return nil
			}
			calls.Add(float64(t.Calls))
			completion.Add(float64(t.Completion))
			wasted.Add(float64(t.Queue.Wasted))
			bump(t.Completion)
			return nil
		}
		r := 0.0
		if t.Open.Recovered {
			r = 1
		}
		recovered.Add(r)
		useful.Add(float64(t.Served))
		wasted.Add(float64(t.Queue.Wasted))
		if tStar < len(t.Queue.QueueAt) {
			bump(t.Queue.QueueAt[tStar])
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	note := fmt.Sprintf("%d states", q.States)
	if c.Traffic == nil {
		checks := []Check{
			exactMean(MethodChain, sc, "calls", q.Calls, &calls, critical, note),
			exactMean(MethodChain, sc, "completion", q.Completion, &completion, critical, note),
			exactMean(MethodChain, sc, "wasted work", q.Wasted, &wasted, critical, note),
		}
		if chainChecks(c) == 4 {
			finished := 0.0
			for _, p := range q.Distribution {
				finished += p
			}
			gof := chiSquareCheck(MethodChain, sc, "completion distribution", hist, q.Distribution, finished, alpha)
			if censored > 0 || q.Unfinished > 1e-9 {
				gof.Detail += fmt.Sprintf("; %d censored trials, chain unfinished mass %.2g", censored, q.Unfinished)
			}
			checks = append(checks, gof)
		}
		return checks, nil
	}
	tr := c.Traffic
	note = fmt.Sprintf("open loop λ = %g for %d ticks, outage %d ticks from %d at capacity %d, controls %s; %s; chain overflow %.2g, mass cut %.2g",
		tr.Rate, tr.Ticks, tr.OutageLength, tr.OutageStart, tr.OutageCapacity, c.Controls, note, q.Overflow, q.Truncated)
	p := q.Recovered
	rec := exactMean(MethodChain, sc, "recovered within the horizon", solve.Moment{Mean: p, SD: math.Sqrt(max(0, p*(1-p)))}, &recovered, critical, note)
	law := q.QueueLaw[tStar]
	total := 0.0
	for _, x := range law {
		total += x
	}
	gof := chiSquareCheck(MethodChain, sc, fmt.Sprintf("queue length law at tick %d", tStar), hist, law, total, alpha)
	gof.Detail += "; " + note
	return []Check{rec,
		exactMean(MethodChain, sc, "useful completions", q.Useful, &useful, critical, note),
		exactMean(MethodChain, sc, "wasted work", q.Wasted, &wasted, critical, note),
		gof,
	}, nil
}

// PerturbQueue returns a perturbation for ValidateOptions.Perturb that
// lengthens the queue server's timeout and limit by d ticks and requests
// (where they are set): a deliberately wrong model of the queue server.
func PerturbQueue(d int) func(model.Scenario) model.Scenario {
	return func(sc model.Scenario) model.Scenario {
		if !sc.Queues() {
			return sc
		}
		if sc.Queue.Timeout > 0 {
			sc.Queue.Timeout += d
		}
		if sc.Queue.Limit > 0 {
			sc.Queue.Limit += d
		}
		return sc
	}
}
