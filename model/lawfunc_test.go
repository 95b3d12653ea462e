package model

import (
	"github.com/herdlab/herd/policy"
	"testing"
	"time"
)

// LawFunc is Law for every textbook kind, contention kind and library
// preset, at every retry and state, with and without a real tick (the
// presets' delays are in seconds and scaled by it).
func TestLawFuncIsLaw(t *testing.T) {
	var pols []policy.Policy
	for _, k := range append(policy.Kinds(), policy.ContentionKinds()...) {
		pols = append(pols, policy.Policy{Kind: k, Base: 2, Cap: 300, FixedDelay: 3})
	}
	for _, p := range policy.Presets() {
		for _, tick := range []time.Duration{0, 100 * time.Millisecond} {
			pols = append(pols, policy.Policy{Kind: p.Name, Tick: tick})
		}
	}
	for _, p := range pols {
		law := p.LawFunc()
		for n := 1; n <= 40; n++ {
			for _, prev := range []float64{p.Start(), 0.5, 7, 1e4} {
				if got, want := law(n, prev), p.Law(n, prev); got != want {
					t.Fatalf("%s (tick %v) retry %d prev %g: LawFunc gives %+v, Law %+v", p.Kind, p.Tick, n, prev, got, want)
				}
			}
		}
	}
}
