package plots

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/herdlab/herd/montecarlo"
)

// Figure is one entry of the registry: a name (the file name without
// extension), a one-line caption saying what to read from it, and the
// function that computes its data and draws it.
type Figure struct {
	Name    string
	Caption string
	Draw    func(ctx context.Context, cfg Config) (*Drawing, error)
}

// registry lists the figures in the order `herd plots` draws them. Adding a
// figure is one entry here and one function that returns a *Drawing.
var registry = []Figure{
	{"calls-vs-load", "Calls per client against N/k: none, fixed and expo coincide at (N/k + 1)/2, the jittered policies fall far below where the mean field (dashed) tracks them, and the k = 10 and k = 100 panels are the same curves (they collapse onto N/k).", CallsVersusLoad},
	{"completion-vs-load", "Completion against N/k: expo's doubling waits make it an order of magnitude slower than every other policy at high load; the rest grow about linearly in N/k, with the mean field (dashed) rougher for completion than for calls.", CompletionVersusLoad},
	{"tail-convergence", "Running p50, p95 and p99 of completion with order-statistic 95% bands, and for N = 10 the exact values from the Markov chain: p50 settles within about 100 trials at N = 10 and a few hundred at N = 100, while a p99 band stays open until a few hundred trials and needs thousands to narrow to a tick.", TailConvergence},
	{"sensitivity-base-cap", "For N = 100, k = 10 a cap above 16 to 32 ticks changes nothing; base matters far more, and whether full or decorrelated costs fewer calls depends on base (heat map, n.s. = not significant).", SensitivityBaseCap},
	{"arrivals-timeline", "Arrivals per tick for N = 100, k = 10: without jitter the herd returns in synchronized waves far above capacity; with jitter arrivals fall to about capacity within a few ticks.", ArrivalsTimeline},
	{"policy-comparison", "The seed article's table with 95% bars beside its printed means: jitter cuts calls by 20 to 65% (more as N grows), and expo's completion is the outlier.", PolicyComparison},
	{"presets-audit", "Ten thousand clients fail together under each library preset's defaults: most presets with a retry limit give up on 87 to 97% of the herd (their early completion, bought by abandoning clients, is drawn hollow), and most defaults (*) send at least 90% of the cohort's first retries within one second; the jittered textbook policies and a few presets spread them.", PresetsAudit},
	{"recovery-vs-load", "On a server where rejecting a request costs 5% of serving one, after a 50-tick outage with no retry control the system stops coming back from λ/k = 0.8 although λ < k, its calls per request jumping about fivefold; with any control every load recovers: the attempt limit and Brooker's bucket within about ten ticks, the breaker about 30, the AWS bucket about 150.", RecoveryVersusLoad},
	{"metastability-map", "On a server where rejecting a request costs 5% of serving one (on the plain capacity server every λ < k recovers), with no retry control a region of high load and long outages never recovers although λ < k (vermillion); an attempt limit, either token bucket or the breaker empties it, each at its own speed (cells give the mean ticks to recover).", MetastabilityMap},
	{"aws-calls-vs-clients", "The AWS blog's first figure rerun with 95% bands, beside its own simulator's means: calls grow about quadratically in N without jitter (none, expo) and about linearly with it, full and equal lowest (equal a few per cent above full, the panel below shows), decorrelated above them.", AWSCallsVersusClients},
	{"aws-time-vs-clients", "The AWS blog's second figure on a log axis, beside its own simulator's means: expo is an order of magnitude slower than every other policy, none is fastest, and among the jittered policies full and decorrelated finish about together, equal last.", AWSTimeVersusClients},
	{"delay-waits", "The exact law of the total wait until retry n: Polly v8's V2 totals lie on disjoint intervals with medians 1.79, 3.98 and 8.05 s (0.90f, 1.99f and 4.03f for its 2 s Delay: its scaling targets the retry times, not the delays); at retry 10 decorrelated's total spreads from 40 (p10) to 197 ticks (p90) about its median 113, Full Jitter's only from 81 to 141 about 111, cenkalti's from 47 to 66 s about 57.", DelayWaits},
	{"local-exponents", "Local exponents of calls and completion over doublings of N, with 95% intervals: without backoff the OCC row's calls grow like N^1.93 and completion like N^0.93, the jittered policies' calls rise past 1.5 from N ≈ 1,280 toward 2 as their delays reach the cap, expo's stays near 1.63, and on the capacity server every policy's calls approach N² and completion N.", LocalExponents},
	{"queue-metastability-map", "On a FIFO queue whose clients time out after 10 ticks and retry while the server still serves what they abandoned, an outage of 50 ticks leaves every load from lambda/k = 0.3 up stuck, and one of 20 every load from 0.4, whatever the backoff policy; without timeouts every cell recovers but the slowest drain. The breaker recovers every cell, a queue limit of k*T all but that drain, Brooker's bucket every load up to 0.7 (0.8 but after the longest outage); three attempts help only at 0.3 and the AWS bucket not at all.", QueueMetastabilityMap},
	{"queue-hysteresis", "Goodput against a load that rises past capacity and falls back: with timeouts goodput collapses at lambda/k = 1.1 and stays at 0 all the way down to 0.2 with no control or three attempts; Brooker's bucket recovers at 0.5, the breaker by 1.0, and without timeouts or with a queue limit of k*T goodput retraces the way up (above it while the backlog drains).", QueueHysteresis},
	{"engine-cost", "Cost of one trial against N at N/k = 100, log-log, from committed benchmark runs: the per-client engine's grows at least in proportion to N (about 230 ms a trial at 10^6), the count engine's stops growing from N = 10^5 on, about 1 ms a trial up to 10^9.", EngineCost},
}

// Figures lists every registered figure, in drawing order.
func Figures() []Figure { return append([]Figure(nil), registry...) }

// Lookup finds a figure by name.
func Lookup(name string) (Figure, error) {
	for _, f := range registry {
		if f.Name == name {
			return f, nil
		}
	}
	return Figure{}, fmt.Errorf("no figure named %q (figures: %s)", name, strings.Join(Names(), ", "))
}

// Names lists the figures' names, sorted.
func Names() []string {
	var n []string
	for _, f := range registry {
		n = append(n, f.Name)
	}
	sort.Strings(n)
	return n
}

// Config says how much Monte Carlo a figure runs and how.
type Config struct {
	// Scale multiplies every figure's trial counts: 1 for the published
	// figures, less for drafts and golden tests. A count never drops below
	// 2, the fewest that give an interval.
	Scale   float64
	Seed    uint64
	Workers int
	// Progress, when set, is called as a figure finishes units of work
	// (done of total); total can grow as a figure reaches a new stage.
	Progress func(done, total int)
}

// DefaultConfig is the configuration of `make plots`: full trial counts,
// seed 1.
func DefaultConfig() Config { return Config{Scale: 1, Seed: 1} }

// Validate checks the fields a user can set.
func (c Config) Validate() error {
	if !(c.Scale > 0 && c.Scale <= 1) {
		return fmt.Errorf("scale must be in (0, 1], got %g", c.Scale)
	}
	if c.Workers < 0 {
		return fmt.Errorf("workers must be ≥ 0, got %d", c.Workers)
	}
	return nil
}

// trials is a figure's full trial count n scaled by the configuration.
func (c Config) trials(n int) int {
	return max(2, int(math.Round(float64(n)*c.Scale)))
}

// options are the Monte Carlo options for n trials at full scale.
func (c Config) options(n int) montecarlo.Options {
	return montecarlo.Options{Trials: c.trials(n), Seed: c.Seed, Workers: c.Workers}
}

// progress reports done of total units when asked to.
func (c Config) progress(done, total int) {
	if c.Progress != nil {
		c.Progress(done, total)
	}
}
