package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/stats"
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
(` + analysis.BrookerSource + `), the source of the numbers
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

type reproduceBrookerResult struct {
	Source     string                       `json:"source"`
	Commit     string                       `json:"commit"`
	Command    string                       `json:"his_command"`
	Date       string                       `json:"his_date"`
	HisRuns    [2]int                       `json:"his_seeds"`
	Trials     int                          `json:"trials"`
	Seed       uint64                       `json:"seed"`
	Level      float64                      `json:"level"`
	Compared   int                          `json:"comparisons"`
	Agree      int                          `json:"agree"`
	Rows       []analysis.BrookerComparison `json:"rows"`
	Provenance render.Provenance            `json:"provenance"`
}

func reproduceBrookerRun(opts *reproduceBrookerOptions) error {
	opt := opts.Run
	rec, err := analysis.Brooker()
	if err != nil {
		return err
	}
	bar := newProgress(opts.IO, "rows", len(rec.Reproduced()))
	r, err := analysis.ReproduceBrooker(opts.Ctx, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	res := reproduceBrookerResult{Source: rec.Source, Commit: rec.Commit, Command: rec.Command, Date: rec.Date, HisRuns: rec.Seeds,
		Trials: opt.Trials, Seed: opt.Seed, Level: r.Level, Compared: r.Comparisons, Agree: r.Agree, Rows: r.Rows, Provenance: opts.Output.Cite}
	return opts.Output.writeAs(opts.IO, renderers{
		json:  res,
		csv:   func(w io.Writer) error { return reproduceBrookerCSV(w, res) },
		table: func(w io.Writer) error { return reproduceBrookerTable(w, res) },
	})
}

func brookerAgrees(a stats.Agreement) string {
	if a.Agrees {
		return "agrees"
	}
	return fmt.Sprintf("DIFFERS (t = %.1f)", a.Z)
}

func reproduceBrookerTable(w io.Writer, r reproduceBrookerResult) error {
	fmt.Fprintf(w, "Brooker's retry_sim (%s @ %.7s), rerun by herd: %d trials per row, seed %d, 95%% CIs.\n", r.Source, r.Commit, r.Trials, r.Seed)
	fmt.Fprintf(w, "His values: mean ± sd over his runs with seeds %d…%d (%s). Agreement: two-sample t test, pooled variance, at %.4g%% (Bonferroni over %d comparisons).\n\n",
		r.HisRuns[0], r.HisRuns[1], r.Date, 100*r.Level, r.Compared)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "experiment\tclients\tp\tstrategy\tload (herd)\t95% CI\this\t\tpublished\tsuccess (herd)\t95% CI\this\t\tpublished")
	pub := func(x *float64) string {
		if x == nil {
			return ""
		}
		return fmt.Sprintf("%.3f", *x)
	}
	for _, row := range r.Rows {
		l, s := row.Load, row.Success
		var pl, ps string
		if p := row.Published; p != nil {
			pl, ps = pub(p.Load), pub(p.Success)
		}
		fmt.Fprintf(tw, "%s\t%d\t%g\t%s\t%.4f\t%s\t%.4f ± %.4f\t%s\t%s\t%.4f\t%s\t%.4f ± %.4f\t%s\t%s\n",
			row.Experiment, row.Clients, row.FailureRate, row.Name,
			l.Mean, render.Interval(l.CI95), l.Published.Mean, l.Published.SD, brookerAgrees(l.Agreement), pl,
			s.Mean, render.Interval(s.CI95), s.Published.Mean, s.Published.SD, brookerAgrees(s.Agreement), ps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d comparisons agree with his simulator.\n", r.Agree, r.Compared)
	return err
}

func reproduceBrookerCSV(w io.Writer, r reproduceBrookerResult) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "name", "clients", "failure_rate", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "his_mean", "his_sd", "his_runs", "z", "agrees"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range r.Rows {
		for _, m := range []struct {
			name string
			c    analysis.Compared
		}{{"load", row.Load}, {"success", row.Success}} {
			lo, hi := "", ""
			if m.c.CI95 != nil {
				lo, hi = num(m.c.CI95[0]), num(m.c.CI95[1])
			}
			cw.Write([]string{row.Experiment, row.Name, strconv.Itoa(row.Clients), num(row.FailureRate), m.name, num(m.c.Mean), num(m.c.SD), strconv.Itoa(m.c.N),
				lo, hi, num(m.c.Published.Mean), num(m.c.Published.SD), strconv.Itoa(m.c.Published.N), num(m.c.Z), strconv.FormatBool(m.c.Agrees)})
		}
	}
	cw.Flush()
	return cw.Error()
}
