package main

import (
	"strings"
	"testing"

	"github.com/herdlab/herd/internal/render"
)

// widest is the widest line of out in bytes, which are at least its
// characters and its terminal columns (awk's length counts bytes).
func widest(out string) (int, string) {
	w, line := 0, ""
	for _, l := range strings.Split(out, "\n") {
		if len(l) > w {
			w, line = len(l), l
		}
	}
	return w, line
}

// With COLUMNS=100 no table is wider than 100 columns: the tables fit by
// wrapping and leaving out optional columns, the text around them wraps.
// (herd claims --source controls takes minutes even at --trials 2; its
// table is the same code on other rows.)
func TestTablesFitColumns(t *testing.T) {
	t.Setenv("COLUMNS", "100")
	before := render.Unfitted()
	defer func() {
		// A table that did not fit would be rewrapped as prose: mangled.
		if n := render.Unfitted() - before; n > 0 {
			t.Errorf("%d tables could not be fitted to 100 columns", n)
		}
	}()
	for _, args := range []string{
		"simulate -n 1000 -k 100/s --tick 10ms --policy cenkalti-v4 --trials 20",
		"simulate -n 100 -k 20 --rate 16 --outage 100 --reject-cost 0.05 --bucket brooker --trials 5",
		"simulate --server occ -n 20 --policy full --trials 20",
		"presets",
		"audit -n 100 --trials 10",
		"audit -n 1000 -k 100/s --tick 10ms --trials 5",
		"reproduce seed --trials 10",
		"reproduce aws --trials 2",
		"claims --source seed --trials 2",
		"claims --source aws --trials 2",
		"model --method markov -n 8 -k 2 --policy full",
		"delays --policy polly-v8-expo-jitter --count 4 --cells 65536",
	} {
		out, errs, code := herd(t, append(strings.Fields(args), "--format", "table")...)
		if code != 0 {
			t.Fatalf("herd %s: exit %d: %s", args, code, errs)
		}
		if w, line := widest(out); w > 100 {
			t.Errorf("herd %s --format table: a line of %d columns:\n%s", args, w, line)
		}
	}
	out, errs, code := parseAndRunIn(t, testFactory(map[string]string{"COLUMNS": "100"}), newCmdValidate, func(o *validateOptions) error {
		o.Grid = smallValidationGrid(t)
		return validateRun(o)
	}, "validate", "--format", "table")
	if code != 0 {
		t.Fatalf("validate: exit %d: %s", code, errs)
	}
	if w, line := widest(out); w > 100 {
		t.Errorf("herd validate --format table: a line of %d columns:\n%s", w, line)
	}
	// --wide shows every column: the same audit is then wider.
	wide, _, _ := herd(t, "audit", "-n", "100", "--trials", "10", "--format", "table", "--wide")
	if w, _ := widest(wide); w <= 100 || !strings.Contains(wide, "latency p99") {
		t.Errorf("--wide: widest line %d columns, latency column shown %v", w, strings.Contains(wide, "latency p99"))
	}
}
