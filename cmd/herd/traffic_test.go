package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Invalid combinations of controls and open-loop flags exit 2 and name the
// flags.
func TestTrafficBadCombinations(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--bucket-cost 3", "--bucket-cost needs --bucket"},
		{"--bucket leaky --rate 5", "--bucket"},
		{"--breaker-window 10 --rate 5", "--breaker-window needs --breaker"},
		{"--outage 10", "--outage is an open-loop flag: it needs --rate"},
		{"--reject-cost 0.1", "--reject-cost is an open-loop flag"},
		{"--bucket aws", "need open-loop mode (--rate)"},
		{"--max-attempts 1", "--max-attempts 1"},
		{"--rate 5 --horizon 100", "--horizon"},
		{"--rate 0", "--rate"},
		{"--rate 5 --first-window 3", "--first-window"},
		{"--rate 5 --server collision --reject-cost 0.1", "--reject-cost"},
		{"--rate 5 --outage-capacity 10", "--outage-capacity"},
		{"--rate 5 --breaker --breaker-min-calls 30", "--breaker-min-calls"},
		{"--rate 5 --max-attempts -1", "--max-attempts"},
	} {
		out, errs, code := herd(t, append([]string{"simulate", "--trials", "2"}, strings.Fields(c.args)...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("herd simulate %s: exit %d, stdout %q, stderr %q (want %q)", c.args, code, out, errs, c.want)
		}
	}
}

// An open-loop run's JSON carries the recovered share, the controls and
// the traffic, and is the same whatever the worker count.
func TestTrafficJSON(t *testing.T) {
	args := []string{"simulate", "-n", "10", "-k", "10", "--rate", "8", "--ticks", "400", "--outage", "50", "--reject-cost", "0.05",
		"--bucket", "brooker", "--breaker", "--max-attempts", "4", "--trials", "30", "--format", "json"}
	a, errs, code := herd(t, append(args, "--workers", "1")...)
	b, _, _ := herd(t, append(args, "--workers", "3")...)
	if code != 0 || result(t, a) != result(t, b) {
		t.Fatalf("exit %d (%s), or outputs differ between worker counts", code, errs)
	}
	var doc struct {
		Recovered struct{ Count, N int } `json:"recovered"`
		Controls  struct {
			Name string `json:"name"`
		} `json:"controls"`
		Traffic struct {
			Load float64 `json:"load"`
		} `json:"traffic"`
	}
	if err := json.Unmarshal([]byte(a), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Recovered.N != 30 || doc.Controls.Name != "4 attempts + brooker bucket + breaker" || doc.Traffic.Load != 0.8 {
		t.Errorf("unexpected document: %+v", doc)
	}
}

// In the cohort, --max-attempts A is the policy's retry limit A − 1: the
// same output as --retries A − 1.
func TestMaxAttemptsCohortIsRetryLimit(t *testing.T) {
	base := []string{"simulate", "-n", "200", "-k", "10", "--trials", "50", "--format", "json"}
	a, errs, code := herd(t, append(base, "--max-attempts", "3")...)
	b, _, _ := herd(t, append(base, "--retries", "2")...)
	c, _, _ := herd(t, base...)
	if code != 0 || result(t, a) != result(t, b) || result(t, a) == result(t, c) {
		t.Fatalf("exit %d (%s); --max-attempts 3 and --retries 2 differ, or equal no limit", code, errs)
	}
}
