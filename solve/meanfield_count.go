package solve

import "math"

// countLaw is the law of a tick's arrivals in the mean field: an integer
// count with a given mean and (about) a given variance, P(M = Lo+i) = P[i].
// The variance comes from the linear-noise covariance of the arrival
// schedule, so the law is binomial when the arrivals are less dispersed than
// Poisson (a cohort whose pending clients are all due soon), Poisson when
// they are as dispersed, and negative binomial when more (fluctuations
// carried over from earlier ticks). A variance below what an integer count
// can have, f(1−f) for the fractional part f of the mean, gives the two
// integers around the mean. The support is cut 12 standard deviations from
// the mean (further for a negative binomial's geometric tail), where the
// mass left is below 1e-30, and the cut law is renormalised.
type countLaw struct {
	Lo int
	P  []float64
}

// newCountLaw returns the count law with mean mu ≥ 0 and variance v ≥ 0.
func newCountLaw(mu, v float64) countLaw {
	if !(mu > 0) {
		return countLaw{Lo: 0, P: []float64{1}}
	}
	fl := math.Floor(mu)
	f := mu - fl
	vmin := f * (1 - f)
	if v <= vmin*(1+1e-9)+1e-12 {
		if f == 0 {
			return countLaw{Lo: int(fl), P: []float64{1}}
		}
		return countLaw{Lo: int(fl), P: []float64{1 - f, f}}
	}
	sd := math.Sqrt(v)
	lo := max(0, int(math.Floor(mu-12*sd-1)))
	hi := int(math.Ceil(mu + 12*sd + 1))
	var logP func(m int) float64  // log P(M = lo)
	var ratio func(m int) float64 // P(M = m+1) / P(M = m)
	switch {
	case math.Abs(v-mu) <= 1e-9*mu: // Poisson
		logP = func(m int) float64 {
			lg, _ := math.Lgamma(float64(m) + 1)
			return float64(m)*math.Log(mu) - mu - lg
		}
		ratio = func(m int) float64 { return mu / float64(m+1) }
	case v < mu: // binomial with n trials of probability p = mu/n
		n := math.Max(math.Ceil(mu), math.Round(mu*mu/(mu-v)))
		p := mu / n
		ni := int(n)
		hi = min(hi, ni)
		lgn, _ := math.Lgamma(n + 1)
		logP = func(m int) float64 {
			a, _ := math.Lgamma(float64(m) + 1)
			b, _ := math.Lgamma(n - float64(m) + 1)
			return lgn - a - b + float64(m)*math.Log(p) + (n-float64(m))*math.Log1p(-p)
		}
		odds := p / (1 - p)
		ratio = func(m int) float64 { return float64(ni-m) / float64(m+1) * odds }
		if p >= 1 {
			return countLaw{Lo: ni, P: []float64{1}}
		}
	default: // negative binomial with r = mu²/(v − mu)
		r := mu * mu / (v - mu)
		q := mu / (r + mu) // the failure probability: mean r·q/(1−q)
		// Its tail falls like qᵐ, slower than 12 sd when r is small.
		hi = max(hi, int(math.Ceil(mu+70/-math.Log(q))))
		lgr, _ := math.Lgamma(r)
		logP = func(m int) float64 {
			a, _ := math.Lgamma(float64(m) + r)
			b, _ := math.Lgamma(float64(m) + 1)
			return a - lgr - b + r*math.Log1p(-q) + float64(m)*math.Log(q)
		}
		ratio = func(m int) float64 { return (float64(m) + r) / float64(m+1) * q }
	}
	l := countLaw{Lo: lo, P: make([]float64, hi-lo+1)}
	x := math.Exp(logP(lo))
	if x == 0 { // the window starts far in a tail: restart from the mode
		mode := min(hi, max(lo, int(mu)))
		x = math.Exp(logP(mode))
		l.P[mode-lo] = x
		for m := mode; m < hi; m++ {
			l.P[m+1-lo] = l.P[m-lo] * ratio(m)
		}
		for m := mode - 1; m >= lo; m-- {
			l.P[m-lo] = l.P[m+1-lo] / ratio(m)
		}
	} else {
		l.P[0] = x
		for m := lo; m < hi; m++ {
			l.P[m+1-lo] = l.P[m-lo] * ratio(m)
		}
	}
	total := 0.0
	for _, p := range l.P {
		total += p
	}
	for i := range l.P {
		l.P[i] /= total
	}
	return l
}

// Hi is the largest count with positive probability.
func (l countLaw) Hi() int { return l.Lo + len(l.P) - 1 }

// Moments are the mean and variance of the law.
func (l countLaw) Moments() (mean, variance float64) {
	for i, p := range l.P {
		mean += p * float64(l.Lo+i)
	}
	for i, p := range l.P {
		d := float64(l.Lo+i) - mean
		variance += p * d * d
	}
	return mean, variance
}
