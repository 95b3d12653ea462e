package policy

import (
	"fmt"
	"math"
)

// delayChain is the lower (or upper) lattice chain of a stateful policy whose
// delay before retry n, given the previous delay prev, is a plain clamped
// uniform min(Max, U(Lo, Hi)) with Lo, Hi and Max nondecreasing in prev —
// decorrelated jitter, min(cap, U(base, 3·prev)). The delay is then a
// nondecreasing function g(prev, u) of the previous delay and the uniform
// draw, so the chain X⁻ₙ = ⌊g(X⁻ₙ₋₁, Uₙ)⌋ (rounding to the lattice) never
// exceeds Xₙ, by induction, and its totals S⁻ₙ = S⁻ₙ₋₁ + X⁻ₙ never exceed
// Sₙ; rounding up bounds them from above. The chain is exact on its
// lattice: the joint law of (X⁻ₙ, S⁻ₙ) is propagated cell by cell.
//
// Rows are values of the previous delay, columns values of the total, both
// on the lattice of spacing h (so adding a delay to a total shifts it by a
// whole number of cells). Without totals (track false) there is one column.
type delayChain struct {
	pol   Policy
	up    bool
	track bool
	// budget is the most cells of the joint lattice.
	budget int
	n      int       // retries done
	xv     []float64 // the previous delay of each row
	h      float64   // the delays' spacing; 0 before the first retry (rows hold Start)
	hs     float64   // the totals' spacing, ratio·h; 0 before the first retry
	ratio  int       // a power of two
	xoff   int       // lattice index of row 0
	soff   int       // lattice index of column 0
	ms     int       // columns
	p      []float64 // p[i·ms+j]: probability of row i, column j
	// stop, when set, ends a step early with its error; a step of a
	// joint lattice near its budget takes about a second, so it is asked
	// every pollCells cells of work (work counts them).
	stop func() error
	work int
}

// pollCells is how many cells a step goes through between looks at stop.
const pollCells = 1 << 18

// jointRatio is the totals' lattice spacing over the delays'. For
// decorrelated (base 1, cap 32, ten retries, 2²² joint cells) the widest
// bound was 1.9%, 1.6%, 1.7%, 2.3% and 2.5% of its value at ratios 1, 2, 4,
// 8 and 16.
const jointRatio = 2

func newDelayChain(pol Policy, up, track bool, budget int) *delayChain {
	return &delayChain{pol: pol, up: up, track: track, budget: budget, ratio: jointRatio, xv: []float64{pol.Start()}, ms: 1, p: []float64{1}}
}

// step propagates the chain to the next retry, whose delay is known to lie
// in [inf, sup]: a rounded-down state below inf is raised to it (and a
// rounded-up one above sup lowered to it), which keeps it a bound and keeps
// the law it selects inside the policy's domain (decorrelated's U(base,
// 3·prev) needs prev ≥ base/3).
func (c *delayChain) step(inf, sup float64) error {
	n := c.n + 1
	mx := len(c.xv)
	live := make([]bool, mx)
	xinf, xsup := math.Inf(1), math.Inf(-1)
	// Each row's law is asked for again below rather than kept: a slice of
	// them would take more memory than the lattice's rows.
	var last Law
	first := true
	lawOf := c.pol.LawFunc()
	for i, x := range c.xv {
		if err := c.poll(c.ms); err != nil {
			return err
		}
		for _, v := range c.p[i*c.ms : (i+1)*c.ms] {
			if v != 0 {
				live[i] = true
				break
			}
		}
		if !live[i] {
			continue
		}
		l := lawOf(n, x)
		if l.Steps != 0 || l.Warp != WarpNone {
			return fmt.Errorf("retry %d: the law given the previous delay is not a plain clamped uniform", n)
		}
		if !(l.Hi >= l.Lo) {
			return fmt.Errorf("retry %d: law U(%g, %g) has its ends reversed (previous delay %g)", n, l.Lo, l.Hi, x)
		}
		if !first && (l.Lo < last.Lo || l.Hi < last.Hi || l.Max < last.Max) {
			return fmt.Errorf("retry %d: the law does not grow with the previous delay, so no lattice bound holds", n)
		}
		last, first = l, false
		xinf, xsup = math.Min(xinf, l.Draw(0)), math.Max(xsup, l.Sup())
	}
	// The spacings: the finest powers of two (never finer than before) at
	// which the rows times the columns fit the budget, the totals' spacing
	// ratio times the delays'.
	xw := math.Max(xsup-xinf, 1e-9*math.Max(xsup, 1))
	h := pow2AtLeast(xw / float64(c.budget))
	if c.track {
		sw := 0.0
		if c.hs > 0 {
			sw = float64(c.ms-1) * c.hs
		}
		r := float64(c.ratio)
		hs := math.Max(h*r, c.hs)
		for (xw/(hs/r)+3)*((xw+sw)/hs+3) > float64(c.budget) {
			hs *= 2
		}
		if c.hs > 0 && hs > c.hs {
			c.coarsenTotals(int(hs / c.hs))
		}
		c.hs, h = hs, hs/r
	}
	round := math.Floor
	if c.up {
		round = math.Ceil
	}
	kmin, kmax := int(round(xinf/h)), int(round(xsup/h))
	nx := kmax - kmin + 1
	ms := c.ms
	// d is a difference array over the new rows: a run of cells adds its
	// mass at its first row and takes it back after its last.
	d := make([]float64, (nx+1)*ms)
	add := func(row int, coef float64, src []float64) {
		if ms == 1 {
			d[row] += coef * src[0]
			return
		}
		dst := d[row*ms : (row+1)*ms]
		for j, v := range src {
			dst[j] += coef * v
		}
	}
	var cl cells
	for i := range c.xv {
		if err := c.poll(ms); err != nil {
			return err
		}
		if !live[i] {
			continue
		}
		if err := cl.set(lawOf(n, c.xv[i]), h, c.up); err != nil {
			return err
		}
		src := c.p[i*ms : (i+1)*ms]
		if cl.first <= cl.last {
			add(cl.first-kmin, cl.each, src)
			add(cl.last+1-kmin, -cl.each, src)
		}
		for _, a := range cl.atoms {
			add(a.k-kmin, a.m, src)
			add(a.k+1-kmin, -a.m, src)
		}
	}
	if ms == 1 {
		for r := 1; r < nx; r++ {
			d[r] += d[r-1]
		}
	} else {
		for r := 1; r < nx; r++ {
			if err := c.poll(ms); err != nil {
				return err
			}
			prev, cur := d[(r-1)*ms:r*ms], d[r*ms:(r+1)*ms]
			for j := range cur {
				cur[j] += prev[j]
			}
		}
	}
	c.p = nil
	xv := make([]float64, nx)
	for r := range xv {
		xv[r] = float64(kmin+r) * h
		if c.up {
			xv[r] = math.Min(xv[r], sup)
		} else {
			xv[r] = math.Max(xv[r], inf)
		}
	}
	if !c.track {
		p := d[:nx]
		for r, v := range p {
			p[r] = math.Max(v, 0)
		}
		c.p = p
	} else {
		// Row r's delay is kmin+r cells of the delays' lattice: its totals
		// move by that many cells of theirs, rounded down (up).
		div := floorDiv
		if c.up {
			div = ceilDiv
		}
		lo := div(kmin, c.ratio)
		nms := ms + div(kmin+nx-1, c.ratio) - lo
		p := make([]float64, nx*nms)
		for r := range nx {
			if err := c.poll(ms); err != nil {
				return err
			}
			at := div(kmin+r, c.ratio) - lo
			src, dst := d[r*ms:(r+1)*ms], p[r*nms+at:r*nms+at+ms]
			for j, v := range src {
				dst[j] = math.Max(v, 0)
			}
		}
		if c.n == 0 {
			c.soff = 0
		}
		c.soff += lo
		c.ms, c.p = nms, p
	}
	c.xv, c.xoff, c.h, c.n = xv, kmin, h, n
	return nil
}

// poll counts a row of cells of work, and is stop's error once pollCells
// have gone by since it last looked.
func (c *delayChain) poll(cells int) error {
	if c.work += cells; c.stop == nil || c.work < pollCells {
		return nil
	}
	c.work = 0
	return c.stop()
}

// coarsenTotals rounds the totals down (up) to a lattice f times coarser.
func (c *delayChain) coarsenTotals(f int) {
	div := floorDiv
	if c.up {
		div = ceilDiv
	}
	off := div(c.soff, f)
	nms := div(c.soff+c.ms-1, f) - off + 1
	p := make([]float64, len(c.xv)*nms)
	for i := range c.xv {
		for j, v := range c.p[i*c.ms : (i+1)*c.ms] {
			p[i*nms+div(c.soff+j, f)-off] += v
		}
	}
	c.soff, c.ms, c.p = off, nms, p
}

// delay is the law of the last delay (the rows' marginal).
func (c *delayChain) delay() *lattice {
	p := make([]float64, len(c.xv))
	for i := range p {
		var s kahan
		for _, v := range c.p[i*c.ms : (i+1)*c.ms] {
			s.add(v)
		}
		p[i] = s.sum()
	}
	return (&lattice{h: c.h, off: c.xoff, p: p}).trimmed()
}

// total is the law of the total wait (the columns' marginal).
func (c *delayChain) total() *lattice {
	p := make([]float64, c.ms)
	for i := range c.xv {
		for j, v := range c.p[i*c.ms : (i+1)*c.ms] {
			p[j] += v
		}
	}
	return (&lattice{h: c.hs, off: c.soff, p: p}).trimmed()
}
