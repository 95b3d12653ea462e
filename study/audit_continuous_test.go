package study

import (
	"context"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// An audit of a limiter given per window runs in continuous time: the
// policies that retry at once with no round trip are left out and said,
// completion is in ms, and the retry peak is per window.
func TestAuditInContinuousTime(t *testing.T) {
	var spec model.Spec
	for _, kv := range [][2]string{{"clients", "200"}, {"capacity", "10/100ms"}} {
		if err := spec.Set(kv[0], kv[1]); err != nil {
			t.Fatal(err)
		}
	}
	sc, err := spec.Scenario()
	if err != nil || !sc.InContinuousTime() {
		t.Fatalf("-k 10/100ms: continuous %v (%v)", sc.InContinuousTime(), err)
	}
	left := AuditLeftOut(sc)
	for _, p := range AuditPolicies(sc) {
		if p.Kind == policy.None || strings.Contains(left, string(p.Kind)+",") {
			t.Errorf("%s is audited and left out (%q)", p.Kind, left)
		}
	}
	if !strings.Contains(left, "none") {
		t.Errorf("left out: %q, want none among them", left)
	}
	ps, err := AuditPoliciesNamed(spec, []string{"retry-go-v4", "full:base=100ms,cap=10s,retries=9"})
	if err != nil {
		t.Fatal(err)
	}
	a, err := RunAudit(context.Background(), sc, ps, montecarlo.Options{Trials: 20, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != 2 || a.Unit != "ms" || len(a.Notes) != 0 {
		t.Fatalf("audit of two named policies: %d rows, unit %q, notes %q; want 2 rows in ms, no notes", len(a.Rows), a.Unit, a.Notes)
	}
	for _, r := range a.Rows {
		// 200 clients against 10 per window: every window after the first
		// sends can hold at most the 200 retries; the peak over k is at
		// most 20 and at least 1 for a cohort 20 times the capacity.
		if r.PeakOverCapacity == nil || r.PeakOverCapacity.Mean > 20 || r.PeakOverCapacity.Mean < 1 {
			t.Errorf("%s: peak/k %v, want it in [1, 20]", r.Policy, r.PeakOverCapacity)
		}
		if r.Completion == nil || r.Completion.Mean < 100*19 {
			t.Errorf("%s: completion %v ms, want at least the 19 windows of 100 ms that 200 clients need at 10 per window", r.Policy, r.Completion)
		}
	}
	if _, err := AuditPoliciesNamed(spec, []string{"full", "full"}); err == nil {
		t.Error("a policy named twice was accepted")
	}
}
