package main

import (
	"encoding/json"
	"testing"
)

func runHerd(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	return herd(t, args...)
}

// herd simulate --server occ takes the blog's delays by default and plays
// the very trials of the matching herd reproduce aws row.
func TestSimulateOCCMatchesReproduceAWS(t *testing.T) {
	out, errs, code := runHerd(t, "reproduce", "aws", "--trials", "20", "--format", "json")
	if code != 0 {
		t.Fatalf("reproduce aws: exit %d: %s", code, errs)
	}
	var rep struct {
		Unit string `json:"unit"`
		Rows []struct {
			Clients    int    `json:"clients"`
			Policy     string `json:"policy"`
			Calls      struct{ Mean float64 }
			Completion struct{ Mean float64 }
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Rows) != 95 || rep.Unit != "ms" {
		t.Fatalf("%d rows in %q, want 19 × 5 in ms", len(rep.Rows), rep.Unit)
	}
	out, errs, code = runHerd(t, "simulate", "--server", "occ", "-n", "100", "--policy", "full", "--trials", "20", "--format", "json")
	if code != 0 {
		t.Fatalf("simulate: exit %d: %s", code, errs)
	}
	var sim struct {
		Unit       string `json:"unit"`
		Calls      struct{ Mean float64 }
		Completion struct{ Mean float64 }
	}
	if err := json.Unmarshal([]byte(out), &sim); err != nil {
		t.Fatal(err)
	}
	for _, r := range rep.Rows {
		if r.Clients == 100 && r.Policy == "full" {
			if sim.Unit != "ms" || sim.Calls.Mean != r.Calls.Mean || sim.Completion.Mean != r.Completion.Mean {
				t.Fatalf("simulate %+v, reproduce row %+v", sim, r)
			}
			return
		}
	}
	t.Fatal("no N = 100 full row")
}

func TestClaimsUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"claims", "--source", "blog"},
		{"claims", "--format", "csv"},
		{"claims", "--trials", "1"},
		{"simulate", "--server", "occ", "--cap", "1", "--base", "5"},
		{"simulate", "--server", "occ", "--retries", "3"},
		{"reproduce", "aws", "--trials", "0"},
	} {
		if _, _, code := runHerd(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
