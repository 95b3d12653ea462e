package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
)

// SeedReproduction is herd reproduce seed's result, its JSON document:
// herd's estimates beside the seed article's table.
type SeedReproduction struct {
	Source     string                     `json:"source"`
	Trials     int                        `json:"trials"`
	Seed       uint64                     `json:"seed"`
	Rows       []reproduce.SeedComparison `json:"rows"`
	Agree      int                        `json:"agree"`
	Provenance Provenance                 `json:"provenance"`
}

// reproduceHead says what the table compares.
func reproduceHead(r SeedReproduction) []string {
	return []string{
		fmt.Sprintf("Seed article, section 5.2, rerun by herd: %d trials per row, seed %d; herd's mean ± half its 95%% interval.", r.Trials, r.Seed),
		"The article's mean and sd over its 30 trials; agreement by a two-sided z test at 99.9% on the difference of means.",
	}
}

// seedRows is the seed table: herd's estimates beside the article's.
func seedRows(r SeedReproduction) *Table {
	cols := []Column{{Name: "N", Right: true}, {Name: "policy"}, {Name: "censored", Right: true}}
	cols = append(cols, EstimateColumns("calls", 0)...)
	cols = append(cols, Column{Name: "article", Right: true})
	cols = append(cols, EstimateColumns("completion (ticks)", 0)...)
	cols = append(cols, Column{Name: "article", Right: true}, Column{Name: "agreement", Wrap: true})
	t := NewTable(cols...)
	article := func(p stats.Published) string {
		return fmt.Sprintf("%s sd %s", Number(p.Mean), Number(p.SD))
	}
	for _, row := range r.Rows {
		cl, co := row.Calls, row.Completion
		cells := []string{strconv.Itoa(row.Clients), row.Policy, fmt.Sprintf("%d/%d", row.Censored, r.Trials)}
		cells = append(cells, EstimateCells(&cl.Estimate)...)
		cells = append(cells, article(cl.Published))
		cells = append(cells, EstimateCells(&co.Estimate)...)
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

// Table writes the comparison for a terminal, fitted to width (0: no
// limit).
func (r SeedReproduction) Table(w io.Writer, width int) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceHead(r), "\n"))
	if err := seedRows(r).Text(w, width); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d rows agree with the article on both calls and completion.\n", r.Agree, len(r.Rows))
	return err
}

// Markdown writes the comparison as markdown.
func (r SeedReproduction) Markdown(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceHead(r), "\n\n"))
	if err := seedRows(r).Markdown(w); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d rows agree with the article on both calls and completion.\n", r.Agree, len(r.Rows))
	return err
}

// CSV writes one row per scenario and metric, the article's values beside
// herd's.
func (r SeedReproduction) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"clients", "policy", "censored", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "article_mean", "article_sd", "article_n", "z", "agrees"})
	for _, row := range r.Rows {
		for _, m := range []struct {
			name string
			c    reproduce.Compared
		}{{"calls", row.Calls}, {"completion", row.Completion}} {
			lo, hi := "", ""
			if m.c.CI95 != nil {
				lo, hi = csvNum(m.c.CI95[0]), csvNum(m.c.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(row.Clients), row.Policy, strconv.Itoa(row.Censored), m.name, csvNum(m.c.Mean), csvNum(m.c.SD), strconv.Itoa(m.c.N),
				lo, hi, csvNum(m.c.Published.Mean), csvNum(m.c.Published.SD), strconv.Itoa(m.c.Published.N), csvNum(m.c.Z), strconv.FormatBool(m.c.Agrees)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// AWSReproduction is herd reproduce aws's result, its JSON document.
type AWSReproduction struct {
	Source     string             `json:"source"`
	Trials     int                `json:"trials"`
	Seed       uint64             `json:"seed"`
	Unit       string             `json:"unit"` // of completion
	Rows       []reproduce.AWSRow `json:"rows"`
	Provenance Provenance         `json:"provenance"`
}

// reproduceAWSHead says what was rerun.
func reproduceAWSHead(r AWSReproduction) []string {
	return []string{
		fmt.Sprintf("AWS Architecture Blog OCC simulation, rerun by herd: %d trials per row, seed %d; mean ± half its 95%% interval.", r.Trials, r.Seed),
		"Hops |Normal(10, 2)| ms, base 5 ms, cap 2000 ms; calls count writes; time in ms.",
	}
}

// awsRows is the AWS table: calls and time per client count and policy.
func awsRows(r AWSReproduction) *Table {
	cols := []Column{{Name: "N", Right: true}, {Name: "policy"}, {Name: "censored", Right: true}}
	cols = append(cols, EstimateColumns("calls (writes)", 0)...)
	t := NewTable(append(cols, EstimateColumns("time (ms)", 0)...)...)
	for _, row := range r.Rows {
		cells := append([]string{strconv.Itoa(row.Clients), row.Policy, fmt.Sprintf("%d/%d", row.Censored, r.Trials)}, EstimateCells(&row.Calls)...)
		t.Add(append(cells, EstimateCells(&row.Completion.Estimate)...)...)
	}
	return t
}

// Table writes the rerun for a terminal, fitted to width (0: no limit).
func (r AWSReproduction) Table(w io.Writer, width int) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceAWSHead(r), "\n"))
	return awsRows(r).Text(w, width)
}

// Markdown writes the rerun as markdown.
func (r AWSReproduction) Markdown(w io.Writer) error {
	fmt.Fprintf(w, "%s\n\n", strings.Join(reproduceAWSHead(r), "\n\n"))
	return awsRows(r).Markdown(w)
}

// CSV writes one row per scenario and metric.
func (r AWSReproduction) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"clients", "policy", "censored", "metric", "unit", "mean", "sd", "n", "ci95_lo", "ci95_hi"})
	for _, row := range r.Rows {
		for _, m := range []struct {
			name, unit string
			e          stats.Estimate
		}{{"calls", "writes", row.Calls}, {"completion", "ms", row.Completion.Estimate}} {
			lo, hi := "", ""
			if m.e.CI95 != nil {
				lo, hi = csvNum(m.e.CI95[0]), csvNum(m.e.CI95[1])
			}
			cw.Write([]string{strconv.Itoa(row.Clients), row.Policy, strconv.Itoa(row.Censored), m.name, m.unit, csvNum(m.e.Mean), csvNum(m.e.SD), strconv.Itoa(m.e.N), lo, hi})
		}
	}
	cw.Flush()
	return cw.Error()
}

// BrookerReproduction is herd reproduce brooker's result, its JSON
// document: herd's values beside his simulator's.
type BrookerReproduction struct {
	Source     string                        `json:"source"`
	Commit     string                        `json:"commit"`
	Command    string                        `json:"his_command"`
	Date       string                        `json:"his_date"`
	HisRuns    [2]int                        `json:"his_seeds"`
	Trials     int                           `json:"trials"`
	Seed       uint64                        `json:"seed"`
	Level      float64                       `json:"level"`
	Compared   int                           `json:"comparisons"`
	Agree      int                           `json:"agree"`
	Rows       []reproduce.BrookerComparison `json:"rows"`
	Provenance Provenance                    `json:"provenance"`
}

// brookerAgrees is a comparison's verdict by the t test.
func brookerAgrees(a stats.Agreement) string {
	if a.Agrees {
		return "agrees"
	}
	return fmt.Sprintf("DIFFERS (t = %.1f)", a.Z)
}

// Table writes the comparison for a terminal; its columns are aligned,
// not fitted to width.
func (r BrookerReproduction) Table(w io.Writer, _ int) error {
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
			l.Mean, Interval(l.CI95), l.Published.Mean, l.Published.SD, brookerAgrees(l.Agreement), pl,
			s.Mean, Interval(s.CI95), s.Published.Mean, s.Published.SD, brookerAgrees(s.Agreement), ps)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "\n%d of %d comparisons agree with his simulator.\n", r.Agree, r.Compared)
	return err
}

// CSV writes one row per experiment and metric, his values beside herd's.
func (r BrookerReproduction) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "name", "clients", "failure_rate", "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi", "his_mean", "his_sd", "his_runs", "z", "agrees"})
	for _, row := range r.Rows {
		for _, m := range []struct {
			name string
			c    reproduce.Compared
		}{{"load", row.Load}, {"success", row.Success}} {
			lo, hi := "", ""
			if m.c.CI95 != nil {
				lo, hi = csvNum(m.c.CI95[0]), csvNum(m.c.CI95[1])
			}
			cw.Write([]string{row.Experiment, row.Name, strconv.Itoa(row.Clients), csvNum(row.FailureRate), m.name, csvNum(m.c.Mean), csvNum(m.c.SD), strconv.Itoa(m.c.N),
				lo, hi, csvNum(m.c.Published.Mean), csvNum(m.c.Published.SD), strconv.Itoa(m.c.Published.N), csvNum(m.c.Z), strconv.FormatBool(m.c.Agrees)})
		}
	}
	cw.Flush()
	return cw.Error()
}
