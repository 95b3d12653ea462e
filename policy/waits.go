package policy

import "math"

// Waits is the law of a client's wait in whole ticks, max(1, round(δ)), for
// a delay δ drawn from a Law: P[i] is the probability that the wait is
// Min+i ticks. It is what every analytical model consumes, so the rule that
// turns a continuous delay into ticks lives here and in Rounding alone.
type Waits struct {
	Min int
	P   []float64
}

// Max is the longest wait with positive probability.
func (w Waits) Max() int { return w.Min + len(w.P) - 1 }

// Prob is the probability that the wait is t ticks.
func (w Waits) Prob(t int) float64 {
	if t < w.Min || t > w.Max() {
		return 0
	}
	return w.P[t-w.Min]
}

// Point reports whether the wait is certain, and its value.
func (w Waits) Point() (int, bool) {
	if len(w.P) == 1 {
		return w.Min, true
	}
	return 0, false
}

// Equal reports whether two wait laws are the same.
func (w Waits) Equal(v Waits) bool {
	if w.Min != v.Min || len(w.P) != len(v.P) {
		return false
	}
	for i := range w.P {
		if w.P[i] != v.P[i] {
			return false
		}
	}
	return true
}

// Waits is the exact law of Ticks(δ) for δ ~ l: a uniform on [Lo, Hi)
// puts on each tick t the length of its part of Interval(t) over Hi − Lo,
// the clamp min(Max, ·) adds an atom at Ticks(Max), and a point mass goes
// to Ticks of that point. Ends of intervals carry no mass under a
// continuous law, so ties (half-even against half-up) matter only for
// point masses, where Ticks decides them.
//
// Laws shaped for library presets are integrated too: a lattice (Steps > 0)
// by its Steps equally likely values, each rounded by Ticks (ties
// included), and a warped uniform through Law.CDF.
func (r Rounding) Waits(l Law) Waits {
	if l.Deterministic() {
		return Waits{Min: r.Ticks(l.Draw(0)), P: []float64{1}}
	}
	if l.Steps > 0 {
		return r.latticeWaits(l)
	}
	if l.Warp != WarpNone {
		return r.cdfWaits(l)
	}
	width := l.Hi - l.Lo
	top := math.Min(l.Hi, l.Max) // the uniform's part below the clamp is [Lo, top)
	atom := 0.0
	if l.Hi > l.Max {
		atom = (l.Hi - l.Max) / width
	}
	lo, hi := r.Ticks(l.Lo), r.Ticks(top)
	if atom > 0 {
		hi = max(hi, r.Ticks(l.Max))
	}
	w := Waits{Min: lo, P: make([]float64, hi-lo+1)}
	for t := lo; t <= hi; t++ {
		a, b := r.Interval(t)
		a, b = math.Max(a, l.Lo), math.Min(b, top)
		if b > a {
			w.P[t-lo] = (b - a) / width
		}
	}
	if atom > 0 {
		w.P[r.Ticks(l.Max)-lo] += atom
	}
	return w.trim()
}

// latticeWaits rounds each of a lattice law's Steps values.
func (r Rounding) latticeWaits(l Law) Waits {
	lo, hi := math.MaxInt, 0
	ticks := make([]int, l.Steps)
	for j := range ticks {
		ticks[j] = r.Ticks(l.Draw((float64(j) + 0.5) / float64(l.Steps)))
		lo, hi = min(lo, ticks[j]), max(hi, ticks[j])
	}
	w := Waits{Min: lo, P: make([]float64, hi-lo+1)}
	for _, t := range ticks {
		w.P[t-lo] += 1 / float64(l.Steps)
	}
	return w.trim()
}

// cdfWaits integrates a continuous law through its CDF over each rounding
// interval; the clamp's atom at Max goes to Ticks(Max).
func (r Rounding) cdfWaits(l Law) Waits {
	below := math.Nextafter(l.Max, math.Inf(-1))
	atom := 0.0
	if !math.IsInf(l.Max, 1) {
		atom = 1 - l.CDF(below)
	}
	lo, hi := r.Ticks(l.Draw(0)), r.Ticks(l.Sup())
	w := Waits{Min: lo, P: make([]float64, hi-lo+1)}
	for t := lo; t <= hi; t++ {
		a, b := r.Interval(t)
		ca := 0.0
		if !math.IsInf(a, -1) {
			ca = l.CDF(a)
		}
		w.P[t-lo] = math.Max(0, l.CDF(math.Min(b, below))-ca)
	}
	if atom > 0 {
		w.P[r.Ticks(l.Max)-lo] += atom
	}
	return w.trim()
}

// trim drops zero-probability ends (a uniform that stops exactly at a
// rounding boundary).
func (w Waits) trim() Waits {
	for len(w.P) > 1 && w.P[len(w.P)-1] == 0 {
		w.P = w.P[:len(w.P)-1]
	}
	for len(w.P) > 1 && w.P[0] == 0 {
		w.P, w.Min = w.P[1:], w.Min+1
	}
	return w
}
