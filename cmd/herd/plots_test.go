package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
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
