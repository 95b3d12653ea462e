package main

import (
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/reproduce"
	"github.com/spf13/cobra"
)

// reproduceAWSOptions are what herd reproduce aws's flags said.
type reproduceAWSOptions struct{ runOutput }

func newCmdReproduceAWS(f *factory, runF func(*reproduceAWSOptions) error) *cobra.Command {
	opts := &reproduceAWSOptions{runOutput{IO: f.IO}}
	var run runFlags
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "aws",
		Short: "The AWS blog's OCC simulation (N = 10…190 × 5 policies) with 95% CIs",
		Long: `aws reruns the simulation of the AWS Architecture Blog post "Exponential
Backoff And Jitter" (` + reproduce.AWSSource + `):
N = 10, 20, …, 190 clients update one row under optimistic concurrency
control, every network hop taking |Normal(10, 2)| ms, with the policies none,
expo, full, equal and decorrelated (base 5 ms, cap 2000 ms). It prints the
mean calls (writes) and the mean completion time in ms (when the last
winning write's response arrives), each with its 95% Student-t interval.
The defaults mirror the blog's own run: 100 trials per point.`,
		Example: `  herd reproduce aws
  herd reproduce aws --trials 10000 --format json --out aws.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return reproduceAWSRun(opts)
		},
	}
	run.register(c, 100)
	out.register(c)
	return c
}

func reproduceAWSRun(opts *reproduceAWSOptions) error {
	opt := opts.Run
	clients, kinds := model.AWSClients(), model.AWSKinds()
	bar := newProgress(opts.IO, "scenarios", len(clients)*len(kinds))
	rows, err := reproduce.ReproduceAWS(opts.Ctx, clients, kinds, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, r := range rows {
		scs = append(scs, r.Scenario)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, engines(opt.Use, scs...))
	res := render.AWSReproduction{Source: reproduce.AWSSource, Trials: opt.Trials, Seed: opt.Seed, Unit: "ms", Rows: rows, Provenance: opts.Output.Cite}
	return opts.Output.writeResult(opts.IO, res)
}
