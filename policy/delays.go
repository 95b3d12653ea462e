package policy

import (
	"context"
	"errors"
	"fmt"
	"math"
)

// The delay analyser: the exact law of each delay of a policy, of the total
// wait until retry n (the sum of the first n delays) and of the time until a
// client whose every attempt fails gives up. It answers what users of retry
// libraries ask — the median of the first delay, how fast decorrelated
// jitter backs off, the longest a client can wait — without simulation.
//
// The laws are those of the unrounded delays, Policy.Law's, which is what a
// real library waits: no tick rounding is applied. Each law is computed on a
// lattice k·h (h a power of two) twice: with every delay rounded down to the
// lattice, which gives a variable never above the true one, and rounded up,
// never below it. The two lattice laws are exact (discrete convolution, or
// for a stateful policy the exact propagation of the lattice chain), so
// every quantile and the mean of the true law lie between theirs: the
// analyser reports each as a Bound, an interval that contains the exact
// value, up to floating-point rounding of probabilities (about 1e-12).

// Bound is an exact quantity known to lie in [Lo, Hi]; Value is the
// midpoint, within (Hi − Lo)/2 of it.
type Bound struct {
	Value float64 `json:"value"`
	Lo    float64 `json:"lo"`
	Hi    float64 `json:"hi"`
}

func between(lo, hi float64) Bound {
	if lo > hi {
		lo, hi = hi, lo
	}
	return Bound{Value: lo + (hi-lo)/2, Lo: lo, Hi: hi}
}

func exactly(x float64) Bound { return Bound{x, x, x} }

// Err is the largest error of Value: half the width of the bound.
func (b Bound) Err() float64 { return (b.Hi - b.Lo) / 2 }

// RelErr is Err relative to |Value| (0 for an exact zero).
func (b Bound) RelErr() float64 {
	if b.Hi == b.Lo {
		return 0
	}
	return b.Err() / math.Abs(b.Value)
}

func (b Bound) clip(lo, hi float64) Bound {
	return between(math.Min(math.Max(b.Lo, lo), hi), math.Max(math.Min(b.Hi, hi), lo))
}

func (b Bound) Times(f float64) Bound { return Bound{b.Value * f, b.Lo * f, b.Hi * f} }

// Summary is what the analyser reports of one law: its median, mean,
// 10th, 90th and 99th percentiles, and the ends of its support (Min and
// Max are the infimum and supremum, exact; a continuous law does not
// attain them).
type Summary struct {
	Median Bound `json:"median"`
	Mean   Bound `json:"mean"`
	P10    Bound `json:"p10"`
	P90    Bound `json:"p90"`
	P99    Bound `json:"p99"`
	Min    Bound `json:"min"`
	Max    Bound `json:"max"`
}

// LevelBound is a quantile of a Summary: its name, level and bound.
type LevelBound struct {
	Name  string
	P     float64
	Bound Bound
}

// Quantiles lists the summary's quantiles in the order of tables.
func (s Summary) Quantiles() []LevelBound {
	return []LevelBound{{"p10", 0.1, s.P10}, {"median", 0.5, s.Median}, {"p90", 0.9, s.P90}, {"p99", 0.99, s.P99}}
}

// RelErr is the largest relative error of the summary's mean and quantiles.
func (s Summary) RelErr() float64 {
	e := s.Mean.RelErr()
	for _, q := range s.Quantiles() {
		e = math.Max(e, q.Bound.RelErr())
	}
	return e
}

// side is one of the two lattice laws that enclose a law.
type side interface {
	cdf(x float64) float64
	quantile(p float64) float64
	mean() float64
}

// Enclosed is the law of a delay, or of a sum of delays, known between two
// lattice laws: a lower one whose variable never exceeds the true one and
// an upper one never below it. Its values are in the unit of the analysis
// (seconds when the policy has a real tick, ticks otherwise).
type Enclosed struct {
	lower, upper side
	inf, sup     float64 // exact ends of the support, in ticks
	scale        float64 // output units per tick
	// mean, when set, is a tighter bound on the mean than the sides give
	// (in ticks): for a stateful policy's total, the sum of the bounds
	// on its delays' means.
	mean *Bound
}

// Quantile is the p-quantile, inf{x : P(X ≤ x) ≥ p}.
func (e Enclosed) Quantile(p float64) Bound {
	return between(e.lower.quantile(p), e.upper.quantile(p)).clip(e.inf, e.sup).Times(e.scale)
}

// Mean is the expectation.
func (e Enclosed) Mean() Bound {
	b := between(e.lower.mean(), e.upper.mean())
	if m := e.mean; m != nil {
		b = between(math.Max(b.Lo, m.Lo), math.Min(b.Hi, m.Hi))
	}
	return b.clip(e.inf, e.sup).Times(e.scale)
}

// CDF is P(X ≤ x).
func (e Enclosed) CDF(x float64) Bound {
	x /= e.scale
	if x >= e.sup {
		return exactly(1)
	}
	if x < e.inf {
		return exactly(0)
	}
	return between(e.upper.cdf(x), e.lower.cdf(x))
}

// Min and Max are the ends of the support: exact.
func (e Enclosed) Min() Bound { return exactly(e.inf * e.scale) }
func (e Enclosed) Max() Bound { return exactly(e.sup * e.scale) }

// Summary computes the reported statistics.
func (e Enclosed) Summary() Summary {
	return Summary{Median: e.Quantile(0.5), Mean: e.Mean(), P10: e.Quantile(0.1), P90: e.Quantile(0.9),
		P99: e.Quantile(0.99), Min: e.Min(), Max: e.Max()}
}

// DelayOptions set the resolution of the analyser. Finer lattices give
// tighter bounds at proportional cost in time and memory.
type DelayOptions struct {
	// Cells is about the number of lattice cells across the support of
	// each law (default DefaultDelayCells): a bound's width is about
	// n·support/Cells for the total of n delays.
	Cells int
	// JointCells is the most cells of the (previous delay, total) lattice
	// of a policy whose delays depend on the previous one (default
	// 4·Cells, at most 2²³).
	JointCells int
	// Context, when set, ends the analysis early with its error: it is
	// looked at between lattice operations, each well under a second, and
	// inside a stateful policy's chain steps, every 2¹⁸ cells of work.
	Context context.Context
}

// err is the context's error, nil without one.
func (o DelayOptions) err() error {
	if o.Context == nil {
		return nil
	}
	return o.Context.Err()
}

// maxJointCells bounds the default joint lattice (64 MB an array).
const maxJointCells = 1 << 23

// DefaultDelayCells is the default lattice resolution.
const DefaultDelayCells = 1 << 20

// MaxDelayRetries is the most retries the analyser follows.
const MaxDelayRetries = 200

// The lattice resolutions DelayOptions.Cells may ask for: coarser bounds
// say nothing, finer ones take more memory than they are worth.
const (
	MinDelayCells = 1 << 10
	MaxDelayCells = 1 << 24
)

// DelayMemory is the most memory an analysis may take. Measured peaks
// (docs/models.md) are about delayCellBytes per lattice cell of Cells, the
// lattices, their difference arrays and a law per row together.
const DelayMemory = 5 << 29 // 2.5 GiB

// delayCellBytes is the peak memory per cell of Cells, by method: a
// policy whose delays depend on the previous one also keeps its joint
// (previous delay, total) lattice.
func delayCellBytes(p Policy) int {
	if m, err := classify(p); err == nil && m == independentLaws {
		return 140
	}
	return 300
}

// MaxDelayCellsFor is the finest lattice the analysis of p may ask for
// within DelayMemory (at most MaxDelayCells).
func MaxDelayCellsFor(p Policy) int {
	return min(MaxDelayCells, DelayMemory/delayCellBytes(p))
}

// DefaultDelayCount is how many retries of p an analysis follows when
// none is asked for: up to its retry limit, or 10 without one (at most
// MaxDelayRetries).
func DefaultDelayCount(p Policy) int {
	if p.Retries > 0 {
		return min(p.Retries, MaxDelayRetries)
	}
	return 10
}

func (o DelayOptions) withDefaults() DelayOptions {
	if o.Cells <= 0 {
		o.Cells = DefaultDelayCells
	}
	if o.JointCells <= 0 {
		o.JointCells = min(4*o.Cells, maxJointCells)
	}
	return o
}

// DelayRow is the analysis of retry n: the law of the delay before it and
// of the total wait until it.
type DelayRow struct {
	N     int     `json:"n"`
	Delay Summary `json:"delay"`
	Wait  Summary `json:"wait"`
	// BeyondLimit marks a retry past the policy's retry limit: the
	// client would have given up before it.
	BeyondLimit bool `json:"beyond_limit,omitempty"`
}

// GiveUp is the law of the time from a client's first send until it gives
// up, when every attempt fails (attempts take no time).
type GiveUp struct {
	Summary
	// Proven says whether the bounds are proven (a retry limit alone: the
	// time is the total wait until the last retry) or the difference of
	// two lattice computations (a limit on elapsed time, where rounding
	// the delays down or up can move the give-up either way).
	Proven bool   `json:"proven"`
	Method string `json:"method"`
	// Unresolved is the probability the computation left unaccounted for
	// (a chain stopped at MaxDelayRetries).
	Unresolved float64 `json:"unresolved,omitempty"`
}

// DelayAnalysis is the delay analyser's answer for one policy.
type DelayAnalysis struct {
	Policy Policy
	// Unit is "s" when the policy has a real tick (every preset) and
	// "ticks" otherwise.
	Unit string
	// Method says how the laws were computed and what the bounds mean.
	Method string
	Rows   []DelayRow
	GiveUp *GiveUp // nil when the policy never gives up or it was not computed
	// Notes say what was not computed, and why.
	Notes []string
	// waits are coarse enclosures of the totals' laws, for figures.
	Waits []Enclosed
}

// RelErr is the largest relative error of any mean or quantile of the
// analysis' delays and totals (the proven part).
func (a DelayAnalysis) RelErr() float64 {
	e := 0.0
	for _, r := range a.Rows {
		e = math.Max(e, math.Max(r.Delay.RelErr(), r.Wait.RelErr()))
	}
	if a.GiveUp != nil && a.GiveUp.Proven {
		e = math.Max(e, a.GiveUp.RelErr())
	}
	return e
}

// WaitCDF is P(total wait until retry n ≤ x), x in the analysis' unit,
// from a coarser lattice than the summaries (4096 cells): for figures.
func (a DelayAnalysis) WaitCDF(n int, x float64) Bound { return a.Waits[n-1].CDF(x) }

// DelayLaw is the law of the delay before retry n ≥ 1.
func DelayLaw(p Policy, n int, o DelayOptions) (Enclosed, error) {
	var out Enclosed
	err := analyse(p, n, o, func(k int, delay, _ Enclosed) {
		if k == n {
			out = delay
		}
	})
	return out, err
}

// WaitLaw is the law of the total wait until retry n ≥ 1: the sum of the
// first n delays.
func WaitLaw(p Policy, n int, o DelayOptions) (Enclosed, error) {
	var out Enclosed
	err := analyse(p, n, o, func(k int, _, wait Enclosed) {
		if k == n {
			out = wait
		}
	})
	return out, err
}

// Delays analyses retries 1…count of a policy: each delay, each total wait
// and, when the policy gives up (a retry limit or a limit on elapsed time),
// the time to give up.
func Delays(p Policy, count int, o DelayOptions) (DelayAnalysis, error) {
	if count < 1 || count > MaxDelayRetries {
		return DelayAnalysis{}, fmt.Errorf("count must be an integer in [1, %d], got %d", MaxDelayRetries, count)
	}
	o = o.withDefaults()
	if most := MaxDelayCellsFor(p); o.Cells > most {
		return DelayAnalysis{}, fmt.Errorf("cells must be an integer in [%d, %d] for policy %s (about %d bytes a cell within %d MiB), got %d", MinDelayCells, most, p.Kind, delayCellBytes(p), DelayMemory>>20, o.Cells)
	}
	a := DelayAnalysis{Policy: p, Unit: "ticks"}
	if p.TickLength() > 0 {
		a.Unit = "s"
	}
	method, err := classify(p)
	if err != nil {
		return a, err
	}
	a.Method = method.describe(o)
	last := count
	byRetries := p.Retries > 0 && p.MaxElapsed == 0
	if byRetries {
		if p.Retries <= MaxDelayRetries {
			last = max(count, p.Retries)
		} else {
			a.Notes = append(a.Notes, fmt.Sprintf("time to give up not computed: the retry limit %d exceeds the %d retries the analyser follows", p.Retries, MaxDelayRetries))
		}
	}
	err = analyse(p, last, o, func(n int, delay, wait Enclosed) {
		if n <= count {
			a.Rows = append(a.Rows, DelayRow{N: n, Delay: delay.Summary(), Wait: wait.Summary(),
				BeyondLimit: p.Retries > 0 && n > p.Retries})
			a.Waits = append(a.Waits, coarse(wait))
		}
		if byRetries && n == p.Retries {
			a.GiveUp = &GiveUp{Summary: wait.Summary(), Proven: true,
				Method: fmt.Sprintf("the total wait until retry %d, the last one allowed", p.Retries)}
		}
	})
	if err != nil {
		return a, err
	}
	if p.MaxElapsed > 0 {
		if method != independentLaws {
			a.Notes = append(a.Notes, "time to give up not computed: a limit on elapsed time with a policy whose delays depend on the previous one")
		} else {
			g, err := elapsedGiveUp(p, o)
			if err != nil {
				return a, err
			}
			a.GiveUp = g
		}
	}
	if note := p.CapAtom(count); note != "" {
		a.Notes = append(a.Notes, note)
	}
	return a, nil
}

// CapAtom says where the jitter vanishes at the cap among retries
// 1…count of a policy whose laws depend on n alone: the first retry, after
// a random one, at which every client waits the same delay, or else at
// which at least half of them wait exactly the clamp (Law.Max): in step
// again, however the earlier retries spread them. "" when neither.
func (p Policy) CapAtom(count int) string {
	if p.Stateful() || !p.Random() {
		return ""
	}
	last := count
	if p.Retries > 0 {
		last = min(last, p.Retries)
	}
	unit, per := "ticks", 1.0
	if t := p.TickLength(); t > 0 {
		unit, per = "s", t.Seconds()
	}
	random := false
	for n := 1; n <= last; n++ {
		l := p.Law(n, p.Start())
		if l.Deterministic() {
			if random {
				return fmt.Sprintf("jitter vanishes at the cap: from retry %d every client waits exactly %.6g %s, so a cohort spread by the earlier retries is in step again", n, l.Draw(0)*per, unit)
			}
			continue
		}
		random = true
		if l.Max < math.Inf(1) {
			if atom := 1 - l.CDF(math.Nextafter(l.Max, 0)); atom >= 0.5 {
				return fmt.Sprintf("jitter vanishes at the cap: at retry %d, %.1f%% of clients wait exactly the cap %.6g %s (the cap clamps after the jitter)", n, 100*atom, l.Max*per, unit)
			}
		}
	}
	return ""
}

// coarse keeps a copy of an enclosure on at most 4096 cells, for CDFs.
func coarse(e Enclosed) Enclosed {
	shrink := func(s side, up bool) side {
		l, ok := s.(*lattice)
		if !ok {
			return s
		}
		f := 1
		for len(l.p) > 4096*f {
			f *= 2
		}
		return l.coarsened(f, up).prepare()
	}
	e.lower, e.upper = shrink(e.lower, false), shrink(e.upper, true)
	return e
}

// delayMethod is how the analyser computes a policy's laws.
type delayMethod int

const (
	// independentLaws: the law of delay n depends on n alone, so the
	// total is a sum of independent delays (every textbook policy but
	// decorrelated, every stateless preset).
	independentLaws delayMethod = iota
	// monotoneChain: the law given the previous delay is a clamped
	// uniform growing with it (decorrelated).
	monotoneChain
	// incrementChain: the delay is the scaled increment of a curve
	// between independent draws (Polly's DecorrelatedJitterBackoffV2),
	// so the total is one scaled draw of the curve.
	incrementChain
)

func classify(p Policy) (delayMethod, error) {
	if !p.Stateful() {
		return independentLaws, nil
	}
	if p.Law(1, p.Start()).Warp != WarpNone {
		return incrementChain, nil
	}
	return monotoneChain, nil
}

func (m delayMethod) describe(o DelayOptions) string {
	const lattice = "each delay rounded down and up to a lattice of spacing a power of two, about %d cells across each law; "
	switch m {
	case monotoneChain:
		return fmt.Sprintf("delays depend on the previous one: the lattice chain of (previous delay, total) propagated exactly, "+
			"the delay rounded down and up to a lattice of about %d cells for the delays' laws and %d joint cells for the totals; "+
			"since the delay grows with the previous one, the rounded-down chain stays below the true one draw by draw "+
			"and the rounded-up one above, so every value lies in its bound", o.Cells, o.JointCells)
	case incrementChain:
		return fmt.Sprintf("the delay is the scaled increment of the curve between independent draws, so the total wait until retry n "+
			"is one scaled draw of the curve (its CDF by inverting the draw) and delay n the difference of two independent totals; "+
			lattice+"every value lies in its bound", o.Cells)
	}
	return fmt.Sprintf("the total is a sum of independent delays: "+lattice+
		"the sums of the rounded delays are exact discrete convolutions and bound the true sum draw by draw, "+
		"so every value lies in its bound", o.Cells)
}

// analyse computes the laws of the delays and totals of retries 1…last,
// handing each to yield in order.
func analyse(p Policy, last int, o DelayOptions, yield func(n int, delay, wait Enclosed)) error {
	if last < 1 || last > MaxDelayRetries {
		return fmt.Errorf("retry number must be an integer in [1, %d], got %d", MaxDelayRetries, last)
	}
	o = o.withDefaults()
	scale := 1.0
	if t := p.TickLength(); t > 0 {
		scale = t.Seconds()
	}
	m, err := classify(p)
	if err != nil {
		return err
	}
	switch m {
	case monotoneChain:
		return analyseMonotone(p, last, o, scale, yield)
	case incrementChain:
		return analyseIncrements(p, last, o, scale, yield)
	}
	return analyseIndependent(p, last, o, scale, yield)
}

// spacing is the lattice spacing for a law on [inf, sup] over about cells
// cells; a point mass gets a spacing far below its value.
func spacing(inf, sup float64, cells int) float64 {
	w := math.Max(sup-inf, 1e-3*math.Abs(sup))
	if w == 0 {
		return 1
	}
	return pow2AtLeast(w / float64(cells))
}

func pointAt0(h float64) *lattice { return &lattice{h: h, p: []float64{1}} }

func analyseIndependent(p Policy, last int, o DelayOptions, scale float64, yield func(int, Enclosed, Enclosed)) error {
	var lo, hi *lattice
	infS, supS := 0.0, 0.0
	for n := 1; n <= last; n++ {
		if err := o.err(); err != nil {
			return err
		}
		l := p.Law(n, p.Start())
		inf, sup := l.Draw(0), l.Sup()
		hd := spacing(inf, sup, o.Cells)
		dl, err := lawCells(l, hd, false)
		if err != nil {
			return err
		}
		du, _ := lawCells(l, hd, true)
		// Each operation on a lattice of Cells cells takes tens of ms:
		// the context is looked at after each.
		delay := Enclosed{lower: pointAt0(hd).plus(dl).prepare(), inf: inf, sup: sup, scale: scale}
		if err := o.err(); err != nil {
			return err
		}
		delay.upper = pointAt0(hd).plus(du).prepare()
		if err := o.err(); err != nil {
			return err
		}

		infS, supS = infS+inf, supS+sup
		h := spacing(infS, supS, o.Cells)
		if lo == nil {
			lo, hi = pointAt0(h), pointAt0(h)
		} else if h > lo.h {
			lo, hi = lo.coarsened(int(h/lo.h), false), hi.coarsened(int(h/hi.h), true)
			if err := o.err(); err != nil {
				return err
			}
		}
		cl, err := lawCells(l, lo.h, false)
		if err != nil {
			return err
		}
		cu, _ := lawCells(l, hi.h, true)
		lo = lo.plus(cl).trimmed().prepare()
		if err := o.err(); err != nil {
			return err
		}
		hi = hi.plus(cu).trimmed().prepare()
		if err := o.err(); err != nil {
			return err
		}
		yield(n, delay, Enclosed{lower: lo, upper: hi, inf: infS, sup: supS, scale: scale})
	}
	return nil
}

func analyseMonotone(p Policy, last int, o DelayOptions, scale float64, yield func(int, Enclosed, Enclosed)) error {
	dl, du := newDelayChain(p, false, false, o.Cells), newDelayChain(p, true, false, o.Cells)
	wl, wu := newDelayChain(p, false, true, o.JointCells), newDelayChain(p, true, true, o.JointCells)
	for _, c := range []*delayChain{dl, du, wl, wu} {
		c.stop = o.err
	}
	// The delays' infimum and supremum follow the chains of the smallest
	// and the largest draws, since the law grows with the previous delay.
	xi, xs := p.Start(), p.Start()
	infS, supS := 0.0, 0.0
	var mean Bound
	for n := 1; n <= last; n++ {
		xi, xs = p.Law(n, xi).Draw(0), p.Law(n, xs).Sup()
		infS, supS = infS+xi, supS+xs
		for _, c := range []*delayChain{dl, du, wl, wu} {
			if err := o.err(); err != nil {
				return err
			}
			if err := c.step(xi, xs); err != nil {
				return err
			}
		}
		delay := Enclosed{lower: dl.delay().prepare(), upper: du.delay().prepare(), inf: xi, sup: xs, scale: scale}
		// The mean of a sum is the sum of the means, dependent or not, and
		// the delays' lattices are far finer than the joint one.
		m := delay.Mean().Times(1 / scale)
		mean = between(mean.Lo+m.Lo, mean.Hi+m.Hi)
		bound := mean
		if err := o.err(); err != nil {
			return err
		}
		wait := Enclosed{lower: wl.total().prepare(), upper: wu.total().prepare(), inf: infS, sup: supS, scale: scale, mean: &bound}
		if err := o.err(); err != nil {
			return err
		}
		yield(n, delay, wait)
	}
	return nil
}

var errIncrements = errors.New("the policy's warped law is not the increment of one curve between independent draws")

func analyseIncrements(p Policy, last int, o DelayOptions, scale float64, yield func(int, Enclosed, Enclosed)) error {
	start := p.Start()
	first := p.Law(1, start)
	var prevLo, prevHi *lattice
	var prevInf, prevSup float64
	for n := 1; n <= last; n++ {
		if err := o.err(); err != nil {
			return err
		}
		l, other := p.Law(n, start), p.Law(n, start+1)
		if l.Warp == WarpNone || l.Steps != 0 || !math.IsInf(l.Max, 1) || l.Scale != first.Scale ||
			other.Lo != l.Lo || other.Hi != l.Hi || other.Scale != l.Scale || l.From != start || other.From != start+1 {
			return errIncrements
		}
		// The total until retry n is Scale·(w(xₙ) − start): the law of
		// retry n drawn from the start state.
		inf, sup := l.Draw(0), l.Sup()
		h := spacing(inf, sup, o.Cells)
		lo := continuousLattice(l, h, false).prepare()
		hi := &lattice{h: h, off: lo.off + 1, p: lo.p, cum: lo.cum} // the same cells, one up
		wait := Enclosed{lower: lo, upper: hi, inf: inf, sup: sup, scale: scale}
		delay := wait
		if n > 1 {
			delay = Enclosed{lower: difference{lo, prevHi}, upper: difference{hi, prevLo}, inf: inf - prevSup, sup: sup - prevInf, scale: scale}
		}
		yield(n, delay, wait)
		// The previous total enters the next delay through a difference,
		// whose cost is its number of cells: keep 1/16 of them.
		f := 16
		prevLo, prevHi = lo.coarsened(f, false).prepare(), hi.coarsened(f, true).prepare()
		prevInf, prevSup = inf, sup
	}
	return nil
}

// elapsedGiveUp is the law of the time to give up under a limit M on
// elapsed time (and possibly a retry limit R): a client that has waited s
// gives up instead of retry n when s plus delay n would exceed M, so the
// time is the largest total ≤ M among those of retries 0…R. It is computed
// on the lattice twice, with the delays rounded down and up; the two are
// not a proven bound (a longer delay can make a client give up sooner), so
// the result says how far apart they are.
func elapsedGiveUp(p Policy, o DelayOptions) (*GiveUp, error) {
	tick := p.TickLength().Seconds()
	m := p.MaxElapsed.Seconds() / tick
	h := pow2AtLeast(m / float64(o.Cells))
	top := int(math.Floor(m / h))
	var sums [2]Summary
	unresolved := 0.0
	for s, up := range []bool{false, true} {
		total := pointAt0(h)
		gone := make([]float64, top+1)
		n := 0
		for ; ; n++ {
			if p.Retries > 0 && n == p.Retries {
				for i, v := range total.p {
					gone[total.off+i] += v
				}
				total = nil
				break
			}
			if n == MaxDelayRetries {
				break
			}
			if err := o.err(); err != nil {
				return nil, err
			}
			c, err := lawCells(p.Law(n+1, p.Start()), h, up)
			if err != nil {
				return nil, err
			}
			for i, v := range total.p {
				k := total.off + i
				gone[k] += v * c.tail(top-k)
			}
			next := total.plus(c)
			if end := top - next.off + 1; end < len(next.p) {
				if end <= 0 {
					total = nil
					break
				}
				next.p = next.p[:end]
			}
			total = next
		}
		if total != nil {
			unresolved = math.Max(unresolved, total.mass())
		}
		g := (&lattice{h: h, p: gone}).prepare()
		lo, hi := 0, len(g.p)-1
		for lo < hi && g.p[lo] == 0 {
			lo++
		}
		for hi > lo && g.p[hi] == 0 {
			hi--
		}
		e := Enclosed{lower: g, upper: g, inf: g.value(lo), sup: g.value(hi), scale: tick}
		sums[s] = e.Summary()
	}
	a, b := sums[0], sums[1]
	join := func(x, y Bound) Bound { return between(math.Min(x.Lo, y.Lo), math.Max(x.Hi, y.Hi)) }
	g := &GiveUp{
		Summary: Summary{Median: join(a.Median, b.Median), Mean: join(a.Mean, b.Mean), P10: join(a.P10, b.P10),
			P90: join(a.P90, b.P90), P99: join(a.P99, b.P99), Min: join(a.Min, b.Min), Max: join(a.Max, b.Max)},
		Method: fmt.Sprintf("give up when the time waited plus the next delay would exceed %s; computed on a lattice of %d cells "+
			"with the delays rounded down and again rounded up: approximate, the two computations span each bound", p.MaxElapsed, top+1),
		Unresolved: unresolved,
	}
	return g, nil
}
