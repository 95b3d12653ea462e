package montecarlo

import (
	"testing"

	"github.com/herdlab/herd/model"
)

// benchPlay plays trials of sc and reports simulated calls per second.
func benchPlay(b *testing.B, sc model.Scenario) {
	e, err := NewClientEngine(sc)
	if err != nil {
		b.Fatal(err)
	}
	var t Trial
	var calls int64
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		t.reset(i)
		e.Play(Stream(1, sc, i), &t, false)
		calls += t.Calls
	}
	b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/trial")
}

// BenchmarkClientEngine measures the per-client engine on the issue's
// reference scenario (full jitter, N = 100,000, k = 1,000) and on the seed
// article's N = 100 scenario.
func BenchmarkClientEngine(b *testing.B) {
	for _, c := range []struct {
		name string
		n, k int
		kind model.Kind
	}{
		{"full/N=100000/k=1000", 100000, 1000, model.Full},
		{"decorrelated/N=100000/k=1000", 100000, 1000, model.Decorrelated},
		{"full/N=100/k=10", 100, 10, model.Full},
		{"expo/N=100/k=10", 100, 10, model.Expo},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc := model.Default()
			sc.Clients, sc.Capacity, sc.Policy.Kind = c.n, c.k, c.kind
			benchPlay(b, sc)
		})
	}
}

// BenchmarkOCCEngine measures the OCC event engine on the blog's N = 100
// scenario, per policy.
func BenchmarkOCCEngine(b *testing.B) {
	for _, kind := range model.AWSKinds() {
		b.Run(string(kind)+"/N=100", func(b *testing.B) {
			sc := model.AWSScenario(100, kind)
			e, err := NewOCCEngine(sc)
			if err != nil {
				b.Fatal(err)
			}
			var t Trial
			var calls int64
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				t.reset(i)
				e.Play(Stream(1, sc, i), &t, false)
				calls += t.Calls
			}
			b.ReportMetric(float64(calls)/b.Elapsed().Seconds(), "calls/s")
		})
	}
}
