package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// Audit is herd audit's result, its JSON document: the ranking, the
type Audit struct {
	study.Audit
	Synchronized []string   `json:"synchronized_presets"`
	Provenance   Provenance `json:"provenance"`
}

// auditHeader says what was audited, how the rows are ranked and what
// synchronized means.
func auditHeader(r Audit) []string {
	h := []string{
		describeHerd(r.Audit) + ".",
		fmt.Sprintf("%d trials per policy, seed %d, common random numbers; times in %s; mean ± half its 95%% interval (~: paired difference not significant).", r.Trials, r.Seed, r.Unit),
		fmt.Sprintf("Ranked by %s. Synchronized: at least %.0f%% of the cohort's first retries fall within one %s window (exact, from the unrounded first delay, so the same at any tick).",
			r.RankedBy, 100*r.SyncThreshold, r.SyncWindow),
	}
	if c := censoredLine(r); c != "" {
		h = append(h, c)
	}
	for _, n := range r.Notes {
		h = append(h, strings.ToUpper(n[:1])+n[1:]+".")
	}
	return h
}

// censoredLine says which rows have censored trials and what that means
// for the ranking, or that none has (the table may then leave out its
// column of zeros to fit the width).
func censoredLine(r Audit) string {
	n := r.CensoredRows()
	if n == 0 {
		return "No trial was censored."
	}
	return fmt.Sprintf("Censored: %d of %d policies have trials still running at the horizon (%s): they rank after every policy without, and their statistics are over the finished trials only, conditional on finishing; a dash means none finished.",
		n, len(r.Rows), horizonText(r.Scenario))
}

// censoredText is a row's censored trials out of all, as the audit's
// formats print it.
func censoredText(row study.AuditRow, trials int) string {
	return fmt.Sprintf("%d/%d", row.Censored, trials)
}

// describeHerd says the audited cohort and server.
func describeHerd(a study.Audit) string {
	sc := a.Scenario
	if sc.InContinuousTime() {
		return fmt.Sprintf("Audit: %d clients fail together, window server admitting %d per %s window (continuous time), round trip %s",
			sc.Clients, sc.Capacity, sc.Window(), sc.Latency)
	}
	return fmt.Sprintf("Audit: %d clients fail together, %s server accepting %d per tick, tick %s, rounding %s",
		sc.Clients, sc.Server, sc.Capacity, sc.Policy.TickLength(), sc.Rounding)
}

// auditRows is the audit's table: one row per policy in rank order.
func auditRows(r Audit) *Table {
	u := r.Unit
	// A column of zeros says less than the line above the table that no
	// trial was censored: then it goes first when the width is short.
	cens := Column{Name: "censored", Right: true}
	if r.CensoredRows() == 0 {
		cens.Drop = 9
	}
	cols := []Column{{Name: "#", Right: true}, {Name: "policy", Code: true}, cens}
	cols = append(cols, EstimateColumns("gave up", 0)...)
	cols = append(cols, EstimateColumns("completion ("+u+")", 0)...)
	cols = append(cols, Column{Name: "Δ completion vs #1 (" + u + ")", Right: true, Drop: 1})
	cols = append(cols, EstimateColumns("calls", 0)...)
	cols = append(cols, EstimateColumns("peak/k after wave 1", 2)...)
	cols = append(cols, Column{Name: "latency p99 (" + u + ")", Right: true, Drop: 3})
	cols = append(cols, Column{Name: fmt.Sprintf("synchronized (first retries in %s)", r.SyncWindow)})
	t := NewTable(cols...)
	for _, row := range r.Rows {
		cells := []string{strconv.Itoa(row.Rank), row.Policy, censoredText(row, r.Trials)}
		cells = append(cells, EstimateCells(row.GaveUp)...)
		cells = append(cells, EstimateCells(row.Completion)...)
		cells = append(cells, Difference(row.VsBest.Completion))
		cells = append(cells, EstimateCells(row.Calls)...)
		cells = append(cells, EstimateCells(row.PeakOverCapacity)...)
		lat := "—"
		if q := row.LatencyP99; q != nil {
			lat = Quantile(*q)
		}
		cells = append(cells, lat, syncText(row))
		t.Add(cells...)
	}
	return t
}

// syncText says whether a policy keeps the cohort synchronized and the
// share of first retries in one window.
func syncText(r study.AuditRow) string {
	if r.Sync == nil {
		return "—"
	}
	yes := "no"
	if r.Synchronized {
		yes = "YES"
	}
	return fmt.Sprintf("%s (%.1f%%)", yes, 100*r.Sync.Mean)
}

// Table writes the audit for a terminal, its table fitted to width (0: no
// limit).
func (r Audit) Table(w io.Writer, width int) error {
	fmt.Fprintln(w, strings.Join(auditHeader(r), "\n"))
	fmt.Fprintln(w)
	if err := auditRows(r).Text(w, width); err != nil {
		return err
	}
	return auditFindings(w, r, "")
}

// auditFindings names the presets that keep the cohort synchronized and
// why, each line after bullet.
func auditFindings(w io.Writer, r Audit, bullet string) error {
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

// Markdown writes the audit as markdown.
func (r Audit) Markdown(w io.Writer) error {
	fmt.Fprintln(w, strings.Join(auditHeader(r), "\n\n"))
	fmt.Fprintln(w)
	if err := auditRows(r).Markdown(w); err != nil {
		return err
	}
	return auditFindings(w, r, "- ")
}

// CSV writes one row per policy and metric.
func (r Audit) CSV(w io.Writer) error {
	a := r.Audit
	cw := csv.NewWriter(w)
	// censored and trials repeat on every row of a policy, so that a row
	// read alone still says how many trials its estimate leaves out.
	cw.Write([]string{"rank", "policy", "preset", "censored", "trials", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "synchronized"})
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
				lo, hi = csvNum(m.e.CI95[0]), csvNum(m.e.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(r.Rank), r.Policy, strconv.FormatBool(r.Preset), strconv.Itoa(r.Censored), strconv.Itoa(a.Trials), m.name, csvNum(m.e.Mean), csvNum(m.e.SD),
				strconv.Itoa(m.e.N), lo, hi, strconv.FormatBool(r.Synchronized)})
		}
		if q := r.LatencyP99; q != nil {
			cw.Write([]string{strconv.Itoa(r.Rank), r.Policy, strconv.FormatBool(r.Preset), strconv.Itoa(r.Censored), strconv.Itoa(a.Trials), "latency_p99", csvNum(q.Value), "", "",
				csvNum(q.CI95[0]), csvNum(q.CI95[1]), strconv.FormatBool(r.Synchronized)})
		}
	}
	cw.Flush()
	return cw.Error()
}
