// Package render is how herd's results are written for people: the one
// rule for a number with its interval, shared by the command line, the
// paper's generated numbers and the live check's report.
//
// The rule is Style's. Text is the style of tables and markdown, TeX the
// paper's. Both print a value with its 95% interval (Value, Estimate,
// Quantile) from the same digits: the half-width, rounded to two
// significant digits, says how many are known, and the value is printed
// to the same place; a fixed Decimals overrides that. TeX changes only
// the spelling (thin-space thousands, $-$, $\infty$) and puts every
// interval in small brackets.
package render
