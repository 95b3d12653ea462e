package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/plots"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// delaysOptions are what herd delays' flags said.
type delaysOptions struct {
	IO     *iostreams
	Policy policy.Policy
	Count  int                 // retries 1…Count
	Laws   policy.DelayOptions // the lattice's cells and the run's context
	// Figure is the file the CDFs are drawn into ("": none), FigureFormat
	// its format (from its extension).
	Figure, FigureFormat string
	Output               output
}

func newCmdDelays(f *factory, runF func(*delaysOptions) error) *cobra.Command {
	opts := &delaysOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		cfg      configFlags
	)
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "delays",
		Short: "Exact law of each delay, of the total wait until retry n and of the time to give up",
		Long: `delays computes, for one policy or library preset, the exact law of the delay
before each retry n, of the total wait until retry n (the sum of the first n
delays) and, when the policy gives up (a retry limit or --max-elapsed), of the
time from the first send until it gives up if every attempt fails: median,
mean, 10th/90th/99th percentiles and the ends of the support (min and max are
the infimum and supremum), for n = 1 … --count.

The laws are those of the unrounded delays — what a real library waits — with
no tick rounding. Values are in seconds when the policy has a real tick
(every preset; --tick for a textbook policy) and in ticks otherwise.

Nothing is simulated. Each law is computed twice on a lattice of spacing a
power of two, with every delay rounded down and with every delay rounded up;
the two lattice laws are exact (discrete convolutions, or the exact
propagation of the lattice chain of (previous delay, total) for decorrelated,
and the closed form of the total for Polly's V2), and they bound the true
delays draw by draw, so each printed value comes with an interval that
contains the exact one; the header states the largest relative error. The
time to give up under a limit on elapsed time is approximate (rounding a delay
can move the give-up either way) and says so.

--figure FILE draws the CDFs of the total wait until each retry (.svg, .png
or .pdf).`,
		Example: `  herd delays --policy polly-v8-expo-jitter
  herd delays --policy polly-v8-expo-jitter --count 4 --format json
  herd delays --policy decorrelated --base 1 --cap 32 --count 12
  herd delays --policy cenkalti-v4 --format markdown
  herd delays --policy full --base 100 --cap 20000 --tick 1ms --figure waits.svg
  herd delays --config service-config.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			sc, err := delaysScenario(f, &scenario, &cfg)
			if err != nil {
				return err
			}
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			opts.Policy, opts.Laws.Context = sc.Policy, c.Context()
			if !c.Flags().Changed("count") {
				opts.Count = policy.DefaultDelayCount(sc.Policy)
			}
			if opts.Count < 1 || opts.Count > policy.MaxDelayRetries {
				return usageError{fmt.Errorf("--count must be an integer in [1, %d], got %d", policy.MaxDelayRetries, opts.Count)}
			}
			if most := policy.MaxDelayCellsFor(opts.Policy); opts.Laws.Cells < policy.MinDelayCells || opts.Laws.Cells > most {
				return usageError{fmt.Errorf("--cells must be an integer in [%d, %d] for policy %s (within %d MiB), got %d", policy.MinDelayCells, most, opts.Policy.Kind, policy.DelayMemory>>20, opts.Laws.Cells)}
			}
			if opts.Figure != "" {
				opts.FigureFormat = strings.TrimPrefix(strings.ToLower(filepath.Ext(opts.Figure)), ".")
				if !slices.Contains(plots.Formats, opts.FigureFormat) {
					return usageError{fmt.Errorf("--figure must name a .svg, .png or .pdf file, got %q", opts.Figure)}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return delaysRun(opts)
		},
	}
	scenario.register(c)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !slices.Contains(model.DelayFields, f.Name) && model.IsSpecField(f.Name) {
			_ = c.Flags().MarkHidden(f.Name)
		}
	})
	c.Flags().IntVar(&opts.Count, "count", 0, fmt.Sprintf("retries to analyse, 1…%d (default: the retry limit, or 10 without one); retries past the limit are marked", policy.MaxDelayRetries))
	c.Flags().IntVar(&opts.Laws.Cells, "cells", policy.DefaultDelayCells, "lattice cells across each law (2^10…2^24): more gives tighter bounds, proportionally slower")
	registerConfig(c, &cfg, configUsage+"; the controls it gives (retry throttling, an Envoy retry budget) are shown there with what they allow")
	c.Flags().StringVar(&opts.Figure, "figure", "", "also draw the CDFs of the total waits into this file (.svg, .png or .pdf)")
	out.register(c)
	return c
}

// delaysScenario is the scenario of the flags, with the policy of
// --config when it is given.
func delaysScenario(f *factory, scenario *scenarioFlags, cfg *configFlags) (model.Scenario, error) {
	if cfg.path == "" {
		return scenario.scenario()
	}
	r, err := oneConfig(f.IO, cfg)
	if err != nil {
		return model.Scenario{}, err
	}
	spec, err := config.Configured(scenario.spec, r, scenario.changed)
	if err != nil {
		return model.Scenario{}, err
	}
	sc, err := spec.Scenario()
	if err != nil {
		return sc, usageError{err}
	}
	return sc, nil
}

func delaysRun(opts *delaysOptions) error {
	a, err := policy.Delays(opts.Policy, opts.Count, opts.Laws)
	if err != nil {
		return err
	}
	if opts.Figure != "" {
		d, err := plots.WaitFigure(a)
		if err != nil {
			return err
		}
		b, err := d.Render(opts.FigureFormat)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(opts.Figure, b); err != nil {
			return err
		}
	}
	opts.Output.warn(opts.IO, a.Notes)
	return opts.Output.writeResult(opts.IO, render.NewDelayLaws(a, opts.Output.Cite))
}
