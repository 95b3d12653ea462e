package main

import (
	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
)

// simulateOptions are what herd simulate's flags said.
type simulateOptions struct {
	runOutput // Run.Arrivals: --arrivals, or --series in the open loop

	Scenario model.Scenario
	Controls control.Controls
	// Traffic is the open-loop traffic of --rate, or the closed loop's
	// ticks, outage and drain; nil plays the cohort.
	Traffic *model.Traffic
	// Loop is the closed loop of --loop closed; nil is the open loop.
	Loop *model.ClosedLoop
}

func newCmdSimulate(f *factory, runF func(*simulateOptions) error) *cobra.Command {
	opts := &simulateOptions{runOutput: runOutput{IO: f.IO}}
	var (
		scenario scenarioFlags
		run      runFlags
		out      outputFlags
		controls controlFlags
		traffic  trafficFlags
		arrivals bool
		cfg      configFlags
	)
	out.markdown = true
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Monte Carlo of one scenario: calls, completion, latency, with 95% intervals",
		Long: `simulate plays --trials independent trials of one scenario and reports the
mean calls, completion (last tick with a success + 1) and per-client latency,
each with its 95% Student-t interval, and the p50, p90 and p99 of completion
(exact order-statistic intervals) and of latency (Woodruff intervals with
trial-clustered standard errors). Trials still running at the horizon are
counted as censored and reported, never folded in as finished.

Retry controls compose with any policy, each held per client and each with
its source's parameters and rule (the docs of package control say them in
full):
` + controlList() + `Time-based parameters are converted with --tick (one second per tick when
ticks are abstract). A request a control stops gives up; outputs count them
by cause.

With --rate the scenario becomes an open loop: new requests arrive as a
Poisson stream of --rate per tick spread over the --clients, the server
fails (or drops to --outage-capacity) for --outage ticks from
--outage-start, and retries join the arrivals. It then reports whether
each trial recovered once the outage was over (backlog back to one tick of
capacity with nobody giving up), the time it took, the goodput and the
calls per new request. On the capacity server goodput stays k under any
overload, so every λ < k recovers; --reject-cost c > 0 (rejecting a request
costs c of serving one) or --server collision make goodput fall under
overload, where a retry storm can outlive its trigger (metastability).
With --loop closed each of the --clients instead keeps one request at a
time, sending the next --think-time ticks after the previous one was served
or gave up.

The controls but --max-attempts need --rate or --loop closed for now; in the
cohort --max-attempts A is the retry limit A − 1 (the smaller of it and --retries).

Time: the tick model (the default for textbook scenarios, and with --tick
alone) handles each tick's arrivals at once and rounds delays to whole
ticks. --time continuous (implied by --window, --latency or --first-spread)
plays the window server in real time: each window of length --window admits
its first k arrivals, the rest fail at once, and a failed attempt retries
one round trip plus its unrounded delay later; outputs are in ms. Library
presets are predicted in continuous time once the server's real units are
given; a tick-model run whose policy's jitter is within a tick warns that
rounding decides its result.

` + model.ServersHelp() + ``,
		Example: `  herd simulate -n 100 -k 10 --policy full --trials 10000
  herd simulate -n 1000 -k 10 --policy decorrelated --base 0.5 --cap 64 --format json
  herd simulate --server collision --policy fixed -n 20 -k 1 --horizon 5000
  herd simulate --policy retry-go-v4 -n 200 -k 10 --window 100ms --latency uniform:2ms,8ms --first-spread 50ms
  herd simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --trials 50
  herd simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --bucket brooker --trials 50
  herd simulate --server flaky --failure-rate 0.5 --max-attempts 4 --rate 30 -k 1000000 --outage 0
  herd simulate --server flaky --failure-rate 0.5 --rate 10 -k 1000000 --outage 0 --bucket brooker-sim
  herd simulate --server flaky --failure-rate 0.5 --loop closed --think-time 10 -k 1000000 --outage 0 --max-attempts 4 --policy expo --base 10 --cap 1000
  herd simulate --server token-bucket -k 500/s --burst 100 -n 1000 --policy retry-go-v4 --latency 1ms
  herd simulate --server gcra -k 500/s --burst 100 --nodelay -n 1000 --policy cenkalti-v4 --latency 1ms
  herd simulate --server queue -n 40 -k 4 --timeout 5 --policy full --trials 1000
  herd simulate --server queue -n 100 -k 10 --rate 5 --outage 30 --timeout 5 --trials 200`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			var reading *config.Reading
			if cfg.path != "" {
				r, err := oneConfig(f.IO, &cfg)
				if err != nil {
					return err
				}
				reading = &r
				spec, err := config.Configured(scenario.spec, r, scenario.changed)
				if err != nil {
					return err
				}
				if opts.Scenario, err = spec.Scenario(); err != nil {
					return usageError{err}
				}
			} else if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			scenario.warn(f.IO, opts.Scenario)
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if opts.Controls, err = controls.controls(c.Flags(), opts.Scenario); err != nil {
				return err
			}
			mode, tr, loop, err := traffic.traffic(c.Flags(), opts.Scenario)
			if err != nil {
				return err
			}
			if reading != nil {
				if opts.Controls, err = reading.ControlsFor(opts.Scenario, mode == model.CohortRun, opts.Controls); err != nil {
					return err
				}
			}
			opts.Run.Arrivals = arrivals
			if mode != model.CohortRun {
				opts.Traffic, opts.Run.Arrivals = &tr, traffic.series
			}
			if mode == model.ClosedRun {
				opts.Loop = &loop
			}
			if runF != nil {
				return runF(opts)
			}
			return simulateRun(opts)
		},
	}
	scenario.register(c)
	run.register(c, 1000)
	out.register(c)
	controls.register(c)
	traffic.register(c)
	registerConfig(c, &cfg, configUsage+"; its controls (gRPC retry throttling, the AWS retry quota) join the control flags")
	c.Flags().BoolVar(&arrivals, "arrivals", false, "JSON: add the mean arrivals of every tick, or of every window of the window server in continuous time (with --trials 1, one trial's timeline)")
	return c
}

func simulateRun(opts *simulateOptions) error {
	if opts.Traffic != nil {
		return simulateTraffic(opts)
	}
	sc, err := opts.Controls.InCohort(opts.Scenario)
	if err != nil {
		return usageError{err}
	}
	opt := opts.Run
	bar := newProgress(opts.IO, "trials", opt.Trials)
	opt.Progress = bar.Set
	s, err := analysis.Simulate(opts.Ctx, sc, opt)
	bar.Finish()
	if err != nil {
		return err
	}
	opts.Output.warn(opts.IO, s.Warnings)
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, string(s.Engine.Engine))
	return opts.Output.writeResult(opts.IO, render.Simulation{Summary: s, Provenance: opts.Output.Cite})
}

func simulateTraffic(opts *simulateOptions) error {
	opt := opts.Run
	bar := newProgress(opts.IO, "trials", opt.Trials)
	opt.Progress = bar.Set
	var s analysis.TrafficSummary
	var err error
	if opts.Loop != nil {
		s, err = analysis.SimulateClosedLoop(opts.Ctx, opts.Scenario, *opts.Traffic, *opts.Loop, opts.Controls, opt)
	} else {
		s, err = analysis.SimulateTraffic(opts.Ctx, opts.Scenario, *opts.Traffic, opts.Controls, opt)
	}
	bar.Finish()
	if err != nil {
		return err
	}
	opts.Output.warn(opts.IO, s.Warnings)
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, string(s.Engine.Engine))
	return opts.Output.writeResult(opts.IO, render.TrafficSimulation{TrafficSummary: s, Provenance: opts.Output.Cite})
}

// controlList is simulate's list of the retry controls, in control's words.
func controlList() string {
	var items [][2]string
	for _, s := range control.Summaries() {
		items = append(items, [2]string{s.Flag, s.Text})
	}
	return render.Definitions(items, 2, 26, 80)
}
