package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/internal/bruteforce"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// herd model --method markov agrees to 1e-9 with the brute-force
// enumeration over labeled clients on held-out small scenarios.
func TestModelMarkovEqualsBruteForce(t *testing.T) {
	for _, c := range []struct {
		args []string
		sc   func(*model.Scenario)
	}{
		{[]string{"-n", "6", "-k", "3", "--policy", "full", "--cap", "16"}, func(s *model.Scenario) { s.Clients, s.Capacity, s.Policy.Cap = 6, 3, 16 }},
		{[]string{"-n", "5", "-k", "2", "--policy", "equal", "--cap", "12", "--rounding", "ceil"},
			func(s *model.Scenario) {
				s.Clients, s.Capacity, s.Policy.Kind, s.Policy.Cap, s.Rounding = 5, 2, policy.Equal, 12, policy.Ceil
			}},
		{[]string{"-n", "4", "-k", "1", "--policy", "expo", "--base", "1.5", "--cap", "10"},
			func(s *model.Scenario) {
				s.Clients, s.Capacity, s.Policy.Kind, s.Policy.Base, s.Policy.Cap = 4, 1, policy.Expo, 1.5, 10
			}},
	} {
		sc := model.Default()
		c.sc(&sc)
		want, err := bruteforce.Solve(sc)
		if err != nil {
			t.Fatal(err)
		}
		out, stderr, code := herd(t, append([]string{"model", "--method", "markov", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var got struct {
			Calls, Completion struct {
				Mean         float64
				Distribution []struct {
					Completion int
					P          float64
				}
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Calls.Mean-want.Calls) > 1e-9 || math.Abs(got.Completion.Mean-want.Completion) > 1e-9 {
			t.Errorf("%v: calls %.12g completion %.12g, brute force %.12g %.12g", c.args, got.Calls.Mean, got.Completion.Mean, want.Calls, want.Completion)
		}
		seen := 0.0
		for _, m := range got.Completion.Distribution {
			w := 0.0
			if m.Completion < len(want.Distribution) {
				w = want.Distribution[m.Completion]
			}
			if math.Abs(m.P-w) > 1e-9 {
				t.Errorf("%v: P(completion = %d) = %.12g, brute force %.12g", c.args, m.Completion, m.P, w)
			}
			seen += w
		}
		if math.Abs(seen-1) > 1e-9 {
			t.Errorf("%v: the printed distribution covers brute-force mass %.12g, want 1", c.args, seen)
		}
	}
}

func TestModelExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		says string
	}{
		{[]string{"model", "--method", "closed", "--policy", "expo", "--format", "json"}, 0, ""},
		// A scenario the model cannot take is bad input (exit 2), saying
		// why; so is a limit, naming the flag to raise.
		{[]string{"model", "--method", "closed", "--policy", "full"}, 2, "random"},
		{[]string{"model", "--method", "closed", "--policy", "fixed", "--server", "collision"}, 2, "no client is ever served"},
		{[]string{"model", "--method", "markov", "--policy", "decorrelated", "-n", "4"}, 2, "continuous"},
		{[]string{"model", "--method", "markov", "-n", "100", "--max-states", "1000"}, 2, "--max-states"},
		{[]string{"model", "--method", "meanfield", "-n", "100000", "-k", "100", "--format", "csv"}, 0, ""},
		{[]string{"model", "--method", "exact"}, 2, "--method"},
		{[]string{"model"}, 2, "--method"},
		{[]string{"model", "--method", "markov", "-k", "0"}, 2, "--capacity"},
		{[]string{"model", "--method", "meanfield", "--grid", "-1"}, 2, "--grid"},
	} {
		_, stderr, code := herd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.says) {
			t.Errorf("herd %s: exit %d, stderr %q; want exit %d mentioning %q", strings.Join(c.args, " "), code, stderr, c.code, c.says)
		}
	}
}

// Every model result states its validity: exact for the closed form;
// conditional, with the unfinished probability and a warning, for a chain
// cut by its horizon; approximate for the mean field, with the errors herd
// validate measured nearest to it, and a warning outside the validated
// region. The warnings go to stderr with JSON and into the table.
func TestModelValidity(t *testing.T) {
	type result struct {
		Validity struct {
			Kind       string
			Unfinished float64
			InRegion   *bool `json:"in_validated_region"`
			CallsError *struct {
				RelErr float64 `json:"rel_err"`
			} `json:"calls_error"`
			CompletionError *struct {
				RelErr float64 `json:"rel_err"`
			} `json:"completion_error"`
			NearestValidated *struct{ Scenario model.Scenario } `json:"nearest_validated"`
		}
		Warnings []string
	}
	for _, c := range []struct {
		args     []string
		kind     string
		warns    string // in JSON and on stderr; "" for none
		inRegion bool
	}{
		{[]string{"--method", "closed", "--policy", "expo"}, "exact", "", false},
		{[]string{"--method", "markov", "-n", "4", "-k", "1", "--policy", "full", "--cap", "8"}, "exact", "", false},
		{[]string{"--method", "markov", "-n", "4", "-k", "1", "--policy", "full", "--cap", "8", "--horizon", "7"}, "conditional", "conditional on finishing", false},
		{[]string{"--method", "meanfield", "-n", "100000", "-k", "33333", "--policy", "decorrelated"}, "approximate", "", true},
		{[]string{"--method", "meanfield", "-n", "5000", "-k", "100", "--policy", "equal"}, "approximate", "", true},
		{[]string{"--method", "meanfield", "-n", "100", "-k", "10", "--policy", "full"}, "approximate", "outside the region", false},
		{[]string{"--method", "meanfield", "-n", "10000", "-k", "100", "--policy", "full", "--cap", "64"}, "approximate", "outside the region", false},
	} {
		out, stderr, code := herd(t, append([]string{"model", "--format", "json"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var r result
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		v := r.Validity
		if v.Kind != c.kind {
			t.Errorf("%v: validity %q, want %q", c.args, v.Kind, c.kind)
		}
		if c.warns == "" && (len(r.Warnings) > 0 || stderr != "") {
			t.Errorf("%v: unexpected warnings %q, stderr %q", c.args, r.Warnings, stderr)
		}
		if c.warns != "" && (len(r.Warnings) != 1 || !strings.Contains(r.Warnings[0], c.warns) || !strings.Contains(stderr, c.warns)) {
			t.Errorf("%v: warnings %q, stderr %q; want one saying %q", c.args, r.Warnings, stderr, c.warns)
		}
		switch c.kind {
		case "conditional":
			if math.Abs(v.Unfinished-0.1018) > 1e-4 {
				t.Errorf("%v: unfinished %g, want about 0.1018", c.args, v.Unfinished)
			}
		case "approximate":
			if v.InRegion == nil || *v.InRegion != c.inRegion || v.CallsError == nil || v.CompletionError == nil || v.NearestValidated == nil {
				t.Errorf("%v: validity %+v lacks the measured errors or says the wrong region", c.args, v)
			}
		}
		table, _, _ := herd(t, append([]string{"model", "--format", "table"}, c.args...)...)
		if !strings.Contains(table, "\nvalidity: "+c.kind) || (c.warns != "" && !strings.Contains(table, "warning: ")) {
			t.Errorf("%v: the table does not state the validity %q and its warnings:\n%s", c.args, c.kind, table)
		}
	}
}
