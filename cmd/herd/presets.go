package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
)

// presetsOptions are what herd presets' flags said.
type presetsOptions struct {
	IO     *iostreams
	Output output
}

func newCmdPresets(f *factory, runF func(*presetsOptions) error) *cobra.Command {
	opts := &presetsOptions{IO: f.IO}
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "presets",
		Short: "List the library presets: formula, defaults, retry limit and source",
		Long: `presets lists the models of real client libraries' default backoff that
--policy accepts by name. Each gives the delay before retry n ≥ 1 in seconds,
the library's default parameters and retry limit, and the version and source
file the formula was written from. Presets whose library is a Go module are
checked against the real library by the conformance module (make conformance).`,
		Example: `  herd presets
  herd presets --format markdown
  herd simulate --policy retryablehttp-default -n 10000 -k 100 --tick 100ms`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return presetsRun(opts)
		},
	}
	out.register(c)
	return c
}

// presetJSON is one preset in herd presets' JSON.
type presetJSON struct {
	Name          string `json:"name"`
	Library       string `json:"library"`
	Version       string `json:"version"`
	Source        string `json:"source"`
	Formula       string `json:"formula"`
	Defaults      string `json:"defaults"`
	Retries       int    `json:"retries"`
	MaxElapsed    string `json:"max_elapsed,omitempty"`
	Unit          string `json:"unit"`
	Conformance   string `json:"conformance"`
	Synchronizing string `json:"synchronizing,omitempty"`
}

func presetRows() []presetJSON {
	var rows []presetJSON
	for _, p := range policy.Presets() {
		r := presetJSON{Name: string(p.Name), Library: p.Library, Version: p.Version, Source: p.Source,
			Formula: p.Formula, Defaults: p.Defaults, Retries: p.Retries, Unit: "s",
			Synchronizing: p.Synchronizing, Conformance: "tested against " + p.Module}
		if p.MaxElapsed > 0 {
			r.MaxElapsed = p.MaxElapsed.String()
		}
		if p.Module == "" {
			r.Conformance = "not tested: " + p.Note
		}
		rows = append(rows, r)
	}
	return rows
}

func presetsRun(opts *presetsOptions) error {
	rows := presetRows()
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		switch opts.Output.Format {
		case "json":
			return render.JSON(w, struct {
				Presets    []presetJSON      `json:"presets"`
				Provenance render.Provenance `json:"provenance"`
			}{rows, opts.Output.Cite})
		case "csv":
			cw := csv.NewWriter(w)
			cw.Write([]string{"name", "library", "version", "source", "formula", "defaults", "retries", "max_elapsed", "conformance", "synchronizing"})
			for _, r := range rows {
				cw.Write([]string{r.Name, r.Library, r.Version, r.Source, r.Formula, r.Defaults, strconv.Itoa(r.Retries), r.MaxElapsed, r.Conformance, r.Synchronizing})
			}
			cw.Flush()
			return cw.Error()
		case "markdown":
			fmt.Fprintln(w, "| preset | library (version) | delay before retry n | retry limit | source |")
			fmt.Fprintln(w, "|---|---|---|---|---|")
			for _, r := range rows {
				fmt.Fprintf(w, "| `%s` | %s (%s) | %s | %s | %s |\n", r.Name, render.MarkdownCell(r.Library), render.MarkdownCell(r.Version), render.MarkdownCell(r.Formula), limit(r), render.MarkdownCell(r.Source))
			}
			return nil
		}
		fmt.Fprintf(w, "%d library presets; delays in seconds, converted to ticks with --tick (default 1s) and --rounding.\n\n", len(rows))
		t := render.NewTable(render.Column{Name: "preset"}, render.Column{Name: "delay before retry n (s)", Wrap: true},
			render.Column{Name: "retry limit", Wrap: true}, render.Column{Name: "library, version", Wrap: true}, render.Column{Name: "source", Wrap: true, Drop: 1})
		for _, r := range rows {
			t.Add(r.Name, r.Formula, limit(r), r.Library+", "+r.Version, r.Source)
		}
		return t.Text(w, opts.Output.Width)
	})
}

func limit(r presetJSON) string {
	var parts []string
	if r.Retries > 0 {
		parts = append(parts, strconv.Itoa(r.Retries)+" retries")
	}
	if r.MaxElapsed != "" {
		parts = append(parts, r.MaxElapsed+" elapsed")
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
