package main

import (
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/study"
	"github.com/spf13/cobra"
)

// auditOptions are what herd audit's flags said.
type auditOptions struct {
	runOutput
	Scenario model.Scenario
}

func newCmdAudit(f *factory, runF func(*auditOptions) error) *cobra.Command {
	opts := &auditOptions{runOutput: runOutput{IO: f.IO}}
	var (
		scenario scenarioFlags
		run      runFlags
	)
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "audit",
		Short: "Rank every library preset and textbook policy on one thundering herd",
		Long: `audit plays the scenario given by the flags under every textbook policy (with
--base, --cap, --fixed-delay) and every library preset (with its defaults),
all on the same tick (--tick, default 1s) and on common random numbers, and
ranks them: fewest censored trials first (a policy whose trials are still
running at the horizon ranks after every policy whose trials all finished,
and its statistics are over the finished trials only), then fewest clients
that gave up, then fewest calls, then shortest completion. Each row shows its
censored trials and has 95% intervals for calls, completion, clients that
gave up, the peak arrivals of one tick after the first wave over capacity k,
client latency p99, and the paired difference of completion and calls from
the best policy.

A policy is flagged synchronized when at least 90% of the cohort's first
retries fall within one 1 s window: a retry storm the server meets at full
strength. The share is exact, computed from the policy's unrounded first
delay (the first retries of clients that failed together are independent
draws of it), and in real time, so the flags do not depend on the tick;
give the capacity as a rate (-k 100/s) to audit the same server at any
--tick. Textbook policies take --base and --cap in ticks. --policy is
ignored.`,
		Example: `  herd audit --clients 10000 --capacity 100
  herd audit -n 10000 -k 100/s --tick 100ms --format markdown`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			if err := opts.resolve(c, f, &run, &out); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return auditRun(opts)
		},
	}
	scenario.register(c)
	run.register(c, 100)
	out.register(c)
	return c
}

func auditRun(opts *auditOptions) error {
	sc := opts.Scenario
	bar := newProgress(opts.IO, "policies", len(study.AuditPolicies(sc)))
	a, err := study.RunAudit(opts.Ctx, sc, opts.Run, func(done, _ int) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, p := range study.AuditPolicies(sc) {
		s := sc
		s.Policy = p
		scs = append(scs, s)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opts.Run.Seed, opts.Run.Trials, montecarlo.Engines(opts.Run.Use, scs...))
	return opts.Output.writeResult(opts.IO, render.Audit{Audit: a, Synchronized: a.Synchronized(), Provenance: opts.Output.Cite})
}
