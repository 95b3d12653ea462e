package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/memory"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// scenarioFlags are the scenario flags of DESIGN.md's CLI contract. Each
// is a specFlag: pflag hands its text to model.Spec's own setter, so a
// value is read once, by the rule every command and spec file shares.
type scenarioFlags struct {
	spec model.Spec
	fs   *pflag.FlagSet
}

// specFlag is one scenario field as a flag. A text flag keeps its text
// for the command to read (compare's list of policies) instead of setting
// the field.
type specFlag struct {
	spec      *model.Spec
	name, typ string
	text      string
	asText    bool
}

func (v *specFlag) String() string { return v.text }
func (v *specFlag) Type() string   { return v.typ }
func (v *specFlag) Set(text string) error {
	if !v.asText {
		if err := v.spec.Set(v.name, text); err != nil {
			return err
		}
	}
	v.text = text
	return nil
}

// add registers the scenario field name as a flag showing typ and its
// default def in --help (zero values show no default, as pflag's own).
func (f *scenarioFlags) add(name, short, typ, def, usage string) {
	if typ == "duration" && def == "0s" {
		def = "0"
	}
	f.fs.VarP(&specFlag{spec: &f.spec, name: name, typ: typ, text: def}, name, short, usage)
}

func num(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func (f *scenarioFlags) register(c *cobra.Command) {
	d := model.Default()
	f.fs = c.Flags()
	f.add("clients", "n", "int", strconv.Itoa(d.Clients), "number of clients N that fail together (≥ 1)")
	f.add("capacity", "k", "string", strconv.Itoa(d.Capacity), "requests the server accepts per tick (≥ 1), or per window of a limiter in real time such as 500/s, 500/sec or 50/100ms: continuous time with that window, unless --tick is given (then converted per tick) or --window (then converted per window)")
	f.add("server", "", "string", d.Server.String(), "server model: "+strings.Join(model.ServerNames(), "|"))
	f.add("policy", "", "string", string(d.Policy.Kind), "retry policy: "+strings.Join(policy.Names(policy.Kinds()), "|")+", or a library preset (see herd presets), optionally with its fields as NAME:FIELD=VALUE,… (full:base=100ms,cap=10s,retries=9); for the collision server the window policies of the contention literature: "+policy.ContentionList())
	f.add("base", "", "float64", num(d.Policy.Base), "base delay in ticks (> 0), or a duration such as 100ms once time is real; with --server occ in ms, default 5")
	f.add("cap", "", "float64", num(d.Policy.Cap), "largest delay in ticks (≥ base), or a duration such as 10s; with --server occ in ms, default 2000")
	f.add("fixed-delay", "", "float64", num(d.Policy.FixedDelay), "delay of the fixed policy in ticks (≥ 0), or a duration; with --server occ in ms, default 10")
	f.add("rounding", "", "string", d.Rounding.String(), "delay to ticks: "+strings.Join(policy.RoundingNames(), "|"))
	f.add("first-window", "", "int", strconv.Itoa(d.FirstWindow), "first sends spread uniformly over ticks 0…W−1 (W ≥ 1)")
	f.add("horizon", "", "int", "0", "stop unfinished trials at this tick and count them censored (0: automatic)")
	f.add("tick", "", "duration", "0s", "real length of one tick, e.g. 100ms (default 1s for presets; textbook policies keep abstract ticks)")
	f.add("retries", "", "int", "0", "retry limit after which a client gives up (0: none; default: the preset's own limit)")
	f.add("max-elapsed", "", "duration", "0s", "give up when time since the first send plus the next delay exceeds this (0: none; default: the preset's own)")
	f.add("failure-rate", "", "float64", "0", "with --server flaky: the probability p in [0, 1] that each call the server takes fails, whatever the load (the setting of Brooker's retry_sim); -k still caps each tick (-k 1000000: no cap)")
	f.add("exponent", "", "float64", "0", "with --policy poly: the exponent r of its windows W_n = ⌈base·n^r⌉, in (0, 16] (0: 2, quadratic backoff; Bender et al., SPAA 2005)")
	f.registerTime()
	f.add("queue-limit", "", "int", "0", "--server queue: the most requests the queue holds; a send over it is rejected at once (0: unbounded)")
	f.add("timeout", "", "int", "0", "--server queue: ticks of response time a client waits before it abandons the attempt and retries, while the server still serves it (0: never)")
	f.add("burst", "", "int", "0", "--server token-bucket: the bucket's size in tokens (≥ 1; default k, one window's tokens); --server gcra: nginx limit_req's burst (≥ 0, default 0)")
	f.add("nodelay", "", "bool", "false", "--server gcra: answer the burst's requests at once, as nginx limit_req's nodelay (default: nginx paces them, one per 1/rate)")
	f.fs.Lookup("nodelay").NoOptDefVal = "true"
	complete(c, "time", model.TimeNames())
	complete(c, "server", model.ServerNames())
	complete(c, "policy", append(policy.Names(append(policy.Kinds(), policy.ContentionKinds()...)), policy.PresetNames()...))
	complete(c, "rounding", policy.RoundingNames())
}

func complete(c *cobra.Command, flag string, values []string) {
	_ = c.RegisterFlagCompletionFunc(flag, cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
}

// scenario builds the scenario from the flags that were given: the
// defaults that depend on the server or the policy are model.Spec's.
func (f *scenarioFlags) scenario() (model.Scenario, error) {
	sc, err := f.spec.Scenario()
	if err != nil {
		return sc, usageError{err}
	}
	return sc, nil
}

// warn prints the spec's warnings about sc on standard error.
func (f *scenarioFlags) warn(ios *iostreams, sc model.Scenario) {
	for _, w := range f.spec.Warnings(sc) {
		fmt.Fprintln(ios.ErrOut, "herd: warning:", w)
	}
}

// with builds the scenario with the field name set to text besides the
// flags given.
func (f *scenarioFlags) with(name, text string) (model.Scenario, error) {
	s, err := f.spec.With(name, text)
	if err != nil {
		return model.Scenario{}, usageError{err}
	}
	sc, err := s.Scenario()
	if err != nil {
		return sc, usageError{err}
	}
	return sc, nil
}

// asText makes the field name's flag keep its text for the command (see
// text) instead of setting the field.
func (f *scenarioFlags) asText(name string) { f.fs.Lookup(name).Value.(*specFlag).asText = true }

// text is the text given to the flag name, or its default.
func (f *scenarioFlags) text(name string) string { return f.fs.Lookup(name).Value.String() }

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
	fs.StringVar(&f.maxMemory, "max-memory", "", fmt.Sprintf("memory budget of the run, e.g. 512MiB or 8GiB (default %s); a run whose engines, buffered trials and per-tick series would not fit is refused before it allocates", memory.Text(memory.Budget)))
	complete(c, "engine", montecarlo.EngineNames())
}

func (f *runFlags) options() (montecarlo.Options, error) {
	use, err := montecarlo.ParseEngineName(f.engine)
	if err != nil {
		return montecarlo.Options{}, usageError{fmt.Errorf("--%w", err)}
	}
	mem, err := memory.Parse(f.maxMemory)
	if err != nil {
		return montecarlo.Options{}, usageError{fmt.Errorf("--max-memory: %w", err)}
	}
	opt := montecarlo.Options{Trials: f.trials, Seed: f.seed, Workers: f.workers, Use: use, MaxMemory: mem}
	if err := opt.Validate(); err != nil {
		return opt, usageError{err}
	}
	return opt, nil
}

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
