package model

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/herdlab/herd/policy"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenPolicies are the policies whose rules the golden file records:
// every textbook kind with two parameter sets, every preset at two ticks,
// and two kinds no rule knows (the zero Kind and a typo), which Validate
// refuses but whose methods must not change either.
func goldenPolicies() []policy.Policy {
	var out []policy.Policy
	for _, k := range append(policy.Kinds(), "", "bogus") {
		out = append(out,
			policy.Policy{Kind: k, Base: 1, Cap: 32, FixedDelay: 2},
			policy.Policy{Kind: k, Base: 0.3, Cap: 10.5, FixedDelay: 0.7, Tick: 10 * time.Millisecond})
	}
	for _, ps := range policy.Presets() {
		out = append(out, ps.Policy(0), ps.Policy(100*time.Millisecond))
	}
	for _, k := range policy.ContentionKinds() {
		out = append(out, policy.Policy{Kind: k, Base: 1, Cap: 32}, policy.Policy{Kind: k, Base: 0.3, Cap: 1000.5})
	}
	return out
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func lawString(l policy.Law) string {
	s := fmt.Sprintf("[%s,%s] max=%s", g(l.Lo), g(l.Hi), g(l.Max))
	if l.Steps != 0 {
		s += fmt.Sprintf(" steps=%d", l.Steps)
	}
	if l.Warp != policy.WarpNone {
		s += fmt.Sprintf(" warp=%d scale=%s from=%s", l.Warp, g(l.Scale), g(l.From))
	}
	mid := l.Lo + 0.37*(l.Hi-l.Lo)
	if l.Warp != policy.WarpNone {
		mid, _ = l.Sample(0.37)
	}
	return s + fmt.Sprintf(" sup=%s cdf(%s)=%s cdf(3)=%s det=%t", g(l.Sup()), g(mid), g(l.CDF(mid)), g(l.CDF(3)), l.Deterministic())
}

// policyRules writes, for each golden policy, what every Policy method
// says: the per-policy answers under a few retry limits, then the law of
// retries 1…40 at the start state and at other states ("=" when the law
// does not depend on the state).
func policyRules() []byte {
	var b bytes.Buffer
	for _, p := range goldenPolicies() {
		fmt.Fprintf(&b, "# kind=%q base=%s cap=%s fixed=%s tick=%s\n", p.Kind, g(p.Base), g(p.Cap), g(p.FixedDelay), p.Tick)
		for _, r := range []int{0, 1, 3, 9, 2000} {
			q := p
			q.Retries = r
			sc := Default()
			sc.Policy = q
			fmt.Fprintf(&b, "retries=%d start=%s classes=%d maxdelay=%s random=%t stateful=%t tick=%s unit=%q preset=%t maxticks=%d valid=%v\n",
				r, g(q.Start()), q.Classes(), g(q.MaxDelay()), q.Random(), q.Stateful(), q.TickLength(), q.Unit(), q.Kind.IsPreset(), sc.MaxDelayTicks(), sc.Validate())
		}
		occ := Default()
		occ.Server, occ.Policy = OCC, p
		occ.Policy.Retries, occ.Policy.MaxElapsed = 0, 0
		fmt.Fprintf(&b, "occ valid=%v\n", occ.Validate())
		for n := 1; n <= 40; n++ {
			at := p.Law(n, p.Start())
			fmt.Fprintf(&b, "n=%d %s", n, lawString(at))
			for _, prev := range []float64{0, 0.5, 3, 17.25, 1.3} {
				if l := p.Law(n, prev); l == at {
					b.WriteString(" =")
				} else {
					fmt.Fprintf(&b, " | prev=%s %s", g(prev), lawString(l))
				}
			}
			b.WriteString("\n")
		}
	}
	return b.Bytes()
}

// TestPolicyRulesGolden holds every policy's rules (laws, start states,
// classes, largest delays, randomness) to the recorded ones, so that a
// change in how the rules are organized cannot change what they say.
func TestPolicyRulesGolden(t *testing.T) {
	got := policyRules()
	path := filepath.Join("testdata", "policy-rules.golden")
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -run TestPolicyRulesGolden -update to write it)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(gl), len(wl))
	}
}

// benchPolicies are a textbook policy with a law of n alone, decorrelated
// (whose law depends on the state), a stateless preset and a stateful one.
func benchPolicies() map[string]policy.Policy {
	cenkalti, _ := policy.LookupPreset("cenkalti-v4")
	polly, _ := policy.LookupPreset("polly-v8-expo-jitter")
	return map[string]policy.Policy{
		"full":         {Kind: policy.Full, Base: 1, Cap: 32},
		"decorrelated": {Kind: policy.Decorrelated, Base: 1, Cap: 32},
		"cenkalti-v4":  cenkalti.Policy(0),
		"polly":        polly.Policy(0),
	}
}

var sinkLaw policy.Law
var sinkFloat float64

// BenchmarkPolicyLaw is the cost of one Policy.Law, as the per-client
// engines pay it for every retry of a stateful policy.
func BenchmarkPolicyLaw(b *testing.B) {
	for _, name := range []string{"full", "decorrelated", "cenkalti-v4", "polly"} {
		p := benchPolicies()[name]
		b.Run(name, func(b *testing.B) {
			prev := p.Start()
			for i := 0; b.Loop(); i++ {
				sinkLaw = p.Law(1+i%8, prev)
			}
		})
	}
}

// BenchmarkPolicySetup is what an engine asks of a policy before its first
// trial: the start state, classes, largest delay, randomness and unit.
func BenchmarkPolicySetup(b *testing.B) {
	for _, name := range []string{"full", "decorrelated", "cenkalti-v4", "polly"} {
		p := benchPolicies()[name]
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				x := p.Start() + float64(p.Classes()) + p.MaxDelay() + float64(p.TickLength())
				if p.Random() && p.Stateful() {
					x++
				}
				sinkFloat = x
			}
		})
	}
}

// TestPolicyRulesAgree checks that every rule's answers agree with each
// other: the law of any retry a client can reach lies below the rule's
// supremum for that retry, which lies below the largest delay; a policy
// that is not Random draws point masses; and retries from Classes() on
// share one law.
func TestPolicyRulesAgree(t *testing.T) {
	for _, p := range goldenPolicies()[:2*len(policy.Kinds())] {
		checkRuleAgrees(t, p)
	}
	for _, ps := range policy.Presets() {
		p := ps.Policy(0)
		if p.Retries == 0 {
			p.Retries = 12
		}
		checkRuleAgrees(t, p)
	}
}

func checkRuleAgrees(t *testing.T, p policy.Policy) {
	t.Helper()
	m := p.MaxDelay()
	last := 40
	if p.Retries > 0 {
		last = p.Retries
	}
	r := policy.RuleOf(p.Kind)
	perTick := 1.0
	if r.Units == policy.InSeconds {
		perTick = p.TickLength().Seconds()
	}
	prev := p.Start()
	for n := 1; n <= last; n++ {
		l := p.Law(n, prev)
		sup := r.Sup(p, n) / perTick
		if s := l.Sup(); s > sup*(1+1e-12) {
			t.Errorf("%s: retry %d can wait %g ticks, above its supremum %g", p.Kind, n, s, sup)
		}
		if sup > m*(1+1e-12) {
			t.Errorf("%s: retry %d's supremum %g ticks is above MaxDelay %g", p.Kind, n, sup, m)
		}
		if !p.Random() && !l.Deterministic() {
			t.Errorf("%s: not Random, but the law of retry %d is %+v", p.Kind, n, l)
		}
		_, prev = l.Sample(0.999)
	}
	if c := p.Classes(); c > 0 && !p.Stateful() {
		for n := c; n <= min(c+10, last); n++ {
			if !p.Law(n, p.Start()).Equal(p.Law(c, p.Start())) {
				t.Errorf("%s: retry %d's law differs from class %d's", p.Kind, n, c)
			}
		}
	}
}

// GrowthUniform's inline draw is Law(n, prev).Sample(u) bit for bit, for
// every policy that claims it, at every retry and state; Decorrelated
// claims it (the engines take its inline path). Claiming it for a rule
// whose law is not the growth law (tried by hand: growth 2 on
// Decorrelated) makes the draws differ and this test fail.
func TestGrowthUniformIsLaw(t *testing.T) {
	claimed := map[policy.Kind]bool{}
	for _, p := range goldenPolicies() {
		lo, growth, hi, ok := p.GrowthUniform()
		if !ok {
			continue
		}
		claimed[p.Kind] = true
		prev := p.Start()
		for i := range 2000 {
			n := 1 + i%40
			u := float64((i*7919)%1000) / 1000
			d, state := p.Law(n, prev).Sample(u)
			got := math.Min(hi, lo+u*(growth*prev-lo))
			if math.Float64bits(got) != math.Float64bits(d) || math.Float64bits(got) != math.Float64bits(state) {
				t.Fatalf("%s retry %d, prev %v, u %v: inline %v, Law.Sample %v (state %v)", p.Kind, n, prev, u, got, d, state)
			}
			prev = state
		}
	}
	if !claimed[policy.Decorrelated] {
		t.Error("Decorrelated does not claim GrowthUniform: the engines draw it through Law")
	}
}
