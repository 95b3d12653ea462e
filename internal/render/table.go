package render

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode"

	"github.com/herdlab/herd/stats"
	"github.com/rivo/uniseg"
)

// Table is a result table for people: aligned text fitted to the
// terminal's width, or markdown. A table too wide for the width wraps its
// text columns a little (to 24 characters) and leaves out the columns
// marked as optional, saying which (--wide shows every column); when that
// is not enough it wraps text columns down to their longest word, then
// puts each mean's "± h" under it, and at last wraps any column, cutting
// words.
type Table struct {
	cols []Column
	rows [][]string
}

// Column is one column of a table.
type Column struct {
	Name string
	// Right aligns the column on the right (numbers).
	Right bool
	// Wrap lets the column's cells wrap onto more lines to fit the width.
	Wrap bool
	// Drop > 0 marks a column that may be left out to fit the width;
	// the highest goes first.
	Drop int
	// Glue puts the next column one space after this one, and in markdown
	// into this one's cell: a mean and its "± h".
	Glue bool
	// Code sets the column's cells as code in markdown (names to type).
	Code bool
}

// NewTable is a table of these columns and no rows.
func NewTable(cols ...Column) *Table { return &Table{cols: cols} }

// AddColumns appends columns, before any row is added.
func (t *Table) AddColumns(cols ...Column) { t.cols = append(t.cols, cols...) }

// Add appends a row; missing cells are empty.
func (t *Table) Add(cells ...string) {
	row := make([]string, len(t.cols))
	copy(row, cells)
	t.rows = append(t.rows, row)
}

const gap = 2 // spaces between columns

// tooWide counts the tables that could not be fitted to their width (more
// columns than 8 characters each allow).
var tooWide atomic.Int64

// Unfitted is how many tables this process could not fit to their width:
// herd's width test requires none.
func Unfitted() int64 { return tooWide.Load() }

// textWidth is the columns s takes on a terminal: a CJK character (the
// seed article's quotes) takes two.
func textWidth(s string) int { return uniseg.StringWidth(s) }

// byteWidth is the bytes s takes: a line fitted by it is no wider than
// that in characters, in terminal columns and in bytes (what awk counts).
func byteWidth(s string) int { return len(s) }

// cut splits s after at most width by measure (at least one character).
func cut(s string, width int, measure func(string) int) (head, tail string) {
	g := uniseg.NewGraphemes(s)
	w, end := 0, 0
	for g.Next() {
		gw := measure(g.Str())
		if w+gw > width && end > 0 {
			break
		}
		w += gw
		_, end = g.Positions()
	}
	return s[:end], s[end:]
}

// Text writes the table aligned in terminal columns and fitted to width
// (0: no limit) in bytes too: a line holding ± or — is narrower on the
// screen than its bytes, so the columns are fitted to less until every
// line's bytes fit.
func (t *Table) Text(w io.Writer, width int) error {
	if width <= 0 {
		t.render(w, 0, soft)
		return nil
	}
	out, hidden := t.fitBytes(width)
	if out == nil {
		tooWide.Add(1)
		var buf bytes.Buffer
		_, hidden = t.render(&buf, width, cutWords)
		out = buf.Bytes()
	}
	if _, err := w.Write(out); err != nil {
		return err
	}
	if len(hidden) > 0 {
		_, err := fmt.Fprintf(w, "(not shown, to fit %d columns: %s; --wide shows them)\n", width, strings.Join(hidden, ", "))
		return err
	}
	return nil
}

// fitBytes renders the table so that every line fits width bytes, by the
// gentlest fitting that can: each narrows the columns' budget by what the
// widest line's multi-byte characters take beyond width, until it fits or
// cannot narrow further. nil when none fits.
func (t *Table) fitBytes(width int) ([]byte, []string) {
	for _, how := range []fitting{soft, hard, stacked, cutWords} {
		tt := t
		if how == stacked {
			tt = t.stacked()
		}
		for budget := width; budget > 0; {
			var buf bytes.Buffer
			fitted, hidden := tt.render(&buf, budget, how)
			if !fitted {
				break
			}
			over := 0
			for _, l := range strings.Split(buf.String(), "\n") {
				over = max(over, byteWidth(l)-width)
			}
			if over <= 0 {
				return buf.Bytes(), hidden
			}
			budget -= over
		}
	}
	return nil, nil
}

// render writes the table fitted to budget columns (0: no limit) as how
// allows, and reports whether it fitted and which columns it left out.
func (t *Table) render(w io.Writer, budget int, how fitting) (fitted bool, hidden []string) {
	shown, widths := t.fitDropping(budget, how)
	fitted = widths != nil
	if !fitted {
		shown, _ = t.fitDropping(budget, cutWords)
		widths, _ = t.fit(shown, budget, cutWords) // as narrow as it goes, still too wide
	}
	for i, c := range t.cols {
		if !shown[i] && c.Name != "" { // a mean's "± h" goes with it
			hidden = append(hidden, c.Name)
		}
	}
	t.line(w, shown, widths, t.header())
	// Rows that wrap are told apart by a blank line between rows.
	tall := false
	for _, row := range t.rows {
		for i, cell := range row {
			tall = tall || (shown[i] && textWidth(cell) > widths[i])
		}
	}
	for r, row := range t.rows {
		if tall && r > 0 {
			fmt.Fprintln(w)
		}
		t.line(w, shown, widths, row)
	}
	return fitted, hidden
}

func (t *Table) header() []string {
	h := make([]string, len(t.cols))
	for i, c := range t.cols {
		h[i] = c.Name
	}
	return h
}

// fitDropping leaves out optional columns, the highest drop first, until
// the table fits width; widths is nil when it does not fit with all of them
// left out.
func (t *Table) fitDropping(width int, how fitting) (shown []bool, widths []int) {
	shown = make([]bool, len(t.cols))
	for i, c := range t.cols {
		// Leaving out optional columns comes before narrowing the others
		// further than soft fitting does.
		shown[i] = how == soft || c.Drop == 0
	}
	for {
		if w, ok := t.fit(shown, width, how); ok {
			return shown, w
		}
		drop := -1
		for i, c := range t.cols {
			if shown[i] && c.Drop > 0 && (drop < 0 || c.Drop > t.cols[drop].Drop) {
				drop = i
			}
		}
		if drop < 0 {
			return shown, nil
		}
		shown[drop] = false
	}
}

// fitting is how far fit may narrow columns.
type fitting int

const (
	soft     fitting = iota // text columns wrap, not under 24 characters
	hard                    // text columns wrap down to their longest word
	stacked                 // each "± h" under its mean (Table.stacked), no word cut
	cutWords                // any column wraps, cutting words, down to 8
)

// stacked is the table with each mean and its glued "± h" (Column.Glue)
// in one right-aligned column that may wrap, so that the "± h" goes under
// the mean: for a width too narrow to have them side by side without
// cutting words.
func (t *Table) stacked() *Table {
	s := &Table{}
	var from [][2]int // the columns of t in each of s's; -1: none
	for i := 0; i < len(t.cols); i++ {
		c := t.cols[i]
		if c.Glue && i+1 < len(t.cols) {
			c.Glue, c.Wrap = false, true
			s.cols, from = append(s.cols, c), append(from, [2]int{i, i + 1})
			i++
			continue
		}
		s.cols, from = append(s.cols, c), append(from, [2]int{i, -1})
	}
	for _, row := range t.rows {
		cells := make([]string, len(s.cols))
		for j, f := range from {
			cells[j] = row[f[0]]
			if f[1] >= 0 && row[f[1]] != "" {
				cells[j] += " " + row[f[1]]
			}
		}
		s.rows = append(s.rows, cells)
	}
	return s
}

// fit gives the width of each shown column, narrowed as how allows, and
// whether the table then fits width; when it does not, the widths are as
// narrow as how allows.
func (t *Table) fit(shown []bool, width int, how fitting) ([]int, bool) {
	widths := make([]int, len(t.cols))
	least := make([]int, len(t.cols))
	total := 0
	for i, c := range t.cols {
		if !shown[i] {
			continue
		}
		// A header wraps in any column, at its spaces; cells only in
		// the columns that may wrap.
		for _, p := range cellPieces(c.Name) {
			least[i] = max(least[i], textWidth(p.text))
		}
		widths[i] = textWidth(c.Name)
		for _, cell := range t.column(i) {
			widths[i] = max(widths[i], textWidth(cell))
			if c.Wrap {
				for _, p := range cellPieces(cell) {
					least[i] = max(least[i], min(textWidth(p.text), 12))
				}
			} else {
				least[i] = max(least[i], textWidth(cell))
			}
		}
		switch how {
		case soft:
			least[i] = max(least[i], min(widths[i], 24))
		case cutWords:
			least[i] = min(widths[i], 8)
		}
		total += widths[i] + t.gapAfter(i, shown)
	}
	if width <= 0 || total <= width {
		return widths, true
	}
	// Narrow the widest column that can be one character at a time.
	for total > width {
		widest := -1
		for i := range t.cols {
			if shown[i] && widths[i] > least[i] && (widest < 0 || widths[i] > widths[widest]) {
				widest = i
			}
		}
		if widest < 0 {
			return widths, false
		}
		widths[widest]--
		total--
	}
	return widths, true
}

// gapAfter is the space between column i and the next shown one.
func (t *Table) gapAfter(i int, shown []bool) int {
	for j := i + 1; j < len(t.cols); j++ {
		if shown[j] {
			if t.cols[i].Glue {
				return 1
			}
			return gap
		}
	}
	return 0
}

func (t *Table) column(i int) []string {
	cells := make([]string, len(t.rows))
	for r, row := range t.rows {
		cells[r] = row[i]
	}
	return cells
}

// line writes one row, its wrapped cells on as many lines as the longest
// needs; trailing spaces are trimmed.
func (t *Table) line(w io.Writer, shown []bool, widths []int, cells []string) {
	parts := make([][]string, len(cells))
	height := 1
	for i, cell := range cells {
		if !shown[i] {
			continue
		}
		parts[i] = []string{cell}
		if textWidth(cell) > widths[i] {
			parts[i] = wrapPieces(cellPieces(cell), widths[i], textWidth)
			if t.cols[i].Right { // a wrapped header of numbers: each line on the right
				for j := range parts[i] {
					parts[i][j] = strings.TrimSpace(parts[i][j])
				}
			}
		}
		height = max(height, len(parts[i]))
	}
	for l := range height {
		var b strings.Builder
		for i := range cells {
			if !shown[i] {
				continue
			}
			s := ""
			if l < len(parts[i]) {
				s = parts[i][l]
			}
			pad := strings.Repeat(" ", max(0, widths[i]-textWidth(s)))
			if t.cols[i].Right {
				b.WriteString(pad + s)
			} else {
				b.WriteString(s + pad)
			}
			b.WriteString(strings.Repeat(" ", t.gapAfter(i, shown)))
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
}

// Markdown writes the table as a markdown table: every column, cells
// escaped, a glued column in the cell before it.
func (t *Table) Markdown(w io.Writer) error {
	header := true
	row := func(cells []string) {
		var esc []string
		for i, c := range cells {
			if t.cols[i].Code && c != "" && !header {
				c = strings.ReplaceAll(MarkdownCode(c), "|", `\|`)
			} else {
				c = MarkdownCell(c)
			}
			if i > 0 && t.cols[i-1].Glue {
				esc[len(esc)-1] = strings.TrimSpace(esc[len(esc)-1] + " " + c)
				continue
			}
			esc = append(esc, c)
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(esc, " | "))
	}
	row(t.header())
	var rule []string
	for i, c := range t.cols {
		if i > 0 && t.cols[i-1].Glue {
			continue
		}
		r := "---"
		if c.Right {
			r = "---:"
		}
		rule = append(rule, r)
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(rule, "|"))
	header = false
	for _, r := range t.rows {
		row(r)
	}
	return nil
}

// wrapWords breaks s into lines of at most width (by measure) at spaces; a
// word longer than width is cut.
func wrapWords(s string, width int, measure func(string) int) []string {
	var words []piece
	for _, w := range strings.Fields(s) {
		words = append(words, piece{w, true})
	}
	return wrapPieces(words, width, measure)
}

// piece is a part of a text that a line may end after: a word, or in a
// table's cell the part of a word up to a hyphen. spaced says a space
// comes before it when it continues a line.
type piece struct {
	text   string
	spaced bool
}

// cellPieces splits a table cell at its spaces, and its words after each
// hyphen inside them ("retryablehttp-" "linear-" "jitter"), so a narrow
// column breaks a compound name where it reads, not mid-word; a word that
// starts with a hyphen (a flag, a negative number) stays whole, and a "±"
// stays with the number after it.
func cellPieces(s string) []piece {
	var out []piece
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		word := words[i]
		if word == "±" && i+1 < len(words) {
			out = append(out, piece{"± " + words[i+1], true})
			i++
			continue
		}
		spaced := true
		for !strings.HasPrefix(word, "-") {
			i := strings.IndexByte(word, '-')
			if i < 0 || i == len(word)-1 {
				break
			}
			out = append(out, piece{word[:i+1], spaced})
			word, spaced = word[i+1:], false
		}
		out = append(out, piece{word, spaced})
	}
	return out
}

// wrapPieces joins pieces into lines of at most width (by measure); a
// piece longer than width is cut.
func wrapPieces(pieces []piece, width int, measure func(string) int) []string {
	if width <= 0 {
		var b strings.Builder
		for i, p := range pieces {
			if i > 0 && p.spaced {
				b.WriteByte(' ')
			}
			b.WriteString(p.text)
		}
		return []string{b.String()}
	}
	var lines []string
	line := ""
	for _, p := range pieces {
		word := p.text
		for measure(word) > width {
			if line != "" {
				lines = append(lines, line)
				line = ""
			}
			var head string
			head, word = cut(word, width, measure)
			lines = append(lines, head)
		}
		sep := ""
		if p.spaced {
			sep = " "
		}
		switch {
		case line == "":
			line = word
		case measure(line)+measure(sep)+measure(word) <= width:
			line += sep + word
		default:
			lines = append(lines, line)
			line = word
		}
	}
	if line != "" || len(lines) == 0 {
		lines = append(lines, line)
	}
	return lines
}

// WrapText fits every line of text to width bytes (0: no limit), breaking
// long lines at spaces; a continuation keeps the line's indentation and two
// spaces more. Tables are fitted before, by Table.Text: this is for prose.
func WrapText(text string, width int) string {
	if width <= 0 {
		return text
	}
	var b strings.Builder
	lines := strings.SplitAfter(text, "\n")
	for _, l := range lines {
		body := strings.TrimSuffix(l, "\n")
		nl := len(body) < len(l)
		if byteWidth(body) <= width {
			b.WriteString(l)
			continue
		}
		indent := body[:len(body)-len(strings.TrimLeft(body, " "))]
		rest := indent + "  "
		if byteWidth(rest) >= width/2 {
			rest = "  "
		}
		first := wrapWords(body, width-byteWidth(indent), byteWidth)
		// Rewrap everything after the first line at the continuation's width.
		tail := strings.Join(first[1:], " ")
		b.WriteString(indent + first[0] + "\n")
		for _, c := range wrapWords(tail, width-byteWidth(rest), byteWidth) {
			b.WriteString(rest + c + "\n")
		}
		if !nl {
			s := b.String()
			b.Reset()
			b.WriteString(strings.TrimSuffix(s, "\n"))
		}
	}
	return b.String()
}

// MarkdownCell is s as markdown text that can neither end a table cell
// nor the line it is on: | is escaped, and a line break or another control
// character is shown as its Go escape (\n), as a user may give one in a
// label or a path.
func MarkdownCell(s string) string { return strings.ReplaceAll(visibleControls(s), "|", `\|`) }

// MarkdownCode is s as a markdown code span, fenced by more backticks than
// any run of them in s; control characters are shown as MarkdownCell
// shows them. In a table cell, escape its | with MarkdownCell's rule: GFM
// reads \| in a cell's code span as |.
func MarkdownCode(s string) string {
	s = visibleControls(s)
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// visibleControls replaces each control character of s by its Go escape.
func visibleControls(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// EstimateCells is an estimate's text in two table cells, the mean and
// "± h", so that a column of them lines up on the ±; glued columns
// (Column.Glue) show them as one.
func EstimateCells(e *stats.Estimate) []string {
	if m, h, ok := strings.Cut(Estimate(e), " ± "); ok {
		return []string{m, "± " + h}
	}
	return []string{Estimate(e), ""}
}

// EstimateColumns are the two columns of EstimateCells, name being the
// mean's; the "± h" column has no header of its own: the text before a
// table says what ± is.
func EstimateColumns(name string, drop int) []Column {
	return []Column{{Name: name, Right: true, Glue: true, Drop: drop}, {Drop: drop}}
}

// Definitions writes terms and their definitions as help does: each term
// indented by indent, its definition from column on, wrapped at width
// (continuations at column), one definition per line or more.
func Definitions(items [][2]string, indent, column, width int) string {
	var b strings.Builder
	pad := strings.Repeat(" ", column)
	for _, it := range items {
		head := strings.Repeat(" ", indent) + it[0]
		if textWidth(head) >= column-1 {
			head += "\n" + pad
		} else {
			head += strings.Repeat(" ", column-textWidth(head))
		}
		b.WriteString(head)
		for i, l := range wrapWords(it[1], width-column, textWidth) {
			if i > 0 {
				b.WriteString("\n" + pad)
			}
			b.WriteString(l)
		}
		b.WriteString("\n")
	}
	return b.String()
}
