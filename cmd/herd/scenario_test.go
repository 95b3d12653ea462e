package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// scenarioOf runs one herd command cheaply and returns the "scenario"
// object it reports (for sweep, of its only row).
func scenarioOf(t *testing.T, cmd string, flags []string) map[string]any {
	t.Helper()
	var args []string
	switch cmd {
	case "simulate":
		args = append([]string{"simulate", "--trials", "1", "--format", "json"}, flags...)
	case "sweep":
		args = append([]string{"sweep", "--trials", "1"}, flags...)
	case "model":
		args = append([]string{"model", "--method", "meanfield", "--format", "json"}, flags...)
	default:
		t.Fatalf("no such command %q", cmd)
	}
	out, errOut, code := herd(t, args...)
	if code != 0 {
		t.Fatalf("herd %s: exit %d: %s", strings.Join(args, " "), code, errOut)
	}
	var doc struct {
		Scenario map[string]any `json:"scenario"`
	}
	if err := json.NewDecoder(bytes.NewReader([]byte(out))).Decode(&doc); err != nil {
		t.Fatalf("herd %s: %v", strings.Join(args, " "), err)
	}
	if doc.Scenario == nil {
		t.Fatalf("herd %s: no scenario in %s", strings.Join(args, " "), out)
	}
	return doc.Scenario
}

// TestEveryCommandBuildsTheSameScenario: the same scenario flags describe
// the same scenario in every command that takes them (model.Spec is the one
// place that applies the server's and the preset's defaults).
func TestEveryCommandBuildsTheSameScenario(t *testing.T) {
	cases := []struct {
		flags    string
		commands []string // the commands that can run it
		want     map[string]any
	}{
		{"--server occ -n 10", []string{"simulate", "sweep"}, map[string]any{"base": 5.0, "cap": 2000.0, "fixed_delay": 10.0}},
		{"--server occ -n 10 --base 7 --policy equal", []string{"simulate", "sweep"}, map[string]any{"base": 7.0, "cap": 2000.0, "policy": "equal"}},
		{"-n 20 -k 3 --policy equal --cap 16 --rounding ceil", []string{"simulate", "sweep", "model"}, map[string]any{"base": 1.0, "cap": 16.0, "rounding": "ceil"}},
		{"--server collision -n 2 -k 2 --policy fixed --fixed-delay 3 --horizon 50", []string{"simulate", "sweep", "model"}, map[string]any{"fixed_delay": 3.0, "horizon": 50.0}},
		{"-n 30 --first-window 4 --policy decorrelated --base 0.5", []string{"simulate", "sweep", "model"}, map[string]any{"first_window": 4.0, "base": 0.5}},
		{"-n 20 --policy cenkalti-v4", []string{"simulate", "sweep"}, map[string]any{"policy": "cenkalti-v4", "max_elapsed": "15m0s"}},
		{"-n 20 --policy grpc-retry --retries 2 --tick 100ms", []string{"simulate", "sweep"}, map[string]any{"policy": "grpc-retry", "retries": 2.0, "tick": "100ms"}},
		{"-n 20 --policy full --tick 10ms", []string{"simulate", "sweep", "model"}, map[string]any{"tick": "10ms"}},
	}
	for _, c := range cases {
		flags := strings.Fields(c.flags)
		var first map[string]any
		for _, cmd := range c.commands {
			got := scenarioOf(t, cmd, flags)
			if first == nil {
				first = got
				for k, v := range c.want {
					if got[k] != v {
						t.Errorf("%s %s: scenario.%s = %v, want %v (scenario %v)", cmd, c.flags, k, got[k], v, got)
					}
				}
				continue
			}
			a, _ := json.Marshal(first)
			b, _ := json.Marshal(got)
			if !bytes.Equal(a, b) {
				t.Errorf("%s: %s built\n  %s\nbut %s built\n  %s", c.flags, c.commands[0], a, cmd, b)
			}
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
