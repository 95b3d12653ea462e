package render

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/herdlab/herd/stats"
)

// Auto, as a Style's Decimals, takes the decimals from the interval.
const Auto = -1

// Style is how a number and its interval are written. The rule is the same
// in every style, as in benchstat: an estimate prints as "mean ± h", h
// being half its 95% interval; an interval that is not symmetric about its
// value (a quantile's, a share's) prints as "value [lo, hi]".
type Style struct {
	// Decimals is how many decimals every number shows. Auto takes them
	// from the interval: its half-width to two significant digits, the
	// value to the same place, so that the digits shown are the digits
	// known; numbers that are all whole print whole, and a value without
	// an interval prints compactly (see Number).
	Decimals int
	// TeX writes LaTeX: thousands grouped by thin spaces from 10,000 on,
	// $-$ and $\infty$, every interval in small brackets after its value,
	// and an estimate without spread (every trial gave the same value)
	// alone.
	TeX bool
}

// Text is the style of every table, CSV comment and markdown output.
var Text = Style{Decimals: Auto}

// TeX is the paper's style at a fixed number of decimals.
func TeX(decimals int) Style { return Style{Decimals: decimals, TeX: true} }

// Number prints x alone. With Auto decimals: integers as integers, others
// with four significant digits (one decimal from 1000 on).
func (s Style) Number(x float64) string {
	if s.Decimals != Auto {
		return s.digits(x, s.Decimals)
	}
	var t string
	switch {
	case math.IsInf(x, 0) || math.IsNaN(x):
		t = fixed(x, 0)
	case x == math.Trunc(x) && math.Abs(x) < 1e15:
		t = strconv.FormatFloat(x, 'f', 0, 64)
	case math.Abs(x) >= 1000 && math.Abs(x) < 1e15:
		t = strconv.FormatFloat(x, 'f', 1, 64)
	default:
		t = fmt.Sprintf("%.4g", x)
	}
	return s.spell(t)
}

// Value prints x with its 95% interval; a nil interval is an exact value.
func (s Style) Value(x float64, iv *stats.Interval) string {
	if iv == nil {
		return s.Number(x)
	}
	lo, hi := iv[0], iv[1]
	// The precision comes from the digits known; the digits printed are
	// rounded once, from the values themselves.
	kx, klo, khi := known(x), known(lo), known(hi)
	h := (khi - klo) / 2
	if s.TeX || math.IsNaN(h) || math.IsInf(h, 0) || math.Abs((klo+khi)/2-kx) > h/100 {
		return s.bracket(x, lo, hi)
	}
	if h == 0 {
		return s.Number(x) + " ± " + s.digits(0, max(s.Decimals, 0))
	}
	d := s.Decimals
	if d == Auto {
		d = decimals(h)
		if whole(kx, klo, khi) {
			d = 0
		}
	}
	return s.digits(x, d) + " ± " + s.digits(math.Abs(h), d)
}

// Estimate prints a mean with its 95% interval: "316.65 ± 0.58"; a dash
// when there is none.
func (s Style) Estimate(e *stats.Estimate) string {
	if e == nil {
		return s.spell("—")
	}
	if s.TeX && e.SD == 0 {
		return s.Number(e.Mean)
	}
	return s.Value(e.Mean, e.CI95)
}

// Quantile prints a quantile with its order-statistic interval, always in
// brackets.
func (s Style) Quantile(q stats.Quantile) string { return s.bracket(q.Value, q.CI95[0], q.CI95[1]) }

// Share prints a share with its exact interval, always in brackets.
func (s Style) Share(sh stats.Share) string { return s.bracket(sh.Value, sh.CI95[0], sh.CI95[1]) }

// Interval prints an interval alone, "[lo, hi]", at the precision of its
// half-width.
func (s Style) Interval(lo, hi float64) string {
	_, l, h := s.ends((lo+hi)/2, lo, hi)
	sep := ", "
	if s.TeX {
		sep = `,\,`
	}
	return "[" + l + sep + h + "]"
}

// Signed is Value with the sign of a positive x: a difference.
func (s Style) Signed(x float64, iv *stats.Interval) string {
	v := s.Value(x, iv)
	if x > 0 {
		v = "+" + v
	}
	return v
}

// bracket prints "value [lo, hi]".
func (s Style) bracket(x, lo, hi float64) string {
	v, l, h := s.ends(x, lo, hi)
	if s.TeX {
		return v + `\,{\footnotesize[` + l + `,\,` + h + `]}`
	}
	return v + " [" + l + ", " + h + "]"
}

// ends prints a value and the ends of its interval at the precision of
// the half-width.
func (s Style) ends(x, lo, hi float64) (v, l, h string) {
	d := s.Decimals
	if d == Auto {
		// The precision comes from the digits known (see Value).
		kx, klo, khi := known(x), known(lo), known(hi)
		d = 0
		if !whole(kx, klo, khi) {
			half := (khi - klo) / 2
			if math.IsInf(half, 0) || math.IsNaN(half) {
				return s.Number(x), s.Number(lo), s.Number(hi)
			}
			d = decimals(half)
			if half == 0 {
				d = decimals(math.Abs(kx) / 1000) // no width: four significant digits
			}
		}
	}
	return s.digits(x, d), s.digits(lo, d), s.digits(hi, d)
}

// digits prints x with d decimals in the style's spelling.
func (s Style) digits(x float64, d int) string { return s.spell(fixed(x, d)) }

// spell writes a number printed as text in the style: as it is, or in
// LaTeX.
func (s Style) spell(t string) string {
	if !s.TeX {
		return t
	}
	switch t {
	case "∞":
		return `$\infty$`
	case "−∞":
		return `$-\infty$`
	case "—":
		return `\textemdash`
	}
	neg := strings.HasPrefix(t, "-")
	t = strings.TrimPrefix(t, "-")
	intPart, frac, dot := strings.Cut(t, ".")
	if len(intPart) > 4 {
		var g []string
		for len(intPart) > 3 {
			g = append([]string{intPart[len(intPart)-3:]}, g...)
			intPart = intPart[:len(intPart)-3]
		}
		intPart = strings.Join(append([]string{intPart}, g...), `\,`)
	}
	if dot {
		intPart += "." + frac
	}
	if neg {
		return "$-$" + intPart
	}
	return intPart
}

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
	t := strconv.FormatFloat(x, 'f', d, 64)
	if t == "-"+strconv.FormatFloat(0, 'f', d, 64) {
		t = t[1:] // no "-0.0"
	}
	return t
}

// known rounds x to the 12 significant digits a computed float64 knows:
// the digits past them are rounding error (203 ms computed as
// 0.203 s × 1000 is 202.99999999999997), and an interval as wide as that
// error has no width to print.
func known(x float64) float64 {
	if x == 0 || math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	y, _ := strconv.ParseFloat(strconv.FormatFloat(x, 'g', 12, 64), 64)
	return y
}

func whole(xs ...float64) bool {
	for _, x := range xs {
		if x != math.Trunc(x) && !math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// The Text style's rule, for the callers that print plain text.

// Number prints x alone in the Text style.
func Number(x float64) string { return Text.Number(x) }

// Value prints x with its interval in the Text style.
func Value(x float64, iv *stats.Interval) string { return Text.Value(x, iv) }

// Estimate prints an estimate in the Text style; "—" for nil.
func Estimate(e *stats.Estimate) string { return Text.Estimate(e) }

// Quantile prints a quantile with its interval in the Text style.
func Quantile(q stats.Quantile) string { return Text.Quantile(q) }

// Share prints a share with its interval in the Text style.
func Share(sh stats.Share) string { return Text.Share(sh) }

// Interval prints an interval alone in the Text style; "exact" for nil.
func Interval(iv *stats.Interval) string {
	if iv == nil {
		return "exact"
	}
	return Text.Interval(iv[0], iv[1])
}

// Difference prints a paired difference signed, "~" after it when it is
// not significant, "0" when every pair was equal and "—" without pairs.
func Difference(d stats.Difference) string {
	if d.N == 0 {
		return "—"
	}
	if d.CI95 != nil && d.CI95[0] == 0 && d.CI95[1] == 0 {
		return "0"
	}
	s := Text.Signed(d.Mean, d.CI95)
	if !d.Significant {
		s += " ~"
	}
	return s
}
