package montecarlo

import (
	"math/rand/v2"
	"testing"
)

// The two operations every failed call of the per-client engine needs, for
// the cost per call BenchmarkClientEngine reports to be read against: one
// random draw (a uniform from the trial's PCG stream, as the full-jitter
// delay takes) and one bucket write (appending a client to the ring bucket
// of its next send; 33 buckets, full jitter's cap 32 plus one).

var sinkFloat float64

func BenchmarkRandomDraw(b *testing.B) {
	src := rand.NewPCG(1, 2)
	var s float64
	n := 0
	cpu := cpuSeconds()
	for b.Loop() {
		s += uniform(src)
		n++
	}
	sinkFloat = s
	reportCPU(b, cpu, int64(n), "draws")
}

func BenchmarkBucketWrite(b *testing.B) {
	const buckets, clients = 33, 100_000
	ring := make([][]int32, buckets)
	for i := range ring {
		ring[i] = make([]int32, 0, 2*clients/buckets)
	}
	// The slots of the writes, drawn beforehand so that only the write is
	// timed; the table's loads are sequential and cost next to nothing.
	slots := make([]uint8, 1<<16)
	src := rand.NewPCG(3, 4)
	for i := range slots {
		slots[i] = uint8(below(src, buckets))
	}
	n := 0
	cpu := cpuSeconds()
	for b.Loop() {
		s := slots[n&(len(slots)-1)]
		if len(ring[s]) == cap(ring[s]) {
			ring[s] = ring[s][:0]
		}
		ring[s] = append(ring[s], int32(n))
		n++
	}
	reportCPU(b, cpu, int64(n), "writes")
}
