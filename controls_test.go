package herd_test

import (
	"context"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// The claims of retry controls, layered retries, first-request jitter and
// metastability get the verdicts herd's evidence supports. Each verdict is
// decided by 95% intervals (or exact values) at 20 trials per point with a
// fixed seed.
func TestControlClaims(t *testing.T) {
	found, err := analysis.ControlClaims(context.Background(), montecarlo.Options{Trials: 20, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"layers-243x":                       "holds-only-when", // 3 tries, not 3 retries (which give 1024×)
		"seed-layers-27x":                   "holds-only-when", // likewise 64×
		"n-retries-1-plus-n":                "holds",
		"token-bucket-bounds-load":          "holds",
		"retry-storm-outlives-trigger":      "holds-only-when", // only where goodput falls under overload
		"controls-shrink-metastable-region": "holds",
		"jitter-first-request":              "holds",
	}
	for _, f := range found {
		if w, ok := want[f.ID]; !ok || f.Verdict != w {
			t.Errorf("%s: verdict %q, want %q; evidence %+v", f.ID, f.Verdict, w, f.Evidence)
		}
		if len(f.Evidence) == 0 || f.Quote == "" || f.Source == "" || f.Check == "" {
			t.Errorf("%s: missing quote, source, check or evidence", f.ID)
		}
		delete(want, f.ID)
	}
	for id := range want {
		t.Errorf("claim %s not evaluated", id)
	}
}

// The amplification closed form and the simulated call tree agree exactly
// at total failure for the Builders' Library's stack and the seed guide's.
func TestAmplificationExact(t *testing.T) {
	for _, c := range []struct {
		attempts []int
		want     float64
	}{{[]int{3, 3, 3, 3, 3}, 243}, {[]int{3, 3, 3}, 27}, {[]int{4, 4, 4}, 64}, {[]int{3, 1, 1, 1, 1}, 3}} {
		s, err := analysis.Amplify(context.Background(), 1, c.attempts, montecarlo.Options{Trials: 200, Seed: 2})
		if err != nil {
			t.Fatal(err)
		}
		if s.ClosedForm != c.want || !s.Exact || s.Simulated.Mean != c.want {
			t.Errorf("%v: closed form %g, simulated %g (exact %v), want %g", c.attempts, s.ClosedForm, s.Simulated.Mean, s.Exact, c.want)
		}
	}
}

// The metastable region: with no control, on a server where rejection
// costs 5% of service, some λ < k never recovers after a long outage; the
// same cells recover on the capacity server. Shown to fail the other way:
// the metastability count is not zero by construction.
func TestMetastableRegionAndControls(t *testing.T) {
	ctx := context.Background()
	sc, base := analysis.MetastabilityScenario()
	opt := montecarlo.Options{Trials: 20, Seed: 3}
	grid := analysis.MapGrid{Loads: []float64{0.7, 0.8}, Outages: []int{100, 200}}
	none, err := analysis.Metastability(ctx, sc, base, model.Controls{}, grid, opt)
	if err != nil {
		t.Fatal(err)
	}
	if n := none.StuckBelowCapacity(); n != 4 {
		t.Errorf("no control, reject cost 0.05: %d stuck cells of 4, want 4: %+v", n, none.Cells)
	}
	for _, ctl := range []model.Controls{{Bucket: model.DefaultBucket(model.BrookerBucket)}, {Breaker: model.DefaultBreaker()}} {
		m, err := analysis.Metastability(ctx, sc, base, ctl, grid, opt)
		if err != nil {
			t.Fatal(err)
		}
		if n := m.StuckBelowCapacity(); n != 0 {
			t.Errorf("%s: %d stuck cells, want 0", ctl, n)
		}
	}
	base.RejectCost = 0
	capMap, err := analysis.Metastability(ctx, sc, base, model.Controls{}, grid, opt)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range capMap.Cells {
		if c.Recovered.Count != c.Recovered.N {
			t.Errorf("capacity server, λ/k = %g, outage %d: %d of %d recovered, want all (goodput stays k)", c.Load, c.Outage, c.Recovered.Count, c.Recovered.N)
		}
	}
}

// The bucket bound check can fail: a Brooker bucket fifty times larger
// lets the load at total failure pass 1.1×.
func TestBucketBoundCanFail(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 100, 20
	tr := model.Traffic{Rate: 20, Ticks: 2000, OutageLength: 2000}
	big := model.DefaultBucket(model.BrookerBucket)
	big.Capacity = 500
	s, err := analysis.SimulateTraffic(context.Background(), sc, tr, model.Controls{Bucket: big}, montecarlo.Options{Trials: 10, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if s.Load.CI95[0] <= 1.1 {
		t.Errorf("a 500-token Brooker bucket keeps the load at %g ≤ 1.1", s.Load.Mean)
	}
}
