package policy

import (
	"errors"
	"fmt"
	"math"
	"sort"
)

// This file holds the machinery of the delay analyser (delays.go): laws on
// a lattice k·h that bound a delay, or a sum of delays, from below and from
// above. Rounding every delay X down to the lattice, ⌊X/h⌋·h, gives a
// variable that never exceeds X; rounding up gives one never below it. Sums
// of such variables are computed exactly (up to floating-point rounding) by
// discrete convolution, and since the ordering holds draw by draw it holds
// for every quantile and for the mean: the law of the sum lies between the
// two lattice laws, which differ by at most one cell per delay.

// lattice is a law on the points (off+i)·h, i = 0…len(p)−1: p[i] is the
// probability of the i-th point. h is a power of two, so that the points
// and sums of points are exact in floating point.
type lattice struct {
	h   float64
	off int
	p   []float64
	cum []float64 // cum[i] = P(value ≤ point i), filled by prepare
}

func (l *lattice) value(i int) float64 { return float64(l.off+i) * l.h }

// prepare fills the cumulative sums, compensated (Kahan–Babuška) so that
// they are exact to about 1e-16 however many cells there are.
func (l *lattice) prepare() *lattice {
	l.cum = make([]float64, len(l.p))
	var s, c float64
	for i, v := range l.p {
		t := s + v
		if math.Abs(s) >= math.Abs(v) {
			c += (s - t) + v
		} else {
			c += (v - t) + s
		}
		s = t
		l.cum[i] = s + c
	}
	return l
}

// quantileTolerance absorbs the floating-point rounding of the cumulative
// sums when a quantile is read at a level p: the first point whose
// cumulative probability reaches p − quantileTolerance is taken. It makes a
// plateau of the CDF at exactly p (a lattice of equally likely values, an
// atom) give the left end, as the exact quantile does, and moves a quantile
// elsewhere by at most quantileTolerance over the density there.
const quantileTolerance = 1e-12

func (l *lattice) cdf(x float64) float64 {
	i := int(math.Floor(x/l.h)) - l.off
	switch {
	case i < 0:
		return 0
	case i >= len(l.cum):
		return l.cum[len(l.cum)-1]
	}
	return l.cum[i]
}

func (l *lattice) quantile(p float64) float64 {
	i := sort.SearchFloat64s(l.cum, p-quantileTolerance)
	return l.value(min(i, len(l.p)-1))
}

func (l *lattice) mean() float64 {
	var s kahan
	for i, v := range l.p {
		if v != 0 {
			s.add(v * l.value(i))
		}
	}
	return s.sum()
}

func (l *lattice) mass() float64 {
	var s kahan
	for _, v := range l.p {
		s.add(v)
	}
	return s.sum()
}

// coarsened is the law of the points rounded down (up) to the lattice of
// spacing h·f, f a power of two: still a lower (upper) bound of the
// variable the lattice bounds.
func (l *lattice) coarsened(f int, up bool) *lattice {
	if f == 1 {
		return l
	}
	div := floorDiv
	if up {
		div = ceilDiv
	}
	off := div(l.off, f)
	p := make([]float64, div(l.off+len(l.p)-1, f)-off+1)
	for i, v := range l.p {
		p[div(l.off+i, f)-off] += v
	}
	return &lattice{h: l.h * float64(f), off: off, p: p}
}

// trimmed drops the zero cells at both ends.
func (l *lattice) trimmed() *lattice {
	a, b := 0, len(l.p)
	for a < b-1 && l.p[a] == 0 {
		a++
	}
	for b > a+1 && l.p[b-1] == 0 {
		b--
	}
	return &lattice{h: l.h, off: l.off + a, p: l.p[a:b]}
}

func floorDiv(a, b int) int {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

func ceilDiv(a, b int) int { return -floorDiv(-a, b) }

// pow2AtLeast is the smallest power of two ≥ x > 0.
func pow2AtLeast(x float64) float64 {
	f, e := math.Frexp(x)
	if f == 0.5 {
		return math.Ldexp(1, e-1)
	}
	return math.Ldexp(1, e)
}

// cells is the law of one delay rounded down (or up) to the lattice of
// spacing h, by lattice index: a run of equal masses on first…last (empty
// when first > last) and atoms (the partial end cells of a uniform, the
// atom of a clamp, point masses, the values of a stepped law).
type cells struct {
	first, last int
	each        float64
	atoms       []atom
	buf         [3]atom // room for a plain law's atoms, so set need not allocate
}

type atom struct {
	k int
	m float64
}

func (c *cells) lo() int {
	lo := math.MaxInt
	if c.first <= c.last {
		lo = c.first
	}
	for _, a := range c.atoms {
		lo = min(lo, a.k)
	}
	return lo
}

func (c *cells) hi() int {
	hi := math.MinInt
	if c.first <= c.last {
		hi = c.last
	}
	for _, a := range c.atoms {
		hi = max(hi, a.k)
	}
	return hi
}

// tail is the probability of the indices above t.
func (c *cells) tail(t int) float64 {
	s := 0.0
	if c.first <= c.last && t < c.last {
		s += float64(c.last-max(t, c.first-1)) * c.each
	}
	for _, a := range c.atoms {
		if a.k > t {
			s += a.m
		}
	}
	return s
}

var errWarped = errors.New("a warped law outside the increment structure of Polly's V2 has no exact method here")

// lawCells rounds a delay drawn from l down (up when up is set) to the
// lattice of spacing h. Every plain, clamped, stepped or deterministic law
// is handled exactly; a warped law is an error (its cells are not equal).
func lawCells(l Law, h float64, up bool) (*cells, error) {
	c := new(cells)
	return c, c.set(l, h, up)
}

// set makes c the cells of l (see lawCells).
func (c *cells) set(l Law, h float64, up bool) error {
	round := func(x float64) int { return int(math.Floor(x / h)) }
	if up {
		round = func(x float64) int { return int(math.Ceil(x / h)) }
	}
	c.first, c.last, c.each, c.atoms = 1, 0, 0, c.buf[:0]
	switch {
	case l.Deterministic():
		c.atoms = append(c.atoms, atom{round(l.Draw(0)), 1})
		return nil
	case l.Steps > 0:
		for j := range l.Steps {
			d, _ := l.Sample((float64(j) + 0.5) / float64(l.Steps))
			c.atoms = append(c.atoms, atom{round(d), 1 / float64(l.Steps)})
		}
		return nil
	case l.Warp != WarpNone:
		return errWarped
	case !(l.Hi > l.Lo):
		return fmt.Errorf("law U(%g, %g) has its ends reversed", l.Lo, l.Hi)
	}
	w := l.Hi - l.Lo
	a, b := l.Lo, math.Min(l.Hi, l.Max)
	// The cells [k·h, (k+1)·h) that meet [a, b); rounding up moves the
	// continuous part one cell on (lattice points carry no mass).
	k0, k1 := int(math.Floor(a/h)), int(math.Ceil(b/h))-1
	shift := 0
	if up {
		shift = 1
	}
	if k0 >= k1 {
		c.atoms = append(c.atoms, atom{k0 + shift, (b - a) / w})
	} else {
		c.atoms = append(c.atoms, atom{k0 + shift, (float64(k0+1)*h - a) / w}, atom{k1 + shift, (b - float64(k1)*h) / w})
		c.first, c.last, c.each = k0+1+shift, k1-1+shift, h/w
	}
	if l.Hi > l.Max {
		c.atoms = append(c.atoms, atom{round(l.Max), (l.Hi - l.Max) / w})
	}
	return nil
}

// plus is the law of the lattice variable plus an independent delay whose
// cells are c (on the same lattice): a discrete convolution, with the run
// of equal cells summed through compensated prefix sums in O(1) a point.
func (l *lattice) plus(c *cells) *lattice {
	lo, hi := c.lo(), c.hi()
	n := len(l.p) + hi - lo
	out := make([]float64, n)
	for _, a := range c.atoms {
		if a.m == 0 {
			continue
		}
		d := a.k - lo
		for i, v := range l.p {
			out[i+d] += a.m * v
		}
	}
	if c.first <= c.last {
		pre := prefixSums(l.p)
		// out[j] is the point off+lo+j: the run adds each·l.p[i] for
		// i = j+lo−k, k in first…last.
		for j := range out {
			a, b := max(0, j+lo-c.last), min(len(l.p)-1, j+lo-c.first)
			if a <= b {
				out[j] += c.each * (pre[b+1] - pre[a])
			}
		}
	}
	for j, v := range out {
		if v < 0 {
			out[j] = 0
		}
	}
	return &lattice{h: l.h, off: l.off + lo, p: out}
}

// prefixSums is s[i] = p[0] + … + p[i−1], compensated.
func prefixSums(p []float64) []float64 {
	s := make([]float64, len(p)+1)
	var k kahan
	for i, v := range p {
		k.add(v)
		s[i+1] = k.sum()
	}
	return s
}

// kahan is a compensated (Kahan–Babuška) sum.
type kahan struct{ s, c float64 }

func (k *kahan) add(v float64) {
	t := k.s + v
	if math.Abs(k.s) >= math.Abs(v) {
		k.c += (k.s - t) + v
	} else {
		k.c += (v - t) + k.s
	}
	k.s = t
}

func (k *kahan) sum() float64 { return k.s + k.c }

// continuousLattice rounds a delay from a continuous law with a strictly
// increasing quantile function (Polly's warped uniform) down (up) to the
// lattice of spacing h: the mass of a cell is the difference of the CDF at
// its ends, the CDF being found by inverting Law.Sample.
func continuousLattice(l Law, h float64, up bool) *lattice {
	q := func(u float64) float64 { d, _ := l.Sample(u); return d }
	inf, sup := q(0), l.Sup()
	k0, k1 := int(math.Floor(inf/h)), int(math.Ceil(sup/h))
	// F[i] = P(X ≤ (k0+i)·h).
	F := make([]float64, k1-k0+1)
	F[len(F)-1] = 1
	lo, ylo, step := 0.0, inf, 0.0
	for i := 1; i < len(F)-1; i++ {
		y := float64(k0+i) * h
		// The roots are evenly spaced to first order: guess the next one
		// a step on.
		F[i] = invertIncreasing(q, y, lo, ylo-y, lo+step, sup-y)
		step, lo, ylo = F[i]-lo, F[i], y
	}
	p := make([]float64, len(F)-1)
	for i := range p {
		p[i] = math.Max(0, F[i+1]-F[i])
	}
	off := k0
	if up {
		off++
	}
	return &lattice{h: h, off: off, p: p}
}

// invertIncreasing finds u in [lo, 1] with q(u) = y for a continuous,
// increasing q, given flo = q(lo) − y ≤ 0, f1 = q(1) − y and a guess:
// bracketed false position with the Illinois modification, until q(u) is
// within 1e-15 of y or the bracket closes.
func invertIncreasing(q func(float64) float64, y, lo, flo, guess, f1 float64) float64 {
	if flo >= 0 {
		return lo
	}
	hi, fhi := 1.0, f1
	if guess > lo && guess < 1 {
		switch fg := q(guess) - y; {
		case fg >= 0:
			hi, fhi = guess, fg
		default:
			lo, flo = guess, fg
		}
	}
	if fhi <= 0 {
		return hi
	}
	tol := 1e-15 * math.Abs(y)
	side := 0
	for range 200 {
		m := (lo*fhi - hi*flo) / (fhi - flo)
		if !(m > lo && m < hi) {
			m = lo + (hi-lo)/2
			if !(m > lo && m < hi) {
				return m
			}
		}
		fm := q(m) - y
		switch {
		case math.Abs(fm) <= tol:
			return m
		case fm < 0:
			lo, flo = m, fm
			if side == -1 {
				fhi /= 2
			}
			side = -1
		default:
			hi, fhi = m, fm
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
	}
	return lo + (hi-lo)/2
}

// difference is the law of A − B for independent lattice variables A and B
// (Polly's delay as the difference of two of its totals).
type difference struct{ a, b *lattice }

func (d difference) cdf(x float64) float64 {
	var s kahan
	for j, v := range d.b.p {
		if v != 0 {
			s.add(v * d.a.cdf(x+d.b.value(j)))
		}
	}
	return s.sum()
}

func (d difference) mean() float64 { return d.a.mean() - d.b.mean() }

// quantile searches the points of the finer of the two lattices, where
// every value of A − B lies.
func (d difference) quantile(p float64) float64 {
	h := math.Min(d.a.h, d.b.h)
	lo := int(math.Floor((d.a.value(0) - d.b.value(len(d.b.p)-1)) / h))
	hi := int(math.Ceil((d.a.value(len(d.a.p)-1) - d.b.value(0)) / h))
	k := lo + sort.Search(hi-lo+1, func(i int) bool { return d.cdf(float64(lo+i)*h) >= p-quantileTolerance })
	return float64(k) * h
}
