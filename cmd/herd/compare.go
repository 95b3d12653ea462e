package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/config"
	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/internal/usage"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/plots"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
)

// compareOptions are what herd compare's flags said.
type compareOptions struct {
	IO  *iostreams
	Ctx context.Context
	// Labels name the policies; Scenarios are the service under each.
	Labels    []string
	Scenarios []model.Scenario
	Run       montecarlo.Options
	// Dir is the directory written; Force replaces one that holds files.
	Dir   string
	Force bool
	Cite  render.Provenance
}

func newCmdCompare(f *factory, runF func(*compareOptions) error) *cobra.Command {
	opts := &compareOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		run      runFlags
		policies string
		cfg      configFlags
	)
	c := &cobra.Command{
		Use:   "compare",
		Short: "Compare retry policies on your own service, in real units, into a report directory",
		Long: `compare plays one thundering herd on your service — --clients that fail
together, and a limiter given per window (-k 50/100ms, -k 500/s), played in
continuous time with that window; or a server in ticks of a real length
(-k 200/s --tick 10ms, default tick 1s) — under two or more policies or
library presets, all on common random numbers: trial i of every policy draws
from the same random stream, so the differences between policies are
measured trial by trial (paired), with 95% Student-t intervals. Clients that
gave up are never counted as served: where some did, the verdicts give the
calls per served client and the last served client's completion.

Give the policies as a list (--policy full,cenkalti-v4, or with their own
fields: --policy 'retry-go-v4,full:base=100ms,cap=10s,retries=9') that
shares the scenario flags (--base and --cap in ticks or as durations,
--retries, --max-elapsed), or as a YAML file (--policies FILE) that gives
each its own parameters:

  policies:
    - policy: full
      cap: 64          # ticks, or a duration such as 640ms (converted with --tick)
    - policy: equal
      base: 20ms
      label: equal, 20 ms base
    - policy: cenkalti-v4  # a preset: its library's own delays and limits

compare writes one directory (--out DIR, refused when it holds files unless
--force; written whole or not at all): report.md (the scenario, a table of
calls, completion, latency quantiles, clients that gave up and censored
trials per policy, the paired differences with their intervals and a verdict
per pair in words, "not significant" where the interval holds 0),
figure.svg and figure.png (the arrival rate over time against the capacity,
and the distribution of completion, per policy), compare.json (the numbers
behind both), each with the cite line. The same command gives the same bytes.`,
		Example: `  herd compare -n 2000 -k 50/100ms --policy retry-go-v4,full:base=100ms,cap=10s,retries=9 --out review
  herd compare -n 1000 -k 100/s --tick 10ms --policy full,cenkalti-v4 --out review
  herd compare -n 5000 -k 200/s --tick 5ms --policies policies.yaml --trials 2000 --out review --force
  herd compare -n 2000 -k 50/100ms --config service-config.json,envoy.yaml --out review`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			var err error
			if opts.Run, err = run.options(); err != nil {
				return err
			}
			if scenario.changed("tick") {
				if d, err := time.ParseDuration(scenario.text("tick")); err == nil && d <= 0 {
					return usageError{fmt.Errorf("--tick must be a positive duration such as 10ms (a comparison is in real units), got %s", scenario.text("tick"))}
				}
			}
			spec, err := scenario.spec, error(nil)
			var entries []config.PolicyEntry
			switch {
			case cfg.path != "" && (policies != "" || scenario.changed("policy")):
				return usageError{fmt.Errorf("give the policies by --config, --policy or --policies, one of them")}
			case cfg.path != "":
				rs, err := readConfig(f.IO, &cfg)
				if err != nil {
					return err
				}
				for _, r := range rs {
					if err := r.NoControls("compare"); err != nil {
						return err
					}
					entries = append(entries, config.PolicyEntry{Label: r.Label(), Configured: r.Policy})
				}
			case policies != "" && scenario.changed("policy"):
				return usageError{fmt.Errorf("give the policies either by --policy or by --policies FILE, not both")}
			case policies != "":
				if entries, err = config.ReadPolicies(policies); err != nil {
					return usageError{err}
				}
			default:
				for _, name := range model.SplitPolicies(scenario.text("policy")) {
					entries = append(entries, config.PolicyEntry{Fields: [][2]string{{"policy", strings.TrimSpace(name)}}})
				}
			}
			if opts.Labels, opts.Scenarios, err = config.ComparedScenarios(spec, entries); err != nil {
				return usageError{err}
			}
			// The values given are checked before what was not given.
			if opts.Dir == "" {
				return usage.Need("--out DIR, the directory to write (new or empty, or any with --force)")
			}
			if err := outfile.CheckDir(opts.Dir, opts.Force); err != nil {
				return err
			}
			scenario.warn(f.IO, opts.Scenarios[0])
			opts.Cite = f.provenance()
			// The directory written and --force change nothing in the results,
			// so the same comparison written anywhere has the same bytes.
			opts.Cite.Command = render.CommandLine(render.CitedArgs(f.Args, map[string]string{"out": "DIR"}, "force"))
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	scenario.register(c)
	c.Flags().Lookup("policy").Usage = "the policies to compare, comma-separated: " + strings.Join(policy.Names(policy.Kinds()), "|") + " or library presets (see herd presets); at least two"
	scenario.asText("policy")
	_ = c.Flags().Set("policy", "full,equal")
	c.Flags().Lookup("policy").Changed = false
	c.Flags().Lookup("policy").DefValue = "full,equal"
	c.Flags().Lookup("tick").Usage = "real length of one tick, shared by every policy, e.g. 10ms (default 1s)"
	c.Flags().StringVar(&policies, "policies", "", "YAML file listing the policies with their parameters (instead of --policy)")
	registerConfig(c, &cfg, "retry configuration files to compare, comma-separated (a.json,b.yaml), instead of --policy: each retry policy they hold is one policy of the comparison, labelled by its file (and method, instance or profile); "+config.Formats)
	run.register(c, 1000)
	c.Flags().StringVar(&opts.Dir, "out", "", "directory to write: report.md, figure.svg, figure.png, compare.json (new or empty; any with --force)")
	c.Flags().BoolVar(&opts.Force, "force", false, "replace the --out directory even if it holds files")
	return c
}

// compareRun plays the comparison and writes its directory.
func compareRun(opts *compareOptions) error {
	bar := newProgress(opts.IO, "policies", len(opts.Scenarios))
	c, err := analysis.ComparePolicies(opts.Ctx, opts.Labels, opts.Scenarios, opts.Run, func(done, _ int) { bar.Set(done) })
	bar.Finish()
	if err != nil {
		return err
	}
	engine := montecarlo.Engines(opts.Run.Use, opts.Scenarios...)
	cite := opts.Cite.WithRun(opts.Run.Seed, opts.Run.Trials, engine)
	r := render.NewCompareReport(c, opts.Scenarios[0], cite)
	files, err := compareDir(r)
	if err = errors.Join(err, opts.Ctx.Err()); err != nil { // nothing is written once interrupted
		return err
	}
	if err := outfile.WriteDir(opts.Dir, files, opts.Force); err != nil {
		return err
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s: %s, %s, %s, %s\n", opts.Dir, render.CompareFiles.Report, render.CompareFiles.SVG, render.CompareFiles.PNG, render.CompareFiles.Data)
	for _, p := range r.Pairs {
		fmt.Fprintf(opts.IO.Out, "%s vs %s: %s\n", p.A, p.B, p.Verdict)
	}
	return nil
}

// compareDir renders the directory's files.
func compareDir(r *render.CompareReport) (map[string][]byte, error) {
	var md bytes.Buffer
	if err := r.Markdown(&md); err != nil {
		return nil, err
	}
	var js bytes.Buffer
	if err := render.JSON(&js, r); err != nil {
		return nil, err
	}
	d, err := plots.ServiceComparison(r.Comparison, r.Unit, r.PerTick, r.Service.Capacity, "Cite: "+r.Provenance.Cite)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{render.CompareFiles.Report: md.Bytes(), render.CompareFiles.Data: js.Bytes()}
	for name, format := range map[string]string{render.CompareFiles.SVG: "svg", render.CompareFiles.PNG: "png"} {
		b, err := d.Render(format)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}
