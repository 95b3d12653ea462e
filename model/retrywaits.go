package model

import "github.com/herdlab/herd/policy"

// RetryWaits is the law of the wait before retry n ≥ 1 for policies whose
// law depends on n alone (every policy but Decorrelated, for which it
// assumes prev = Base).
func (s Scenario) RetryWaits(n int) policy.Waits {
	return s.Rounding.Waits(s.Policy.Law(n, s.Policy.Base))
}

// retryClasses returns the wait laws of retries 1…L, where L is the
// smallest retry number from which every later retry has the same wait
// law: retries n ≥ L all wait by laws[L−1]. It is Policy.Classes refined
// by rounding (two ceilings that round alike are one class). It panics on
// Decorrelated, whose law is not a function of n.
func (s Scenario) RetryClasses() []policy.Waits {
	c := s.Policy.Classes()
	if c == 0 {
		panic("model: retryClasses on a policy whose law depends on the previous delay")
	}
	laws := make([]policy.Waits, c)
	for n := 1; n <= c; n++ {
		laws[n-1] = s.RetryWaits(n)
	}
	l := c
	for l > 1 && laws[l-2].Equal(laws[c-1]) {
		l--
	}
	return laws[:l]
}

// decorrelatedWaits reports whether a Decorrelated policy's wait is certain
// — every delay it can draw lies in [Base, Cap], so the wait is certain
// when that whole range rounds to one tick count — and that wait.
func (s Scenario) DecorrelatedWaits() (int, bool) {
	p := s.Policy
	if p.Cap == p.Base {
		return s.Rounding.Ticks(p.Base), true
	}
	lo, hi := s.Rounding.Ticks(p.Base), s.Rounding.Ticks(p.Cap)
	if lo != hi {
		return 0, false
	}
	return lo, true
}
