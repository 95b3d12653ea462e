package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

var update = flag.Bool("update", false, "rewrite cmd/herd/testdata/*.golden with this herd's outputs")

// checkGolden compares got with testdata/NAME.golden. On a mismatch it
// writes testdata/NAME.got and shows a line diff; -update rewrites the
// golden instead.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name+".golden")
	gotPath := filepath.Join("testdata", name+".got")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(gotPath)
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/herd -run Golden -update writes it)", err)
	}
	if bytes.Equal(want, got) {
		os.Remove(gotPath)
		return
	}
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		t.Fatal(err)
	}
	d := lineDiff(string(want), string(got))
	if d == "" {
		d = "(only the final newline differs)\n"
	}
	t.Errorf("output differs from %s (this run's is in %s; go test ./cmd/herd -run Golden -update accepts it):\n%s", path, gotPath, d)
}

// lineDiff shows how b differs from a, line by line: "-" for a line only
// in a, "+" only in b, with two lines of context around each change (a
// longest common subsequence; outputs here are a few hundred lines).
func lineDiff(a, b string) string {
	lines := func(s string) []string { return strings.Split(strings.TrimSuffix(s, "\n"), "\n") }
	x, y := lines(a), lines(b)
	// lcs[i][j] is the longest common subsequence of x[i:] and y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var ops []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			ops = append(ops, line{' ', x[i]})
			i, j = i+1, j+1
		case j < len(y) && (i == len(x) || lcs[i][j+1] > lcs[i+1][j]):
			ops = append(ops, line{'+', y[j]})
			j++
		default:
			ops = append(ops, line{'-', x[i]})
			i++
		}
	}
	var out strings.Builder
	const context = 2
	last := -1 // the last line printed
	for k, op := range ops {
		if op.op == ' ' {
			continue
		}
		if last >= 0 && k-context > last+1 {
			out.WriteString("  …\n")
		}
		for c := max(last+1, k-context); c < k; c++ {
			out.WriteString("  " + ops[c].text + "\n")
		}
		out.WriteString(string(op.op) + " " + op.text + "\n")
		last = k
		for c := k + 1; c <= min(len(ops)-1, k+context) && ops[c].op == ' '; c++ {
			out.WriteString("  " + ops[c].text + "\n")
			last = c
		}
	}
	return out.String()
}

// TestGoldenOutputs runs herd at small scale with fixed seeds and compares
// every table, markdown and CSV output with its golden file: a change to
// what herd prints must be deliberate (-update) and shows in review.
func TestGoldenOutputs(t *testing.T) {
	cases := []struct{ name, args string }{
		{"simulate-cohort.table", "simulate -n 100 -k 10 --policy full --trials 200 --seed 3 --format table"},
		{"simulate-cohort.csv", "simulate -n 100 -k 10 --policy full --trials 200 --seed 3 --format csv"},
		{"simulate-gave-up.table", "simulate -n 200 -k 10 --policy equal --max-attempts 3 --trials 50 --format table"},
		{"simulate-preset.table", "simulate -n 100 -k 10 --policy grpc-retry --tick 100ms --trials 50 --format table"},
		{"simulate-occ.table", "simulate --server occ -n 20 --policy full --trials 50 --format table"},
		{"simulate-continuous.table", "simulate -n 200 -k 10 --policy retry-go-v4 --window 100ms --latency uniform:2ms,8ms --first-spread 50ms --trials 50 --format table"},
		{"simulate-continuous.csv", "simulate -n 200 -k 10 --policy retry-go-v4 --window 100ms --latency uniform:2ms,8ms --first-spread 50ms --trials 50 --format csv"},
		{"simulate-occ.csv", "simulate --server occ -n 20 --policy full --trials 50 --format csv"},
		{"simulate-open-loop.table", "simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --bucket brooker --trials 10 --format table"},
		{"simulate-open-loop.csv", "simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --bucket brooker --trials 10 --format csv"},
		{"simulate-censored.table", "simulate --server collision --policy fixed -n 20 -k 1 --trials 20 --format table"},
		{"simulate-censored.csv", "simulate --server collision --policy fixed -n 20 -k 1 --trials 20 --format csv"},
		{"model-closed.table", "model --method closed -n 100 -k 10 --policy expo --format table"},
		{"model-closed.csv", "model --method closed -n 100 -k 10 --policy expo --format csv"},
		{"model-markov.table", "model --method markov -n 8 -k 2 --policy full --format table"},
		{"model-markov.csv", "model --method markov -n 8 -k 2 --policy full --format csv"},
		{"model-meanfield.table", "model --method meanfield -n 10000 -k 100 --policy equal --format table"},
		{"model-meanfield.csv", "model --method meanfield -n 10000 -k 100 --policy equal --format csv"},
		{"presets.table", "presets --format table"},
		{"presets.markdown", "presets --format markdown"},
		{"presets.csv", "presets --format csv"},
		{"audit.table", "audit -n 100 --trials 20 --format table"},
		{"audit.markdown", "audit -n 100 --trials 20 --format markdown"},
		{"audit.csv", "audit -n 100 --trials 20 --format csv"},
		// 18 of 20 trials of full censored; the ranking must say so.
		{"audit-censored.markdown", "audit -n 100 -k 10 --horizon 15 --trials 20 --format markdown"},
		{"audit-censored.csv", "audit -n 100 -k 10 --horizon 15 --trials 20 --format csv"},
		{"reproduce-seed.table", "reproduce seed --trials 30 --format table"},
		{"reproduce-seed.csv", "reproduce seed --trials 30 --format csv"},
		{"reproduce-aws.table", "reproduce aws --trials 5 --format table"},
		{"reproduce-aws.csv", "reproduce aws --trials 5 --format csv"},
		{"plots-list.table", "plots --list"},
		{"delays.table", "delays --policy polly-v8-expo-jitter --count 4 --cells 65536 --format table"},
		{"delays.markdown", "delays --policy decorrelated --base 1 --cap 32 --count 3 --cells 4096 --format markdown"},
		{"delays.csv", "delays --policy cenkalti-v4 --count 3 --cells 4096 --format csv"},
		{"simulate-cohort.markdown", "simulate -n 100 -k 10 --policy full --trials 200 --seed 3 --format markdown"},
		{"reproduce-seed.markdown", "reproduce seed --trials 30 --format markdown"},
		{"reproduce-aws.markdown", "reproduce aws --trials 5 --format markdown"},
		{"claims-seed.table", "claims --source seed --trials 2 --format table --evidence"},
		{"claims-seed.markdown", "claims --source seed --trials 2 --format markdown"},
		// Fitted to 100 columns: wrapped text, optional columns left out.
		{"simulate-preset.table-100", "COLUMNS=100 simulate -n 100 -k 10 --policy grpc-retry --tick 100ms --trials 50 --format table"},
		{"audit.table-100", "COLUMNS=100 audit -n 100 --trials 20 --format table"},
		{"presets.table-100", "COLUMNS=100 presets --format table"},
		{"reproduce-seed.table-100", "COLUMNS=100 reproduce seed --trials 30 --format table"},
		{"claims-seed.table-100", "COLUMNS=100 claims --source seed --trials 2 --format table"},
		// herd claims --source controls has no small scale (--trials 2
		// still takes minutes); the seed claims' table is the same code.
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := strings.Fields(c.args)
			t.Setenv("COLUMNS", "")
			if cols, ok := strings.CutPrefix(args[0], "COLUMNS="); ok {
				t.Setenv("COLUMNS", cols)
				args = args[1:]
			}
			out, errs, code := herd(t, args...)
			if code != 0 {
				t.Fatalf("herd %s: exit %d: %s", c.args, code, errs)
			}
			checkGolden(t, c.name, []byte(out))
		})
	}
}

// smallValidationGrid is one case of each model from herd validate's grid,
// the cheapest: the closed form on the seed's expo row (N = 50), the chain
// on three clients of the collision server, the mean field at N = 1000.
func smallValidationGrid(t *testing.T) []analysis.ValidationCase {
	t.Helper()
	var g []analysis.ValidationCase
	for _, c := range analysis.DefaultValidationGrid() {
		sc := c.Scenario
		switch {
		case c.Method == analysis.MethodClosed && sc.Clients == 50 && sc.Policy.Kind == policy.Expo,
			c.Method == analysis.MethodMarkov && sc.Clients == 3 && sc.Server == model.Collision,
			c.Method == analysis.MethodMeanField && sc.Clients == 1000 && sc.Capacity == 33 && sc.Policy.Kind == policy.Full,
			c.Method == analysis.MethodChain && c.Traffic == nil && sc.Clients == 6 && sc.Capacity == 2 && sc.Queue == model.Queueing{Timeout: 2} && sc.Policy.Kind == policy.Full:
			g = append(g, c)
		}
	}
	if len(g) != 4 {
		t.Fatalf("found %d of the 4 small validation cases in the default grid", len(g))
	}
	return g
}

// herd validate's table and CSV on a small grid (the whole grid takes
// tens of seconds; the root package's tests run it), through the real
// command with only its grid replaced.
func TestGoldenValidate(t *testing.T) {
	for _, format := range []string{"table", "csv"} {
		t.Run(format, func(t *testing.T) {
			out, errs, code := parseAndRun(t, newCmdValidate, func(o *validateOptions) error {
				o.Grid = smallValidationGrid(t)
				return validateRun(o)
			}, "validate", "--format", format)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errs)
			}
			checkGolden(t, "validate-small."+format, []byte(out))
		})
	}
}

// lineDiff marks the changed line and keeps its context.
func TestLineDiff(t *testing.T) {
	a := "head\none\ntwo\nthree\nfour\nfive\nsix\n"
	b := "head\none\ntwo\nTHREE\nfour\nfive\nsix\nseven\n"
	want := "  one\n  two\n- three\n+ THREE\n  four\n  five\n  six\n+ seven\n"
	if got := lineDiff(a, b); got != want {
		t.Errorf("lineDiff:\n%s\nwant\n%s", got, want)
	}
	if got := lineDiff(a, a); got != "" {
		t.Errorf("lineDiff of equal texts: %q", got)
	}
}
