package study

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"gonum.org/v1/gonum/stat/distuv"
)

// ScalingLadder is how calls and completion grow with the cohort: a ladder
// of client counts, each the double of the one before, on which the local
// exponent over every doubling is estimated (LocalExponent). Each rung runs
// Pilot trials first, and then, sequentially, as many as its own variance
// says are needed for a 95% half-width of HalfWidth on each local exponent
// (RunRung).
type ScalingLadder struct {
	Clients   []int   `json:"clients"`    // N, each twice the one before
	Pilot     int     `json:"pilot"`      // trials that estimate a rung's variance
	HalfWidth float64 `json:"half_width"` // target 95% half-width of every local exponent
	MaxTrials int     `json:"max_trials"` // the most trials a rung runs
}

// Validate checks that the ladder is one of doublings and its budget is
// usable.
func (s ScalingLadder) Validate() error {
	if len(s.Clients) < 2 {
		return fmt.Errorf("a scaling ladder needs at least 2 client counts, got %d", len(s.Clients))
	}
	for i := 1; i < len(s.Clients); i++ {
		if s.Clients[i] != 2*s.Clients[i-1] {
			return fmt.Errorf("scaling ladder: N = %d follows %d, want its double", s.Clients[i], s.Clients[i-1])
		}
	}
	if s.Pilot < 3 || s.MaxTrials < s.Pilot || !(s.HalfWidth > 0) {
		return fmt.Errorf("scaling ladder: pilot %d (≥ 3), max trials %d (≥ pilot), half-width %g (> 0)", s.Pilot, s.MaxTrials, s.HalfWidth)
	}
	return nil
}

// Rung is one client count of a ladder: the means of calls and completion
// over its finished trials, with their 95% intervals.
type Rung struct {
	Clients    int            `json:"clients"`
	Trials     int            `json:"trials"`
	Censored   int            `json:"censored"`
	Calls      stats.Estimate `json:"calls"`
	Completion stats.Estimate `json:"completion"`
}

// TrialsFor is the number of trials at which a mean whose trials have
// coefficient of variation cv reaches the relative 95% half-width that
// gives each local exponent the ladder's HalfWidth: two independent rungs
// with equal precision r give an exponent of half-width √2·r/ln 2.
func (s ScalingLadder) TrialsFor(cv float64) int {
	target := s.HalfWidth * math.Ln2 / math.Sqrt2
	n := s.Pilot
	for n < s.MaxTrials && stats.TQuantile(n-1)*cv/math.Sqrt(float64(n)) > target {
		// Double, then settle on the smallest count that meets the target,
		// so the count depends on cv alone.
		n *= 2
	}
	lo := max(s.Pilot, n/2)
	for lo < n {
		mid := (lo + n) / 2
		if stats.TQuantile(mid-1)*cv/math.Sqrt(float64(mid)) > target {
			lo = mid + 1
		} else {
			n = mid
		}
	}
	return min(n, s.MaxTrials)
}

// RunRung runs sc sequentially: Pilot trials first, then — while the
// variance of the trials so far asks for more — the count TrialsFor gives
// for the larger coefficient of variation of calls and completion, until
// the count suffices or reaches MaxTrials. Every run repeats the trials of
// the one before (trial i draws from a stream of its own), so the counts
// only choose how many trials the rung's estimate is over.
func (s ScalingLadder) RunRung(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (Rung, error) {
	opt.Trials = s.Pilot
	for {
		r, err := rungOf(ctx, sc, opt)
		if err != nil {
			return r, err
		}
		cv := 0.0
		for _, e := range []stats.Estimate{r.Calls, r.Completion} {
			if e.Mean > 0 {
				cv = math.Max(cv, e.SD/e.Mean)
			}
		}
		n := s.TrialsFor(cv)
		if n <= opt.Trials || opt.Trials >= s.MaxTrials {
			return r, nil
		}
		opt.Trials = n
	}
}

func rungOf(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (Rung, error) {
	var calls, completion stats.Moments
	r := Rung{Clients: sc.Clients, Trials: opt.Trials}
	err := montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		if t.Censored {
			r.Censored++
			return nil
		}
		calls.Add(float64(t.Calls))
		completion.Add(t.CompletionTime())
		return nil
	})
	r.Calls, r.Completion = calls.Estimate(), completion.Estimate()
	return r, err
}

// Exponent is the local exponent of a mean m over one doubling of N,
// log₂(m(2N)/m(N)), with its delta-method standard error (var log m̂ =
// SE²/m̂², the two rungs independent) and Welch–Satterthwaite degrees of
// freedom. An exact pair of rungs has SE 0.
type Exponent struct {
	From  int            `json:"from"`
	To    int            `json:"to"`
	Value float64        `json:"value"`
	SE    float64        `json:"se"`
	DF    float64        `json:"df,omitempty"` // 0: exact, or too few trials
	CI95  stats.Interval `json:"ci95"`
}

// LocalExponent is the exponent of the mean that pick takes from two
// rungs, the second at twice the clients of the first.
func LocalExponent(a, b Rung, pick func(Rung) stats.Estimate) Exponent {
	ea, eb := pick(a), pick(b)
	e := Exponent{From: a.Clients, To: b.Clients, Value: math.Log2(eb.Mean / ea.Mean)}
	va, vb := relVar(ea), relVar(eb)
	e.SE = math.Sqrt(va+vb) / math.Ln2
	if va+vb > 0 {
		den := 0.0
		if ea.N > 1 {
			den += va * va / float64(ea.N-1)
		}
		if eb.N > 1 {
			den += vb * vb / float64(eb.N-1)
		}
		e.DF = (va + vb) * (va + vb) / den
	}
	e.CI95 = e.Interval(stats.Confidence)
	return e
}

// relVar is the variance of the log of a mean: (SE/mean)².
func relVar(e stats.Estimate) float64 {
	if e.Mean == 0 {
		return 0
	}
	return math.Pow(e.SE()/e.Mean, 2)
}

// Interval is the two-sided interval of the exponent at the given level:
// Student's t with the exponent's degrees of freedom.
func (e Exponent) Interval(level float64) stats.Interval {
	if e.SE == 0 {
		return stats.Interval{e.Value, e.Value}
	}
	q := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: e.DF}.Quantile(1 - (1-level)/2)
	return stats.Interval{e.Value - q*e.SE, e.Value + q*e.SE}
}

// LocalExponents are the exponents of the mean that pick takes over every
// doubling of a ladder's rungs.
func LocalExponents(rungs []Rung, pick func(Rung) stats.Estimate) []Exponent {
	var out []Exponent
	for i := 1; i < len(rungs); i++ {
		out = append(out, LocalExponent(rungs[i-1], rungs[i], pick))
	}
	return out
}

// RungCalls and RungCompletion pick a rung's mean calls and completion.
func RungCalls(r Rung) stats.Estimate      { return r.Calls }
func RungCompletion(r Rung) stats.Estimate { return r.Completion }

// AttemptsBeforeCap is how many attempts of a client come before its
// policy's delay bound d_n = min(cap, base·2ⁿ) reaches the cap: the first
// send and retries 1 … n_c − 1. With c calls per client, at least
// 1 − AttemptsBeforeCap/c of them wait a delay drawn at the cap. It is 0 for
// a policy without a cap (none, fixed) and −1 for one whose delay does not
// follow d_n (decorrelated and the presets).
func AttemptsBeforeCap(p policy.Policy) int {
	switch p.Kind {
	case policy.None, policy.Fixed:
		return 0
	case policy.Expo, policy.Full, policy.Equal:
	default:
		return -1
	}
	n := 1
	for p.Ceiling(n) < p.Cap {
		n++
	}
	return n
}
