package main

import (
	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/study"
	"github.com/spf13/cobra"
)

// auditOptions are what herd audit's flags said.
type auditOptions struct {
	runOutput
	Scenario model.Scenario
	// Policies are the policies --policy named (nil: every one).
	Policies []policy.Policy
}

func newCmdAudit(f *factory, runF func(*auditOptions) error) *cobra.Command {
	opts := &auditOptions{runOutput: runOutput{IO: f.IO}}
	var (
		scenario scenarioFlags
		run      runFlags
		cfg      configFlags
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
--tick. Textbook policies take --base and --cap (in ticks, or as
durations). --policy A,B audits those policies alone.

A capacity per window (-k 50/100ms) audits the limiter in continuous time:
completion is in ms, the peak is per window, synchronized means 90% of the
first retries within one window of the limiter, and the policies that would
retry at the same instant for ever without a round trip (none) are left out,
saying so.`,
		Example: `  herd audit --clients 10000 --capacity 100
  herd audit -n 10000 -k 100/s --tick 100ms --format markdown
  herd audit -n 2000 -k 50/100ms --policy retry-go-v4,full`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			scenario.warn(f.IO, opts.Scenario)
			if scenario.changed("policy") {
				names := model.SplitPolicies(scenario.text("policy"))
				if opts.Policies, err = study.AuditPoliciesNamed(scenario.spec, names); err != nil {
					return err
				}
				// The service is described with the first policy, as the
				// other commands would describe it.
				if opts.Scenario, err = scenario.with("policy", names[0]); err != nil {
					return err
				}
			}
			if cfg.path != "" {
				if err := auditConfig(f, &scenario, &cfg, opts); err != nil {
					return err
				}
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
	scenario.asText("policy")
	c.Flags().Lookup("policy").Usage = "the policies to audit, comma-separated (default: every textbook policy and every library preset)"
	run.register(c, 100)
	out.register(c)
	registerConfig(c, &cfg, "retry configuration files, comma-separated, whose retry policies join the audit (beside every textbook policy and preset, or beside the policies of --policy): "+config.Formats)
	return c
}

// auditConfig adds the policies of --config to the audit.
func auditConfig(f *factory, scenario *scenarioFlags, cfg *configFlags, opts *auditOptions) error {
	rs, err := readConfig(f.IO, cfg)
	if err != nil {
		return err
	}
	if opts.Policies == nil {
		opts.Policies = study.AuditPolicies(opts.Scenario)
	}
	for _, r := range rs {
		if err := r.NoControls("audit"); err != nil {
			return err
		}
		sc, err := scenario.spec.WithConfigured(r.Policy).Scenario()
		if err != nil {
			return usageError{err}
		}
		if opts.Policies, err = study.AuditWith(opts.Policies, sc.Policy, r.Label()); err != nil {
			return err
		}
	}
	return nil
}

func auditRun(opts *auditOptions) error {
	sc := opts.Scenario
	policies := opts.Policies
	if policies == nil {
		policies = study.AuditPolicies(sc)
	}
	bar := newProgress(opts.IO, "policies", len(policies))
	a, err := study.RunAudit(opts.Ctx, sc, opts.Policies, opts.Run, func(done, _ int) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, p := range policies {
		s := sc
		s.Policy = p
		scs = append(scs, s)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opts.Run.Seed, opts.Run.Trials, montecarlo.Engines(opts.Run.Use, scs...))
	return opts.Output.writeResult(opts.IO, render.Audit{Audit: a, Synchronized: a.Synchronized(), Provenance: opts.Output.Cite})
}
