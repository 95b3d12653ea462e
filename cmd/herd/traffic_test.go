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
		{"--outage 10", "--outage is an open-loop or closed-loop flag: it needs --rate or --loop closed"},
		{"--reject-cost 0.1", "--reject-cost is an open-loop or closed-loop flag"},
		{"--server flaky --failure-rate 0.5", "--server must be capacity, collision, occ or queue for the cohort"},
		{"--failure-rate 0.5 --rate 5", "--failure-rate must be 0 unless --server flaky"},
		{"--server flaky --failure-rate 1.5 --rate 5", "--failure-rate must be a probability in [0, 1]"},
		{"--server flaky --failure-rate 0.5", "flaky"},
		{"--server flaky --rate 5 -n 10 --model markov", "unknown flag"},
		{"--bucket brooker-sim --bucket-deposit 0.2", "need open-loop mode (--rate)"},
		{"--rate 5 --breaker-kind brooker-sim", "--breaker-kind needs --breaker"},
		{"--rate 5 --breaker --breaker-kind brooker-sim --breaker-window 5", "--breaker-window needs --breaker (--breaker-kind window)"},
		{"--rate 5 --breaker --breaker-max-ratio 0.2", "--breaker-max-ratio needs --breaker --breaker-kind brooker-sim"},
		{"--rate 5 --breaker --breaker-kind leaky", "--breaker-kind must be window or brooker-sim"},
		{"--rate 5 --breaker --breaker-kind brooker-sim --breaker-max-ratio 0", "--breaker-max-ratio must be"},
		{"--rate 5 --budget-ttl 5s", "--budget-ttl needs --retry-budget"},
		{"--rate 5 --retry-budget --budget-ttl 90s", "--budget-ttl must be a duration in [1s, 60s]"},
		{"--rate 5 --retry-budget --budget-ttl 5s", "--budget-ttl must be at least 10 ticks"},
		{"--rate 5 --retry-budget --budget-percent -1", "--budget-percent"},
		{"--rate 5 --retry-budget --budget-min-retries -1", "--budget-min-retries"},
		{"--rate 5 --throttling-max-tokens 5", "--throttling-max-tokens needs --retry-throttling"},
		{"--rate 5 --retry-throttling --throttling-max-tokens 0", "--throttling-max-tokens must be"},
		{"--rate 5 --retry-throttling --throttling-token-ratio 20", "--throttling-token-ratio must be"},
		{"--rate 5 --adaptive-k 3", "--adaptive-k needs --adaptive-throttling"},
		{"--rate 5 --adaptive-throttling --adaptive-k 0.5", "--adaptive-k must be"},
		{"--rate 5 --adaptive-throttling --adaptive-window 10ms --tick 1s", "--adaptive-window must be at least one tick"},
		{"--loop half", "--loop must be open or closed"},
		{"--loop closed --rate 5", "--rate must be left out with --loop closed"},
		{"--loop closed --start-cohort", "--start-cohort must be left out with --loop closed"},
		{"--loop closed --think-time -1", "--think-time must be"},
		{"--rate 5 --think-time 3", "--think-time is a closed-loop flag"},
		{"--think-time 3", "--think-time is an open-loop or closed-loop flag"},
		{"--drain", "--drain is an open-loop or closed-loop flag"},
		{"--loop closed --server occ", "--server must be capacity, collision or flaky with closed-loop traffic"},
		{"--loop closed --engine counts", "cannot play closed-loop traffic"},
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

// On the flaky server at p = 0.5 with four
// attempts, the calls per request have 1.875 = (1 − 0.5⁴)/(1 − 0.5) in
// their interval.
func TestFlakyCallsPerRequest(t *testing.T) {
	out, errs, code := herd(t, "simulate", "--server", "flaky", "--failure-rate", "0.5", "--max-attempts", "4", "--rate", "30",
		"-k", "1000000", "--outage", "0", "--ticks", "500", "--trials", "200", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Scenario struct {
			Server      string  `json:"server"`
			FailureRate float64 `json:"failure_rate"`
		} `json:"scenario"`
		Traffic struct {
			Drain bool `json:"drain"`
		} `json:"traffic"`
		Load struct {
			CI95 [2]float64 `json:"ci95"`
		} `json:"load"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Scenario.Server != "flaky" || doc.Scenario.FailureRate != 0.5 || !doc.Traffic.Drain || doc.Load.CI95[0] > 1.875 || doc.Load.CI95[1] < 1.875 {
		t.Errorf("%+v", doc)
	}
}

// A closed loop's JSON says so, and does not depend on the worker count.
func TestClosedLoopJSON(t *testing.T) {
	args := []string{"simulate", "--loop", "closed", "--think-time", "3", "-n", "20", "-k", "5", "--ticks", "300", "--outage", "30",
		"--retry-throttling", "--max-attempts", "4", "--trials", "8", "--format", "json"}
	a, errs, code := herd(t, append(args, "--workers", "1")...)
	b, _, _ := herd(t, append(args, "--workers", "3")...)
	if code != 0 || result(t, a) != result(t, b) {
		t.Fatalf("exit %d (%s), or outputs differ between worker counts", code, errs)
	}
	var doc struct {
		Traffic struct {
			Loop  string `json:"loop"`
			Think *int   `json:"think_time"`
		} `json:"traffic"`
		Controls struct {
			Name       string          `json:"name"`
			Throttling json.RawMessage `json:"retry_throttling"`
		} `json:"controls"`
		GaveUpBy map[string]json.RawMessage `json:"gave_up_by"`
	}
	if err := json.Unmarshal([]byte(a), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Traffic.Loop != "closed" || doc.Traffic.Think == nil || *doc.Traffic.Think != 3 || doc.Controls.Name != "4 attempts + grpc throttling" ||
		doc.Controls.Throttling == nil || doc.GaveUpBy["retry_throttling"] == nil || doc.GaveUpBy["retry_budget"] != nil {
		t.Errorf("unexpected document: %+v", doc)
	}
}
