package model

import (
	"github.com/herdlab/herd/policy"
	"math"
	"testing"
)

// Hand-computed delays of retry n for the seed's parameters (base 1, cap
// 32, fixed delay 2) at the ends and middle of the uniform.
func TestPolicyDelayHandComputed(t *testing.T) {
	p := func(k policy.Kind) policy.Policy { return policy.Policy{Kind: k, Base: 1, Cap: 32, FixedDelay: 2} }
	cases := []struct {
		kind    policy.Kind
		n       int
		prev, u float64
		want    float64
	}{
		{policy.None, 3, 1, 0.7, 0},
		{policy.Fixed, 1, 1, 0.3, 2},
		{policy.Fixed, 9, 1, 0.9, 2},
		{policy.Expo, 1, 1, 0.5, 2},
		{policy.Expo, 4, 1, 0.5, 16},
		{policy.Expo, 5, 1, 0.5, 32},  // 2⁵ = 32 = cap
		{policy.Expo, 40, 1, 0.5, 32}, // capped
		{policy.Full, 1, 1, 0, 0},
		{policy.Full, 1, 1, 0.5, 1},
		{policy.Full, 3, 1, 0.25, 2},
		{policy.Full, 10, 1, 0.75, 24},
		{policy.Equal, 1, 1, 0, 1},
		{policy.Equal, 1, 1, 0.5, 1.5},
		{policy.Equal, 3, 1, 0.5, 6},
		{policy.Equal, 10, 1, 0.5, 24},
		{policy.Decorrelated, 1, 1, 0, 1},       // U(1, 3) at 0
		{policy.Decorrelated, 1, 1, 0.5, 2},     // U(1, 3) at ½
		{policy.Decorrelated, 7, 5, 0.5, 8},     // U(1, 15) at ½
		{policy.Decorrelated, 7, 20, 0.5, 30.5}, // U(1, 60) at ½, below the cap
	}
	for _, c := range cases {
		if got := p(c.kind).Delay(c.n, c.prev, c.u); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("%s n=%d prev=%g u=%g: delay %g, want %g", c.kind, c.n, c.prev, c.u, got, c.want)
		}
	}
	// Decorrelated clamps at the cap after drawing: U(1, 60) at 0.9 = 54.1 → 32.
	if got := p(policy.Decorrelated).Delay(3, 20, 0.9); got != 32 {
		t.Errorf("decorrelated above cap: %g, want 32", got)
	}
}

func TestClasses(t *testing.T) {
	cases := []struct {
		p    policy.Policy
		want int
	}{
		{policy.Policy{Kind: policy.Expo, Base: 1, Cap: 32}, 5},    // 2,4,8,16,32
		{policy.Policy{Kind: policy.Full, Base: 1, Cap: 33}, 6},    // 2…32 below cap, 64 → 33
		{policy.Policy{Kind: policy.Equal, Base: 0.25, Cap: 1}, 2}, // 0.5, 1
		{policy.Policy{Kind: policy.Full, Base: 4, Cap: 4}, 1},
		{policy.Policy{Kind: policy.Fixed, Base: 1, Cap: 32, FixedDelay: 2}, 1},
		{policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 32}, 0},
	}
	for _, c := range cases {
		got := c.p.Classes()
		if got != c.want {
			t.Errorf("%+v: Classes() = %d, want %d", c.p, got, c.want)
		}
		// Retries at and beyond Classes() share the law.
		if got > 0 && c.p.Law(got, 1) != c.p.Law(got+7, 1) {
			t.Errorf("%+v: law of n=%d differs from n=%d", c.p, got, got+7)
		}
		if got > 1 && c.p.Random() && c.p.Law(got-1, 1) == c.p.Law(got, 1) {
			t.Errorf("%+v: classes %d and %d share a law, so Classes() is too large", c.p, got-1, got)
		}
	}
}

func TestRounding(t *testing.T) {
	cases := []struct {
		r    policy.Rounding
		x    float64
		want int
	}{
		{policy.HalfEven, 0, 1}, {policy.HalfEven, 0.5, 1}, {policy.HalfEven, 1.5, 2}, {policy.HalfEven, 2.5, 2}, {policy.HalfEven, 3.5, 4}, {policy.HalfEven, 2.4999, 2},
		{policy.HalfUp, 2.5, 3}, {policy.HalfUp, 0.49, 1}, {policy.HalfUp, 1.5, 2},
		{policy.Ceil, 2.01, 3}, {policy.Ceil, 2, 2}, {policy.Ceil, 0.2, 1},
		{policy.Floor, 2.99, 2}, {policy.Floor, 0.99, 1},
	}
	for _, c := range cases {
		if got := c.r.Ticks(c.x); got != c.want {
			t.Errorf("%s.Ticks(%g) = %d, want %d", c.r, c.x, got, c.want)
		}
	}
	// Interval(t) holds exactly the delays that round to t.
	for _, r := range []policy.Rounding{policy.HalfEven, policy.HalfUp, policy.Ceil, policy.Floor} {
		for tk := 1; tk < 6; tk++ {
			lo, hi := r.Interval(tk)
			for x := 0.05; x < 8; x += 0.1 {
				if in := x > lo && x < hi; in != (r.Ticks(x) == tk) {
					t.Errorf("%s: x=%g in Interval(%d)=(%g,%g) is %v but Ticks=%d", r, x, tk, lo, hi, in, r.Ticks(x))
				}
			}
		}
	}
	for i, name := range policy.RoundingNames() {
		if r, err := policy.ParseRounding(name); err != nil || r != policy.Rounding(i) || r.String() != name {
			t.Errorf("ParseRounding(%q) = %v, %v", name, r, err)
		}
	}
}

func TestValidateNamesTheFlag(t *testing.T) {
	cases := []struct {
		flag string
		mod  func(*Scenario)
	}{
		{"clients", func(s *Scenario) { s.Clients = -5 }},
		{"capacity", func(s *Scenario) { s.Capacity = 0 }},
		{"base", func(s *Scenario) { s.Policy.Base = 0 }},
		{"base", func(s *Scenario) { s.Policy.Base = math.NaN() }},
		{"cap", func(s *Scenario) { s.Policy.Cap = 0.5 }},
		{"cap", func(s *Scenario) { s.Policy.Cap = math.Inf(1) }},
		{"fixed-delay", func(s *Scenario) { s.Policy.FixedDelay = -1 }},
		{"first-window", func(s *Scenario) { s.FirstWindow = 0 }},
		{"horizon", func(s *Scenario) { s.Horizon = -1 }},
		{"policy", func(s *Scenario) { s.Policy.Kind = "nope" }},
		{"rounding", func(s *Scenario) { s.Rounding = 9 }},
		{"server", func(s *Scenario) { s.Server = 7 }},
	}
	for _, c := range cases {
		s := Default()
		c.mod(&s)
		err := s.Validate()
		fe, ok := err.(*FieldError)
		if !ok || fe.Flag != c.flag {
			t.Errorf("%s: Validate() = %v, want a FieldError for --%s", c.flag, err, c.flag)
		}
	}
	if err := Default().Validate(); err != nil {
		t.Errorf("Default() is invalid: %v", err)
	}
}

// FuzzPolicy checks validation never panics and, on valid scenarios, that
// every delay is finite, ≥ 0, ≤ cap where the policy caps, and waits ≥ 1.
func FuzzPolicy(f *testing.F) {
	f.Add(100, 10, 1.0, 32.0, 2.0, uint8(0), uint8(3), 3, 1.0, 0.5)
	f.Add(1, 1, 0.25, 0.25, 0.0, uint8(3), uint8(5), 1000, 1e6, 0.999)
	f.Add(-5, 0, math.NaN(), 0.5, -1.0, uint8(9), uint8(9), -1, -1.0, 2.0)
	f.Fuzz(func(t *testing.T, n, k int, base, cap, fixed float64, round, kind uint8, retry int, prev, u float64) {
		s := Default()
		s.Clients, s.Capacity = n, k
		s.Policy = policy.Policy{Kind: policy.Kind("bogus"), Base: base, Cap: cap, FixedDelay: fixed}
		if int(kind) < len(policy.Kinds()) {
			s.Policy.Kind = policy.Kinds()[kind]
		}
		s.Rounding = policy.Rounding(round)
		if s.Validate() != nil {
			return
		}
		if retry < 1 || retry > 1<<20 || u < 0 || u >= 1 || math.IsNaN(u) {
			return
		}
		// prev is what a client carries: base at first, then earlier draws.
		prev = math.Min(math.Max(math.Abs(prev), s.Policy.Base), s.Policy.Cap)
		if math.IsNaN(prev) {
			prev = s.Policy.Base
		}
		d := s.Policy.Delay(retry, prev, u)
		if math.IsNaN(d) || math.IsInf(d, 0) || d < 0 {
			t.Fatalf("%+v: delay(%d, %g, %g) = %g", s.Policy, retry, prev, u, d)
		}
		if s.Policy.Kind != policy.Fixed && d > s.Policy.Cap {
			t.Fatalf("%+v: delay %g above cap", s.Policy, d)
		}
		if w := s.Rounding.Ticks(d); w < 1 || w > s.MaxDelayTicks() {
			t.Fatalf("%+v: wait %d outside [1, %d]", s.Policy, w, s.MaxDelayTicks())
		}
	})
}

// Affine describes exactly the draws of a plain clamped uniform, and
// declines stepped and warped laws.
func TestAffineMatchesDraw(t *testing.T) {
	for _, l := range []policy.Law{{Lo: 0, Hi: 8, Max: math.Inf(1)}, {Lo: 2, Hi: 4, Max: math.Inf(1)}, {Lo: 1, Hi: 60, Max: 32}, {Lo: 3, Hi: 3, Max: math.Inf(1)}} {
		lo, width, max, ok := l.Affine()
		if !ok {
			t.Fatalf("%+v: not affine", l)
		}
		for u := 0.0; u < 1; u += 0.01 {
			if got := math.Min(max, lo+u*width); got != l.Draw(u) {
				t.Fatalf("%+v at u=%g: affine %g, Draw %g", l, u, got, l.Draw(u))
			}
		}
	}
	if _, _, _, ok := (policy.Law{Lo: 0, Hi: 1, Max: math.Inf(1), Steps: 10}).Affine(); ok {
		t.Fatal("a stepped law claims to be affine")
	}
}
