package policy

import "math"

// A rule is everything herd knows about one kind of policy, textbook or
// library preset: the law of each delay, the state a client carries, how
// many distinct laws there are, the largest delay, whether chance enters,
// and the unit its delays are in. Every Policy method is one lookup of its
// Kind in the registry below and one read of the rule found; adding a
// policy means adding one rule (a textbook rule here, or a Preset in
// preset.go, whose rule presetRule derives).
type rule struct {
	kind Kind
	// formula is the delay before retry n ≥ 1 in one line (Kind.Formula).
	formula string
	Units   units
	// law is the law, in the rule's units, of the delay before retry
	// n ≥ 1 of a client whose state is prev (Policy.Law).
	law func(p Policy, n int, prev float64) Law
	// start is the state a client carries into its first retry.
	start func(p Policy) float64
	// stateful rules draw each delay from the client's state (the previous
	// draw), so law depends on prev and there are no retry classes.
	stateful bool
	// random is false when every law is a point mass.
	random bool
	// classes is Policy.Classes of a stateless rule: retries n ≥ classes
	// share the law of n = classes.
	classes func(p Policy) int
	// sup is the supremum, in the rule's units, of the delay of retry n
	// over every state a client can reach it in.
	Sup func(p Policy, n int) float64
	// largest is Policy.MaxDelay in the rule's units: the supremum of the
	// delays of the retries the policy's limit allows.
	largest func(p Policy) float64
	// preset is the library preset the rule models, nil for a textbook one.
	preset *Preset
	// growth > 0 says that law is growthLaw with this growth at every
	// retry (Policy.GrowthUniform).
	growth float64
	// configured marks the rules of retry configurations (configured.go),
	// whose randomness depends on their parameters: randomFor says it.
	configured bool
	randomFor  func(p Policy) bool
}

// decorrelatedGrowth is how far Decorrelated's next draw reaches beyond
// the previous one: U(base, 3·prev).
const decorrelatedGrowth = 3

// growthLaw is min(cap, U(base, growth·prev)), the law of a client whose
// previous delay was prev.
func growthLaw(p Policy, growth, prev float64) Law {
	return Law{Lo: p.Base, Hi: growth * prev, Max: p.Cap}
}

// units says what a rule's delays are measured in.
type units int

const (
	// inTicks: the delays are in ticks and their parameters are the
	// policy's Base, Cap and FixedDelay; a Tick only names the unit.
	inTicks units = iota
	// inSeconds: the delays are a library's own, in seconds, and the
	// policy's Tick (DefaultTick when 0) turns them into ticks.
	InSeconds
)

// textbook holds the rules of the textbook policies of DESIGN.md, in the
// order of Kinds(), with d_n = Policy.Ceiling(n) = min(cap, base·2ⁿ). Their
// classes and largest delays do not depend on the retry limit.
var textbook = []rule{
	{
		kind: None, formula: "0: the retry follows at once, in the next tick",
		law:     func(Policy, int, float64) Law { return point(0) },
		start:   atBase,
		classes: oneClass,
		Sup:     func(Policy, int) float64 { return 0 },
		largest: func(Policy) float64 { return 0 },
	},
	{
		kind: Fixed, formula: "fixed_delay",
		law:     func(p Policy, _ int, _ float64) Law { return point(p.FixedDelay) },
		start:   atBase,
		classes: oneClass,
		Sup:     func(p Policy, _ int) float64 { return p.FixedDelay },
		largest: func(p Policy) float64 { return p.FixedDelay },
	},
	{
		kind: Expo, formula: "d_n = min(cap, base·2ⁿ)",
		law:     func(p Policy, n int, _ float64) Law { return point(p.Ceiling(n)) },
		start:   atBase,
		classes: ceilingClasses,
		Sup:     func(p Policy, n int) float64 { return p.Ceiling(n) },
		largest: atCap,
	},
	{
		kind: Full, formula: "U(0, d_n)", random: true,
		law:     func(p Policy, n int, _ float64) Law { return uniform(0, p.Ceiling(n)) },
		start:   atBase,
		classes: ceilingClasses,
		Sup:     func(p Policy, n int) float64 { return p.Ceiling(n) },
		largest: atCap,
	},
	{
		kind: Equal, formula: "d_n/2 + U(0, d_n/2)", random: true,
		law: func(p Policy, n int, _ float64) Law {
			d := p.Ceiling(n)
			return uniform(d/2, d)
		},
		start:   atBase,
		classes: ceilingClasses,
		Sup:     func(p Policy, n int) float64 { return p.Ceiling(n) },
		largest: atCap,
	},
	{
		kind: Decorrelated, formula: "min(cap, U(base, 3·prev)), prev starts at base and keeps the unrounded delay",
		random: true, stateful: true, growth: decorrelatedGrowth,
		law:   func(p Policy, _ int, prev float64) Law { return growthLaw(p, decorrelatedGrowth, prev) },
		start: atBase,
		// prev ≤ base·3ⁿ⁻¹ before retry n, and the cap clamps every draw.
		Sup:     func(p Policy, n int) float64 { return math.Min(p.Cap, p.Base*math.Pow(3, float64(n))) },
		largest: atCap,
	},
}

// contention are the window policies' rules, in the order of
// ContentionKinds. Their laws depend on n alone; their largest delay is
// the top window ⌊cap⌋.
var contention = []rule{
	{kind: Poly, formula: "slot uniform on 1…W_n, W_n = min(⌊cap⌋, ⌈base·n^r⌉), r = --exponent (2: quadratic); r-polynomial backoff (Bender et al., SPAA 2005; Håstad, Leighton, Rogoff, SIAM J. Comput. 1996)",
		random: true, law: slotRule, start: atBase, classes: WindowClasses, Sup: windowSup, largest: topWindowRule},
	{kind: LogLog, formula: "slot uniform on 1…W_n, w₁ = 2·base, w_{n+1} = w_n·(1 + 1/lg lg max(w_n, 4)), W_n = min(⌊cap⌋, ⌈w_n⌉); loglog-iterated backoff (Bender et al., SPAA 2005)",
		random: true, law: slotRule, start: atBase, classes: WindowClasses, Sup: windowSup, largest: topWindowRule},
	{kind: Sawtooth, formula: "slot uniform on 1…W_n, phase j = 1, 2, … plays windows base·2^j, base·2^(j−1), …, base·2, then ⌊cap⌋ once a phase's top passes it; sawtooth backoff/backon (Bender et al., IPDPS 2004 / SPAA 2005)",
		random: true, law: slotRule, start: atBase, classes: WindowClasses, Sup: windowSup, largest: topWindowRule},
	{kind: Window, formula: "slot uniform on 1…W, W = ⌊cap⌋ for every retry; a fixed window (Bender et al., SPAA 2005)",
		random: true, law: slotRule, start: atBase, classes: WindowClasses, Sup: windowSup, largest: topWindowRule},
}

func slotRule(p Policy, n int, _ float64) Law { return slotLaw(p.ContentionWindow(n)) }
func windowSup(p Policy, n int) float64       { return p.ContentionWindow(n) }
func topWindowRule(p Policy) float64          { return p.topWindow() }

func atBase(p Policy) float64 { return p.Base }
func atCap(p Policy) float64  { return p.Cap }
func oneClass(Policy) int     { return 1 }

// ceilingClasses is the first n with d_n = cap: the exponential ceiling's
// laws stop changing there.
func ceilingClasses(p Policy) int {
	n := 1
	for p.Ceiling(n) < p.Cap {
		n++
	}
	return n
}

// unknownRule answers for a kind no rule has, which Validate refuses:
// no delay, one class, and the policy's Cap as its largest delay.
var unknownRule = rule{
	law:     textbook[0].law,
	start:   atBase,
	classes: oneClass,
	Sup:     func(Policy, int) float64 { return 0 },
	largest: atCap,
}

// presetRule derives a preset's rule from its law. The classes and the
// randomness of a stateless preset come from scanning its laws up to
// maxScan; its retry limit bounds both the classes and the largest delay,
// and a stateful preset's largest delay is the largest bound over the
// retries its limit allows.
func presetRule(ps *Preset) rule {
	steady := 0 // smallest c with law(n) = law(c) for all n ≥ c; 0 when none
	random := ps.Stateful
	if !ps.Stateful {
		for n := 1; n <= MaxScan; n++ {
			l := ps.law(n, 0)
			if !l.Deterministic() {
				random = true
			}
			if steady == 0 && l.Equal(ps.law(n+1, 0)) && l.Equal(ps.law(n+2, 0)) && l.Equal(ps.law(n+MaxScan, 0)) {
				steady = n
			}
		}
	}
	// most[n] is the largest delay of retries 1…n, so that MaxDelay of a
	// limit up to maxScan is one read.
	most := make([]float64, MaxScan+1)
	for n := 1; n <= MaxScan; n++ {
		most[n] = math.Max(most[n-1], ps.sup(n))
	}
	return rule{
		kind: ps.Name, formula: ps.Formula, Units: InSeconds, preset: ps,
		stateful: ps.Stateful, random: random,
		law:   func(_ Policy, n int, prev float64) Law { return ps.law(n, prev) },
		start: func(Policy) float64 { return ps.start },
		classes: func(p Policy) int {
			c := steady
			if p.Retries > 0 && (c == 0 || p.Retries < c) {
				c = p.Retries
			}
			if c == 0 { // unbounded and unlimited: Validate rejects it
				c = MaxScan
			}
			return c
		},
		Sup: func(_ Policy, n int) float64 { return ps.sup(n) },
		largest: func(p Policy) float64 {
			last := steady
			if p.Retries > 0 && (last == 0 || ps.Stateful || p.Retries < last) {
				last = p.Retries
			}
			if last == 0 {
				return math.Inf(1)
			}
			if last <= MaxScan {
				return most[last]
			}
			m := most[MaxScan]
			for n := MaxScan + 1; n <= last; n++ {
				m = math.Max(m, ps.sup(n))
			}
			return m
		},
	}
}

// rules is the registry: every textbook rule and every preset's, by kind.
var rules, kinds = register()

func register() (map[Kind]*rule, []Kind) {
	m := make(map[Kind]*rule, len(textbook)+len(contention)+len(configured)+len(presets))
	var ks []Kind
	for i := range textbook {
		m[textbook[i].kind] = &textbook[i]
		ks = append(ks, textbook[i].kind)
	}
	for i := range contention {
		m[contention[i].kind] = &contention[i]
	}
	for i := range configured {
		configured[i] = configuredRule(configured[i])
		m[configured[i].kind] = &configured[i]
	}
	for i := range presets {
		r := presetRule(&presets[i])
		m[r.kind] = &r
	}
	return m, ks
}

// ruleOf is the rule of a kind, unknownRule when it has none.
func RuleOf(k Kind) *rule {
	if r := rules[k]; r != nil {
		return r
	}
	return &unknownRule
}

// Formula is the kind's delay before retry n ≥ 1 in one line: the textbook
// formula, or a preset's Formula; empty for a kind that names no policy.
func (k Kind) Formula() string { return RuleOf(k).formula }
