package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A refusal names a flag the user gave, whatever its class: a retry
// control a model or the cohort cannot take, an input the command needs
// that was not given (the flags given are named with it), a value checked
// before what is missing, an --out that is not a directory to write into,
// a scenario outside a model (named by the flags that put it there), a
// retry limit that lets a preset's delays outgrow the engines.
func TestRefusalNamesTheFlagGiven(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--retry-budget"}, "--retry-budget"},
		{[]string{"simulate", "--adaptive-throttling", "--retry-throttling"}, "--retry-throttling, --adaptive-throttling"},
		{[]string{"model", "--method", "closed", "--breaker"}, "--breaker"},
		{[]string{"model", "--retry-budget"}, "--retry-budget"},
		{[]string{"model", "--rate", "1"}, "--rate"},
		{[]string{"model", "--retries", "0"}, "--retries=0"},
		{[]string{"merge", "--out", "x"}, "--out=x"},
		{[]string{"reproduce"}, "reproduce needs an experiment"},
		{[]string{"compare", "--seed", "3"}, "--seed=3"},
		{[]string{"compare", "--clients", "-1"}, "--clients must be an integer in [1,"},
		{[]string{"model", "--method", "closed", "-n", "100", "-k", "10", "--first-spread", "1ns"}, "--method closed with --first-spread 1ns:"},
		{[]string{"model", "--method", "closed", "-n", "100", "-k", "10/s"}, "--method closed with --capacity 10/s:"},
		{[]string{"model", "--method", "closed", "--first-window", "1000"}, "--method closed with --first-window 1000:"},
		{[]string{"model", "--method", "markov", "-n", "4", "--retries", "3"}, "--method markov with --retries 3:"},
		{[]string{"simulate", "-k", "50/100ms", "--policy", "retry-go-v4", "--retries", "1000"}, "--retries must be an integer in [1, 24]"},
		{[]string{"plots", "--out", file}, "--out " + file},
		{[]string{"plots", "--out", ""}, "--out"},
		{[]string{"plots", "--out", filepath.Join(file, "sub")}, "--out " + filepath.Join(file, "sub")},
	} {
		out, errs, code := herd(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("herd %q: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errs, c.want)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != "x" {
		t.Errorf("a refused --out was touched: %q, %v", b, err)
	}
}
