package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/internal/usage"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/spf13/cobra"
)

// modelOptions are what herd model's flags said.
type modelOptions struct {
	IO       *iostreams
	Scenario model.Scenario
	Output   output
	Method   string
	Solve    solve.Options
	// Sources names the flags given, with their values, that set a
	// scenario field (model.Spec.Sources), for a refusal to name them.
	Sources func(field string) []string
}

func newCmdModel(f *factory, runF func(*modelOptions) error) *cobra.Command {
	opts := &modelOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		out      outputFlags
		traffic  trafficFlags
		controls controlFlags
		chain    chainFlags
	)
	c := &cobra.Command{
		Use:   "model",
		Short: "Analytical model of one scenario: closed form, exact Markov chain or mean field",
		Long: `model answers a scenario without simulating it.

` + render.Definitions(solve.MethodsHelp(), 2, 13, 80) + `
Every result states its validity (JSON "validity"): exact; conditional
(exact given that the trial finishes by the horizon, with the probability
left unfinished, and a warning); or approximate, with the relative errors
herd validate measured at the nearest validated scenario, and a warning
outside the validated region.

A scenario a method cannot answer exits 2 with the reason.`,
		Example: `  herd model --method closed -n 100 -k 10 --policy expo
  herd model --method markov -n 8 -k 2 --policy full --format json
  herd model --method meanfield -n 100000 -k 1000 --policy equal
  herd model --method chain --server queue -n 6 -k 2 --timeout 2 --policy full
  herd model --method chain --server queue -k 1 --rate 0.5 --ticks 100 --outage-start 3 --outage 4 --timeout 2 --queue-limit 4 --policy none --max-attempts 2`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			opts.Sources = func(field string) []string {
				// Each flag as the user gave it: --capacity 50/100ms.
				given := scenario.spec.Sources(field)
				for i, name := range given {
					given[i] = "--" + name
					if fl := c.Flags().Lookup(name); fl != nil && fl.Value.Type() != "bool" {
						given[i] += " " + fl.Value.String()
					}
				}
				return given
			}
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if err := chain.options(c.Flags(), opts, &traffic, &controls); err != nil {
				return err
			}
			opts.Solve.Context = c.Context() // the chains poll it
			if opts.Method == "" {
				return usage.Need("--method " + strings.Join(solve.Methods(), "|"))
			}
			if err := solve.CheckMethod(opts.Method, opts.Solve); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return modelRun(opts)
		},
	}
	d := solve.DefaultSolveOptions()
	c.Flags().StringVar(&opts.Method, "method", "", "model: "+strings.Join(solve.Methods(), "|")+" (required)")
	c.Flags().IntVar(&opts.Solve.MaxStates, "max-states", d.MaxStates, "markov: the most states at one tick before the scenario is refused (≥ 1)")
	c.Flags().IntVar(&opts.Solve.Grid, "grid", d.Grid, fmt.Sprintf("meanfield: cells of decorrelated's previous-delay dimension (≥ 1; 0: doubled from %d until the calls change by less than %g%%)", solve.DefaultGrid, 100*solve.DefaultGridTolerance))
	complete(c, "method", solve.Methods())
	scenario.register(c)
	out.register(c)
	traffic.register(c)
	controls.register(c)
	chain.register(c)
	return c
}

func modelRun(opts *modelOptions) error {
	r, err := solve.Solve(opts.Method, opts.Scenario, opts.Solve)
	var un *solve.Unsupported
	if errors.As(err, &un) && !un.Limit {
		// Said as the flag that asked for the model ("--method chain: …"),
		// and the flags that put the scenario outside it.
		if un.Field != "" && opts.Sources != nil {
			if given := opts.Sources(un.Field); len(given) > 0 {
				return model.Usagef("--method %s with %s: %s", un.Method, strings.Join(given, ", "), un.Reason)
			}
		}
		return fmt.Errorf("--method %w", err)
	}
	if err != nil {
		return err
	}
	res := render.NewModelResult(r, opts.Scenario)
	res.Provenance = opts.Output.Cite
	opts.Output.warn(opts.IO, res.Warnings)
	return opts.Output.writeResult(opts.IO, res)
}
