package render

import (
	"io"
	"path/filepath"
	"slices"
	"strings"

	"github.com/herdlab/herd/model"
)

// Formats are the formats every result is written in; results worth
// pasting into documents add "markdown".
var Formats = []string{"table", "csv", "json"}

// Result is a result of render's: a JSON document that writes itself as a
// table, and as CSV (CSV(io.Writer) error) and markdown
// (Markdown(io.Writer) error) where it offers them; where it does not, its
// table is written.
type Result interface {
	Table(w io.Writer, width int) error
}

// Write renders r in format, with its cite line (Document).
func Write(format string, cite Provenance, width int, r Result) ([]byte, error) {
	return Document(format, cite, width, func(w io.Writer) error {
		switch format {
		case "json":
			return JSON(w, r)
		case "csv":
			if c, ok := r.(interface{ CSV(io.Writer) error }); ok {
				return c.CSV(w)
			}
		case "markdown":
			if m, ok := r.(interface{ Markdown(io.Writer) error }); ok {
				return m.Markdown(w)
			}
		}
		return r.Table(w, width)
	})
}

// FormatOf is the format a result is written in: the one given (--format,
// one of allowed), else the one the file's extension names, else a table
// for a terminal and JSON for a file or a program.
func FormatOf(given string, allowed []string, path string, terminal bool) (string, error) {
	if given != "" {
		if !slices.Contains(allowed, given) {
			return "", model.Usagef("--format must be one of %s, got %q", strings.Join(allowed, ", "), given)
		}
		return given, nil
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md":
		if slices.Contains(allowed, "markdown") {
			return "markdown", nil
		}
	case ".json":
		return "json", nil
	case ".csv":
		return "csv", nil
	case ".txt":
		return "table", nil
	}
	if path == "" && terminal {
		return "table", nil
	}
	return "json", nil
}
