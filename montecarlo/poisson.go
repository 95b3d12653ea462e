package montecarlo

import (
	"math"
	"math/rand/v2"
)

// poissonDraws draws Poisson counts from one stream, draw for draw as
// gonum's distuv.Poisson{Lambda, Src}.Rand does on that stream (the request
// engine's arrivals have always been drawn so): below a mean of 10 the
// direct method, counting exponential gaps (rand.Rand.ExpFloat64) before
// the mean is passed; from 10 on Hörmann's transformed rejection (PTRS,
// "The transformed rejection method for generating Poisson random
// variables", 1993) on rand.Rand.Float64's uniforms. What differs is only
// the work around the draws: the rejection constants and log λ are
// computed once per mean rather than at every draw, the uniforms come
// from the concrete PCG, and the rand.Rand the exponentials need is made
// once per stream (poissonSameAsGonum in poisson_test.go guards the draws).
type poissonDraws struct {
	src    *rand.PCG
	rng    *rand.Rand // over src, for ExpFloat64
	lambda float64
	// PTRS's constants for lambda (Hörmann's b, a, 1/α, v_r) and log λ.
	b, a, invAlpha, vr, logLambda float64
}

// newPoissonDraws draws from src with mean lambda.
func newPoissonDraws(src *rand.PCG, lambda float64) *poissonDraws {
	p := &poissonDraws{src: src, rng: rand.New(src)}
	p.setMean(lambda)
	return p
}

// setMean changes the mean of the counts drawn next.
func (p *poissonDraws) setMean(lambda float64) {
	if lambda == p.lambda && p.b != 0 {
		return
	}
	p.lambda = lambda
	p.b = 0.931 + 2.53*math.Sqrt(lambda)
	p.a = -0.059 + 0.02483*p.b
	p.invAlpha = 1.1239 + 1.1328/(p.b-3.4)
	p.vr = 0.9277 - 3.6224/(p.b-2)
	p.logLambda = math.Log(lambda)
}

// float64 is rand.Rand.Float64 on src: the low 53 bits of a word.
func (p *poissonDraws) float64() float64 {
	return float64(p.src.Uint64()<<11>>11) / (1 << 53)
}

// draw is the next count.
func (p *poissonDraws) draw() int {
	lambda := p.lambda
	if lambda < 10 {
		n := 0
		for t := p.rng.ExpFloat64(); t < lambda; t += p.rng.ExpFloat64() {
			n++
		}
		return n
	}
	a, b := p.a, p.b
	for {
		u := p.float64() - 0.5
		v := p.float64()
		us := 0.5 - math.Abs(u)
		k := math.Floor((2*a/us+b)*u + lambda + 0.43)
		if us >= 0.07 && v <= p.vr {
			return int(k)
		}
		if k <= 0 || (us < 0.013 && v > us) {
			continue
		}
		lg, _ := math.Lgamma(k + 1)
		if math.Log(v*p.invAlpha/(a/(us*us)+b)) <= k*p.logLambda-lambda-lg {
			return int(k)
		}
	}
}
