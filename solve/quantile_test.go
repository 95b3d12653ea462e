package solve_test

import (
	"math/rand/v2"
	"testing"

	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// The models' completion quantiles follow the Monte Carlo convention: on
// the law of a sample they are its order statistic X(⌈np⌉), and the mass
// that did not finish scales the law without moving them.
func TestCompletionQuantileIsTheOrderStatistic(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		counts := make([]int64, 1+r.IntN(30))
		total := int64(0)
		for i := range counts {
			if r.IntN(3) > 0 {
				counts[i] = int64(r.IntN(50))
			}
			total += counts[i]
		}
		if total == 0 {
			continue
		}
		finished := 0.05 + 0.95*r.Float64()
		dist := make([]float64, len(counts))
		for i, c := range counts {
			dist[i] = finished * float64(c) / float64(total)
		}
		for _, p := range []float64{0.01, 0.1, 0.5, 0.9, 0.99, 1} {
			want := stats.QuantileOf(counts, p).Value
			if got := solve.CompletionQuantile(dist, p); float64(got) != want {
				t.Fatalf("counts %v (finished %g), p %g: quantile %d, the sample's order statistic is %g", counts, finished, p, got, want)
			}
		}
	}
}

func TestCompletionQuantileEdges(t *testing.T) {
	if got := solve.CompletionQuantile(nil, 0.5); got != -1 {
		t.Errorf("empty law: %d, want -1", got)
	}
	// Half the mass unfinished: the median of the finished half.
	dist := []float64{0, 0.125, 0.125, 0.25}
	for p, want := range map[float64]int{0.25: 1, 0.5: 2, 0.51: 3, 1: 3} {
		if got := solve.CompletionQuantile(dist, p); got != want {
			t.Errorf("p %g: %d, want %d", p, got, want)
		}
	}
	q := solve.QueueChain{Distribution: dist}
	m := solve.Markov{Distribution: dist}
	if q.Quantile(0.5) != 2 || m.Quantile(0.5) != 2 {
		t.Errorf("the chains' quantiles %d and %d, want CompletionQuantile's 2", q.Quantile(0.5), m.Quantile(0.5))
	}
}
