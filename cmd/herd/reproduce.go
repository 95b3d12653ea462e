package main

import (
	"fmt"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/reproduce"
	"github.com/spf13/cobra"
)

// newCmdReproduce groups the reproductions; it runs nothing itself.
func newCmdReproduce(f *factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "reproduce",
		Short: "Rerun a published experiment and compare herd's numbers with it",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usageError{fmt.Errorf("reproduce needs an experiment: seed, aws or brooker")}
		},
	}
	c.AddCommand(newCmdReproduceSeed(f, nil))
	c.AddCommand(newCmdReproduceAWS(f, nil))
	c.AddCommand(newCmdReproduceBrooker(f, nil))
	return c
}

// reproduceSeedOptions are what herd reproduce seed's flags said.
type reproduceSeedOptions struct{ runOutput }

func newCmdReproduceSeed(f *factory, runF func(*reproduceSeedOptions) error) *cobra.Command {
	opts := &reproduceSeedOptions{runOutput{IO: f.IO}}
	var run runFlags
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "seed",
		Short: "The seed article's table (N = 50, 100, 200; k = 10) beside herd's estimates",
		Long: `seed reruns the table of section 5.2 of the seed article
(` + reproduce.SeedSource + `): N = 50, 100, 200 clients, capacity
k = 10, base 1, cap 32, fixed delay 2, for fixed, expo, full, equal and
decorrelated. It prints herd's mean and 95% interval for calls and completion
beside the article's mean ± sd over 30 trials, and whether the two agree by a
two-sided z test at 99.9% on the difference of means (standard error
√(SE_herd² + (sd/√30)²); rows without variance must match exactly).
--trials 30 mimics the article's own budget.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return reproduceSeedRun(opts)
		},
	}
	run.register(c, 10000)
	out.register(c)
	return c
}

func reproduceSeedRun(opts *reproduceSeedOptions) error {
	opt := opts.Run
	bar := newProgress(opts.IO, "scenarios", reproduce.SeedRows())
	rows, err := reproduce.ReproduceSeed(opts.Ctx, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, r := range rows {
		scs = append(scs, r.Scenario)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, engines(opt.Use, scs...))
	res := render.SeedReproduction{Source: reproduce.SeedSource, Trials: opt.Trials, Seed: opt.Seed, Rows: rows, Provenance: opts.Output.Cite}
	for _, r := range rows {
		if r.Agrees() {
			res.Agree++
		}
	}
	return opts.Output.writeResult(opts.IO, res)
}
