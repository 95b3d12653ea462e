package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// herd reproduce brooker --format json carries his simulator's provenance
// and, per row, herd's estimate beside his values.
func TestReproduceBrookerJSON(t *testing.T) {
	out, errs, code := herd(t, "reproduce", "brooker", "--trials", "5", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var doc struct {
		Source   string `json:"source"`
		Commit   string `json:"commit"`
		Command  string `json:"his_command"`
		Level    float64
		Compared int `json:"comparisons"`
		Rows     []struct {
			Experiment string `json:"experiment"`
			Load       struct {
				Mean    float64 `json:"mean"`
				Article struct {
					Mean float64 `json:"mean"`
					N    int     `json:"n"`
				} `json:"article"`
			} `json:"load"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.Source == "" || len(doc.Commit) != 40 || doc.Command == "" || len(doc.Rows) == 0 || doc.Compared != 2*len(doc.Rows) || doc.Level <= 0.95 {
		t.Fatalf("unexpected document: %+v", doc)
	}
	for _, r := range doc.Rows {
		if r.Load.Mean < 1 || r.Load.Article.N == 0 {
			t.Errorf("row %+v", r)
		}
	}
}

// The collapse reproductions run on the service server's one engine:
// --engine is refused by name (exit 2), not ignored.
func TestReproduceCollapseRefusesEngine(t *testing.T) {
	for _, name := range []string{"brooker-collapse", "gc-collapse", "descartes-storm"} {
		_, errs, code := herd(t, "reproduce", name, "--engine", "counts", "--trials", "1")
		if code != exitUsage || !strings.Contains(errs, "--engine") {
			t.Errorf("%s --engine counts: exit %d, %q; want exit %d naming --engine", name, code, errs, exitUsage)
		}
	}
}
