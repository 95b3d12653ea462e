package montecarlo

import (
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// poissonSameAsGonum reports the first draw where poissonDraws, changing
// its mean along means, departs from distuv.Poisson on a copy of the same
// stream (or leaves the stream elsewhere): -1 when none does.
func poissonSameAsGonum(means []float64, draws int) int {
	mine, theirs := rand.NewPCG(7, 11), rand.NewPCG(7, 11)
	p := newPoissonDraws(mine, means[0])
	g := distuv.Poisson{Src: theirs}
	for i := range draws {
		m := means[i%len(means)]
		p.setMean(m)
		g.Lambda = m
		if p.draw() != int(g.Rand()) || *mine != *theirs {
			return i
		}
	}
	return -1
}

// TestPoissonSameAsGonum: the request engine's arrivals are drawn as they
// always were, on both sides of the direct method's bound (10), at means
// that change between draws as a rate step does.
func TestPoissonSameAsGonum(t *testing.T) {
	for _, means := range [][]float64{{0}, {0.5}, {4}, {9.999}, {10}, {10.5}, {19}, {57.3}, {1000}, {4, 19, 0, 12, 9.5, 300}} {
		if i := poissonSameAsGonum(means, 200_000); i >= 0 {
			t.Errorf("means %v: draw %d differs from gonum's", means, i)
		}
	}
}
