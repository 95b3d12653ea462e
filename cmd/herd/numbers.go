package main

import (
	"strings"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/stats"
)

// pmCells is an estimate's text in two table cells, the mean and "± h", so
// that a column of them lines up on the ±; glued columns (column.glue)
// show them as one.
func pmCells(e *stats.Estimate) []string {
	if m, h, ok := strings.Cut(render.Estimate(e), " ± "); ok {
		return []string{m, "± " + h}
	}
	return []string{render.Estimate(e), ""}
}

// pmColumns are the two columns of pmCells, name being the mean's; the
// "± h" column has no header of its own: the text before a table says
// what ± is.
func pmColumns(name string, drop int) []column {
	return []column{{name: name, right: true, glue: true, drop: drop}, {drop: drop}}
}
