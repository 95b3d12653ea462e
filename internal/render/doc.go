// Package render is how herd's results are written: for people (tables
// fitted to a terminal, markdown) and for programs (CSV, JSON), each with
// the cite line that says which herd computed it. The command line, the
// paper's generated numbers (paperdata) and the live check's report (the
// live module) print their numbers by its one rule.
//
// The rule for a number with its interval is Style's. Text is the style
// of tables, markdown and reports, TeX the paper's. Both print a value
// with its 95% interval (Value, Estimate, Quantile, Share, Interval) from
// the same digits: the half-width, rounded to two significant digits,
// says how many are known and the value is printed to the same place, as
// benchstat does; a fixed Decimals overrides that. An interval that is not
// symmetric about its value prints in brackets. TeX changes the spelling
// (thin-space thousands, $-$, $\infty$) and sets every interval in small
// brackets.
//
// A Table is a result table: Text fits it to a width, wrapping its text
// columns and leaving out the optional ones, and says which it left out;
// Markdown writes it whole. EstimateCells split an estimate into a mean
// and its "± h", so that a column lines up on the ±.
//
// Provenance is the build, the command and the run; its Line is the cite
// line, and Document puts it on a result in each format: a comment heading
// a CSV, a footer under a table or markdown (a JSON document carries the
// provenance as a field).
//
// Each command's result is a type here that is its JSON document and
// writes itself as a table, and as markdown and CSV where the command
// offers them (Simulation, TrafficSimulation, Audit, Validation,
// SeedReproduction, AWSReproduction, BrookerReproduction, ClaimsReport,
// DelayLaws, PresetList, CompareReport). The writers only arrange and spell what the
// library computed: cmd/herd parses the flags, calls the library and
// hands the result to its writer.
package render
