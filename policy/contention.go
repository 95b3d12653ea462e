package policy

import (
	"math"
)

// The window policies of the contention-resolution literature, for the
// collision server with k = 1 (the simple multiple-access channel). In a
// window strategy a packet that has collided for the n-th time sends again
// in one slot drawn uniformly from the next W_n slots — in herd's terms its
// delay before retry n is uniform on the integers 1…W_n (a lattice law,
// rounded by no rounding). Binary exponential backoff is herd's Full with
// base 1 and a cap above every window the run reaches: U(0, 2ⁿ) rounded
// to a tick.
//
// Sources:
//   - Bender, Farach-Colton, He, Kuszmaul, Leiserson, "Adversarial
//     contention resolution for simple channels", SPAA 2005, pp. 325–332
//     (the window strategies and their batch makespans; the IPDPS 2004
//     version, "Adversarial analyses of window backoff strategies for simple
//     multiple-access channels", has the same definitions and the sawtooth
//     backoff/backon strategy);
//   - Håstad, Leighton, Rogoff, "Analysis of backoff protocols for multiple
//     access channels", SIAM J. Comput. 25(4):740–774, 1996 (polynomial
//     backoff: a station whose message has collided b times sends with
//     probability (b+1)^(−α); superlinear, α > 1, is stable for every
//     arrival rate below 1).
const (
	// Poly is r-polynomial backoff: W_n = ⌈base·n^r⌉, r = Exponent
	// (quadratic, r = 2, by default). Bender et al.: W_k = Θ(k^r), batch
	// makespan Θ((n/lg n)^(1+1/r)).
	Poly Kind = "poly"
	// LogLog is loglog-iterated backoff: w₁ = 2·base and
	// w_{n+1} = w_n·(1 + 1/lg lg w_n), W_n = ⌈w_n⌉. The start 2·base, the
	// ceiling and lg lg taken at max(w, 4) (so that small windows double,
	// as in binary exponential backoff) are herd's: the source's growth
	// factor is stated for large windows.
	// Bender et al.: batch makespan Θ(n lg lg n / lg lg lg n), the best of
	// every monotone window strategy.
	LogLog Kind = "loglog"
	// Sawtooth is sawtooth (backoff/backon) backoff: phase j = 1, 2, …
	// plays the windows base·2^j, base·2^(j−1), …, base·2 (j windows, the
	// window halving back down before the next phase doubles its top;
	// ending each phase at 2·base, binary exponential backoff's first
	// window, is herd's choice).
	// Bender et al. (IPDPS 2004; after Greenberg and Leiserson 1989): batch
	// makespan Θ(n), which no monotone strategy reaches.
	Sawtooth Kind = "sawtooth"
	// Window is one fixed window W = cap for every retry. Bender et al.:
	// with W = Θ(n) a batch of n finishes in n lg lg n ± O(n).
	Window Kind = "window"
)

// DefaultExponent is Poly's exponent r when Policy.Exponent is 0: quadratic
// backoff.
const DefaultExponent = 2

// MaxContentionClasses bounds how many distinct windows a window policy may
// play before its windows reach the cap (its Classes), so that an engine's
// table of laws stays small; Validate refuses more.
const MaxContentionClasses = 100_000

// ContentionKinds lists the window policies of the contention-resolution
// literature (they are not among Kinds, whose tables and figures stay the
// seed article's).
func ContentionKinds() []Kind { return []Kind{Poly, LogLog, Sawtooth, Window} }

// exponent is Poly's r.
func (p Policy) exponent() float64 {
	if p.Exponent == 0 {
		return DefaultExponent
	}
	return p.Exponent
}

// topWindow is the largest window a window policy plays: ⌊cap⌋, at least 1.
func (p Policy) topWindow() float64 { return math.Max(1, math.Floor(p.Cap)) }

// clampWindow turns a real window size into the slots drawn from: ⌈w⌉
// between 1 and the top window.
func (p Policy) clampWindow(w float64) float64 {
	return math.Max(1, math.Min(p.topWindow(), math.Ceil(w)))
}

// ContentionWindow is W_n, the window of retry n ≥ 1 of a window policy
// (0 for any other kind).
func (p Policy) ContentionWindow(n int) float64 {
	switch p.Kind {
	case Poly:
		return p.clampWindow(p.Base * math.Pow(float64(n), p.exponent()))
	case LogLog:
		w := 2 * p.Base
		for i := 1; i < n && w < p.topWindow(); i++ {
			w *= 1 + 1/math.Log2(math.Log2(math.Max(w, 4)))
		}
		return p.clampWindow(w)
	case Sawtooth:
		// Phase j holds retries j(j−1)/2 + 1 … j(j+1)/2; its i-th window
		// (i = 0…j−1) is base·2^(j−i). Once a phase's top would pass the
		// cap, every later window is the cap.
		j := 1
		for j*(j+1)/2 < n {
			j++
		}
		if p.Base*math.Ldexp(1, j) > p.topWindow() {
			return p.topWindow()
		}
		i := n - 1 - j*(j-1)/2
		return p.clampWindow(p.Base * math.Ldexp(1, j-i))
	case Window:
		return p.topWindow()
	}
	return 0
}

// slotLaw is the law of a slot drawn uniformly from 1…w.
func slotLaw(w float64) Law {
	if w <= 1 {
		return point(1)
	}
	return Law{Lo: 1, Hi: w + 1, Max: math.Inf(1), Steps: int(w)}
}

// windowClasses is the first retry from which the windows stay at the top
// window (MaxContentionClasses + 1 when they do not within that many).
func WindowClasses(p Policy) int {
	top := p.topWindow()
	switch p.Kind {
	case Window:
		return 1
	case Poly:
		// The first n with base·n^r ≥ top − 1 (then ⌈·⌉ reaches top), found
		// from the closed form and corrected for rounding.
		x := math.Max(1, math.Floor(math.Pow((top-1)/p.Base, 1/p.exponent())))
		if x > MaxContentionClasses {
			return MaxContentionClasses + 1
		}
		n := int(x)
		for n > 1 && p.ContentionWindow(n-1) >= top {
			n--
		}
		for p.ContentionWindow(n) < top && n <= MaxContentionClasses {
			n++
		}
		return n
	case LogLog:
		n := 1
		for w := 2 * p.Base; math.Ceil(w) < top && n <= MaxContentionClasses; n++ {
			w *= 1 + 1/math.Log2(math.Log2(math.Max(w, 4)))
		}
		return n
	case Sawtooth:
		j := 1 // the first phase whose top passes the cap
		for p.Base*math.Ldexp(1, j) <= top && j < 64 {
			j++
		}
		return min(j*(j-1)/2+1, MaxContentionClasses+1)
	}
	return 1
}

func IsContention(k Kind) bool {
	for _, c := range ContentionKinds() {
		if k == c {
			return true
		}
	}
	return false
}
