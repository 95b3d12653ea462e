package main

import (
	"encoding/json"
	"testing"
)

// --arrivals adds the mean arrivals of every tick: the fixed policy's one
// trial is the synchronized wave 100, 0, 90, 0, … (the cohort shrinks by k
// every second tick), and over many trials of a jittered policy the mean
// arrivals add up to the mean calls.
func TestSimulateArrivals(t *testing.T) {
	type est struct {
		Mean float64 `json:"mean"`
	}
	var doc struct {
		Calls    est   `json:"calls"`
		Arrivals []est `json:"arrivals"`
	}
	out, errs, code := herd(t, "simulate", "-n", "100", "-k", "10", "--policy", "fixed", "--trials", "1", "--arrivals", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if len(doc.Arrivals) != 19 {
		t.Fatalf("fixed, N = 100, k = 10: %d ticks of arrivals, want 19 (completion 19)", len(doc.Arrivals))
	}
	for i, a := range doc.Arrivals {
		want := 0.0
		if i%2 == 0 {
			want = float64(100 - 5*i)
		}
		if a.Mean != want {
			t.Errorf("tick %d: %g arrivals, want %g", i, a.Mean, want)
		}
	}

	out, errs, code = herd(t, "simulate", "-n", "100", "-k", "10", "--policy", "full", "--trials", "200", "--arrivals", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	doc.Arrivals = nil
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	sum := 0.0
	for _, a := range doc.Arrivals {
		sum += a.Mean
	}
	if d := sum - doc.Calls.Mean; d > 1e-6*doc.Calls.Mean || d < -1e-6*doc.Calls.Mean {
		t.Errorf("full: mean arrivals add up to %g, mean calls %g", sum, doc.Calls.Mean)
	}

	// Without the flag the document has no timeline.
	out, _, _ = herd(t, "simulate", "-n", "100", "--trials", "10", "--format", "json")
	var plain map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &plain); err != nil {
		t.Fatal(err)
	}
	if _, ok := plain["arrivals"]; ok {
		t.Error("arrivals present without --arrivals")
	}
}
