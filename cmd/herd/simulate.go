package main

import (
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/spf13/cobra"
)

// simulateOptions are what herd simulate's flags said.
type simulateOptions struct {
	IO  *iostreams
	Ctx context.Context

	Scenario model.Scenario
	Run      montecarlo.Options // Run.Arrivals: --arrivals, or --series in the open loop
	Output   output
	Controls model.Controls
	// Traffic is the open-loop traffic of --rate; nil plays the cohort.
	Traffic *model.Traffic
}

func newCmdSimulate(f *factory, runF func(*simulateOptions) error) *cobra.Command {
	opts := &simulateOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		run      runFlags
		out      outputFlags
		controls controlFlags
		traffic  trafficFlags
		arrivals bool
	)
	c := &cobra.Command{
		Use:   "simulate",
		Short: "Monte Carlo of one scenario: calls, completion, latency, with 95% intervals",
		Long: `simulate plays --trials independent trials of one scenario and reports the
mean calls, completion (last tick with a success + 1) and per-client latency,
each with its 95% Student-t interval, and the p50, p90 and p99 of completion
(exact order-statistic intervals) and of latency (Woodruff intervals with
trial-clustered standard errors). Trials still running at the horizon are
counted as censored and reported, never folded in as finished.

Retry controls compose with any policy: --max-attempts, a per-client retry
token bucket (--bucket aws|brooker) and a per-client circuit breaker
(--breaker). A request a control stops gives up; outputs count them.

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
--bucket and --breaker need --rate for now; in the cohort --max-attempts A
is the retry limit A − 1 (the smaller of it and --retries).

Time: the tick model (the default for textbook scenarios, and with --tick
alone) handles each tick's arrivals at once and rounds delays to whole
ticks. --time continuous (implied by --window, --latency or --first-spread)
plays the window server in real time: each window of length --window admits
its first k arrivals, the rest fail at once, and a failed attempt retries
one round trip plus its unrounded delay later; outputs are in ms. Library
presets are predicted in continuous time once the server's real units are
given; a tick-model run whose policy's jitter is within a tick warns that
rounding decides its result.`,
		Example: `  herd simulate -n 100 -k 10 --policy full --trials 10000
  herd simulate -n 1000 -k 10 --policy decorrelated --base 0.5 --cap 64 --format json
  herd simulate --server collision --policy fixed -n 20 -k 1 --horizon 5000
  herd simulate --policy retry-go-v4 -n 200 -k 10 --window 100ms --latency uniform:2ms,8ms --first-spread 50ms
  herd simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --trials 50
  herd simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --bucket brooker --trials 50`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			if opts.Run, err = run.options(); err != nil {
				return err
			}
			if opts.Output, err = out.resolve(f.IO); err != nil {
				return err
			}
			if opts.Controls, err = controls.controls(c.Flags()); err != nil {
				return err
			}
			open, tr, err := traffic.traffic(c.Flags(), opts.Scenario)
			if err != nil {
				return err
			}
			opts.Run.Arrivals = arrivals
			if open {
				opts.Traffic, opts.Run.Arrivals = &tr, traffic.series
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
	c.Flags().BoolVar(&arrivals, "arrivals", false, "JSON: add the mean arrivals of every tick (with --trials 1, one trial's timeline)")
	return c
}

// simulateResult is the JSON document of herd simulate.
type simulateResult struct {
	analysis.Summary
	Provenance Provenance `json:"provenance"`
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
	opt.Progress = bar.set
	s, err := analysis.Simulate(opts.Ctx, sc, opt)
	bar.finish()
	if err != nil {
		return err
	}
	opts.Output.warn(opts.IO, s.Warnings)
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		switch opts.Output.Format {
		case "json":
			return writeJSON(w, simulateResult{s, provenance()})
		case "csv":
			return summaryCSV(w, s)
		}
		return summaryTable(w, s)
	})
}

// describe says a scenario in one line.
func describe(sc model.Scenario) string {
	p := sc.Policy
	pol := string(p.Kind)
	switch p.Kind {
	case model.Fixed:
		pol += fmt.Sprintf(" (delay %g)", p.FixedDelay)
	case model.Expo, model.Full, model.Equal, model.Decorrelated:
		pol += fmt.Sprintf(" (base %g, cap %g)", p.Base, p.Cap)
	}
	if p.Kind.IsPreset() {
		pol += " (library preset)"
	}
	if p.Retries > 0 {
		pol += fmt.Sprintf(", gives up after %d retries", p.Retries)
	}
	if p.MaxElapsed > 0 {
		pol += fmt.Sprintf(", gives up past %s elapsed", p.MaxElapsed)
	}
	if sc.Time == model.ContinuousTime {
		return describeContinuous(sc, pol)
	}
	if t := p.TickLength(); t > 0 {
		pol += fmt.Sprintf(", tick %s", t)
	}
	if sc.Server == model.OCC {
		return fmt.Sprintf("%d clients, OCC row (hops |Normal(%g, %g)| ms), policy %s in ms", sc.Clients, model.HopMean, model.HopSD, pol)
	}
	s := fmt.Sprintf("%d clients, %s server with capacity %d/tick, policy %s, rounding %s",
		sc.Clients, sc.Server, sc.Capacity, pol, sc.Rounding)
	if sc.FirstWindow > 1 {
		s += fmt.Sprintf(", first sends over %d ticks", sc.FirstWindow)
	}
	return s
}

type metric struct {
	name string
	e    *analysis.Estimate
	q    map[string]analysis.Quantile
}

func metrics(s analysis.Summary) []metric {
	if s.Calls == nil {
		return nil
	}
	unit := s.Scenario.TimeUnit()
	m := []metric{
		{"calls", s.Calls, nil},
		{"completion (" + unit + ")", &s.Completion.Estimate, s.Completion.Quantiles},
	}
	// The OCC server has no ticks, hence no per-tick peak or latency histogram.
	if s.Latency != nil {
		m = append(m, metric{"latency (" + unit + ")", &s.Latency.Estimate, s.Latency.Quantiles})
	}
	if s.Peak != nil {
		m = append(m, metric{"peak arrivals/tick", s.Peak, nil})
	}
	if s.GaveUp != nil && (s.Scenario.Policy.Retries > 0 || s.Scenario.Policy.MaxElapsed > 0) {
		m = append(m, metric{"clients that gave up", s.GaveUp, nil})
	}
	return m
}

func ci(iv *analysis.Interval) string {
	if iv == nil {
		return "exact"
	}
	return "[" + fmtNum(iv[0]) + ", " + fmtNum(iv[1]) + "]"
}

func summaryTable(w io.Writer, s analysis.Summary) error {
	fmt.Fprintln(w, describe(s.Scenario))
	horizon := fmt.Sprintf("horizon %d ticks", s.Scenario.EffectiveHorizon())
	switch {
	case s.Scenario.Time == model.ContinuousTime:
		horizon = fmt.Sprintf("horizon %d windows", s.Scenario.EffectiveHorizon())
	case s.Scenario.Continuous():
		horizon = fmt.Sprintf("horizon %d ms", s.Scenario.EffectiveHorizon())
		if s.Scenario.Horizon == 0 {
			horizon = "no horizon: OCC trials always finish"
		}
	}
	fmt.Fprintf(w, "%d trials, seed %d, %d censored (%s); %s, times in %s\n", s.Trials, s.Seed, s.Censored, horizon, timeModelText(s.Scenario), s.Scenario.TimeUnit())
	fmt.Fprintf(w, "engine: %s (%s)\n\n", s.Engine.Engine, s.Engine.Reason)
	return metricTable(w, metrics(s), s.Warnings)
}

// metricTable writes one row per metric — mean, sd, 95% interval and the
// reported quantiles with theirs — then the warnings.
func metricTable(w io.Writer, ms []metric, warnings []string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "metric\tmean\tsd\t95% CI")
	for _, p := range analysis.Percentiles {
		fmt.Fprintf(tw, "\t%s [95%% CI]", p.Name)
	}
	fmt.Fprintln(tw)
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s", m.name, fmtNum(m.e.Mean), fmtNum(m.e.SD), ci(m.e.CI95))
		for _, p := range analysis.Percentiles {
			if q, ok := m.q[p.Name]; ok {
				fmt.Fprintf(tw, "\t%s %s", fmtNum(q.Value), ci(&q.CI95))
			} else {
				fmt.Fprint(tw, "\t")
			}
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, warn := range warnings {
		fmt.Fprintln(w, "\nwarning: "+warn)
	}
	return nil
}

func summaryCSV(w io.Writer, s analysis.Summary) error {
	cw := csv.NewWriter(w)
	head := []string{"metric", "mean", "sd", "n", "ci95_lo", "ci95_hi"}
	for _, p := range analysis.Percentiles {
		head = append(head, p.Name, p.Name+"_ci95_lo", p.Name+"_ci95_hi")
	}
	cw.Write(head)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, m := range metrics(s) {
		row := []string{m.name, num(m.e.Mean), num(m.e.SD), strconv.Itoa(m.e.N), num(m.e.CI95[0]), num(m.e.CI95[1])}
		for _, p := range analysis.Percentiles {
			if q, ok := m.q[p.Name]; ok {
				row = append(row, num(q.Value), num(q.CI95[0]), num(q.CI95[1]))
			} else {
				row = append(row, "", "", "")
			}
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

func simulateTraffic(opts *simulateOptions) error {
	opt := opts.Run
	bar := newProgress(opts.IO, "trials", opt.Trials)
	opt.Progress = bar.set
	s, err := analysis.SimulateTraffic(opts.Ctx, opts.Scenario, *opts.Traffic, opts.Controls, opt)
	bar.finish()
	if err != nil {
		return err
	}
	opts.Output.warn(opts.IO, s.Warnings)
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		switch opts.Output.Format {
		case "json":
			return writeJSON(w, trafficResult{s, provenance()})
		case "csv":
			return trafficCSV(w, s)
		}
		return trafficTable(w, s)
	})
}
