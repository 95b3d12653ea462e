package main

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/render"
	"github.com/spf13/cobra"
)

// validateOptions are what herd validate's flags said.
type validateOptions struct {
	IO      *iostreams
	Ctx     context.Context
	Grid    []analysis.ValidationCase // analysis.DefaultValidationGrid
	Seed    uint64
	Workers int
	// Planted are the deliberate errors of the hidden flags, put into
	// Validate.
	Planted  analysis.Planted
	Validate analysis.ValidateOptions
	Output   output
}

func newCmdValidate(f *factory, runF func(*validateOptions) error) *cobra.Command {
	opts := &validateOptions{IO: f.IO}
	var out outputFlags
	c := &cobra.Command{
		Use:   "validate",
		Short: "Check every analytical model against Monte Carlo on a grid of scenarios",
		Long: `validate runs a grid of scenarios through every model that applies and
through Monte Carlo, and prints one row per check with the model's value, the
Monte Carlo mean and its 95% interval, the discrepancy and a verdict.

` + render.Definitions(analysis.ValidationHelp(), 2, 13, 80) + `
It exits 1 when any check fails.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			var err error
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if opts.Workers < 0 {
				return usageError{fmt.Errorf("--workers must be ≥ 0 (0 means one per CPU), got %d", opts.Workers)}
			}
			if err := opts.Planted.Plant(&opts.Validate); err != nil {
				return err
			}
			opts.Grid = analysis.DefaultValidationGrid()
			if runF != nil {
				return runF(opts)
			}
			return validateRun(opts)
		},
	}
	fs := c.Flags()
	fs.Uint64Var(&opts.Seed, "seed", 1, "random seed; the same seed gives byte-identical output")
	fs.IntVar(&opts.Workers, "workers", 0, "parallel workers (0: one per CPU); never changes results")
	fs.Float64Var(&opts.Planted.Delays, "perturb-delays", 1, "stretch the models' delay laws by this factor (not the simulation's): a wrong model, to see the checks fail")
	_ = fs.MarkHidden("perturb-delays")
	fs.Float64Var(&opts.Planted.Completion, "plant-completion", 1, "multiply the mean field's completion by this factor before it is judged: a planted error, to see the checks fail")
	_ = fs.MarkHidden("plant-completion")
	fs.IntVar(&opts.Planted.Queue, "perturb-queue", 0, "lengthen the queue chain's timeout and queue limit by this many ticks and requests (not the simulation's): a wrong model, to see the checks fail")
	_ = fs.MarkHidden("perturb-queue")
	fs.Float64Var(&opts.Planted.Service, "perturb-service", 1, "slow the service chain's service by this factor (not the simulation's): a wrong model, to see the checks fail")
	_ = fs.MarkHidden("perturb-service")
	out.register(c)
	return c
}

func validateRun(opts *validateOptions) error {
	bar := newProgress(opts.IO, "scenarios", len(opts.Grid))
	opt := opts.Validate
	opt.Seed, opt.Workers, opt.Progress = opts.Seed, opts.Workers, func(done, _ int) { bar.Set(done) }
	v, err := analysis.Validate(opts.Ctx, opts.Grid, opt)
	bar.Finish()
	if err != nil {
		return err
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opts.Seed, 0, "")
	err = opts.Output.writeResult(opts.IO, render.Validation{Validation: v, Seed: opts.Seed, Provenance: opts.Output.Cite})
	if err != nil {
		return err
	}
	if v.Failed > 0 {
		return fmt.Errorf("%d of %d checks failed", v.Failed, len(v.Checks))
	}
	return nil
}
