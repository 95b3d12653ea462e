package study

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// QuantilePath is how the estimate of one quantile of completion, and its
// order-statistic 95% interval, evolve as trials accumulate: At[i] is the
// estimate from the first Trials[i] trials.
type QuantilePath struct {
	P      float64          `json:"p"`
	Trials []int            `json:"trials"`
	At     []stats.Quantile `json:"at"`
}

// HalfWidth is half the length of At[i]'s interval: +Inf while the trials
// are too few to bound both ends, 0 once both ends are the same value.
func (q QuantilePath) HalfWidth(i int) float64 {
	iv := q.At[i].CI95
	return (iv[1] - iv[0]) / 2
}

// Convergence is the running estimate of several quantiles of completion
// over one sequence of trials of a scenario.
type Convergence struct {
	Scenario model.Scenario `json:"scenario"`
	Seed     uint64         `json:"seed"`
	// Censored counts the trials, among the largest checkpoint's, that were
	// still running at the horizon; they are left out of the quantiles, so
	// the paths describe finished trials only.
	Censored int            `json:"censored"`
	Paths    []QuantilePath `json:"paths"`
}

// RunningQuantiles runs max(checkpoints) trials of sc and, after the first n
// trials for each n in checkpoints, records the estimate of each p-quantile
// of completion with its exact order-statistic interval (stats.QuantileOf). Every
// checkpoint sees a prefix of the same trials, as a user adding trials
// would, so the paths show how one study's estimate settles, not
// independent studies. opt.Trials is ignored.
func RunningQuantiles(ctx context.Context, sc model.Scenario, opt montecarlo.Options, ps []float64, checkpoints []int) (Convergence, error) {
	at := slices.Clone(checkpoints)
	slices.Sort(at)
	at = slices.Compact(at)
	if len(at) == 0 || at[0] < 1 {
		return Convergence{}, fmt.Errorf("checkpoints must be trial counts ≥ 1, got %v", checkpoints)
	}
	for _, p := range ps {
		if !(p > 0 && p < 1) {
			return Convergence{}, fmt.Errorf("quantile levels must lie in (0, 1), got %g", p)
		}
	}
	c := Convergence{Scenario: sc, Seed: opt.Seed, Paths: make([]QuantilePath, len(ps))}
	for i, p := range ps {
		c.Paths[i] = QuantilePath{P: p, Trials: at}
	}
	var hist []int64
	done, next := 0, 0
	opt.Trials = at[len(at)-1]
	err := montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		done++
		if t.Censored {
			c.Censored++
		} else {
			for int64(len(hist)) <= t.Completion {
				hist = append(hist, 0)
			}
			hist[t.Completion]++
		}
		for next < len(at) && at[next] == done {
			for i, p := range ps {
				c.Paths[i].At = append(c.Paths[i].At, stats.QuantileOf(hist, p))
			}
			next++
		}
		return nil
	})
	return c, err
}

// LogSpaced returns about perDecade integers per factor of ten from lo to
// hi inclusive (lo ≥ 1), rounded and without repeats: checkpoints that look
// even on a log axis.
func LogSpaced(lo, hi, perDecade int) []int {
	if lo < 1 || hi < lo || perDecade < 1 {
		return nil
	}
	var out []int
	l0 := math.Log10(float64(lo))
	for i := 0; ; i++ {
		n := int(math.Round(math.Pow(10, l0+float64(i)/float64(perDecade))))
		if n > hi {
			break
		}
		if len(out) == 0 || n > out[len(out)-1] {
			out = append(out, n)
		}
	}
	if out[len(out)-1] != hi {
		out = append(out, hi)
	}
	return out
}
