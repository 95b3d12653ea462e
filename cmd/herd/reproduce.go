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
(` + analysis.SeedSource + `): N = 50, 100, 200 clients, capacity
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

type reproduceResult struct {
	Source     string                    `json:"source"`
	Trials     int                       `json:"trials"`
	Seed       uint64                    `json:"seed"`
	Rows       []analysis.SeedComparison `json:"rows"`
	Agree      int                       `json:"agree"`
	Provenance render.Provenance         `json:"provenance"`
}

func reproduceSeedRun(opts *reproduceSeedOptions) error {
	opt := opts.Run
	bar := newProgress(opts.IO, "scenarios", analysis.SeedRows())
	rows, err := analysis.ReproduceSeed(opts.Ctx, opt, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, r := range rows {
		scs = append(scs, r.Scenario)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opt.Seed, opt.Trials, engines(opt.Use, scs...))
	res := reproduceResult{Source: analysis.SeedSource, Trials: opt.Trials, Seed: opt.Seed, Rows: rows, Provenance: opts.Output.Cite}
	for _, r := range rows {
		if r.Agrees() {
			res.Agree++
		}
	}
	return opts.Output.writeAs(opts.IO, renderers{
		json:     res,
		csv:      func(w io.Writer) error { return reproduceCSV(w, res) },
		markdown: func(w io.Writer) error { return reproduceMarkdown(w, res) },
		table:    func(w io.Writer) error { return reproduceTable(w, res, opts.Output.Width) },
	})
}

func verdict(a stats.Agreement) string {
	if a.Agrees {
		return "agrees"
	}
	return fmt.Sprintf("DIFFERS (z = %.1f)", a.Z)
}

// reproduceHead says what the table compares.
func reproduceHead(r reproduceResult) []string {
	return []string{
		fmt.Sprintf("Seed article, section 5.2, rerun by herd: %d trials per row, seed %d; herd's mean ± half its 95%% interval.", r.Trials, r.Seed),
		"The article's mean and sd over its 30 trials; agreement by a two-sided z test at 99.9% on the difference of means.",
	}
}

// seedRows is the seed table: herd's estimates beside the article's.
func seedRows(r reproduceResult) *render.Table {
	cols := []render.Column{{Name: "N", Right: true}, {Name: "policy"}, {Name: "censored", Right: true}}
	cols = append(cols, render.EstimateColumns("calls", 0)...)
	cols = append(cols, render.Column{Name: "article", Right: true})
	cols = append(cols, render.EstimateColumns("completion (ticks)", 0)...)
	cols = append(cols, render.Column{Name: "article", Right: true}, render.Column{Name: "agreement", Wrap: true})
	t := render.NewTable(cols...)
	article := func(p stats.Published) string {
		return fmt.Sprintf("%s sd %s", render.Number(p.Mean), render.Number(p.SD))
	}
	for _, row := range r.Rows {
		cl, co := row.Calls, row.Completion
		cells := []string{strconv.Itoa(row.Clients), row.Policy, fmt.Sprintf("%d/%d", row.Censored, r.Trials)}
		cells = append(cells, render.EstimateCells(&cl.Estimate)...)
		cells = append(cells, article(cl.Published))
		cells = append(cells, render.EstimateCells(&co.Estimate)...)
		cells = append(cells, article(co.Published), agreement(cl.Agreement, co.Agreement))
		t.Add(cells...)
	}
	return t
}

// agreement is a row's verdict: "agrees", or which of calls and completion
// differ and by how much.
func agreement(calls, completion stats.Agreement) string {
	var differ []string
	if !calls.Agrees {
		differ = append(differ, fmt.Sprintf("calls DIFFER (z = %.1f)", calls.Z))
	}
	if !completion.Agrees {
		differ = append(differ, fmt.Sprintf("completion DIFFERS (z = %.1f)", completion.Z))
	}
	if len(differ) == 0 {
		return "agrees"
	}
	return strings.Join(differ, "; ")
}

func reproduceTable(w io.Writer, r reproduceResult, width int) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceHead(r), "\n"))
	if err := seedRows(r).Text(w, width); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d rows agree with the article on both calls and completion.\n", r.Agree, len(r.Rows))
	return err
}

func reproduceMarkdown(w io.Writer, r reproduceResult) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceHead(r), "\n\n"))
	if err := seedRows(r).Markdown(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d rows agree with the article on both calls and completion.\n", r.Agree, len(r.Rows))
	return err
}

func reproduceCSV(w io.Writer, r reproduceResult) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"clients", "policy", "censored", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "article_mean", "article_sd", "article_n", "z", "agrees"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range r.Rows {
		for _, m := range []struct {
			name string
			c    analysis.Compared
		}{{"calls", row.Calls}, {"completion", row.Completion}} {
			lo, hi := "", ""
			if m.c.CI95 != nil {
				lo, hi = num(m.c.CI95[0]), num(m.c.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(row.Clients), row.Policy, strconv.Itoa(row.Censored), m.name, num(m.c.Mean), num(m.c.SD), strconv.Itoa(m.c.N),
				lo, hi, num(m.c.Published.Mean), num(m.c.Published.SD), strconv.Itoa(m.c.Published.N), num(m.c.Z), strconv.FormatBool(m.c.Agrees)})
		}
	}
	cw.Flush()
	return cw.Error()
}
