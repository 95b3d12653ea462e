package montecarlo

import (
	"math"
	"math/rand/v2"
	"syscall"
	"testing"

	"github.com/herdlab/herd/model"
)

// BenchmarkOCCGrid plays one trial of every point of the AWS blog's grid
// (N = 10…190 × its five policies) per iteration: one trial of `herd
// reproduce aws`, the unit scripts/bench-vs-aws.sh compares per trial with
// the blog's simulator. It reports events (writes) per second and the cost
// of one grid trial, for the engine ("engine") and for occReference
// ("reference"), the engine as it was before its draws were made fast,
// which plays the same trials bit for bit (TestOCCMatchesReference); with
// -count the two alternate, so their ratio is measured side by side.
func BenchmarkOCCGrid(b *testing.B) {
	var scs []model.Scenario
	for _, n := range model.AWSClients() {
		for _, kind := range model.AWSKinds() {
			scs = append(scs, model.AWSScenario(n, kind))
		}
	}
	grid := func(b *testing.B, engines []Engine) {
		var t Trial
		var events int64
		b.ReportAllocs()
		cpu := cpuSeconds()
		for i := 0; b.Loop(); i++ {
			for j, e := range engines {
				t.reset(i)
				e.Play(Stream(1, scs[j], i), &t, false)
				events += t.Calls
			}
		}
		reportCPU(b, cpu, events, "events")
		b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/grid-trial")
	}
	b.Run("engine", func(b *testing.B) {
		var engines []Engine
		for _, sc := range scs {
			e, err := NewEngineUsing(sc, Default)
			if err != nil {
				b.Fatal(err)
			}
			engines = append(engines, e)
		}
		grid(b, engines)
	})
	b.Run("reference", func(b *testing.B) {
		var engines []Engine
		for _, sc := range scs {
			engines = append(engines, newOCCReference(sc))
		}
		grid(b, engines)
	})
}

// cpuSeconds is the CPU time of the process so far (user and system). On a
// busy machine wall time counts the turns other processes take on the core;
// with GOMAXPROCS=1 the CPU time is the benchmark's own work and its
// garbage collection, so the benchmarks report rates per CPU second beside
// the wall-clock ones.
func cpuSeconds() float64 {
	var r syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &r) != nil {
		return math.NaN()
	}
	return float64(r.Utime.Sec+r.Stime.Sec) + float64(r.Utime.Usec+r.Stime.Usec)*1e-6
}

// reportCPU reports work done as a rate per wall-clock second ("unit/s")
// and per CPU second since cpu0 ("unit/cpu-s").
func reportCPU(b *testing.B, cpu0 float64, work int64, unit string) {
	b.ReportMetric(float64(work)/b.Elapsed().Seconds(), unit+"/s")
	if cpu := cpuSeconds() - cpu0; cpu > 0 {
		b.ReportMetric(float64(work)/cpu, unit+"/cpu-s")
	}
}

// BenchmarkHop is one network hop of the OCC engine, |Normal(10, 2)| from
// a client's PCG stream, as the engine draws it four times per lost write:
// the part of an event's cost the queue cannot remove and the stream
// fixes. "engine" is the engine's hop (normal on the concrete PCG),
// "NormFloat64" the same draws through rand.Rand's Source interface, as
// the engine made them before.
func BenchmarkHop(b *testing.B) {
	b.Run("engine", func(b *testing.B) {
		var e OCCEngine
		e.client = make([]occClient, 1)
		e.client[0].net.Seed(1, 2)
		var s float64
		n := 0
		cpu := cpuSeconds()
		for b.Loop() {
			s += hop(&e.client[0].net)
			n++
		}
		sinkFloat = s
		reportCPU(b, cpu, int64(n), "hops")
	})
	b.Run("NormFloat64", func(b *testing.B) {
		r := rand.New(rand.NewPCG(1, 2))
		var s float64
		n := 0
		cpu := cpuSeconds()
		for b.Loop() {
			s += math.Abs(model.HopMean + model.HopSD*r.NormFloat64())
			n++
		}
		sinkFloat = s
		reportCPU(b, cpu, int64(n), "hops")
	})
}

// BenchmarkOCCQueue is the event queue alone under the OCC engine's
// pattern for 190 clients: take the earliest write and put it back one
// attempt plus a backoff later (four hops of about 10 ms and a full-jitter
// delay up to 640 ms), for the tournament tree the engine uses and the
// 4-ary heap it had before.
func BenchmarkOCCQueue(b *testing.B) {
	const n = 190
	delays := make([]float64, 1<<12)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range delays {
		delays[i] = 40 + math.Abs(r.NormFloat64())*4 + r.Float64()*640
	}
	b.Run("tournament", func(b *testing.B) {
		var q clientQueue
		q.reset(n)
		for c := range n {
			q.at[c] = math.Float64bits(delays[c])
		}
		q.build()
		i := 0
		cpu := cpuSeconds()
		for b.Loop() {
			c, w := q.next()
			q.set(c, w+delays[i&(len(delays)-1)])
			i++
		}
		reportCPU(b, cpu, int64(i), "events")
	})
	b.Run("heap4", func(b *testing.B) {
		q := make([]occEvent, n)
		for c := range n {
			q[c] = occEvent{at: delays[c], client: int32(c)}
		}
		for i := (n - 2) / 4; i >= 0; i-- {
			siftDown(q, i)
		}
		i := 0
		cpu := cpuSeconds()
		for b.Loop() {
			q[0].at += delays[i&(len(delays)-1)]
			siftDown(q, 0)
			i++
		}
		reportCPU(b, cpu, int64(i), "events")
	})
}
