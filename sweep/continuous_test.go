package sweep

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/montecarlo"
)

// A grid given in a limiter's real units (-k 50/100ms) is swept in
// continuous time, as simulate plays each of its points: Check plans it
// and each row is simulate's summary of that point.
func TestSweepPlaysContinuousTime(t *testing.T) {
	spec := SweepSpec{Grid: Grid{"clients": "200,400", "capacity": "10/100ms", "policy": "retry-go-v4"}, Trials: 20, Seed: 3}
	pts, err := spec.Points()
	if err != nil {
		t.Fatal(err)
	}
	if err := spec.Check(pts); err != nil {
		t.Fatalf("Check: %v", err)
	}
	ctx := context.Background()
	rows, err := sweepBytes(t, ctx, spec, pts, SweepOptions{Shard: Whole, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(rows))
	for p, sc := range pts {
		if !sc.InContinuousTime() {
			t.Fatalf("point %d is not in continuous time", p)
		}
		var row struct {
			Unit   string
			Calls  struct{ Mean float64 }
			GaveUp struct{ Mean float64 } `json:"gave_up"`
		}
		if err := dec.Decode(&row); err != nil {
			t.Fatalf("row %d: %v", p, err)
		}
		want, err := analysis.Simulate(ctx, sc, montecarlo.Options{Trials: spec.Trials, Seed: spec.Seed})
		if err != nil {
			t.Fatal(err)
		}
		if row.Unit != "ms" || row.Calls.Mean != want.Calls.Mean || row.GaveUp.Mean != want.GaveUp.Mean {
			t.Errorf("point %d: unit %q, calls %v, gave up %v; simulate gives ms, %v, %v", p, row.Unit, row.Calls.Mean, row.GaveUp.Mean, want.Calls.Mean, want.GaveUp.Mean)
		}
	}
}
