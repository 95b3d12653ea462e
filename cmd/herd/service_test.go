package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestServiceBadFlagsExitTwo(t *testing.T) {
	for flag, args := range map[string][]string{
		"load":         {"--load", "0s:40"},
		"arrivals":     {"--arrivals", "uniform"},
		"room":         {"--room", "-3"},
		"pause":        {"--pause", "3s"},
		"service-time": {"--service-time", "exponential:0s"},
		"cancel":       {"--cancel"},
		"reject":       {"--reject", "sometimes"},
	} {
		out, errText, code := herd(t, append([]string{"service", "--trials", "2"}, args...)...)
		if code != 2 || out != "" || !strings.Contains(errText, "--"+flag) {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 naming --%s and nothing written", args, code, errText, out, flag)
		}
	}
}

// The collapse reproductions' JSON rows carry the fields scripts read.
func TestReproduceGCCollapseJSON(t *testing.T) {
	out, errText, code := herd(t, "reproduce", "gc-collapse", "--trials", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errText)
	}
	var doc struct {
		Rows []map[string]json.RawMessage `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Rows) != 12 {
		t.Fatalf("%d rows, want 12", len(doc.Rows))
	}
	for _, r := range doc.Rows {
		for _, k := range []string{"experiment", "variant", "arrivals", "pause_s", "retries", "collapsed", "amplification", "goodput", "recovery_s", "claim", "verdict"} {
			if _, ok := r[k]; !ok {
				t.Errorf("row without %q: %v", k, r)
			}
		}
		var c struct {
			Count, N int
			CI95     [2]float64
		}
		if err := json.Unmarshal(r["collapsed"], &c); err != nil || c.N < 1 || c.CI95[0] > c.CI95[1] {
			t.Errorf("collapsed %s: %v", r["collapsed"], err)
		}
	}
}

// The table's heading says the retry rule in words, the drain and the
// pauses only when there are some.
func TestServiceTableHeading(t *testing.T) {
	for _, c := range []struct {
		args      []string
		want, not []string
	}{
		{[]string{"--trials", "1"}, []string{"; 1 attempt (no retries);"}, []string{"pauses", "drain", "base="}},
		{[]string{"--trials", "1", "--attempts", "4", "--policy", "fixed", "--fixed-delay", "0.05", "--drain", "10s", "--pause", "30s,1s"},
			[]string{"4 attempts, each retry after 0.05s", "then 10s of drain", "; pauses 30s,1s"}, []string{"base="}},
	} {
		out, errs, code := herd(t, append([]string{"service", "--format", "table", "--duration", "40s"}, c.args...)...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errs)
		}
		head, _, _ := strings.Cut(out, "\n\n")
		for _, w := range c.want {
			if !strings.Contains(head, w) {
				t.Errorf("%v: heading %q lacks %q", c.args, head, w)
			}
		}
		for _, w := range c.not {
			if strings.Contains(head, w) {
				t.Errorf("%v: heading %q has %q", c.args, head, w)
			}
		}
	}
}
