package main

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scenarioFlags are the scenario flags of DESIGN.md's CLI contract.
type scenarioFlags struct {
	clients               int
	capacity              string
	server, policy, round string
	base, cap, fixedDelay float64
	firstWindow, horizon  int
	retries               int
	tick, maxElapsed      time.Duration
	failureRate           float64
	exponent              float64
	// The time model (registerTime).
	timeModel, latency  string
	firstArrivals       string
	firstAnswers        string
	stalls              string
	window, firstSpread time.Duration
	latencyPerFlight    time.Duration
	fs                  *pflag.FlagSet
}

func (f *scenarioFlags) register(c *cobra.Command) {
	d := model.Default()
	fs := c.Flags()
	fs.IntVarP(&f.clients, "clients", "n", d.Clients, "number of clients N that fail together (≥ 1)")
	fs.StringVarP(&f.capacity, "capacity", "k", strconv.Itoa(d.Capacity), "requests the server accepts per tick (≥ 1), or a rate such as 100/s or 5/ms converted with --tick")
	fs.StringVar(&f.server, "server", d.Server.String(), "server model: "+strings.Join(model.ServerNames(), "|"))
	fs.StringVar(&f.policy, "policy", string(d.Policy.Kind), "retry policy: "+kindList()+", or a library preset (see herd presets); for the collision server the window policies of the contention literature: "+contentionList())
	fs.Float64Var(&f.base, "base", d.Policy.Base, "base delay in ticks (> 0); with --server occ in ms, default 5")
	fs.Float64Var(&f.cap, "cap", d.Policy.Cap, "largest delay in ticks (≥ base); with --server occ in ms, default 2000")
	fs.Float64Var(&f.fixedDelay, "fixed-delay", d.Policy.FixedDelay, "delay of the fixed policy in ticks (≥ 0); with --server occ in ms, default 10")
	fs.StringVar(&f.round, "rounding", d.Rounding.String(), "delay to ticks: "+strings.Join(policy.RoundingNames(), "|"))
	fs.IntVar(&f.firstWindow, "first-window", d.FirstWindow, "first sends spread uniformly over ticks 0…W−1 (W ≥ 1)")
	fs.IntVar(&f.horizon, "horizon", 0, "stop unfinished trials at this tick and count them censored (0: automatic)")
	fs.DurationVar(&f.tick, "tick", 0, "real length of one tick, e.g. 100ms (default 1s for presets; textbook policies keep abstract ticks)")
	fs.IntVar(&f.retries, "retries", 0, "retry limit after which a client gives up (0: none; default: the preset's own limit)")
	fs.DurationVar(&f.maxElapsed, "max-elapsed", 0, "give up when time since the first send plus the next delay exceeds this (0: none; default: the preset's own)")
	fs.Float64Var(&f.failureRate, "failure-rate", 0, "with --server flaky: the probability p in [0, 1] that each call the server takes fails, whatever the load (the setting of Brooker's retry_sim); -k still caps each tick (-k 1000000: no cap)")
	fs.Float64Var(&f.exponent, "exponent", 0, "with --policy poly: the exponent r of its windows W_n = ⌈base·n^r⌉, in (0, 16] (0: 2, quadratic backoff; Bender et al., SPAA 2005)")
	f.registerTime(fs)
	registerQueueFlags(fs)
	f.fs = fs
	complete(c, "time", model.TimeNames())
	complete(c, "server", model.ServerNames())
	complete(c, "policy", append(append(kindNames(), contentionNames()...), presetNames()...))
	complete(c, "rounding", policy.RoundingNames())
}

func kindNames() []string {
	var s []string
	for _, k := range policy.Kinds() {
		s = append(s, string(k))
	}
	return s
}

func kindList() string { return strings.Join(kindNames(), "|") }

func contentionNames() []string {
	var s []string
	for _, k := range policy.ContentionKinds() {
		s = append(s, string(k))
	}
	return s
}

// contentionList says each window policy's definition and source
// (Kind.Formula), for --help.
func contentionList() string {
	var s []string
	for _, k := range policy.ContentionKinds() {
		s = append(s, string(k)+" ("+k.Formula()+")")
	}
	return strings.Join(s, "; ")
}

func presetNames() []string {
	var s []string
	for _, p := range policy.Presets() {
		s = append(s, string(p.Name))
	}
	return s
}

func complete(c *cobra.Command, flag string, values []string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// scenario builds the scenario from the flags that were given: the
// defaults that depend on the server or the policy are model.Spec's.
func (f *scenarioFlags) scenario() (model.Scenario, error) {
	spec, err := f.spec()
	if err != nil {
		return model.Scenario{}, err
	}
	sc, err := spec.Scenario()
	if err != nil {
		return sc, usageError{err}
	}
	return sc, nil
}

// spec is what the scenario flags said, leaving out the fields named in
// skip (a command that reads them otherwise, as compare reads its list of
// policies).
func (f *scenarioFlags) spec(skip ...string) (model.Spec, error) {
	var spec model.Spec
	for _, name := range model.SpecFields {
		if f.changed(name) && !slices.Contains(skip, name) {
			if err := spec.Set(name, f.fs.Lookup(name).Value.String()); err != nil {
				return spec, usageError{err}
			}
		}
	}
	return spec, nil
}

func (f *scenarioFlags) changed(name string) bool { return f.fs != nil && f.fs.Changed(name) }

// runFlags are the Monte Carlo run flags.
type runFlags struct {
	trials, workers int
	seed            uint64
	engine          string
	maxMemory       string
}

func (f *runFlags) register(c *cobra.Command, trials int) {
	fs := c.Flags()
	fs.IntVar(&f.trials, "trials", trials, fmt.Sprintf("Monte Carlo trials (1…%d)", montecarlo.MaxTrials))
	fs.Uint64Var(&f.seed, "seed", 1, "random seed; the same seed gives byte-identical output")
	fs.IntVar(&f.workers, "workers", 0, fmt.Sprintf("parallel workers (0: one per CPU; at most %d); never changes results", montecarlo.MaxWorkers))
	fs.StringVar(&f.engine, "engine", montecarlo.DefaultName, "Monte Carlo engine: "+strings.Join(montecarlo.EngineNames(), "|")+" (default and auto: the fastest exact engine, counts per retry class whenever the policy allows, else per client; the output says which ran)")
	fs.StringVar(&f.maxMemory, "max-memory", "", fmt.Sprintf("memory budget of the run, e.g. 512MiB or 8GiB (default %s); a run whose engines, buffered trials and per-tick series would not fit is refused before it allocates", sizeText(montecarlo.DefaultMemory)))
	complete(c, "engine", montecarlo.EngineNames())
}

func (f *runFlags) options() (montecarlo.Options, error) {
	use, err := montecarlo.ParseEngineName(f.engine)
	if err != nil {
		return montecarlo.Options{}, usageError{fmt.Errorf("--%w", err)}
	}
	mem, err := parseSize(f.maxMemory)
	if err != nil {
		return montecarlo.Options{}, usageError{fmt.Errorf("--max-memory: %w", err)}
	}
	opt := montecarlo.Options{Trials: f.trials, Seed: f.seed, Workers: f.workers, Use: use, MaxMemory: mem}
	if err := opt.Validate(); err != nil {
		return opt, usageError{err}
	}
	return opt, nil
}

// parseSize reads a size such as 512MiB, 8GiB, 2GB or a number of bytes;
// "" is 0 (the default budget).
func parseSize(text string) (int64, error) {
	if text == "" {
		return 0, nil
	}
	units := []struct {
		suffix string
		bytes  float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	num, scale := text, 1.0
	for _, u := range units {
		if strings.HasSuffix(text, u.suffix) {
			num, scale = strings.TrimSpace(strings.TrimSuffix(text, u.suffix)), u.bytes
			break
		}
	}
	x, err := strconv.ParseFloat(num, 64)
	if err != nil || !(x*scale >= 1<<20) || x*scale > 1<<50 {
		return 0, fmt.Errorf("must be a size from 1MiB to 1PiB such as 512MiB or 8GiB, got %q", text)
	}
	return int64(x * scale), nil
}

func sizeText(b int64) string { return fmt.Sprintf("%gGiB", float64(b)/(1<<30)) }

// runCache registers the hidden --no-cache flag of the commands that run
// many scenarios (claims, plots, paper-data) and returns what gives their
// context the run's analysis.Cache: every scenario played once, the same
// bytes as --no-cache, which plays every one (to check that, or time it).
func runCache(c *cobra.Command) func(context.Context) context.Context {
	off := c.Flags().Bool("no-cache", false, "play every scenario each time it is asked for instead of once per run (the same results, slower)")
	_ = c.Flags().MarkHidden("no-cache")
	return func(ctx context.Context) context.Context {
		if *off {
			return analysis.WithCache(ctx, nil)
		}
		return analysis.WithCache(ctx, analysis.NewCache())
	}
}
