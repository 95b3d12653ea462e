package main

import (
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/stat"

	"github.com/herdlab/herd/stats"
)

// meanDraws is how many means meanInterval draws: the standard error of
// its 2.5% quantile's rank is √(B·p(1 − p)) ≈ 22 of its 500 draws.
const meanDraws = 20_000

// meanInterval is the interval herd itself puts on the mean of n live
// runs: the central 95% (the 2.5% and 97.5% quantiles) of the law of
// (x₁ + … + xₙ)/n where xᵢ is one of herd's trials with run i's network
// (runs[i], the trials' outcomes), drawn meanDraws times with a fixed seed.
// It is the law's own quantiles, not a normal interval on its variance,
// because herd's law of one run can be two-point: retry-go's completion
// at 1000/50 τ = 100 ms is the 9th attempt (26.1 s) or the 10th (51.8 s),
// as whether the 10th attempt's window gets more than k of the ~70 still
// waiting; with herd giving the 10th in 38% of one run's trials, three runs
// all at the 10th come about 5% of the time, and the normal interval
// (1.96·SD/√3) puts their mean outside it, while the law's 97.5% quantile
// is theirs. herd's trials stand for its law: with 1,000 a run, the law's
// mean is known to SD/√1000, 3% of one run's SD, which the interval leaves
// out. nil when a run has no outcome.
func meanInterval(runs [][]float64) *stats.Interval {
	if len(runs) == 0 {
		return nil
	}
	for _, r := range runs {
		if len(r) == 0 {
			return nil
		}
	}
	src := rand.New(rand.NewPCG(1, 2))
	means := make([]float64, meanDraws)
	n := float64(len(runs))
	for d := range means {
		var s float64
		for _, r := range runs {
			s += r[src.IntN(len(r))]
		}
		means[d] = s / n
	}
	slices.Sort(means)
	return &stats.Interval{stat.Quantile(0.025, stat.Empirical, means, nil), stat.Quantile(0.975, stat.Empirical, means, nil)}
}
