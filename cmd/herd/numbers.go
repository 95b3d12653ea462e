package main

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/herdlab/herd/stats"
)

// The one precision rule of every table and markdown output, as in
// benchstat: an estimate prints as "mean ± h" where h is half its 95%
// interval; h is rounded to two significant digits and the mean to the
// same decimal place, so the digits shown are the digits known. An
// interval that is not symmetric about its value (a quantile's, a share's)
// prints as "value [lo, hi]" at the precision of its half-width. Numbers
// that are all whole print as whole numbers; a value without an interval
// (exact, or from a model) prints as fmtNum does.

// decimals is how many decimals show a half-width h to two significant
// digits (none when h is 10 or more).
func decimals(h float64) int {
	if !(h > 0) || math.IsInf(h, 0) {
		return 0
	}
	// Round first: 0.998 to two digits is 1.0, shown with one decimal.
	h, _ = strconv.ParseFloat(strconv.FormatFloat(h, 'g', 2, 64), 64)
	return max(0, 1-int(math.Floor(math.Log10(h))))
}

// fixed prints x with d decimals, infinities as ∞ and NaN as —.
func fixed(x float64, d int) string {
	switch {
	case math.IsInf(x, 1):
		return "∞"
	case math.IsInf(x, -1):
		return "−∞"
	case math.IsNaN(x):
		return "—"
	}
	s := strconv.FormatFloat(x, 'f', d, 64)
	if s == "-"+strconv.FormatFloat(0, 'f', d, 64) {
		s = s[1:] // no "-0.0"
	}
	return s
}

func whole(xs ...float64) bool {
	for _, x := range xs {
		if x != math.Trunc(x) && !math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// pm prints an estimate with its 95% interval: "316.65 ± 0.58"; "—" when
// there is none.
func pm(e *stats.Estimate) string {
	if e == nil {
		return "—"
	}
	return valueCI(e.Mean, e.CI95)
}

// valueCI prints a value with its 95% interval by the one rule; a nil
// interval is an exact value.
func valueCI(x float64, iv *stats.Interval) string {
	if iv == nil {
		return fmtNum(x)
	}
	lo, hi := iv[0], iv[1]
	h := (hi - lo) / 2
	if math.IsNaN(h) || math.IsInf(h, 0) || math.Abs((lo+hi)/2-x) > h/100 {
		return bracket(x, lo, hi)
	}
	if h == 0 {
		return fmtNum(x) + " ± 0"
	}
	d := decimals(h)
	if whole(x, lo, hi) {
		d = 0
	}
	return fixed(x, d) + " ± " + fixed(math.Abs(h), d)
}

// bracket prints "value [lo, hi]" at the precision of the half-width.
func bracket(x, lo, hi float64) string {
	d := 0
	if !whole(x, lo, hi) {
		h := (hi - lo) / 2
		if math.IsInf(h, 0) || math.IsNaN(h) {
			return fmtNum(x) + " [" + fmtNum(lo) + ", " + fmtNum(hi) + "]"
		}
		d = decimals(h)
		if h == 0 {
			d = decimals(math.Abs(x) / 1000) // no width: four significant digits
		}
	}
	return fmt.Sprintf("%s [%s, %s]", fixed(x, d), fixed(lo, d), fixed(hi, d))
}

// pmCells is pm's text in two table cells, the mean and "± h", so that a
// column of them lines up on the ±; glued columns (column.glue) show
// them as one.
func pmCells(e *stats.Estimate) []string {
	if m, h, ok := strings.Cut(pm(e), " ± "); ok {
		return []string{m, "± " + h}
	}
	return []string{pm(e), ""}
}

// pmColumns are the two columns of pmCells, name being the mean's; the
// "± h" column has no header of its own: the text before a table says
// what ± is.
func pmColumns(name string, drop int) []column {
	return []column{{name: name, right: true, glue: true, drop: drop}, {drop: drop}}
}

// quantileCI prints a quantile with its order-statistic interval.
func quantileCI(q stats.Quantile) string { return bracket(q.Value, q.CI95[0], q.CI95[1]) }
