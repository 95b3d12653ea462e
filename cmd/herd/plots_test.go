package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/plots"
)

func TestPlotsList(t *testing.T) {
	out, _, code := herd(t, "plots", "--list")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"calls-vs-load", "completion-vs-load", "tail-convergence", "sensitivity-base-cap", "arrivals-timeline", "policy-comparison",
		"presets-audit", "recovery-vs-load", "metastability-map", "aws-calls-vs-clients", "aws-time-vs-clients"} {
		if !strings.Contains(out, name) {
			t.Errorf("--list does not name %s:\n%s", name, out)
		}
	}
}

func TestPlotsUsageErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"plots", "--only", "no-such-figure", "--list"}, "--only"},
		{[]string{"plots", "--scale", "0", "--out", t.TempDir()}, "--scale"},
		{[]string{"plots", "--scale", "2", "--out", t.TempDir()}, "(0, 1]"},
		{[]string{"plots", "--workers", "-1", "--out", t.TempDir()}, "--workers"},
		{[]string{"plots", "--palette", "--format", "yaml"}, "--format"},
		{[]string{"plots", "--format", "json", "--out", t.TempDir()}, "--palette only"},
	} {
		_, stderr, code := herd(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("herd %v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, stderr, c.want)
		}
	}
}

func TestPlotsWritesThreeFormats(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	_, stderr, code := herd(t, "plots", "--only", "arrivals-timeline", "--scale", "0.01", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	want := []string{"arrivals-timeline.pdf", "arrivals-timeline.png", "arrivals-timeline.svg"}
	if strings.Join(names, " ") != strings.Join(want, " ") {
		t.Errorf("wrote %v, want %v (and no temporary files)", names, want)
	}
}

// A figure drawn by herd plots ends its small print with the cite line
// (the revision and the command); --cite=false, what make plots commits,
// leaves it out, and the figure is then the same bytes whatever the
// revision.
func TestPlotsCiteLine(t *testing.T) {
	svg := func(args ...string) string {
		dir := t.TempDir()
		_, stderr, code := herd(t, append([]string{"plots", "--only", "engine-cost", "--out", dir}, args...)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		b, err := os.ReadFile(filepath.Join(dir, "engine-cost.svg"))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	rev := testBuild().Revision
	if cited := svg(); !strings.Contains(cited, rev) || !strings.Contains(cited, "herd plots --only engine-cost") {
		t.Errorf("herd plots drew no cite line with revision %s and the command", rev)
	}
	if plain := svg("--cite=false"); strings.Contains(plain, rev) || strings.Contains(plain, "Cite:") {
		t.Error("herd plots --cite=false still wrote the cite line")
	}
}

// herd plots --palette --format json is the figures' palette, which the
// notebooks read.
func TestPlotsPaletteJSON(t *testing.T) {
	stdout, stderr, code := herd(t, "plots", "--palette", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var doc struct {
		Policies []plots.PaletteEntry `json:"policies"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatal(err)
	}
	if want := plots.Palette(); len(doc.Policies) != len(want) || len(want) < 6 {
		t.Fatalf("printed %d policies, want %d", len(doc.Policies), len(want))
	}
	for i, e := range plots.Palette() {
		if doc.Policies[i] != e {
			t.Errorf("printed %+v, want %+v", doc.Policies[i], e)
		}
	}
}

// Figures drawn together, several at once, are the bytes of each figure
// drawn alone: nothing of one figure's run leaks into another's.
func TestPlotsTogetherAsAlone(t *testing.T) {
	names := []string{"arrivals-timeline", "policy-comparison", "engine-cost"}
	draw := func(only ...string) string {
		dir := t.TempDir()
		_, stderr, code := herd(t, "plots", "--cite=false", "--scale", "0.01", "--workers", "2", "--only", strings.Join(only, ","), "--out", dir)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		return dir
	}
	together := draw(names...)
	for _, name := range names {
		alone := draw(name)
		for _, format := range plots.Formats {
			file := name + "." + format
			a, err := os.ReadFile(filepath.Join(alone, file))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(together, file))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Errorf("%s drawn with %v differs from it drawn alone", file, names)
			}
		}
	}
}
