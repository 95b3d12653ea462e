package model

import (
	"fmt"
	"math"
	"strings"
)

// Kind names a retry policy.
type Kind string

// The textbook policies of DESIGN.md.
const (
	None         Kind = "none"         // retry at once (δ = 0, so the next tick)
	Fixed        Kind = "fixed"        // δ = fixed delay
	Expo         Kind = "expo"         // δ = d_n = min(cap, base·2ⁿ)
	Full         Kind = "full"         // δ = U(0, d_n)
	Equal        Kind = "equal"        // δ = d_n/2 + U(0, d_n/2)
	Decorrelated Kind = "decorrelated" // δ = min(cap, U(base, 3·prev)), prev starts at base
)

// Kinds lists every policy, in the order used in tables and figures.
func Kinds() []Kind { return []Kind{None, Fixed, Expo, Full, Equal, Decorrelated} }

// ParseKind reads a policy name.
func ParseKind(s string) (Kind, error) {
	for _, k := range Kinds() {
		if string(k) == s {
			return k, nil
		}
	}
	names := make([]string, 0, len(Kinds()))
	for _, k := range Kinds() {
		names = append(names, string(k))
	}
	return "", fmt.Errorf("policy must be one of %s, got %q", strings.Join(names, ", "), s)
}

// Policy is a retry policy with its parameters, all in ticks.
type Policy struct {
	Kind       Kind
	Base       float64 // base delay; > 0
	Cap        float64 // largest delay; ≥ Base
	FixedDelay float64 // the delay of Fixed; ≥ 0
}

// Law is the law of one delay: min(Max, U(Lo, Hi)), a point mass at Lo when
// Lo == Hi. Every textbook policy's delay has this form.
type Law struct {
	Lo, Hi float64
	Max    float64 // +Inf when the policy does not clamp after drawing
}

// Draw maps a uniform u in [0, 1) to a delay from the law.
func (l Law) Draw(u float64) float64 {
	return math.Min(l.Max, l.Lo+u*(l.Hi-l.Lo))
}

// Deterministic reports whether the law is a point mass.
func (l Law) Deterministic() bool { return l.Lo == l.Hi || l.Lo >= l.Max }

// Ceiling is d_n = min(cap, base·2ⁿ), the exponential ceiling of retry n.
func (p Policy) Ceiling(n int) float64 {
	return math.Min(p.Cap, math.Ldexp(p.Base, n))
}

// Law returns the law of the delay before retry n ≥ 1 of a client whose
// previous unrounded delay was prev (only Decorrelated reads prev; a client
// starts with prev = Base).
func (p Policy) Law(n int, prev float64) Law {
	inf := math.Inf(1)
	switch p.Kind {
	case Fixed:
		return Law{p.FixedDelay, p.FixedDelay, inf}
	case Expo:
		d := p.Ceiling(n)
		return Law{d, d, inf}
	case Full:
		return Law{0, p.Ceiling(n), inf}
	case Equal:
		d := p.Ceiling(n)
		return Law{d / 2, d, inf}
	case Decorrelated:
		return Law{p.Base, 3 * prev, p.Cap}
	default: // None
		return Law{0, 0, inf}
	}
}

// Delay draws the delay before retry n from a uniform u in [0, 1).
func (p Policy) Delay(n int, prev, u float64) float64 {
	return p.Law(n, prev).Draw(u)
}

// Random reports whether the policy's delays depend on chance.
func (p Policy) Random() bool {
	switch p.Kind {
	case Full, Equal, Decorrelated:
		return true
	}
	return false
}

// Classes is the number of distinct delay laws over retry numbers n ≥ 1 when
// the law depends on n alone: retries n ≥ Classes() share the law of
// n = Classes(). It returns 0 for Decorrelated, whose law depends on the
// previous delay.
func (p Policy) Classes() int {
	switch p.Kind {
	case Expo, Full, Equal:
		n := 1
		for p.Ceiling(n) < p.Cap {
			n++
		}
		return n
	case Decorrelated:
		return 0
	default:
		return 1
	}
}

// MaxDelay is the largest delay the policy can draw.
func (p Policy) MaxDelay() float64 {
	switch p.Kind {
	case None:
		return 0
	case Fixed:
		return p.FixedDelay
	default:
		return p.Cap
	}
}
