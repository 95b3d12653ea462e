package montecarlo

import (
	"fmt"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// BenchmarkClientEngine measures the per-client engine on the issue's
// reference scenario (full jitter, N = 100,000, k = 1,000) and on the seed
// article's N = 100 scenario.
func BenchmarkClientEngine(b *testing.B) {
	for _, c := range []struct {
		name string
		n, k int
		kind policy.Kind
	}{
		{"full/N=100000/k=1000", 100000, 1000, policy.Full},
		{"decorrelated/N=100000/k=1000", 100000, 1000, policy.Decorrelated},
		{"full/N=100/k=10", 100, 10, policy.Full},
		{"expo/N=100/k=10", 100, 10, policy.Expo},
	} {
		b.Run(c.name, func(b *testing.B) {
			sc := model.Default()
			sc.Clients, sc.Capacity, sc.Policy.Kind = c.n, c.k, c.kind
			benchEngine(b, sc, Clients)
		})
	}
}

// BenchmarkCountEngine measures the count engine on the reference
// scenario, whose cost does not grow with N.
func BenchmarkCountEngine(b *testing.B) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 100000, 1000, policy.Full
	b.Run("full/N=100000/k=1000", func(b *testing.B) { benchEngine(b, sc, Counts) })
}

// BenchmarkOCCEngine measures the OCC event engine on the blog's N = 100
// scenario, per policy.
func BenchmarkOCCEngine(b *testing.B) {
	for _, kind := range model.AWSKinds() {
		b.Run(string(kind)+"/N=100", func(b *testing.B) {
			benchEngine(b, model.AWSScenario(100, kind), Default)
		})
	}
}

// benchEngine plays trials with the given engine and reports calls per
// second (wall clock and CPU) and the calls of one trial.
func benchEngine(b *testing.B, sc model.Scenario, use EngineName) {
	e, err := NewEngineUsing(sc, use)
	if err != nil {
		b.Fatal(err)
	}
	benchPlay(b, sc, e)
}

// benchPlay plays trials of sc with e and reports calls per second (wall
// clock and CPU) and the calls of one trial.
func benchPlay(b *testing.B, sc model.Scenario, e Engine) {
	var t Trial
	var calls int64
	b.ReportAllocs()
	cpu := cpuSeconds()
	for i := 0; b.Loop(); i++ {
		t.reset(i)
		e.Play(Stream(1, sc, i), &t, false)
		calls += t.Calls
	}
	reportCPU(b, cpu, calls, "calls")
	b.ReportMetric(float64(calls)/float64(b.N), "calls/trial")
}

// BenchmarkCostVersusN is the cost of a trial against N at a fixed
// N/k = 100 (full jitter, base 1, cap 32) for both engines: the count
// engine's stays flat from N = 10³ to 10⁹, the per-client engine's grows
// with N (it stops at 10⁶, where a trial takes a fifth of a second).
// `make bench-cost` records its output in plots/data/engine-cost.txt, which
// the engine-cost figure draws.
func BenchmarkCostVersusN(b *testing.B) {
	for _, n := range []int{1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000} {
		for _, use := range []EngineName{Clients, Counts} {
			if use == Clients && n > 1_000_000 {
				continue
			}
			b.Run(fmt.Sprintf("%s/N=%d/k=%d", use, n, n/100), func(b *testing.B) {
				sc := model.Default()
				sc.Clients, sc.Capacity = n, n/100
				benchEngine(b, sc, use)
			})
		}
	}
}

// BenchmarkEngineCost plays the same scenarios on both engines: the data
// behind Choose's cost model.
func BenchmarkEngineCost(b *testing.B) {
	for _, c := range []struct {
		kind policy.Kind
		n, k int
	}{
		{policy.Full, 100, 10}, {policy.Full, 1000, 10}, {policy.Full, 1000, 100}, {policy.Full, 10_000, 100},
		{policy.Full, 100_000, 1000}, {policy.None, 1000, 10}, {policy.Fixed, 1000, 10}, {policy.Expo, 1000, 10},
		{policy.Equal, 1000, 10}, {policy.Full, 10_000, 10}, {policy.Expo, 100_000, 1000},
	} {
		for _, use := range []EngineName{Clients, Counts} {
			b.Run(fmt.Sprintf("%s/N=%d/k=%d/%s", c.kind, c.n, c.k, use), func(b *testing.B) {
				sc := model.Default()
				sc.Clients, sc.Capacity, sc.Policy.Kind = c.n, c.k, c.kind
				benchEngine(b, sc, use)
			})
		}
	}
}
