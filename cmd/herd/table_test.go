package main

import (
	"bytes"
	"strings"
	"testing"
)

// A table wider than the width wraps its text, then leaves out optional
// columns and says so; every line fits in bytes; too many columns are
// counted as a table that could not fit.
func TestTableFits(t *testing.T) {
	tb := newTable(column{name: "name"}, column{name: "what it does", wrap: true}, column{name: "mean", right: true, glue: true},
		column{}, column{name: "extra", drop: 1})
	tb.add("full", "draws each delay uniformly below the capped exponential, which spreads a cohort", "316.65", "± 0.58", "an optional column")
	tb.add("equal", "half the capped exponential plus a uniform half", "294.7", "± 1.0", "—")
	var b bytes.Buffer
	before := tooWide.Load()
	if err := tb.text(&b, 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if w, line := widest(out); w > 60 {
		t.Errorf("a line of %d bytes: %q", w, line)
	}
	if !strings.Contains(out, "(not shown, to fit 60 columns: extra; --wide shows them)") || strings.Contains(out, "optional column") {
		t.Errorf("the optional column is not left out, or not said:\n%s", out)
	}
	if tooWide.Load() != before {
		t.Error("a table that fits counted as too wide")
	}
	b.Reset()
	tb.text(&b, 0)
	if !strings.Contains(b.String(), "an optional column") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("without a width every column shows, one line a row:\n%s", b.String())
	}

	wide := newTable()
	for range 20 {
		wide.cols = append(wide.cols, column{name: "123456789", right: true})
	}
	wide.add()
	wide.text(&bytes.Buffer{}, 100)
	if tooWide.Load() != before+1 {
		t.Error("twenty columns of nine digits fitted 100 columns")
	}
}
