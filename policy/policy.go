package policy

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Kind names a retry policy: a textbook policy or a library preset. Its
// rule (rules.go) says everything else.
type Kind string

// The textbook policies of DESIGN.md (their formulas: Kind.Formula).
const (
	None         Kind = "none"
	Fixed        Kind = "fixed"
	Expo         Kind = "expo"
	Full         Kind = "full"
	Equal        Kind = "equal"
	Decorrelated Kind = "decorrelated"
)

// Kinds lists the textbook policies, in the order used in tables and
// figures (Presets lists the library presets).
func Kinds() []Kind { return append([]Kind(nil), kinds...) }

// ParseKind reads a policy name: a textbook policy or a library preset.
func ParseKind(s string) (Kind, error) {
	if _, ok := rules[Kind(s)]; ok {
		return Kind(s), nil
	}
	msg := fmt.Sprintf("policy must be one of %s, or a library preset (herd presets lists them), got %q", KindNames(), s)
	if near := nearestKind(s); near != "" {
		msg += fmt.Sprintf(" (did you mean %s?)", near)
	}
	return "", errors.New(msg)
}

// nearestKind is the one policy or preset name that s begins (retry-go:
// retry-go-v4), else the name closest to s by edit distance when it is
// close enough to be a typo: at most one edit per three characters (and
// at least one); "" otherwise.
func nearestKind(s string) Kind {
	var prefixed []Kind
	for k := range rules {
		if s != "" && strings.HasPrefix(string(k), s) {
			prefixed = append(prefixed, k)
		}
	}
	if len(prefixed) == 1 {
		return prefixed[0]
	}
	best, bestD := Kind(""), max(1, len(s)/3)+1
	for k := range rules {
		if d := editDistance(s, string(k)); d < bestD || (d == bestD && best != "" && k < best) {
			best, bestD = k, d
		}
	}
	if bestD > max(1, len(s)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b: the fewest
// insertions, deletions and substitutions of characters that turn one
// into the other.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	prev := make([]int, len(y)+1)
	cur := make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			sub := prev[j-1]
			if x[i-1] != y[j-1] {
				sub++
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, sub)
		}
		prev, cur = cur, prev
	}
	return prev[len(y)]
}

// KindNames lists every kind's name, the textbook's and the window
// policies', for an error.
func KindNames() string { return strings.Join(Names(append(Kinds(), ContentionKinds()...)), ", ") }

// Names are the kinds' names.
func Names(ks []Kind) []string {
	names := make([]string, len(ks))
	for i, k := range ks {
		names[i] = string(k)
	}
	return names
}

// PresetNames are the library presets' names.
func PresetNames() []string {
	var names []string
	for _, p := range presets {
		names = append(names, string(p.Name))
	}
	return names
}

// ContentionList says each window policy's definition and source
// (Kind.Formula), for help.
func ContentionList() string {
	var s []string
	for _, k := range ContentionKinds() {
		s = append(s, string(k)+" ("+k.Formula()+")")
	}
	return strings.Join(s, "; ")
}

// IsPreset reports whether the kind names a library preset.
func (k Kind) IsPreset() bool { return RuleOf(k).preset != nil }

// Policy is a retry policy with its parameters. A textbook policy's Base,
// Cap and FixedDelay are in ticks; a preset's parameters are the library's
// own, in real time, and Tick converts them to ticks.
type Policy struct {
	Kind       Kind
	Base       float64 // base delay; > 0 (textbook policies)
	Cap        float64 // largest delay; ≥ Base (textbook policies)
	FixedDelay float64 // the delay of Fixed; ≥ 0
	// Exponent is Poly's r (W_n = ⌈base·n^r⌉); 0 means DefaultExponent,
	// and every other kind leaves it 0.
	Exponent float64
	// Retries is the retry limit: a client whose retry number would exceed
	// it gives up instead of retrying. 0 means no limit.
	Retries int
	// MaxElapsed, when > 0, makes a client give up when the time since its
	// first send plus its next delay would exceed it (cenkalti/backoff's
	// MaxElapsedTime). It needs a real tick.
	MaxElapsed time.Duration
	// Config holds the parameters of a configured rule (ConfiguredKinds),
	// read from a retry configuration; every other kind leaves it zero.
	Config Config
	// Tick is the real length of one tick. Presets need it to turn their
	// delays into ticks (0 means DefaultTick); for textbook policies it only
	// names the unit of outputs, and 0 leaves ticks abstract.
	Tick time.Duration
}

// DefaultTick is the tick length of a preset whose Tick is 0.
const DefaultTick = time.Second

// TickLength is the real length of a tick, or 0 when ticks are abstract
// (a textbook policy without Tick).
func (p Policy) TickLength() time.Duration { return p.tickLength(RuleOf(p.Kind)) }

func (p Policy) tickLength(r *rule) time.Duration {
	if p.Tick == 0 && r.Units == InSeconds {
		return DefaultTick
	}
	return p.Tick
}

// Unit names the unit of delays and times in outputs: "ticks" or, with a
// real tick, "ticks of 100ms" (or "s" when a tick is one second).
func (p Policy) Unit() string {
	switch t := p.TickLength(); t {
	case 0:
		return "ticks"
	case time.Second:
		return "s"
	default:
		return "ticks of " + t.String()
	}
}

// Law is the law of one delay: min(Max, g(U(Lo, Hi))), a point mass at Lo
// when Lo == Hi, where g is the identity unless Warp says otherwise. Every
// textbook policy's delay is a clamped uniform; Steps and Warp model the
// libraries whose delays are not.
type Law struct {
	Lo, Hi float64
	Max    float64 // +Inf when the policy does not clamp after drawing
	// Steps > 0 makes the draw a lattice: Lo + ⌊u·Steps⌋·(Hi−Lo)/Steps,
	// Steps equally likely values, for libraries that draw an integer
	// (a percentage, say) rather than a real number.
	Steps int
	// Warp, when not WarpNone, maps the uniform draw x to
	// Scale·(w(x) − From) before the clamp.
	Warp        Warp
	Scale, From float64
}

// Warp is a monotone map applied to a law's uniform draw.
type Warp int

const (
	// WarpNone leaves the uniform draw as it is.
	WarpNone Warp = iota
	// WarpPolly is w(t) = 2ᵗ·tanh(√(4t)), the curve of Polly's
	// DecorrelatedJitterBackoffV2: the delay is the scaled increment of w
	// between the previous draw (From) and this one.
	WarpPolly
)

func pollyCurve(t float64) float64 { return math.Exp2(t) * math.Tanh(math.Sqrt(4*t)) }

// Sample maps a uniform u in [0, 1) to a delay from the law and to the state
// the policy carries to the next retry: the delay itself, or for WarpPolly
// the curve's value w(x), which the next law subtracts.
func (l Law) Sample(u float64) (delay, state float64) {
	x := l.Lo + u*(l.Hi-l.Lo)
	if l.Steps > 0 {
		x = l.Lo + math.Floor(u*float64(l.Steps))*(l.Hi-l.Lo)/float64(l.Steps)
	}
	switch l.Warp {
	case WarpPolly:
		w := pollyCurve(x)
		return math.Min(l.Max, l.Scale*(w-l.From)), w
	}
	d := math.Min(l.Max, x)
	return d, d
}

// Draw maps a uniform u in [0, 1) to a delay from the law. It is the one
// place where a delay is drawn.
func (l Law) Draw(u float64) float64 {
	if l.Steps != 0 || l.Warp != WarpNone {
		return l.drawShaped(u)
	}
	// The clamped uniform, small enough to inline on the engines' hot path.
	if x := l.Lo + u*(l.Hi-l.Lo); x < l.Max {
		return x
	}
	return l.Max
}

//go:noinline — keeps Draw small enough to inline.
func (l Law) drawShaped(u float64) float64 {
	d, _ := l.Sample(u)
	return d
}

// Affine returns the law as min(max, lo + u·width) when it is the plain
// clamped uniform (no Steps, no Warp), so that an engine can keep the three
// numbers per retry class on its hot path instead of calling Draw, which
// is too large to inline. ok is false for stepped and warped laws.
func (l Law) Affine() (lo, width, max float64, ok bool) {
	return l.Lo, l.Hi - l.Lo, l.Max, l.Steps == 0 && l.Warp == WarpNone
}

// Deterministic reports whether the law is a point mass.
func (l Law) Deterministic() bool { return l.Lo == l.Hi || l.Draw(0) >= l.Max }

// Sup is the supremum of the law's support.
func (l Law) Sup() float64 {
	hi := l.Hi
	if l.Steps > 0 {
		hi = l.Lo + float64(l.Steps-1)*(l.Hi-l.Lo)/float64(l.Steps)
	}
	switch l.Warp {
	case WarpPolly:
		return math.Min(l.Max, l.Scale*(pollyCurve(hi)-l.From))
	}
	return math.Min(l.Max, hi)
}

// CDF is P(delay ≤ x), which the analytical models and count-based engines
// integrate over a tick's interval.
func (l Law) CDF(x float64) float64 {
	if x >= l.Max {
		return 1
	}
	// The delay is a non-decreasing function of u; find the largest u with
	// delay ≤ x. With WarpPolly, invert the curve on [Lo, Hi] by bisection.
	inner := x
	if l.Warp == WarpPolly {
		target := x/l.Scale + l.From
		lo, hi := l.Lo, l.Hi
		if pollyCurve(lo) > target {
			return 0
		}
		if pollyCurve(hi) <= target {
			return 1
		}
		for range 100 {
			mid := (lo + hi) / 2
			if pollyCurve(mid) <= target {
				lo = mid
			} else {
				hi = mid
			}
		}
		inner = lo
	}
	if l.Hi == l.Lo {
		if inner >= l.Lo {
			return 1
		}
		return 0
	}
	if l.Steps > 0 {
		step := (l.Hi - l.Lo) / float64(l.Steps)
		j := math.Floor((inner-l.Lo)/step) + 1 // values Lo, Lo+step, … ≤ inner
		return math.Max(0, math.Min(1, j/float64(l.Steps)))
	}
	return math.Max(0, math.Min(1, (inner-l.Lo)/(l.Hi-l.Lo)))
}

// equal reports whether two laws are the same distribution.
func (l Law) Equal(m Law) bool {
	if l.Deterministic() && m.Deterministic() {
		return l.Draw(0) == m.Draw(0)
	}
	return l == m
}

// Ceiling is d_n = min(cap, base·2ⁿ), the exponential ceiling of retry n.
func (p Policy) Ceiling(n int) float64 {
	return math.Min(p.Cap, math.Ldexp(p.Base, n))
}

// Law returns the law, in ticks, of the delay before retry n ≥ 1 of a
// client whose state is prev: the previous unrounded delay for Decorrelated,
// the state Law.Sample returned for stateful presets; a client starts with
// prev = Start(). Policies whose law depends on n alone ignore prev.
func (p Policy) Law(n int, prev float64) Law {
	r := RuleOf(p.Kind)
	l := r.law(p, n, prev)
	if r.Units == InSeconds {
		return l.scaled(1 / p.tickLength(r).Seconds())
	}
	return l
}

// LawFunc is Law with the policy's rule looked up once, for the engines
// that ask a stateful policy (Decorrelated) for its law at every retry:
// LawFunc()(n, prev) is Law(n, prev), without the lookup by kind.
func (p Policy) LawFunc() func(n int, prev float64) Law {
	r := RuleOf(p.Kind)
	if r.Units != InSeconds {
		return func(n int, prev float64) Law { return r.law(p, n, prev) }
	}
	f := 1 / p.tickLength(r).Seconds()
	return func(n int, prev float64) Law { return r.law(p, n, prev).scaled(f) }
}

// GrowthUniform reports whether the law before every retry is the clamped
// uniform min(hi, U(lo, growth·prev)) of the state prev a client carries
// (Decorrelated: growth 3), and gives lo, growth and hi: an engine then
// draws Law(n, prev).Sample(u) inline, bit for bit, as
// d = min(hi, lo + u·(growth·prev − lo)), the next state being d.
func (p Policy) GrowthUniform() (lo, growth, hi float64, ok bool) {
	r := RuleOf(p.Kind)
	if r.growth <= 0 || r.Units != inTicks {
		return 0, 0, 0, false
	}
	l := growthLaw(p, r.growth, 0)
	return l.Lo, r.growth, l.Max, true
}

// Delay draws the delay before retry n from a uniform u in [0, 1).
func (p Policy) Delay(n int, prev, u float64) float64 {
	return p.Law(n, prev).Draw(u)
}

// Start is the state a client carries into its first retry (see Law).
func (p Policy) Start() float64 { return RuleOf(p.Kind).start(p) }

// Stateful reports whether the law of a retry depends on the client's
// previous draw, so that a client must carry its state (Law's prev).
func (p Policy) Stateful() bool { return RuleOf(p.Kind).stateful }

// Random reports whether the policy's delays depend on chance.
func (p Policy) Random() bool {
	if r := RuleOf(p.Kind); r.randomFor != nil {
		return r.randomFor(p)
	}
	return RuleOf(p.Kind).random
}

// Classes is the number of distinct delay laws over retry numbers n ≥ 1 when
// the law depends on n alone: retries n ≥ Classes() share the law of
// n = Classes(). It returns 0 for stateful policies (Decorrelated and the
// presets that draw from their previous draw). A preset's retry limit R
// bounds it, since no client makes retry R+1: Classes() ≤ R.
func (p Policy) Classes() int {
	r := RuleOf(p.Kind)
	if r.stateful {
		return 0
	}
	return r.classes(p)
}

// MaxDelay is the largest delay, in ticks, the policy can draw (for a
// preset, over the retries its limit allows; +Inf when its delays grow
// without bound and it has no limit).
func (p Policy) MaxDelay() float64 {
	r := RuleOf(p.Kind)
	m := r.largest(p)
	if r.Units == InSeconds {
		return m / p.tickLength(r).Seconds()
	}
	return m
}

// Describe says the policy in words, for the first line of a table: its
// name, its parameters (textbook policies) and its give-up limits, e.g.
// "full (base 1, cap 32), gives up after 3 retries".
func (p Policy) Describe() string { return p.DescribeIn(0) }

// DescribeIn is Describe with a textbook policy's delays said as
// durations of unit ticks each (its base 1 and cap 32 in windows of 100ms
// are "base 100ms, cap 3.2s"); unit 0 keeps them in ticks.
func (p Policy) DescribeIn(unit time.Duration) string {
	d := func(ticks float64) string {
		if unit <= 0 {
			return strconv.FormatFloat(ticks, 'g', -1, 64)
		}
		return time.Duration(math.Round(ticks * float64(unit))).String()
	}
	s := string(p.Kind)
	switch p.Kind {
	case Fixed:
		s += fmt.Sprintf(" (delay %s)", d(p.FixedDelay))
	case Expo, Full, Equal, Decorrelated, LogLog, Sawtooth:
		s += fmt.Sprintf(" (base %s, cap %s)", d(p.Base), d(p.Cap))
	case Poly:
		s += fmt.Sprintf(" (base %s, cap %s, exponent %g)", d(p.Base), d(p.Cap), p.exponent())
	case Window:
		s += fmt.Sprintf(" (window %g)", p.topWindow())
	}
	if p.Kind.IsPreset() {
		s += " (library preset)"
	}
	if p.Kind.IsConfigured() {
		s += " (" + p.Config.describe() + ")"
	}
	if p.Retries > 0 {
		s += fmt.Sprintf(", gives up after %d retries", p.Retries)
	}
	if p.MaxElapsed > 0 {
		s += fmt.Sprintf(", gives up past %s elapsed", p.MaxElapsed)
	}
	return s
}

// instantRetry is the first retry the policy makes with a delay of exactly
// 0, or 0 when there is none.
func (p Policy) InstantRetry() int {
	last := p.Classes()
	if p.Retries > 0 {
		last = min(last, p.Retries)
	}
	for n := 1; n <= last; n++ {
		if l := p.Law(n, p.Start()); l.Deterministic() && l.Draw(0) == 0 {
			return n
		}
	}
	return 0
}

// InSeconds reports whether the policy's delays are in seconds (a library
// preset) rather than in ticks (a textbook rule).
func (p Policy) InSeconds() bool { return RuleOf(p.Kind).Units == InSeconds }
