package model

import (
	"github.com/herdlab/herd/policy"
	"math"
	"math/rand/v2"
	"testing"
)

// TestContentionWindows checks each window policy's windows W_1, W_2, …
// against its definition, computed by hand:
//   - poly, base 1: n^r, so 1, 4, 9, 16, 25 (r = 2) and 1, 8, 27, 64 (r = 3);
//     base 0.5, r = 2: ⌈0.5⌉, ⌈2⌉, ⌈4.5⌉, ⌈8⌉, ⌈12.5⌉ = 1, 2, 5, 8, 13;
//   - loglog, base 1: w = 2, 4, 8 (lg lg 4 = 1 doubles), then
//     8·(1 + 1/lg 3) = 13.047, ·(1 + 1/lg lg 13.047) = 19.95, 29.41, 42.27:
//     W = 2, 4, 8, 14, 20, 30, 43;
//   - sawtooth, base 1: phases (2), (4, 2), (8, 4, 2), (16, 8, 4, 2); with
//     cap 8 the fourth phase's top passes the cap, so 8 from retry 7 on;
//   - window: the cap, every time.
func TestContentionWindows(t *testing.T) {
	for _, c := range []struct {
		p       policy.Policy
		want    []float64
		classes int
	}{
		{policy.Policy{Kind: policy.Poly, Base: 1, Cap: 1000}, []float64{1, 4, 9, 16, 25}, 32},
		{policy.Policy{Kind: policy.Poly, Base: 1, Cap: 1000, Exponent: 3}, []float64{1, 8, 27, 64}, 10},
		{policy.Policy{Kind: policy.Poly, Base: 0.5, Cap: 100, Exponent: 2}, []float64{1, 2, 5, 8, 13}, 15},
		{policy.Policy{Kind: policy.Poly, Base: 1, Cap: 100}, []float64{1, 4, 9, 16, 25, 36, 49, 64, 81, 100, 100}, 10},
		{policy.Policy{Kind: policy.LogLog, Base: 1, Cap: 1000}, []float64{2, 4, 8, 14, 20, 30, 43}, 0},
		{policy.Policy{Kind: policy.LogLog, Base: 1, Cap: 20}, []float64{2, 4, 8, 14, 20, 20}, 5},
		{policy.Policy{Kind: policy.Sawtooth, Base: 1, Cap: 1024}, []float64{2, 4, 2, 8, 4, 2, 16, 8, 4, 2, 32}, 0},
		{policy.Policy{Kind: policy.Sawtooth, Base: 1, Cap: 8}, []float64{2, 4, 2, 8, 4, 2, 8, 8, 8}, 7},
		{policy.Policy{Kind: policy.Window, Base: 1, Cap: 32}, []float64{32, 32, 32}, 1},
		{policy.Policy{Kind: policy.Window, Base: 1, Cap: 7.9}, []float64{7, 7}, 1},
	} {
		for i, w := range c.want {
			if got := c.p.ContentionWindow(i + 1); got != w {
				t.Errorf("%s (base %g, cap %g, r %g): W_%d = %g, want %g", c.p.Kind, c.p.Base, c.p.Cap, c.p.Exponent, i+1, got, w)
			}
			if s := c.p.Law(i+1, c.p.Start()).Sup(); s != w {
				t.Errorf("%s: the law of retry %d reaches %g, want its window %g", c.p.Kind, i+1, s, w)
			}
		}
		if c.classes > 0 && c.p.Classes() != c.classes {
			t.Errorf("%s (cap %g): Classes() = %d, want %d", c.p.Kind, c.p.Cap, c.p.Classes(), c.classes)
		}
		if c.p.MaxDelay() != math.Floor(c.p.Cap) {
			t.Errorf("%s: MaxDelay %g, want ⌊cap⌋", c.p.Kind, c.p.MaxDelay())
		}
		checkRuleAgrees(t, c.p)
	}
}

// TestSlotLaw checks that a window policy's delay is a slot uniform on
// 1…W: its CDF steps by 1/W at each integer, and 10⁵ draws hit each slot
// within 4σ of n/W.
func TestSlotLaw(t *testing.T) {
	p := policy.Policy{Kind: policy.Poly, Base: 1, Cap: 1000}
	l := p.Law(3, p.Start()) // W = 9
	for j := 0; j <= 9; j++ {
		if c := l.CDF(float64(j)); math.Abs(c-float64(j)/9) > 1e-12 {
			t.Errorf("P(delay ≤ %d) = %v, want %v", j, c, float64(j)/9)
		}
	}
	src := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	var hits [10]int
	for range n {
		d := l.Draw(src.Float64())
		if d != math.Trunc(d) || d < 1 || d > 9 {
			t.Fatalf("drew %v, not a slot of 1…9", d)
		}
		hits[int(d)]++
	}
	mean, sd := n/9.0, math.Sqrt(n*(1.0/9)*(8.0/9))
	for j := 1; j <= 9; j++ {
		if math.Abs(float64(hits[j])-mean) > 4*sd {
			t.Errorf("slot %d drawn %d times, want %.0f ± %.0f", j, hits[j], mean, 4*sd)
		}
	}
	if one := (policy.Policy{Kind: policy.Window, Base: 1, Cap: 1}).Law(1, 1); !one.Deterministic() || one.Draw(0.7) != 1 {
		t.Errorf("a window of 1 is %+v, want the point 1", one)
	}
}

// TestContentionValidate checks the exponent's range and the refusal of a
// cap that the windows would take too many retries to reach.
func TestContentionValidate(t *testing.T) {
	sc := Default()
	sc.Server, sc.Capacity = Collision, 1
	for _, c := range []struct {
		p    policy.Policy
		flag string
	}{
		{policy.Policy{Kind: policy.Poly, Base: 1, Cap: 100, Exponent: -1}, "exponent"},
		{policy.Policy{Kind: policy.Poly, Base: 1, Cap: 100, Exponent: 17}, "exponent"},
		{policy.Policy{Kind: policy.Full, Base: 1, Cap: 100, Exponent: 2}, "exponent"},
		{policy.Policy{Kind: policy.Poly, Base: 1e-6, Cap: 1e7, Exponent: 0.5}, "cap"},
	} {
		sc.Policy = c.p
		err := sc.Validate()
		fe, ok := err.(*FieldError)
		if !ok || fe.Flag != c.flag {
			t.Errorf("%+v: Validate = %v, want an error naming --%s", c.p, err, c.flag)
		}
	}
	for _, k := range policy.ContentionKinds() {
		sc.Policy = policy.Policy{Kind: k, Base: 1, Cap: 1 << 20}
		if err := sc.Validate(); err != nil {
			t.Errorf("%s: %v", k, err)
		}
		if _, err := policy.ParseKind(string(k)); err != nil {
			t.Errorf("ParseKind(%s): %v", k, err)
		}
	}
}

// TestCollisionHorizon checks the collision server's default horizon: the
// fixed 10,000 ticks where a cohort cannot separate (certain waits) or
// hardly ever does (windows of 32 for 2,000 clients), and otherwise a
// bound that grows with N, well above each window policy's makespan form
// at N = 16,384 (the claims check empirically that no trial reaches it).
func TestCollisionHorizon(t *testing.T) {
	sc := Default()
	sc.Server, sc.Capacity = Collision, 1
	sc.Policy = policy.Policy{Kind: policy.Expo, Base: 1, Cap: 1 << 22}
	if h := sc.DefaultHorizon(); h != 10000 {
		t.Errorf("expo: horizon %d, want the fixed 10000", h)
	}
	sc.Clients, sc.Policy = 2000, policy.Policy{Kind: policy.Full, Base: 1, Cap: 32}
	if h := sc.DefaultHorizon(); h != 10000 {
		t.Errorf("full cap 32, N = 2000 (a livelock): horizon %d, want the fixed 10000", h)
	}
	lg := math.Log2
	for _, c := range []struct {
		kind policy.Kind
		form func(n float64) float64
	}{
		{policy.Full, func(n float64) float64 { return n * lg(n) }},
		{policy.Poly, func(n float64) float64 { return math.Pow(n/lg(n), 1.5) }},
		{policy.LogLog, func(n float64) float64 { return n * lg(lg(n)) / lg(lg(lg(n))) }},
		{policy.Sawtooth, func(n float64) float64 { return n }},
	} {
		prev := 0
		for _, n := range []int{32, 1024, 16384} {
			sc.Clients, sc.Policy = n, policy.Policy{Kind: c.kind, Base: 1, Cap: 1 << 22}
			h := sc.DefaultHorizon()
			if h < prev {
				t.Errorf("%s: horizon %d at N = %d, below %d at a smaller N", c.kind, h, n, prev)
			}
			prev = h
			if f := c.form(float64(n)); n == 16384 && float64(h) < 10*f {
				t.Errorf("%s, N = %d: horizon %d, under 10× its makespan form %.0f", c.kind, n, h, f)
			}
		}
	}
}
