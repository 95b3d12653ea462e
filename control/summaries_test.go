package control

import "testing"

func TestEverySummaryIsSaid(t *testing.T) {
	for _, k := range BucketKinds() {
		if k.Summary() == "" {
			t.Errorf("bucket %q has no summary", k)
		}
	}
	if n, want := len(Summaries()), 1+len(BucketKinds())-1+4; n != want {
		t.Errorf("Summaries lists %d controls, want %d (max attempts, every bucket but none, breaker, budget, throttling, adaptive)", n, want)
	}
}
