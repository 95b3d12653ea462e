package study

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// The studies below are shared by the figures (package plots) and the
// paper's numbers (package paperdata): each is defined here once, with its
// grid and its trial count at full scale, so that a number in the text is
// the figure's number. The seed and the scaling of the trials belong to
// the caller's configuration (seed 1 for both by default).

// Jittered are the policies whose delays are random: the ones the studies
// compare with each other.
var Jittered = []policy.Kind{policy.Full, policy.Equal, policy.Decorrelated}

// Certain are the policies whose every wait is certain, which the closed
// form solves exactly.
var Certain = []policy.Kind{policy.None, policy.Fixed, policy.Expo}

// LoadSweep is calls and completion against load N/k on the seed
// article's scenario (base 1, cap 32, fixed delay 2) at N = load·k.
type LoadSweep struct {
	Capacities []int // k
	Loads      []int // N/k
	Kinds      []policy.Kind
	Trials     int // per point
}

// LoadStudy is the load sweep of the calls-vs-load and completion-vs-load
// figures and of the paper's load table and closed-form check.
func LoadStudy() LoadSweep {
	return LoadSweep{
		Capacities: []int{1, 10, 100},
		Loads:      []int{1, 2, 5, 10, 20, 50, 100},
		Kinds:      policy.Kinds(),
		Trials:     300,
	}
}

// Scenario is the point of capacity k, load N/k and policy kind.
func (s LoadSweep) Scenario(k, load int, kind policy.Kind) model.Scenario {
	sc := model.Default()
	sc.Capacity, sc.Clients, sc.Policy.Kind = k, load*k, kind
	return sc
}

// Run simulates every point with opt; at[i][kind][j] is capacity
// Capacities[i] at load Loads[j]. The points play as one batch
// (SimulateEach), so that the cores stay busy from one capacity and
// policy to the next. progress, if set, is called after each point.
func (s LoadSweep) Run(ctx context.Context, opt montecarlo.Options, progress func(done, total int)) (at []map[policy.Kind][]analysis.Summary, err error) {
	var scs []model.Scenario
	for _, k := range s.Capacities {
		for _, kind := range s.Kinds {
			for _, load := range s.Loads {
				scs = append(scs, s.Scenario(k, load, kind))
			}
		}
	}
	sums, err := analysis.SimulateEach(ctx, scs, opt, progress)
	if err != nil {
		return nil, err
	}
	for range s.Capacities {
		byKind := map[policy.Kind][]analysis.Summary{}
		for _, kind := range s.Kinds {
			byKind[kind], sums = sums[:len(s.Loads)], sums[len(s.Loads):]
		}
		at = append(at, byKind)
	}
	return at, nil
}

// SensitivityGrid is calls and completion of the jittered policies over a
// grid of base and cap, for N = 100 clients and capacity k = 10, and the
// paired difference Full − Decorrelated on it.
type SensitivityGrid struct {
	Kinds       []policy.Kind
	Bases, Caps []float64 // ticks
	Trials      int       // per point
}

// SensitivityStudy is the grid of the sensitivity-base-cap figure and of
// the paper's sensitivity table (which shows three of its caps).
func SensitivityStudy() SensitivityGrid {
	return SensitivityGrid{
		Kinds:  Jittered,
		Bases:  []float64{0.25, 0.5, 1, 2, 4},
		Caps:   []float64{4, 8, 16, 32, 64, 128, 256, 512, 1024},
		Trials: 1000,
	}
}

// Scenario is the point of a policy, base and cap.
func (g SensitivityGrid) Scenario(kind policy.Kind, base, cap float64) model.Scenario {
	sc := model.Default()
	sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap = kind, base, cap
	return sc
}

// Run simulates every point with opt, as one batch (SimulateEach);
// at[kind][b][c] is base Bases[b] and cap Caps[c]. progress, if set, is
// called after each point.
func (g SensitivityGrid) Run(ctx context.Context, opt montecarlo.Options, progress func(done, total int)) (map[policy.Kind][][]analysis.Summary, error) {
	var scs []model.Scenario
	for _, kind := range g.Kinds {
		for _, base := range g.Bases {
			for _, cap := range g.Caps {
				scs = append(scs, g.Scenario(kind, base, cap))
			}
		}
	}
	sums, err := analysis.SimulateEach(ctx, scs, opt, progress)
	if err != nil {
		return nil, err
	}
	at := map[policy.Kind][][]analysis.Summary{}
	for _, kind := range g.Kinds {
		for range g.Bases {
			at[kind] = append(at[kind], sums[:len(g.Caps)])
			sums = sums[len(g.Caps):]
		}
	}
	return at, nil
}

// RunPaired is Run with the paired difference Full − Decorrelated at every
// base and cap, on common random numbers (as Compare; which of the two
// costs fewer calls depends on base), taken from the same trials:
// diff[b][c] is base Bases[b], cap Caps[c]. Each point is played once (and
// Full and Decorrelated once each on the grid if Kinds lacks them);
// progress, if set, is called after each.
func (g SensitivityGrid) RunPaired(ctx context.Context, opt montecarlo.Options, progress func(done, total int)) (at map[policy.Kind][][]analysis.Summary, diff [][]analysis.Comparison, err error) {
	type point struct {
		kind    policy.Kind
		b, c    int
		summary bool // one of Run's points, not only one side of a pair
	}
	var pts []point
	paired := map[policy.Kind]bool{policy.Full: true, policy.Decorrelated: true}
	for _, kind := range g.Kinds {
		for b := range g.Bases {
			for c := range g.Caps {
				pts = append(pts, point{kind, b, c, true})
			}
		}
	}
	for _, kind := range []policy.Kind{policy.Full, policy.Decorrelated} {
		if !slices.Contains(g.Kinds, kind) {
			for b := range g.Bases {
				for c := range g.Caps {
					pts = append(pts, point{kind, b, c, false})
				}
			}
		}
	}
	sums := make([]analysis.Summary, len(pts))
	outs := map[policy.Kind][][][]analysis.Outcome{}
	for kind := range paired {
		outs[kind] = make([][][]analysis.Outcome, len(g.Bases))
		for b := range g.Bases {
			outs[kind][b] = make([][]analysis.Outcome, len(g.Caps))
		}
	}
	err = analysis.EachPoint(ctx, len(pts), opt.Workers, func(ctx context.Context, i int) error {
		p := pts[i]
		sc := g.Scenario(p.kind, g.Bases[p.b], g.Caps[p.c])
		var err error
		if paired[p.kind] {
			sums[i], outs[p.kind][p.b][p.c], err = analysis.SimulateOutcomes(ctx, sc, opt)
		} else {
			sums[i], err = analysis.Simulate(ctx, sc, opt)
		}
		return err
	}, func(done int) {
		if progress != nil {
			progress(done, len(pts))
		}
	})
	if err != nil {
		return nil, nil, err
	}
	at = map[policy.Kind][][]analysis.Summary{}
	for i, p := range pts {
		if !p.summary {
			continue
		}
		if p.c == 0 {
			at[p.kind] = append(at[p.kind], make([]analysis.Summary, len(g.Caps)))
		}
		at[p.kind][p.b][p.c] = sums[i]
	}
	diff = make([][]analysis.Comparison, len(g.Bases))
	for b, base := range g.Bases {
		for c, cap := range g.Caps {
			diff[b] = append(diff[b], analysis.CompareOutcomes(g.Scenario(policy.Full, base, cap), g.Scenario(policy.Decorrelated, base, cap),
				outs[policy.Full][b][c], outs[policy.Decorrelated][b][c]))
		}
	}
	return at, diff, nil
}

// TailQuantiles is how the running estimates of quantiles of completion,
// and their order-statistic intervals, settle as trials accumulate.
type TailQuantiles struct {
	// Small is a cohort within the exact Markov chain's reach (N = 10,
	// k = 2), Seed the seed article's N = 100, k = 10; both Full Jitter.
	Small, Seed model.Scenario
	Levels      []float64 // the quantiles followed
	Trials      int       // the longest study
}

// TailStudy is the study of the tail-convergence figure and of the
// paper's tails table (which follows Seed up to its own checkpoints).
func TailStudy() TailQuantiles {
	small := model.Default()
	small.Clients, small.Capacity = 10, 2
	return TailQuantiles{Small: small, Seed: model.Default(), Levels: []float64{0.50, 0.95, 0.99}, Trials: 100_000}
}

// Run follows the study's quantiles of sc's completion after the first n
// trials for each n in checkpoints (RunningQuantiles).
func (s TailQuantiles) Run(ctx context.Context, sc model.Scenario, opt montecarlo.Options, checkpoints []int) (Convergence, error) {
	return RunningQuantiles(ctx, sc, opt, s.Levels, checkpoints)
}

// PresetsAudit is the audit of every library preset and textbook policy on
// one thundering herd (RunAudit).
type PresetsAudit struct {
	Clients int
	// Capacity is the server's requests per second, the same at every tick.
	Capacity int
	// Ticks are the tick lengths audited: the README's 1 s, and 100 ms,
	// where the same server serves a tenth as many per tick.
	Ticks  []time.Duration
	Trials int // per policy
}

// AuditStudy is the audit of the presets-audit figure (at the first tick)
// and of the paper's audit table: 10,000 clients fail together on a
// capacity server of 100 requests per second, at every tick the same
// server (10 per tick at 100 ms).
func AuditStudy() PresetsAudit {
	return PresetsAudit{Clients: 10_000, Capacity: 100, Ticks: []time.Duration{time.Second, 100 * time.Millisecond}, Trials: 100}
}

// Scenario is the audited herd on ticks of the given length; Capacity is
// per second, converted to the tick by model.Spec (a tick that splits a
// request is an error of the study).
func (a PresetsAudit) Scenario(tick time.Duration) model.Scenario {
	var spec model.Spec
	spec.Set("clients", strconv.Itoa(a.Clients))
	spec.Set("capacity", strconv.Itoa(a.Capacity)+"/s")
	spec.Set("tick", tick.String())
	sc, err := spec.Scenario()
	if err != nil {
		panic(fmt.Sprintf("audit study at tick %s: %v", tick, err)) // the study's own constants
	}
	return sc
}

// Run audits the herd on ticks of the given length.
func (a PresetsAudit) Run(ctx context.Context, tick time.Duration, opt montecarlo.Options, progress func(done, total int)) (Audit, error) {
	return RunAudit(ctx, a.Scenario(tick), nil, opt, progress)
}

// ScalingStudy is the ladder of the growth claims and of the
// local-exponents figure: N = 10, 20, …, 10,240, from the AWS blog's
// smallest cohort to where the delays of its policies (base 5 ms, cap 2 s)
// sit at the cap, a pilot of 5 trials per rung and ±0.03 on each exponent.
func ScalingStudy() ScalingLadder {
	var n []int
	for c := 10; c <= 10_240; c *= 2 {
		n = append(n, c)
	}
	return ScalingLadder{Clients: n, Pilot: 5, HalfWidth: 0.03, MaxTrials: 20_000}
}
