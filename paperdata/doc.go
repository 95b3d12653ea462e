// Package paperdata computes every number and table of herd's paper and
// writes them as LaTeX, so that the paper never contains a number herd did
// not just compute.
//
// Generate runs one section per topic of the paper (the seed article's
// table, the closed form against Monte Carlo, calls against load, tail
// convergence, sensitivity to base and cap, the audit of library defaults,
// the published claims, one scenario in both time models),
// each with fixed seeds and modest trial budgets, and returns the files of
// paper/generated: numbers.tex, which defines every single number as a key
// read in the text with \V{key} (an unknown key stops LaTeX with an error,
// so a renamed number cannot silently vanish), and one tabular per table.
// The output depends only on the code and the configuration — no dates, no
// revision, the same bytes whatever the number of workers — which is what
// lets CI regenerate the files and fail when they differ from the
// committed ones.
//
// The statistics come from packages analysis, claims and stats; this
// package only chooses what to tabulate and formats the results. Where a
// section matches a figure of package plots it runs the same study
// (study.LoadStudy, SensitivityStudy, TailStudy, AuditStudy: their
// scenarios and trial counts are defined there once) with the same seed,
// so the numbers in the text are the figure's numbers.
package paperdata
