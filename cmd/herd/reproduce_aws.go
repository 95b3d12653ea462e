package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/stats"
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
Backoff And Jitter" (` + analysis.AWSSource + `):
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

type reproduceAWSResult struct {
	Source     string            `json:"source"`
	Trials     int               `json:"trials"`
	Seed       uint64            `json:"seed"`
	Unit       string            `json:"unit"` // of completion
	Rows       []analysis.AWSRow `json:"rows"`
	Provenance render.Provenance `json:"provenance"`
}

func reproduceAWSRun(opts *reproduceAWSOptions) error {
	opt := opts.Run
	clients, kinds := model.AWSClients(), model.AWSKinds()
	bar := newProgress(opts.IO, "scenarios", len(clients)*len(kinds))
	rows, err := analysis.ReproduceAWS(opts.Ctx, clients, kinds, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, r := range rows {
		scs = append(scs, r.Scenario)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, engines(opt.Use, scs...))
	res := reproduceAWSResult{Source: analysis.AWSSource, Trials: opt.Trials, Seed: opt.Seed, Unit: "ms", Rows: rows, Provenance: opts.Output.Cite}
	return opts.Output.writeAs(opts.IO, renderers{
		json:     res,
		csv:      func(w io.Writer) error { return reproduceAWSCSV(w, res) },
		markdown: func(w io.Writer) error { return reproduceAWSMarkdown(w, res) },
		table:    func(w io.Writer) error { return reproduceAWSTable(w, res, opts.Output.Width) },
	})
}

func reproduceAWSHead(r reproduceAWSResult) []string {
	return []string{
		fmt.Sprintf("AWS Architecture Blog OCC simulation, rerun by herd: %d trials per row, seed %d; mean ± half its 95%% interval.", r.Trials, r.Seed),
		"Hops |Normal(10, 2)| ms, base 5 ms, cap 2000 ms; calls count writes; time in ms.",
	}
}

func awsRows(r reproduceAWSResult) *render.Table {
	cols := []render.Column{{Name: "N", Right: true}, {Name: "policy"}, {Name: "censored", Right: true}}
	cols = append(cols, render.EstimateColumns("calls (writes)", 0)...)
	t := render.NewTable(append(cols, render.EstimateColumns("time (ms)", 0)...)...)
	for _, row := range r.Rows {
		cells := append([]string{strconv.Itoa(row.Clients), row.Policy, fmt.Sprintf("%d/%d", row.Censored, r.Trials)}, render.EstimateCells(&row.Calls)...)
		t.Add(append(cells, render.EstimateCells(&row.Completion.Estimate)...)...)
	}
	return t
}

func reproduceAWSTable(w io.Writer, r reproduceAWSResult, width int) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceAWSHead(r), "\n"))
	return awsRows(r).Text(w, width)
}

func reproduceAWSMarkdown(w io.Writer, r reproduceAWSResult) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceAWSHead(r), "\n\n"))
	return awsRows(r).Markdown(w)
}

func reproduceAWSCSV(w io.Writer, r reproduceAWSResult) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"clients", "policy", "censored", "metric", "unit", "mean", "sd", "n", "ci95_lo", "ci95_hi"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range r.Rows {
		for _, m := range []struct {
			name, unit string
			e          stats.Estimate
		}{{"calls", "writes", row.Calls}, {"completion", "ms", row.Completion.Estimate}} {
			lo, hi := "", ""
			if m.e.CI95 != nil {
				lo, hi = num(m.e.CI95[0]), num(m.e.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(row.Clients), row.Policy, strconv.Itoa(row.Censored), m.name, m.unit, num(m.e.Mean), num(m.e.SD), strconv.Itoa(m.e.N), lo, hi})
		}
	}
	cw.Flush()
	return cw.Error()
}
