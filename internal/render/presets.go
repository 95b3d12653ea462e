package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/policy"
)

// Preset is one library preset as herd presets lists it.
type Preset struct {
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

// PresetList is herd presets' result, its JSON document.
type PresetList struct {
	Presets    []Preset   `json:"presets"`
	Provenance Provenance `json:"provenance"`
}

// NewPresetList lists every library preset, cited by cite.
func NewPresetList(cite Provenance) PresetList { return PresetList{presetRows(), cite} }

// presetRows are the presets of policy.Presets, in their order.
func presetRows() []Preset {
	var rows []Preset
	for _, p := range policy.Presets() {
		r := Preset{Name: string(p.Name), Library: p.Library, Version: p.Version, Source: p.Source,
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

// limit says a preset's retry limit and elapsed-time limit.
func limit(r Preset) string {
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

// Table writes the presets for a terminal, fitted to width (0: no limit).
func (l PresetList) Table(w io.Writer, width int) error {
	fmt.Fprintf(w, "%d library presets; delays in seconds, converted to ticks with --tick (default 1s) and --rounding.\n\n", len(l.Presets))
	t := NewTable(Column{Name: "preset"}, Column{Name: "delay before retry n (s)", Wrap: true},
		Column{Name: "retry limit", Wrap: true}, Column{Name: "library, version", Wrap: true}, Column{Name: "source", Wrap: true, Drop: 1})
	for _, r := range l.Presets {
		t.Add(r.Name, r.Formula, limit(r), r.Library+", "+r.Version, r.Source)
	}
	return t.Text(w, width)
}

// Markdown writes the presets as a markdown table.
func (l PresetList) Markdown(w io.Writer) error {
	fmt.Fprintln(w, "| preset | library (version) | delay before retry n | retry limit | source |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, r := range l.Presets {
		fmt.Fprintf(w, "| `%s` | %s (%s) | %s | %s | %s |\n", r.Name, MarkdownCell(r.Library), MarkdownCell(r.Version), MarkdownCell(r.Formula), limit(r), MarkdownCell(r.Source))
	}
	return nil
}

// CSV writes one row per preset.
func (l PresetList) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"name", "library", "version", "source", "formula", "defaults", "retries", "max_elapsed", "conformance", "synchronizing"})
	for _, r := range l.Presets {
		cw.Write([]string{r.Name, r.Library, r.Version, r.Source, r.Formula, r.Defaults, strconv.Itoa(r.Retries), r.MaxElapsed, r.Conformance, r.Synchronizing})
	}
	cw.Flush()
	return cw.Error()
}
