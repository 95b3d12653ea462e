package render

import (
	"bytes"
	"strings"
	"testing"
)

// A table wider than the width wraps its text, then leaves out optional
// columns and says so; every line fits in bytes; too many columns are
// counted as a table that could not fit.
func TestTableFits(t *testing.T) {
	tb := NewTable(Column{Name: "name"}, Column{Name: "what it does", Wrap: true}, Column{Name: "mean", Right: true, Glue: true},
		Column{}, Column{Name: "extra", Drop: 1})
	tb.Add("full", "draws each delay uniformly below the capped exponential, which spreads a cohort", "316.65", "± 0.58", "an optional column")
	tb.Add("equal", "half the capped exponential plus a uniform half", "294.7", "± 1.0", "—")
	var b bytes.Buffer
	before := tooWide.Load()
	if err := tb.Text(&b, 60); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 60 {
			t.Errorf("a line of %d bytes: %q", len(line), line)
		}
	}
	if !strings.Contains(out, "(not shown, to fit 60 columns: extra; --wide shows them)") || strings.Contains(out, "optional column") {
		t.Errorf("the optional column is not left out, or not said:\n%s", out)
	}
	if tooWide.Load() != before {
		t.Error("a table that fits counted as too wide")
	}
	b.Reset()
	tb.Text(&b, 0)
	if !strings.Contains(b.String(), "an optional column") || strings.Count(b.String(), "\n") != 3 {
		t.Errorf("without a width every column shows, one line a row:\n%s", b.String())
	}

	wide := NewTable()
	for range 20 {
		wide.AddColumns(Column{Name: "123456789", Right: true})
	}
	wide.Add()
	b.Reset()
	wide.Text(&b, 100)
	if tooWide.Load() != before+1 {
		t.Error("twenty columns of nine digits fitted 100 columns")
	}
	// Too wide still, it is as narrow as it goes: columns of 8.
	if first, _, _ := strings.Cut(b.String(), "\n"); len(first) != 20*8+19*gap {
		t.Errorf("a table that cannot fit is %d wide, want %d:\n%s", len(first), 20*8+19*gap, b.String())
	}
}

// A table whose means and their "± h" do not fit side by side without
// cutting words puts each "± h" under its mean instead, whole.
func TestStackedEstimatesCutNoWord(t *testing.T) {
	tb := NewTable(Column{Name: "policy"})
	for _, name := range []string{"completion", "calls", "latency"} {
		tb.AddColumns(EstimateColumns(name, 0)...)
	}
	tb.AddColumns(Column{Name: "synchronized", Wrap: true})
	tb.Add("retryablehttp-linear-jitter", "29985.7", "± 2.7", "14949.9", "± 7.9", "51745.3", "± 10.2", "YES (100.0%)")
	tb.Add("full", "5579", "± 30", "10186.5", "± 4.3", "5069.1", "± 0.52", "no (50.0%)")
	var b bytes.Buffer
	if err := tb.Text(&b, 72); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	for _, line := range lines {
		if len(line) > 72 {
			t.Errorf("a line of %d bytes: %q", len(line), line)
		}
	}
	for _, word := range []string{"retryablehttp-linear-jitter", "completion", "synchronized", "29985.7", "± 2.7", "± 10.2", "± 0.52", "YES (100.0%)"} {
		if !strings.Contains(out, word) {
			t.Errorf("%q is cut or missing:\n%s", word, out)
		}
	}
	if !strings.Contains(lines[1], "29985.7") || !strings.Contains(lines[2], "± 2.7") {
		t.Errorf("the first row's completion is not stacked over its ± h:\n%s", out)
	}
}

// A narrow wrapping column breaks a compound name after its hyphens, never
// inside a part that fits, and keeps a flag (a word that starts with a
// hyphen) whole.
func TestCellsWrapAfterHyphens(t *testing.T) {
	got := wrapPieces(cellPieces("hashicorp/go-retryablehttp LinearJitterBackoff, see --retry-budget"), 15, textWidth)
	want := []string{"hashicorp/go-", "retryablehttp", "LinearJitterBac", "koff, see", "--retry-budget"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("wrapped into %q, want %q", got, want)
	}
	if got := wrapPieces(cellPieces("a-b c"), 0, textWidth); len(got) != 1 || got[0] != "a-b c" {
		t.Errorf("unlimited width gives %q, want the cell as it was", got)
	}
}

// A code span holds any text whole: its fence is longer than any run of
// backticks inside, and a line break is shown, not kept.
func TestMarkdownCode(t *testing.T) {
	for in, want := range map[string]string{
		"full":        "`full`",
		"a`b":         "``a`b``",
		"`x``":        "``` `x`` ```",
		"a|b\nc":      "`a|b\\nc`",
		"tab\there\r": "`tab\\there\\r`",
	} {
		if got := MarkdownCode(in); got != want {
			t.Errorf("MarkdownCode(%q) = %q, want %q", in, got, want)
		}
	}
	if got := MarkdownCell("a|b\nc"); got != `a\|b\nc` {
		t.Errorf("MarkdownCell = %q", got)
	}
}
