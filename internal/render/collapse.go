package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
)

// CollapseReproduction is the result of herd reproduce brooker-collapse,
// gc-collapse or descartes-storm, its JSON document: one row per variant,
// each with its source's claim, the reading it was judged by, and the
// verdict.
type CollapseReproduction struct {
	Experiment string                  `json:"experiment"`
	Source     string                  `json:"source"`
	Trials     int                     `json:"trials"`
	Seed       uint64                  `json:"seed"`
	Rows       []reproduce.CollapseRow `json:"rows"`
	Provenance Provenance              `json:"provenance"`
}

func collapseLabel(r reproduce.CollapseRow) string {
	l := r.Variant
	if r.Shape != "" {
		l = r.Shape + " " + l
	}
	if r.Arrivals != "" && r.Experiment == "gc-collapse" {
		l = r.Arrivals + " " + l
	}
	if r.PauseS != nil {
		l += fmt.Sprintf(" pause %gs", *r.PauseS)
	}
	if r.Retries != nil && r.Experiment == "gc-collapse" {
		l += fmt.Sprintf(" retries %d", *r.Retries)
	}
	if r.Spike != nil {
		if *r.Spike {
			l += " with spike"
		} else {
			l += " without spike"
		}
	}
	return l
}

func recoveryText(r reproduce.CollapseRow) string {
	if r.Recovered == 0 {
		return "never"
	}
	e := r.Recovery
	return fmt.Sprintf("%s s (%d runs)", Estimate(&e), r.Recovered)
}

// Table writes one line per row, then each distinct claim and reading.
func (r CollapseReproduction) Table(w io.Writer, _ int) error {
	fmt.Fprintf(w, "%s (%s), rerun on herd's service server: %d trials per row (one where nothing is random), seed %d, 95%% intervals (collapsed: Wilson).\n\n", r.Experiment, r.Source, r.Trials, r.Seed)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "row\tcollapsed\tamplification\tgoodput /s\ttime to recover\tverdict")
	for _, row := range r.Rows {
		a, g := row.Amplification, row.Goodput
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", collapseLabel(row), Share(row.Collapsed), Estimate(&a), Estimate(&g), recoveryText(row), row.Verdict)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	seen := map[string]bool{}
	for _, row := range r.Rows {
		key := row.Claim + row.Reading
		if seen[key] {
			continue
		}
		seen[key] = true
		fmt.Fprintf(w, "\nclaim: %s\nreading: %s\n", row.Claim, row.Reading)
		if row.Published > 0 {
			fmt.Fprintf(w, "the row holds when herd's amplification is within 5%% of %g\n", row.Published)
		}
	}
	shown := map[string]bool{}
	for _, row := range r.Rows {
		if row.Before != nil && !shown[row.Arrivals+row.Variant] {
			shown[row.Arrivals+row.Variant] = true
			fmt.Fprintf(w, "\n%s %s: already in a storm when the pause came (a timeout in each second of the 5 s before it) in %s of runs\n", row.Arrivals, row.Variant, Share(*row.Before))
		}
	}
	return nil
}

// CSV writes one line per row.
func (r CollapseReproduction) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"experiment", "variant", "shape", "arrivals", "pause_s", "retries", "spike", "trials", "collapsed", "collapsed_lo", "collapsed_hi",
		"amplification", "amplification_lo", "amplification_hi", "goodput", "goodput_lo", "goodput_hi", "recovered", "recovery_s", "verdict"})
	ci := func(e stats.Estimate) (string, string) {
		if e.CI95 == nil {
			return "", ""
		}
		return csvNum(e.CI95[0]), csvNum(e.CI95[1])
	}
	opt := func(p *float64) string {
		if p == nil {
			return ""
		}
		return csvNum(*p)
	}
	for _, row := range r.Rows {
		var retries, spike string
		if row.Retries != nil {
			retries = strconv.Itoa(*row.Retries)
		}
		if row.Spike != nil {
			spike = strconv.FormatBool(*row.Spike)
		}
		al, ah := ci(row.Amplification)
		gl, gh := ci(row.Goodput)
		rec := ""
		if row.Recovered > 0 {
			rec = csvNum(row.Recovery.Mean)
		}
		cw.Write([]string{row.Experiment, row.Variant, row.Shape, row.Arrivals, opt(row.PauseS), retries, spike, strconv.Itoa(row.Trials),
			strconv.Itoa(row.Collapsed.Count), csvNum(row.Collapsed.CI95[0]), csvNum(row.Collapsed.CI95[1]),
			csvNum(row.Amplification.Mean), al, ah, csvNum(row.Goodput.Mean), gl, gh, strconv.Itoa(row.Recovered), rec, row.Verdict})
	}
	cw.Flush()
	return cw.Error()
}
