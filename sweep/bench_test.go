package sweep

import (
	"context"
	"testing"
)

// BenchmarkSweep runs a slice of the acceptance sweep (5 policies × 2 bases
// × 2 caps at N = 1,000, k = 10, 100 trials a point) through RunSweep and
// reports points and trials per second.
func BenchmarkSweep(b *testing.B) {
	spec := SweepSpec{Grid: Grid{"clients": "1000", "capacity": "10", "policy": "none,fixed,expo,full,equal",
		"base": "1,4", "cap": "32,256"}, Trials: 100, Seed: 1}
	pts, err := spec.Points()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	rows := 0
	for b.Loop() {
		err := RunSweep(context.Background(), spec, pts, SweepOptions{Shard: Whole}, func([]byte) error {
			rows++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(rows)/b.Elapsed().Seconds(), "points/s")
	b.ReportMetric(float64(rows*spec.Trials)/b.Elapsed().Seconds(), "trials/s")
}
