// Package plots draws herd's figures on gonum/plot.
//
// Each figure is one function that computes its data through package
// analysis (Monte Carlo with the intervals of package stats, paired
// comparisons; analytical models) — the studies it shares with the paper
// are study.LoadStudy, SensitivityStudy, TailStudy and AuditStudy — and
// lays it out as a Drawing: a title, a
// legend strip that never covers data, rows of panels and a note saying
// what the intervals are and how many trials stand behind them. The
// registry (Figures, Lookup) lists the figures in the order `herd plots`
// and `make plots` draw them; adding a figure is one registry entry and one
// function returning a *Drawing.
//
// One figure is drawn from measurements instead: engine-cost reads Go
// benchmark output committed in data/engine-cost.txt (embedded at build
// time; `make bench-cost` measures again), since timings are not
// reproducible and `make plots` must be.
//
// Looks are fixed in one place (style.go): every policy has one colour
// from the colour-blind-safe Okabe–Ito palette and one glyph in every
// figure (in the open-loop figures, where the policy is always Full
// Jitter, each retry control has its own colour and glyph instead); Monte
// Carlo estimates are glyphs with 95% bands or error bars,
// exact models solid lines, approximations dashed, guides dotted.
//
// Drawing.Render writes SVG, PNG or PDF. With a fixed Config.Seed the SVG
// and PNG bytes depend only on the data, so figures can be compared byte for
// byte (the golden tests do), and the PDF's embedded dates are pinned too.
// Logarithmic axes are framed from positive values only, and interval ends
// that fall outside an axis (an unbounded order-statistic end, a lower
// end ≤ 0 on a log axis) are clipped to the panel's edge.
package plots
