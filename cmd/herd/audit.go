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

type auditResult struct {
	analysis.Audit
	Synchronized []string          `json:"synchronized_presets"`
	Provenance   render.Provenance `json:"provenance"`
}

func auditRun(opts *auditOptions) error {
	sc := opts.Scenario
	bar := newProgress(opts.IO, "policies", len(analysis.AuditPolicies(sc)))
	a, err := analysis.RunAudit(opts.Ctx, sc, opts.Run, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	var scs []model.Scenario
	for _, p := range analysis.AuditPolicies(sc) {
		s := sc
		s.Policy = p
		scs = append(scs, s)
	}
	opts.Output.Cite = opts.Output.Cite.WithRun(opts.Run.Seed, opts.Run.Trials, engines(opts.Run.Use, scs...))
	res := auditResult{a, a.Synchronized(), opts.Output.Cite}
	return opts.Output.writeAs(opts.IO, renderers{
		json:     res,
		csv:      func(w io.Writer) error { return auditCSV(w, a) },
		markdown: func(w io.Writer) error { return auditMarkdown(w, res) },
		table:    func(w io.Writer) error { return auditTable(w, res, opts.Output.Width) },
	})
}

func auditHeader(r auditResult) []string {
	h := []string{
		describeHerd(r.Audit) + ".",
		fmt.Sprintf("%d trials per policy, seed %d, common random numbers; times in %s; mean ± half its 95%% interval (~: paired difference not significant).", r.Trials, r.Seed, r.Unit),
		fmt.Sprintf("Ranked by %s. Synchronized: at least %.0f%% of the cohort's first retries fall within one %s window (exact, from the unrounded first delay, so the same at any tick).",
			r.RankedBy, 100*r.SyncThreshold, r.SyncWindow),
	}
	if c := censoredLine(r); c != "" {
		h = append(h, c)
	}
	return h
}

// censoredLine says which rows have censored trials and what that means
// for the ranking, or that none has (the table may then leave out its
// column of zeros to fit the width).
func censoredLine(r auditResult) string {
	n := r.CensoredRows()
	if n == 0 {
		return "No trial was censored."
	}
	return fmt.Sprintf("Censored: %d of %d policies have trials still running at the horizon (%s): they rank after every policy without, and their statistics are over the finished trials only, conditional on finishing; a dash means none finished.",
		n, len(r.Rows), horizonText(r.Scenario))
}

// censoredText is a row's censored trials out of all, as the audit's
// formats print it.
func censoredText(row analysis.AuditRow, trials int) string {
	return fmt.Sprintf("%d/%d", row.Censored, trials)
}

func describeHerd(a analysis.Audit) string {
	sc := a.Scenario
	return fmt.Sprintf("Audit: %d clients fail together, %s server accepting %d per tick, tick %s, rounding %s",
		sc.Clients, sc.Server, sc.Capacity, sc.Policy.TickLength(), sc.Rounding)
}

// auditRows is the audit's table: one row per policy in rank order.
func auditRows(r auditResult) *render.Table {
	u := r.Unit
	// A column of zeros says less than the line above the table that no
	// trial was censored: then it goes first when the width is short.
	cens := render.Column{Name: "censored", Right: true}
	if r.CensoredRows() == 0 {
		cens.Drop = 9
	}
	cols := []render.Column{{Name: "#", Right: true}, {Name: "policy", Code: true}, cens}
	cols = append(cols, render.EstimateColumns("gave up", 0)...)
	cols = append(cols, render.EstimateColumns("completion ("+u+")", 0)...)
	cols = append(cols, render.Column{Name: "Δ completion vs #1 (" + u + ")", Right: true, Drop: 1})
	cols = append(cols, render.EstimateColumns("calls", 0)...)
	cols = append(cols, render.EstimateColumns("peak/k after wave 1", 2)...)
	cols = append(cols, render.Column{Name: "latency p99 (" + u + ")", Right: true, Drop: 3})
	cols = append(cols, render.Column{Name: fmt.Sprintf("synchronized (first retries in %s)", r.SyncWindow)})
	t := render.NewTable(cols...)
	for _, row := range r.Rows {
		cells := []string{strconv.Itoa(row.Rank), row.Policy, censoredText(row, r.Trials)}
		cells = append(cells, render.EstimateCells(row.GaveUp)...)
		cells = append(cells, render.EstimateCells(row.Completion)...)
		cells = append(cells, render.Difference(row.VsBest.Completion))
		cells = append(cells, render.EstimateCells(row.Calls)...)
		cells = append(cells, render.EstimateCells(row.PeakOverCapacity)...)
		lat := "—"
		if q := row.LatencyP99; q != nil {
			lat = render.Quantile(*q)
		}
		cells = append(cells, lat, syncText(row))
		t.Add(cells...)
	}
	return t
}

// syncText says whether a policy keeps the cohort synchronized and the
// share of first retries in one window.
func syncText(r analysis.AuditRow) string {
	if r.Sync == nil {
		return "—"
	}
	yes := "no"
	if r.Synchronized {
		yes = "YES"
	}
	return fmt.Sprintf("%s (%.1f%%)", yes, 100*r.Sync.Mean)
}

func auditTable(w io.Writer, r auditResult, width int) error {
	fmt.Fprintln(w, strings.Join(auditHeader(r), "\n"))
	fmt.Fprintln(w)
	if err := auditRows(r).Text(w, width); err != nil {
		return err
	}
	return auditFindings(w, r, "")
}

func auditFindings(w io.Writer, r auditResult, bullet string) error {
	fmt.Fprintln(w)
	if len(r.Synchronized) == 0 {
		_, err := fmt.Fprintln(w, "No preset keeps clients synchronized on this scenario.")
		return err
	}
	fmt.Fprintf(w, "Presets that keep clients synchronized (%d): %s\n", len(r.Synchronized), strings.Join(r.Synchronized, ", "))
	for _, row := range r.Rows {
		if row.Preset && row.Synchronized && row.Why != "" {
			fmt.Fprintf(w, "%s%s: %s\n", bullet, row.Policy, row.Why)
		}
	}
	return nil
}

func auditMarkdown(w io.Writer, r auditResult) error {
	fmt.Fprintln(w, strings.Join(auditHeader(r), "\n\n"))
	fmt.Fprintln(w)
	if err := auditRows(r).Markdown(w); err != nil {
		return err
	}
	return auditFindings(w, r, "- ")
}

func auditCSV(w io.Writer, a analysis.Audit) error {
	cw := csv.NewWriter(w)
	// censored and trials repeat on every row of a policy, so that a row
	// read alone still says how many trials its estimate leaves out.
	cw.Write([]string{"rank", "policy", "preset", "censored", "trials", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "synchronized"})
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, r := range a.Rows {
		// Every policy has this row, those with no finished trial too.
		cw.Write([]string{strconv.Itoa(r.Rank), r.Policy, strconv.FormatBool(r.Preset), strconv.Itoa(r.Censored), strconv.Itoa(a.Trials), "finished_trials",
			strconv.Itoa(a.Trials - r.Censored), "", "", "", "", strconv.FormatBool(r.Synchronized)})
		for _, m := range []struct {
			name string
			e    *stats.Estimate
		}{{"gave_up", r.GaveUp}, {"completion", r.Completion}, {"calls", r.Calls}, {"retry_peak", r.RetryPeak},
			{"peak_over_capacity", r.PeakOverCapacity}, {"sync", r.Sync},
			{"completion_vs_best", &r.VsBest.Completion.Estimate}, {"calls_vs_best", &r.VsBest.Calls.Estimate}} {
			if m.e == nil {
				continue
			}
			lo, hi := "", ""
			if m.e.CI95 != nil {
				lo, hi = num(m.e.CI95[0]), num(m.e.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(r.Rank), r.Policy, strconv.FormatBool(r.Preset), strconv.Itoa(r.Censored), strconv.Itoa(a.Trials), m.name, num(m.e.Mean), num(m.e.SD),
				strconv.Itoa(m.e.N), lo, hi, strconv.FormatBool(r.Synchronized)})
		}
		if q := r.LatencyP99; q != nil {
			cw.Write([]string{strconv.Itoa(r.Rank), r.Policy, strconv.FormatBool(r.Preset), strconv.Itoa(r.Censored), strconv.Itoa(a.Trials), "latency_p99", num(q.Value), "", "",
				num(q.CI95[0]), num(q.CI95[1]), strconv.FormatBool(r.Synchronized)})
		}
	}
	cw.Flush()
	return cw.Error()
}
