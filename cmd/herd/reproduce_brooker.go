package main

import (
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/reproduce"
	"github.com/spf13/cobra"
)

// reproduceBrookerOptions are what herd reproduce brooker's flags said.
type reproduceBrookerOptions struct{ runOutput }

func newCmdReproduceBrooker(f *factory, runF func(*reproduceBrookerOptions) error) *cobra.Command {
	opts := &reproduceBrookerOptions{runOutput{IO: f.IO}}
	var (
		run runFlags
		out outputFlags
	)
	c := &cobra.Command{
		Use:   "brooker",
		Short: "Brooker's retry_sim experiments (no retries, 3 retries, his bucket and breaker, client counts) beside his simulator's values",
		Long: `brooker reruns the experiments of Marc Brooker's retry simulator
(` + reproduce.BrookerSource + `), the source of the numbers
in his posts "Fixing retries with token buckets and circuit breakers" and
"What is Backoff For?" (2022): load (calls per new request) and success rate
against the server's failure rate p for no retries, three retries, his token
bucket and his circuit breaker (100 clients at 10 requests per second for
10 s), the same bucket and breaker with 10, 100 and 1,000 clients sharing 100
requests per second, and three retries and the bucket with and without a
retry backoff of 0.1 s.

herd plays each row on the flaky server (--server flaky), his clients as its
open loop in ticks of 10 ms, each client's first request at its start
(--start-cohort) and the trial drained at its end (--drain), with his
strategies as herd's controls: --max-attempts 1 and 4, --bucket brooker-sim,
--breaker --breaker-kind brooker-sim with --max-attempts 4. It prints herd's
mean and 95% interval beside his simulator's mean ± sd over its recorded runs
(his code run outside herd with seeds 1…20; the commit, command and date are
in the JSON), and whether the two agree by a two-sample t test with the
pooled variance (under the null hypothesis both simulators draw from one law;
some of his rows have no variance only because a rare retry did not happen in
his runs) at a Bonferroni level over every comparison. Values his posts print
are shown where a row has one.`,
		Example: `  herd reproduce brooker
  herd reproduce brooker --trials 1000 --format json --out brooker.json`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return reproduceBrookerRun(opts)
		},
	}
	run.register(c, 200)
	out.register(c)
	return c
}

func reproduceBrookerRun(opts *reproduceBrookerOptions) error {
	opt := opts.Run
	rec, err := reproduce.Brooker()
	if err != nil {
		return err
	}
	bar := newProgress(opts.IO, "rows", len(rec.Reproduced()))
	r, err := reproduce.ReproduceBrooker(opts.Ctx, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	res := render.BrookerReproduction{Source: rec.Source, Commit: rec.Commit, Command: rec.Command, Date: rec.Date, HisRuns: rec.Seeds,
		Trials: opt.Trials, Seed: opt.Seed, Level: r.Level, Compared: r.Comparisons, Agree: r.Agree, Rows: r.Rows, Provenance: opts.Output.Cite}
	return opts.Output.writeResult(opts.IO, res)
}
