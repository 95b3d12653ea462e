package sweep

import (
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// A sweep varies the time model's fields like any other: round trips as
// durations and ranges, or as laws separated by semicolons, and windows
// as durations (the window varies slower: the grid's order is SpecFields');
// each point is continuous time.
func TestGridTimeFields(t *testing.T) {
	for _, c := range []struct {
		grid Grid
		want []model.RoundTrip
	}{
		{Grid{"latency": "0s:4ms:2ms", "window": "10ms"}, []model.RoundTrip{{}, {A: 2 * time.Millisecond}, {A: 4 * time.Millisecond}}},
		{Grid{"latency": "uniform:2ms,8ms;lognormal:5ms,2ms", "window": "10ms,100ms"}, []model.RoundTrip{
			{Law: model.UniformTrip, A: 2 * time.Millisecond, B: 8 * time.Millisecond}, {Law: model.LogNormalTrip, A: 5 * time.Millisecond, B: 2 * time.Millisecond},
			{Law: model.UniformTrip, A: 2 * time.Millisecond, B: 8 * time.Millisecond}, {Law: model.LogNormalTrip, A: 5 * time.Millisecond, B: 2 * time.Millisecond}}},
	} {
		c.grid["policy"] = "full"
		pts, err := SweepSpec{Grid: c.grid, Trials: 1}.Points()
		if err != nil {
			t.Fatalf("%v: %v", c.grid, err)
		}
		if len(pts) != len(c.want) {
			t.Fatalf("%v: %d points, want %d", c.grid, len(pts), len(c.want))
		}
		for i, sc := range pts {
			if sc.Time != model.ContinuousTime || sc.Latency != c.want[i] {
				t.Errorf("%v point %d: time %s latency %s, want %s", c.grid, i, sc.Time, sc.Latency, c.want[i])
			}
		}
	}
	if _, err := (SweepSpec{Grid: Grid{"latency": "uniform:2ms"}, Trials: 1}).Points(); err == nil {
		t.Error("a malformed round trip was accepted")
	}
}
