package render

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
)

// Provenance says which herd computed a result and how to compute it
// again: the build, the command as typed, and the run's seed, trials and
// engine. Cite is all of it in the one line every format carries (Line).
type Provenance struct {
	Version  string  `json:"version"`
	Revision string  `json:"revision"`
	Modified bool    `json:"modified"`
	Go       string  `json:"go,omitempty"`
	Source   string  `json:"revision_source,omitempty"`
	Command  string  `json:"command,omitempty"`
	Seed     *uint64 `json:"seed,omitempty"`
	Trials   int     `json:"trials,omitempty"`
	Engine   string  `json:"engine,omitempty"`
	Cite     string  `json:"cite"`
}

// WithRun adds a run's seed, trials and engine ("" when one engine is not
// the whole story: each row then names its own).
func (p Provenance) WithRun(seed uint64, trials int, engine string) Provenance {
	p.Seed, p.Trials, p.Engine = &seed, trials, engine
	p.Cite = p.Line()
	return p
}

// Line is the cite line: "herd 0.9.0, revision 1a2b… (modified); command:
// herd simulate …; seed 1, 1000 trials, engine clients".
func (p Provenance) Line() string {
	s := "herd " + p.Version + ", revision " + p.Revision
	if p.Modified {
		s += " (modified)"
	}
	if p.Command != "" {
		s += "; command: " + p.Command
	}
	var run []string
	if p.Seed != nil {
		run = append(run, fmt.Sprintf("seed %d", *p.Seed))
	}
	if p.Trials > 0 {
		run = append(run, fmt.Sprintf("%d trials", p.Trials))
	}
	if p.Engine != "" {
		run = append(run, "engine "+p.Engine)
	}
	if len(run) > 0 {
		s += "; " + strings.Join(run, ", ")
	}
	return s
}

// Markdown is the cite line in markdown: the command as code, so that
// nothing in it is read as emphasis or a table cell's end.
func (p Provenance) Markdown() string {
	if p.Command == "" {
		return "Cite: " + p.Cite
	}
	q := p
	q.Command = MarkdownCode(p.Command)
	return "Cite: " + q.Line()
}

// VersionText is what herd version and herd --version print: the
// version, the revision (marked when the tree was modified) and Go's
// version.
func VersionText(p Provenance) string {
	mod := ""
	if p.Modified {
		mod = " (modified)"
	}
	return fmt.Sprintf("herd %s\nrevision %s%s\n%s\n", p.Version, p.Revision, mod, p.Go)
}

// CommandLine is the command as a shell would take it back: herd and the
// arguments, each quoted when the shell would split or expand it.
func CommandLine(args []string) string {
	words := []string{"herd"}
	for _, a := range args {
		words = append(words, shellQuote(a))
	}
	return strings.Join(words, " ")
}

// CitedArgs is a command line as a cite line gives it when some flags
// change nothing in the results: each flag of placeholders has its value
// replaced by its placeholder (out: DIR), and the boolean flags of drop are
// left out.
func CitedArgs(args []string, placeholders map[string]string, drop ...string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimPrefix(a, "--"), "=")
		switch {
		case !strings.HasPrefix(a, "--"):
			out = append(out, a)
		case placeholders[name] != "":
			out = append(out, "--"+name, placeholders[name])
			if !hasValue {
				i++
			}
		case slices.Contains(drop, name):
		default:
			out = append(out, a)
		}
	}
	return out
}

func shellQuote(s string) string {
	const plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:=,+@%"
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !strings.ContainsRune(plain, r) }) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// Document renders a result in format (table, csv, json or markdown) with
// its cite line: a comment line heading a CSV, a footer under a table or
// markdown; a JSON document carries its provenance itself. A table's text
// is wrapped to width (0: no limit) around its tables, which body fits.
func Document(format string, cite Provenance, width int, body func(io.Writer) error) ([]byte, error) {
	var buf bytes.Buffer
	if format == "csv" {
		fmt.Fprintf(&buf, "# %s\n", cite.Cite)
	}
	if err := body(&buf); err != nil {
		return nil, err
	}
	switch format {
	case "table":
		fmt.Fprintf(&buf, "\n%s\n", cite.Cite)
		return []byte(WrapText(buf.String(), width)), nil
	case "markdown":
		fmt.Fprintf(&buf, "\n%s\n", cite.Markdown())
	}
	return buf.Bytes(), nil
}

// JSON writes v indented, as every JSON document of herd is.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}
