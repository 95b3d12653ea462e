package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"

	"github.com/herdlab/herd/analysis"
)

// Validation is herd validate's result, its JSON document.
type Validation struct {
	analysis.Validation
	Seed       uint64     `json:"seed"`
	Provenance Provenance `json:"provenance"`
}

// Table writes one row per check, fitted to width (0: no limit).
func (r Validation) Table(w io.Writer, width int) error {
	v := r.Validation
	fmt.Fprintf(w, "%d checks, %d statistical at family-wise level %g (|z| ≤ %.2f each); the mean field's bounds by %g%% intervals; Monte Carlo mean ± half its 95%% interval\n\n",
		len(v.Checks), v.Statistical, v.Level, v.Critical, 100*analysis.MeanFieldLevel)
	cols := []Column{{Name: "method"}, {Name: "scenario", Wrap: true}, {Name: "quantity", Wrap: true}, {Name: "model", Right: true}}
	cols = append(cols, EstimateColumns("Monte Carlo", 0)...)
	t := NewTable(append(cols, Column{Name: "discrepancy", Wrap: true}, Column{Name: "verdict"})...)
	for _, ch := range v.Checks {
		mc := []string{"", ""}
		if ch.MonteCarlo != nil {
			mc = EstimateCells(ch.MonteCarlo)
		}
		t.Add(ch.Method, checkSubject(ch), ch.Quantity, Number(float64(ch.Model)), mc[0], mc[1], ch.Detail, string(ch.Verdict))
	}
	t.Text(w, width)
	fmt.Fprintf(w, "\n%d of %d checks failed\n", v.Failed, len(v.Checks))
	return nil
}

// CSV writes one row per check with its statistics.
func (r Validation) CSV(w io.Writer) error {
	v := r.Validation
	cw := csv.NewWriter(w)
	cw.Write([]string{"method", "scenario", "quantity", "model", "mc_mean", "mc_ci95_lo", "mc_ci95_hi", "z", "rel_err", "chi_square", "df", "p", "verdict", "detail"})
	for _, ch := range v.Checks {
		row := []string{ch.Method, checkSubject(ch), ch.Quantity, csvNum(float64(ch.Model)), "", "", ""}
		if e := ch.MonteCarlo; e != nil {
			row[4] = csvNum(e.Mean)
			if e.CI95 != nil {
				row[5], row[6] = csvNum(e.CI95[0]), csvNum(e.CI95[1])
			}
		}
		row = append(row, csvNum(float64(ch.Z)), csvNum(ch.RelErr), csvNum(float64(ch.ChiSquare)), strconv.Itoa(ch.DF), csvNum(ch.P), string(ch.Verdict), ch.Detail)
		cw.Write(row)
	}
	cw.Flush()
	return cw.Error()
}

// checkSubject is what a check is about: its scenario, or a service run.
func checkSubject(ch analysis.Check) string {
	if ch.Run != "" {
		return ch.Run
	}
	return Brief(ch.Scenario)
}
