package solve

import (
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// The mean field's law of completion. Completion is at most t exactly when
// nobody sends at tick t or later: every first send is before t, and every
// client that failed at a tick s < t sends again before t. With F_s the
// number of failures at s, each of which next waits w ticks with the law q_s
// of that tick's failing classes, that is
//
//	P(C ≤ t) = E[ Π_{s<t} Z_s(t−1−s)^{F_s} ],   Z_s(d) = Σ_{w ≤ d} q_s(w),
//
// an identity. The mean field supplies the law of each F_s = g(M_s) (g is
// the server's rule, M_s the tick's arrivals under countLaw with the
// linear-noise variance) and the correlation between the arrivals of
// different ticks. Ticks whose failures are certain to be none or certain to
// be some are taken as independent factors. Ticks that straddle the
// capacity — both no failure and some failures are possible, the ticks that
// decide whether a few last clients are left over — are linked: their
// arrivals are coupled through a Gaussian copula whose latent correlation is
// the linear-noise correlation of consecutive linked ticks (a Markov chain
// over them), so a tick that took more than its share leaves less for the
// next. Clients' latencies are thus not taken as independent of each other,
// which is what fails when the last clients' number is itself random (a
// knife edge such as N/k = 3, where a tick holds k ± √N arrivals).

// latentBins are Q equally likely bins of the standard normal latent
// variable of the copula; Kernel gives the transition between the bins of
// two linked ticks.
type latentBins struct {
	edges []float64 // Q+1 quantiles, ±Inf at the ends
	// nodes are S points per bin at the probability midpoints of equal
	// sub-bins, to average the kernel over a bin.
	nodes [][]float64
}

// latentQ is the number of latent bins; latentS the sub-points per bin.
const (
	latentQ = 48
	latentS = 8
)

func newLatentBins() latentBins {
	b := latentBins{edges: make([]float64, latentQ+1), nodes: make([][]float64, latentQ)}
	for i := range b.edges {
		b.edges[i] = distuv.UnitNormal.Quantile(float64(i) / latentQ)
	}
	for i := range b.nodes {
		b.nodes[i] = make([]float64, latentS)
		for s := range latentS {
			b.nodes[i][s] = distuv.UnitNormal.Quantile((float64(i) + (float64(s)+0.5)/latentS) / latentQ)
		}
	}
	return b
}

// kernel returns K[i][j] = P(U' in bin j | U in bin i) for standard normals
// with correlation rho.
func (b latentBins) kernel(rho float64) [][]float64 {
	rho = math.Max(-1, math.Min(1, rho))
	tau := math.Sqrt(1 - rho*rho)
	k := make([][]float64, latentQ)
	for i := range k {
		k[i] = make([]float64, latentQ)
		for _, x := range b.nodes[i] {
			m := rho * x
			if tau < 1e-9 {
				j := b.bin(m)
				k[i][j] += 1.0 / latentS
				continue
			}
			prev := 0.0
			for j := range latentQ {
				c := 1.0
				if j < latentQ-1 {
					c = distuv.UnitNormal.CDF((b.edges[j+1] - m) / tau)
				}
				k[i][j] += (c - prev) / latentS
				prev = c
			}
		}
	}
	return k
}

// bin is the bin holding x.
func (b latentBins) bin(x float64) int {
	for j := 1; j < latentQ; j++ {
		if x < b.edges[j] {
			return j - 1
		}
	}
	return latentQ - 1
}

// tickFailures is what a tick contributes to the law of completion.
type tickFailures struct {
	tick int
	// h[d] = E[Z(d)^F], or for a linked tick hBin[i][d] = E[Z(d)^F | latent
	// bin i], for d = 0 … maxWait−1 (Z(d) = 1 beyond).
	h    []float64
	hBin [][]float64
	rho  float64 // latent correlation with the previous linked tick
}

// completionLaw gathers the ticks' failures and gives P(C ≤ t).
type completionLaw struct {
	maxWait int
	logP    []float64 // Σ over independent ticks of ln h
	linked  []tickFailures
	bins    latentBins
}

// straddles says whether a tick's failures are linked: both none and some
// have probability at least linkMass.
const linkMass = 1e-6

// add records tick t, whose arrivals have law m on a server failing g(m)
// of them, whose failures next wait w ticks with probability q[w], and
// whose arrivals' correlation with the previous linked tick's is rho. It
// reports whether the tick was linked.
func (c *completionLaw) add(t int, m countLaw, g func(int) int, q []float64, rho float64) bool {
	p0 := 0.0
	for i, p := range m.P {
		if g(m.Lo+i) == 0 {
			p0 += p
		}
	}
	if p0 >= 1-1e-15 {
		return false
	}
	z := make([]float64, c.maxWait) // z[d] = Z(d)
	for d := 1; d < c.maxWait; d++ {
		z[d] = z[d-1]
		if d < len(q) {
			z[d] += q[d]
		}
	}
	for len(c.logP) < t+1+c.maxWait {
		c.logP = append(c.logP, 0)
	}
	// pows[d] walks z[d]^g(m) along the support: g grows by one per count
	// above the capacity on either server, so each step is a product.
	pows := make([]float64, c.maxWait)
	prevF := -1
	step := func(f int) {
		for d := range pows {
			switch {
			case f == 0:
				pows[d] = 1
			case prevF > 0 && f == prevF+1:
				pows[d] *= z[d]
			default:
				pows[d] = math.Pow(z[d], float64(f))
			}
		}
		prevF = f
	}
	if p0 < linkMass || p0 > 1-linkMass {
		h := make([]float64, c.maxWait)
		for i, p := range m.P {
			step(g(m.Lo + i))
			for d, x := range pows {
				h[d] += p * x
			}
		}
		for d := range h {
			c.logP[t+1+d] += math.Log(h[d])
		}
		return false
	}
	tf := tickFailures{tick: t, rho: rho, hBin: make([][]float64, latentQ)}
	for i := range tf.hBin {
		tf.hBin[i] = make([]float64, c.maxWait)
	}
	// The copula maps latent bin i to the arrivals' probabilities
	// [i/Q, (i+1)/Q]: each count's mass is split over the bins it overlaps.
	cum := 0.0
	for i, p := range m.P {
		lo, hi := cum, math.Min(1, cum+p)
		cum = hi
		step(g(m.Lo + i))
		for b := int(lo * latentQ); b < latentQ && float64(b) < hi*latentQ; b++ {
			w := math.Min(hi, float64(b+1)/latentQ) - math.Max(lo, float64(b)/latentQ)
			if w <= 0 {
				continue
			}
			for d, x := range pows {
				tf.hBin[b][d] += latentQ * w * x
			}
		}
	}
	c.linked = append(c.linked, tf)
	return true
}

// atMost returns P(C ≤ t) for t = 0 … len−1, the law of completion, for
// a cohort of n clients whose first sends are uniform over window ticks.
func (c *completionLaw) atMost(n, window int) []float64 {
	out := make([]float64, len(c.logP)+1)
	kernels := make([][][]float64, len(c.linked))
	first := 0 // the first linked tick in the window of t
	for t := range out {
		p := 1.0
		if t < len(c.logP) {
			p = math.Exp(c.logP[t])
		}
		if t < window {
			p *= math.Pow(float64(t)/float64(window), float64(n))
		}
		for first < len(c.linked) && c.linked[first].tick < t-c.maxWait {
			first++
		}
		var alpha []float64
		for j := first; j < len(c.linked) && c.linked[j].tick < t && p > 0; j++ {
			lt := c.linked[j]
			d := t - 1 - lt.tick
			if alpha == nil {
				alpha = make([]float64, latentQ)
				for i := range alpha {
					alpha[i] = 1.0 / latentQ
				}
			} else {
				if kernels[j] == nil {
					kernels[j] = c.bins.kernel(lt.rho)
				}
				next := make([]float64, latentQ)
				for i, a := range alpha {
					if a == 0 {
						continue
					}
					for b, k := range kernels[j][i] {
						next[b] += a * k
					}
				}
				alpha = next
			}
			for i := range alpha {
				alpha[i] *= lt.hBin[i][d]
			}
		}
		if alpha != nil {
			s := 0.0
			for _, a := range alpha {
				s += a
			}
			p *= s
		}
		out[t] = math.Min(1, p)
		if t > 0 && out[t] < out[t-1] { // a law of completion never decreases
			out[t] = out[t-1]
		}
	}
	return out
}
