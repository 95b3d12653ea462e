package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/stats"
)

// Simulation is herd simulate's result for a cohort, its JSON document:
// the summary and the provenance.
type Simulation struct {
	analysis.Summary
	Provenance Provenance `json:"provenance"`
}

// metric is one row of a simulation's table: an estimate, with its
// quantiles for a distribution.
type metric struct {
	name string
	e    *stats.Estimate
	q    map[string]stats.Quantile
}

// metrics are a cohort's rows: calls, completion, latency, the peak, the
// clients that gave up, the queue's statistics.
func metrics(s analysis.Summary) []metric {
	if s.Calls == nil {
		return nil
	}
	unit := s.Scenario.TimeUnit()
	m := []metric{
		{"calls", s.Calls, nil},
		{"completion (" + unit + ")", &s.Completion.Estimate, s.Completion.Quantiles},
	}
	// The OCC server has no ticks, hence no per-tick peak or latency histogram.
	if s.Latency != nil {
		m = append(m, metric{"latency (" + unit + ")", &s.Latency.Estimate, s.Latency.Quantiles})
	}
	if s.Peak != nil {
		// The largest arrivals of one tick, the first wave's included: N
		// in a cohort that starts in one tick.
		m = append(m, metric{"peak arrivals/tick (incl. wave 1)", s.Peak, nil})
	}
	if s.GaveUp != nil && (s.Scenario.Policy.Retries > 0 || s.Scenario.Policy.MaxElapsed > 0) {
		m = append(m, metric{"clients that gave up", s.GaveUp, nil})
	}
	return append(m, queueMetrics(s.Queue)...)
}

// summaryHead says what was run: the scenario, the trials and the engine.
func summaryHead(s analysis.Summary) []string {
	horizon := horizonText(s.Scenario)
	return []string{
		Describe(s.Scenario),
		fmt.Sprintf("%d trials, seed %d, %d censored (%s); %s, times in %s; mean ± half its 95%% interval, quantiles [95%% interval]", s.Trials, s.Seed, s.Censored, horizon, timeModelText(s.Scenario), s.Scenario.TimeUnit()),
		fmt.Sprintf("engine: %s (%s)", s.Engine.Engine, s.Engine.Reason),
	}
}

// Table writes the simulation for a terminal, its table fitted to width
// (0: no limit).
func (r Simulation) Table(w io.Writer, width int) error {
	return metricTable(w, summaryHead(r.Summary), metrics(r.Summary), r.Warnings, width)
}

// Markdown writes the simulation as markdown.
func (r Simulation) Markdown(w io.Writer) error {
	return metricMarkdown(w, summaryHead(r.Summary), metrics(r.Summary), r.Warnings)
}

// metricRows is one row per metric — mean ± half its 95% interval, sd,
// and the reported quantiles with their intervals.
func metricRows(ms []metric) *Table {
	cols := append([]Column{{Name: "metric", Wrap: true}}, EstimateColumns("mean", 0)...)
	cols[2].Name = "± 95% CI"
	t := NewTable(append(cols, Column{Name: "sd", Right: true, Drop: 4})...)
	for i, p := range stats.Percentiles {
		t.AddColumns(Column{Name: p.Name + " [95% CI]", Right: true, Drop: 3 - i})
	}
	for _, m := range ms {
		row := append(append([]string{m.name}, EstimateCells(m.e)...), Number(m.e.SD))
		for _, p := range stats.Percentiles {
			cell := ""
			if q, ok := m.q[p.Name]; ok {
				cell = Quantile(q)
			}
			row = append(row, cell)
		}
		t.Add(row...)
	}
	return t
}

// metricTable writes the head's lines, the metrics' table, then the
// warnings.
func metricTable(w io.Writer, head []string, ms []metric, warnings []string, width int) error {
	fmt.Fprintln(w, strings.Join(head, "\n"))
	fmt.Fprintln(w)
	if err := metricRows(ms).Text(w, width); err != nil {
		return err
	}
	for _, warn := range warnings {
		fmt.Fprintln(w, "\nwarning: "+warn)
	}
	return nil
}

// metricMarkdown writes the head's lines as paragraphs, the metrics'
// table in markdown, then the warnings.
func metricMarkdown(w io.Writer, head []string, ms []metric, warnings []string) error {
	fmt.Fprintln(w, strings.Join(head, "\n\n"))
	fmt.Fprintln(w)
	if err := metricRows(ms).Markdown(w); err != nil {
		return err
	}
	for _, warn := range warnings {
		fmt.Fprintln(w, "\n**Warning:** "+MarkdownCell(warn))
	}
	return nil
}

// runColumns head every row of a simulation's CSV, so that rows of several
// runs pasted together still say which run they come from.
var runColumns = []string{"scenario", "policy", "seed", "trials"}

func runCells(sc model.Scenario, seed uint64, trials int) []string {
	return []string{Brief(sc), string(sc.Policy.Kind), strconv.FormatUint(seed, 10), strconv.Itoa(trials)}
}

// CSV writes one row per metric, each headed by the run's columns.
func (r Simulation) CSV(w io.Writer) error {
	s := r.Summary
	cw := csv.NewWriter(w)
	head := append(append([]string(nil), runColumns...), "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi")
	for _, p := range stats.Percentiles {
		head = append(head, p.Name, p.Name+"_ci95_lo", p.Name+"_ci95_hi")
	}
	cw.Write(head)
	// The censored trials, which every metric below leaves out (n counts
	// the trials it is over).
	cens := []string{"censored trials", strconv.Itoa(s.Censored), "", strconv.Itoa(s.Trials), "", ""}
	for range stats.Percentiles {
		cens = append(cens, "", "", "")
	}
	cw.Write(cens)
	for _, m := range metrics(s) {
		row := append(runCells(s.Scenario, s.Seed, s.Trials), m.name, csvNum(m.e.Mean), csvNum(m.e.SD), strconv.Itoa(m.e.N), csvNum(m.e.CI95[0]), csvNum(m.e.CI95[1]))
		for _, p := range stats.Percentiles {
			if q, ok := m.q[p.Name]; ok {
				row = append(row, csvNum(q.Value), csvNum(q.CI95[0]), csvNum(q.CI95[1]))
			} else {
				row = append(row, "", "", "")
			}
		}
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// queueMetrics are the rows of the queue server's statistics.
func queueMetrics(q *analysis.QueueStats) []metric {
	if q == nil {
		return nil
	}
	m := []metric{
		{"goodput (useful completions/tick)", &q.Goodput, nil},
		{"useful completions", &q.Useful, nil},
		{"wasted work (abandoned requests served)", &q.Wasted, nil},
		{"wasted share of completions", &q.WastedShare, nil},
		{"attempts timed out", &q.TimedOut, nil},
		{"sends rejected (queue full)", &q.Rejected, nil},
		{"peak queue", &q.PeakQueue, nil},
	}
	if r := q.Response; r != nil {
		m = append(m, metric{"response time (ticks, successes)", &r.Estimate, r.Quantiles})
	}
	if l := q.Latency; l != nil {
		m = append(m, metric{"latency (ticks, served requests)", &l.Estimate, l.Quantiles})
	}
	return m
}

// csvNum is a number in a CSV cell: every digit, for programs.
func csvNum(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
