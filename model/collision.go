package model

import (
	"fmt"
	"github.com/herdlab/herd/policy"
	"math"
)

// Collision accepts all m arrivals of a tick when m ≤ k and none otherwise
// (the multiple-access channel of the backoff literature).
const Collision Server = 1

type collision struct{}

func (collision) Name() string { return "collision" }
func (collision) Served(m, k int) int {
	if m <= k {
		return m
	}
	return 0
}
func (collision) Plays() Plays {
	return Plays{Cohort: TickEngines, OpenLoop: true, ClosedLoop: true, Models: []string{"closed", "markov", "meanfield"}}
}
func (collision) Words(Scenario) string             { return "" }
func (collision) Brief(Scenario) string             { return "" }
func (collision) validate(Scenario, badField) error { return nil }
func (collision) horizon(s Scenario) int            { return s.collisionHorizon() }

// validateContention checks a window policy's exponent and how many
// windows it plays before the cap.
func (s Scenario) validateContention(bad func(flag, valid string, got any) error) error {
	p := s.Policy
	if p.Kind != policy.Poly && p.Exponent != 0 {
		return bad("exponent", "left out (0) unless --policy poly", p.Exponent)
	}
	if !policy.IsContention(p.Kind) {
		return nil
	}
	if p.Kind == policy.Poly && (!Finite(p.Exponent) || p.Exponent < 0 || p.Exponent > 16) {
		return bad("exponent", "a number in (0, 16] (0: the default, 2)", p.Exponent)
	}
	if c := policy.WindowClasses(p); c > policy.MaxContentionClasses {
		return bad("cap", fmt.Sprintf("small enough that policy %s reaches it within %d retries (or raise --base)", p.Kind, policy.MaxContentionClasses), p.Cap)
	}
	return nil
}

// collisionHorizon is the collision server's default horizon. A cohort
// whose waits are certain never separates once more than k collide, and a
// random policy whose windows stay far below the cohort hardly ever does
// (a livelock): both keep the fixed 10,000 ticks, so that such trials are
// censored quickly. Otherwise the horizon grows with the policy's makespan:
// it is twice the time by which, with probability 1 − 10⁻⁹, every client
// has been served, by a union bound over the N clients in which retry i of
// a client fails when any of the other N − 1 sends in its tick, each with
// probability at most 1/span_i (span_i = the width of the law of retry i;
// an upper bound whatever k ≥ 1), and a client that has failed R times has
// waited at most the sum of the largest waits of retries 1…R.
func (s Scenario) collisionHorizon() int {
	const fixed = 10000
	p := s.Policy
	c := p.Classes()
	if !p.Random() || c == 0 || s.Clients == 1 {
		return fixed
	}
	others := float64(s.Clients - 1)
	target := math.Log(1e-9) - math.Log(float64(s.Clients)) // log of the per-client failure bound
	logFail, waited := 0.0, 0.0
	for n := 1; ; n++ {
		l := p.Law(min(n, c), p.Start())
		span := math.Max(1, l.Sup()-l.Lo)
		fail := -math.Expm1(others * math.Log1p(-1/span)) // some other client in the tick
		sup := float64(s.Rounding.Ticks(l.Sup()))
		if n >= c { // the laws no longer change: the rest in closed form
			if fail >= 1 {
				return fixed
			}
			more := math.Ceil((target - logFail) / math.Log(fail))
			if more > 10000 {
				return fixed
			}
			waited += math.Max(0, more) * sup
			break
		}
		waited += sup
		if fail > 0 {
			logFail += math.Log(fail)
		}
		if logFail <= target {
			break
		}
	}
	h := 2 * (float64(s.FirstWindow) + waited)
	return int(math.Min(MaxHorizon, math.Max(fixed, h)))
}
