package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

// scenarioOf parses one herd command line and returns the scenario the
// command would run (for sweep, its only point), as JSON.
func scenarioOf(t *testing.T, cmd string, flags []string) []byte {
	t.Helper()
	var sc model.Scenario
	var code int
	var errs string
	args := append([]string{cmd}, flags...)
	switch cmd {
	case "simulate":
		var o *simulateOptions
		o, errs, code = parse(t, newCmdSimulate, args...)
		if o != nil {
			sc = o.Scenario
		}
	case "sweep":
		var o *sweepOptions
		o, errs, code = parse(t, newCmdSweep, args...)
		if o != nil {
			if len(o.Points) != 1 {
				t.Fatalf("herd %s: %d points", strings.Join(args, " "), len(o.Points))
			}
			sc = o.Points[0]
		}
	case "model":
		var o *modelOptions
		o, errs, code = parse(t, newCmdModel, append(args, "--method", "meanfield")...)
		if o != nil {
			sc = o.Scenario
		}
	case "audit":
		var o *auditOptions
		o, errs, code = parse(t, newCmdAudit, args...)
		if o != nil {
			sc = o.Scenario
		}
	default:
		t.Fatalf("no such command %q", cmd)
	}
	if code != 0 {
		t.Fatalf("herd %s: exit %d: %s", strings.Join(args, " "), code, errs)
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// reportedScenario runs herd simulate for one trial and returns the
// scenario its JSON reports.
func reportedScenario(t *testing.T, flags []string) []byte {
	t.Helper()
	args := append([]string{"simulate", "--trials", "1", "--format", "json"}, flags...)
	out, errOut, code := herd(t, args...)
	if code != 0 {
		t.Fatalf("herd %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var doc struct {
		Scenario json.RawMessage `json:"scenario"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || doc.Scenario == nil {
		t.Fatalf("herd %s: %v, no scenario in %s", strings.Join(args, " "), err, out)
	}
	var compact bytes.Buffer
	json.Compact(&compact, doc.Scenario)
	return compact.Bytes()
}

// TestEveryCommandBuildsTheSameScenario: the same scenario flags describe
// the same scenario in every command that takes them (model.Spec is the one
// place that applies the server's and the preset's defaults), and herd
// simulate reports the scenario it was given.
func TestEveryCommandBuildsTheSameScenario(t *testing.T) {
	cases := []struct {
		flags    string
		commands []string // the commands that can run it
		want     map[string]any
	}{
		{"--server occ -n 10", []string{"simulate", "sweep"}, map[string]any{"base": 5.0, "cap": 2000.0, "fixed_delay": 10.0}},
		{"--server occ -n 10 --base 7 --policy equal", []string{"simulate", "sweep"}, map[string]any{"base": 7.0, "cap": 2000.0, "policy": "equal"}},
		{"-n 20 -k 3 --policy equal --cap 16 --rounding ceil", []string{"simulate", "sweep", "model", "audit"}, map[string]any{"base": 1.0, "cap": 16.0, "rounding": "ceil"}},
		{"--server collision -n 2 -k 2 --policy fixed --fixed-delay 3 --horizon 50", []string{"simulate", "sweep", "model", "audit"}, map[string]any{"fixed_delay": 3.0, "horizon": 50.0}},
		{"-n 30 --first-window 4 --policy decorrelated --base 0.5", []string{"simulate", "sweep", "model", "audit"}, map[string]any{"first_window": 4.0, "base": 0.5}},
		{"-n 20 --policy cenkalti-v4", []string{"simulate", "sweep", "audit"}, map[string]any{"policy": "cenkalti-v4", "max_elapsed": "15m0s"}},
		{"-n 20 --policy grpc-retry --retries 2 --tick 100ms", []string{"simulate", "sweep", "audit"}, map[string]any{"policy": "grpc-retry", "retries": 2.0, "tick": "100ms"}},
		{"-n 1000 -k 100/s --tick 100ms", []string{"simulate", "sweep", "model", "audit"}, map[string]any{"capacity": 10.0, "tick": "100ms"}},
		{"-n 20 -k 5/ms --policy cenkalti-v4 --tick 2ms", []string{"simulate", "sweep", "audit"}, map[string]any{"capacity": 10.0}},
		{"-n 20 --policy full --tick 10ms", []string{"simulate", "sweep", "model", "audit"}, map[string]any{"tick": "10ms"}},
		{"-n 200 -k 200/s --policy retry-go-v4 --window 10ms --latency 5ms --first-spread 40ms", []string{"simulate", "sweep", "model", "audit"},
			map[string]any{"time": "continuous", "capacity": 2.0, "window": "10ms", "latency": "5ms", "first_spread": "40ms"}},
	}
	for _, c := range cases {
		flags := strings.Fields(c.flags)
		first := scenarioOf(t, c.commands[0], flags)
		var fields map[string]any
		if err := json.Unmarshal(first, &fields); err != nil {
			t.Fatal(err)
		}
		for k, v := range c.want {
			if fields[k] != v {
				t.Errorf("%s %s: scenario.%s = %v, want %v (scenario %s)", c.commands[0], c.flags, k, fields[k], v, first)
			}
		}
		for _, cmd := range c.commands[1:] {
			if got := scenarioOf(t, cmd, flags); !bytes.Equal(first, got) {
				t.Errorf("%s: %s built\n  %s\nbut %s built\n  %s", c.flags, c.commands[0], first, cmd, got)
			}
		}
		if got := reportedScenario(t, flags); !bytes.Equal(first, got) {
			t.Errorf("%s: simulate built\n  %s\nbut reported\n  %s", c.flags, first, got)
		}
	}
}

// A preset's delays are the library's own: --base with a preset is refused
// the same way by every command, naming the flag.
func TestPresetRefusesTextbookDelays(t *testing.T) {
	for _, args := range [][]string{
		{"simulate", "--policy", "cenkalti-v4", "--base", "2"},
		{"sweep", "--policy", "cenkalti-v4", "--base", "2"},
		{"audit", "--policy", "cenkalti-v4", "--cap", "64"},
	} {
		_, errOut, code := herd(t, args...)
		if code != 2 || !strings.Contains(errOut, "--base") && !strings.Contains(errOut, "--cap") {
			t.Errorf("herd %s: exit %d, %q; want exit 2 naming the flag", strings.Join(args, " "), code, errOut)
		}
	}
}

// --engine is honoured or refused by every kind of run: open-loop traffic
// has its own engine, so asking for another exits 2 saying why.
func TestEngineHonouredOrRefused(t *testing.T) {
	for _, engine := range []string{"counts", "clients"} {
		_, errOut, code := herd(t, "simulate", "--engine", engine, "--rate", "16", "-n", "100", "-k", "20", "--trials", "2")
		if code != 2 || !strings.Contains(errOut, "--engine "+engine) || !strings.Contains(errOut, "open-loop") {
			t.Errorf("--engine %s --rate 16: exit %d, %q; want exit 2 saying open-loop traffic has its own engine", engine, code, errOut)
		}
	}
	out, errOut, code := herd(t, "simulate", "--engine", "auto", "--rate", "16", "-n", "100", "-k", "20", "--trials", "2", "--format", "json")
	if code != 0 || !strings.Contains(out, `"open-loop"`) {
		t.Errorf("--engine auto --rate 16: exit %d, %s; want a run that names the open-loop engine", code, errOut)
	}
}

// --out onto a read-only file or a directory is refused before the run
// (exit 2) and leaves the file as it was; onto a symbolic link it writes
// the link's target.
func TestOutRefusesAndFollowsLinks(t *testing.T) {
	dir := t.TempDir()
	ro := filepath.Join(dir, "ro.json")
	os.WriteFile(ro, []byte("keep"), 0o444)
	for _, out := range []string{ro, dir} {
		_, errOut, code := herd(t, "simulate", "--trials", "2", "--out", out)
		if code != 2 || !strings.Contains(errOut, "--out") {
			t.Errorf("--out %s: exit %d, %q; want 2 naming --out", out, code, errOut)
		}
	}
	if b, _ := os.ReadFile(ro); string(b) != "keep" {
		t.Errorf("the read-only file now holds %q", b)
	}
	target := filepath.Join(dir, "target.json")
	os.Symlink("target.json", filepath.Join(dir, "link.json"))
	if _, errOut, code := herd(t, "simulate", "--trials", "2", "--out", filepath.Join(dir, "link.json")); code != 0 {
		t.Fatalf("--out link: exit %d, %s", code, errOut)
	}
	if b, err := os.ReadFile(target); err != nil || !strings.Contains(string(b), `"calls"`) {
		t.Errorf("the link's target holds %q (%v)", b, err)
	}
}
