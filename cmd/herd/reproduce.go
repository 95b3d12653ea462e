package main

import (
	"fmt"

	"github.com/herdlab/herd/internal/progress"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/internal/usage"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/service"
	"github.com/spf13/cobra"
)

// newCmdReproduce groups the reproductions; it runs nothing itself.
func newCmdReproduce(f *factory) *cobra.Command {
	c := &cobra.Command{
		Use:   "reproduce",
		Short: "Rerun a published experiment and compare herd's numbers with it",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			return usage.Need("an experiment: seed, aws, brooker, brooker-collapse, gc-collapse or descartes-storm")
		},
	}
	c.AddCommand(newCmdReproduceSeed(f, nil))
	c.AddCommand(newCmdReproduceAWS(f, nil))
	c.AddCommand(newCmdReproduceBrooker(f, nil))
	for _, e := range reproduce.CollapseExperiments {
		c.AddCommand(newCmdReproduceCollapse(f, e, nil))
	}
	return c
}

// reproduceOptions are what a reproduction's flags said.
type reproduceOptions struct{ runOutput }

// experiment is one published experiment as a command: its words, its
// default trials, whether it writes markdown, and its run, which reports
// progress in units of what and returns the result to write.
type experiment struct {
	use, short, long, example string
	trials                    int
	markdown                  bool
	run                       func(opts *reproduceOptions, progress func(what string, total int) func(done, total int)) (render.Result, error)
}

func newCmdExperiment(f *factory, e experiment, runF func(*reproduceOptions) error) *cobra.Command {
	opts := &reproduceOptions{runOutput{IO: f.IO}}
	var run runFlags
	out := outputFlags{markdown: e.markdown}
	c := &cobra.Command{
		Use:     e.use,
		Short:   e.short,
		Long:    e.long,
		Example: e.example,
		Args:    cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			var bar *progress.Bar
			res, err := e.run(opts, func(what string, total int) func(done, total int) {
				bar = newProgress(opts.IO, what, total)
				return func(done, _ int) { bar.Set(done) }
			})
			bar.Finish()
			if err != nil {
				return err
			}
			return opts.Output.writeResult(opts.IO, res)
		},
	}
	run.register(c, e.trials)
	out.register(c)
	return c
}

// citeRun adds the run over scs (seed, trials, engines) to the cite line
// the result is written with, and returns it.
func (o *reproduceOptions) citeRun(scs []model.Scenario) render.Provenance {
	o.Output.Cite = o.Output.Cite.WithRun(o.Run.Seed, o.Run.Trials, montecarlo.Engines(o.Run.Use, scs...))
	return o.Output.Cite
}

func newCmdReproduceSeed(f *factory, runF func(*reproduceOptions) error) *cobra.Command {
	return newCmdExperiment(f, experiment{
		use:   "seed",
		short: "The seed article's table (N = 50, 100, 200; k = 10) beside herd's estimates",
		long: `seed reruns the table of section 5.2 of the seed article
(` + reproduce.SeedSource + `): N = 50, 100, 200 clients, capacity
k = 10, base 1, cap 32, fixed delay 2, for fixed, expo, full, equal and
decorrelated. It prints herd's mean and 95% interval for calls and completion
beside the article's mean ± sd over 30 trials, and whether the two agree by a
two-sided z test at 99.9% on the difference of means (standard error
√(SE_herd² + (sd/√30)²); rows without variance must match exactly).
--trials 30 mimics the article's own budget.`,
		trials:   10000,
		markdown: true,
		run: func(opts *reproduceOptions, progress func(string, int) func(int, int)) (render.Result, error) {
			opt := opts.Run
			rows, err := reproduce.ReproduceSeed(opts.Ctx, opt, progress("scenarios", reproduce.SeedRows()))
			if err != nil {
				return nil, err
			}
			var scs []model.Scenario
			for _, r := range rows {
				scs = append(scs, r.Scenario)
			}
			res := render.SeedReproduction{Source: reproduce.SeedSource, Trials: opt.Trials, Seed: opt.Seed, Rows: rows, Provenance: opts.citeRun(scs)}
			for _, r := range rows {
				if r.Agrees() {
					res.Agree++
				}
			}
			return res, nil
		},
	}, runF)
}

func newCmdReproduceAWS(f *factory, runF func(*reproduceOptions) error) *cobra.Command {
	return newCmdExperiment(f, experiment{
		use:   "aws",
		short: "The AWS blog's OCC simulation (N = 10…190 × 5 policies) with 95% CIs",
		long: `aws reruns the simulation of the AWS Architecture Blog post "Exponential
Backoff And Jitter" (` + reproduce.AWSSource + `):
N = 10, 20, …, 190 clients update one row under optimistic concurrency
control, every network hop taking |Normal(10, 2)| ms, with the policies none,
expo, full, equal and decorrelated (base 5 ms, cap 2000 ms). It prints the
mean calls (writes) and the mean completion time in ms (when the last
winning write's response arrives), each with its 95% Student-t interval.
The defaults mirror the blog's own run: 100 trials per point.`,
		example: `  herd reproduce aws
  herd reproduce aws --trials 10000 --format json --out aws.json`,
		trials:   100,
		markdown: true,
		run: func(opts *reproduceOptions, progress func(string, int) func(int, int)) (render.Result, error) {
			opt := opts.Run
			clients, kinds := model.AWSClients(), model.AWSKinds()
			rows, err := reproduce.ReproduceAWS(opts.Ctx, clients, kinds, opt, progress("scenarios", len(clients)*len(kinds)))
			if err != nil {
				return nil, err
			}
			var scs []model.Scenario
			for _, r := range rows {
				scs = append(scs, r.Scenario)
			}
			return render.AWSReproduction{Source: reproduce.AWSSource, Trials: opt.Trials, Seed: opt.Seed, Unit: "ms", Rows: rows, Provenance: opts.citeRun(scs)}, nil
		},
	}, runF)
}

func newCmdReproduceBrooker(f *factory, runF func(*reproduceOptions) error) *cobra.Command {
	return newCmdExperiment(f, experiment{
		use:   "brooker",
		short: "Brooker's retry_sim experiments (no retries, 3 retries, his bucket and breaker, client counts) beside his simulator's values",
		long: `brooker reruns the experiments of Marc Brooker's retry simulator
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
		example: `  herd reproduce brooker
  herd reproduce brooker --trials 1000 --format json --out brooker.json`,
		trials: 200,
		run: func(opts *reproduceOptions, progress func(string, int) func(int, int)) (render.Result, error) {
			opt := opts.Run
			rec, err := reproduce.Brooker()
			if err != nil {
				return nil, err
			}
			r, err := reproduce.ReproduceBrooker(opts.Ctx, opt, progress("rows", len(rec.Reproduced())))
			if err != nil {
				return nil, err
			}
			return render.BrookerReproduction{Source: rec.Source, Commit: rec.Commit, Command: rec.Command, Date: rec.Date, HisRuns: rec.Seeds,
				Trials: opt.Trials, Seed: opt.Seed, Level: r.Level, Compared: r.Comparisons, Agree: r.Agree, Rows: r.Rows, Provenance: opts.Output.Cite}, nil
		},
	}, runF)
}

func newCmdReproduceCollapse(f *factory, e reproduce.CollapseExperiment, runF func(*reproduceOptions) error) *cobra.Command {
	c := newCmdExperiment(f, experiment{
		use:     e.Name,
		short:   e.Short,
		long:    e.Long + "\n\nEach row prints the collapsed share with its Wilson interval, the amplification, the goodput\nand the time to recover from the trigger's end with 95% intervals, the source's claim, the\nreading it is judged by (decided from the source's words), and the verdict.",
		example: "  herd reproduce " + e.Name + " --trials 200 --format json",
		trials:  200,
		run: func(opts *reproduceOptions, progress func(string, int) func(int, int)) (render.Result, error) {
			opt := opts.Run
			settings, err := reproduce.Collapse(e.Name)
			if err != nil {
				return nil, err
			}
			rows, err := reproduce.PlayCollapses(opts.Ctx, settings, service.Options{Trials: opt.Trials, Seed: opt.Seed, Workers: opt.Workers}, progress("rows", len(settings)))
			if err != nil {
				return nil, err
			}
			opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, "service")
			return render.CollapseReproduction{Experiment: e.Name, Source: e.Source, Trials: opt.Trials, Seed: opt.Seed, Rows: rows, Provenance: opts.Output.Cite}, nil
		},
	}, runF)
	_ = c.Flags().MarkHidden("engine") // the service server has one engine
	c.PreRunE = func(c *cobra.Command, _ []string) error {
		if c.Flags().Changed("engine") {
			return usageError{fmt.Errorf("--engine: %s runs on the service server's own engine; --engine chooses among the tick model's and must be left out", e.Name)}
		}
		return nil
	}
	return c
}
