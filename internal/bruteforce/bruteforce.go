// Package bruteforce computes the exact law of a tiny scenario's outcome by
// following every client by name through every random outcome: which
// k-subset of a tick's arrivals wins, and each loser's wait. It is the
// independent oracle that the Markov chain of package model is tested
// against, so it shares none of the chain's code and little of its ideas:
// no classes (clients keep their absolute retry numbers), no merged
// clients (states are tuples, not multisets), winners by explicit subsets
// rather than a hypergeometric law, and the wait law of a delay from its
// distribution function rather than from Rounding.Interval. Its cost grows
// like N!·(support)^N; it is meant for N ≤ 6.
package bruteforce

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Result is the exact law of calls and completion over the trials that
// finish by the horizon.
type Result struct {
	Calls, Completion float64   // means over finished trials
	Distribution      []float64 // Distribution[t] = P(finished with completion t)
	Finished          float64
}

// client is one client: the tick of its next send, its retry number, and
// whether it has been served.
type client struct {
	at     int
	retry  int
	served bool
}

type path struct {
	p, calls float64 // probability and probability-weighted calls
}

// Solve propagates every labeled state of sc tick by tick up to the
// horizon. It supports none, fixed, expo, full and equal.
func Solve(sc model.Scenario) (Result, error) {
	if sc.Policy.Kind == policy.Decorrelated {
		return Result{}, fmt.Errorf("bruteforce: decorrelated is not supported")
	}
	n := sc.Clients
	cur := map[string]path{}
	clients := map[string][]client{}
	// First sends: every client independently uniform on 0…W−1.
	w := sc.FirstWindow
	total := int(math.Pow(float64(w), float64(n)))
	for code := range total {
		cs := make([]client, n)
		c := code
		for i := range cs {
			cs[i].at = c % w
			c /= w
		}
		key := fmt.Sprint(cs)
		clients[key] = cs
		q := cur[key]
		q.p += 1 / float64(total)
		cur[key] = q
	}
	var r Result
	var callsFinished float64
	for t := 0; t < sc.EffectiveHorizon() && len(cur) > 0; t++ {
		next := map[string]path{}
		for key, pa := range cur {
			cs := clients[key]
			var arr []int
			for i, c := range cs {
				if !c.served && c.at == t {
					arr = append(arr, i)
				}
			}
			pa.calls += pa.p * float64(len(arr))
			// Every way the tick can go: a set of winners with its
			// probability.
			var outcomes [][]bool
			switch {
			case len(arr) <= sc.Capacity:
				outcomes = [][]bool{ones(len(arr))}
			case sc.Served(len(arr)) == 0:
				outcomes = [][]bool{make([]bool, len(arr))}
			default:
				outcomes = subsets(len(arr), sc.Capacity)
			}
			for _, win := range outcomes {
				q := 1 / float64(len(outcomes))
				base := append([]client(nil), cs...)
				var losers []int
				for j, i := range arr {
					if win[j] {
						base[i].served = true
					} else {
						base[i].retry++
						losers = append(losers, i)
					}
				}
				if allServed(base) {
					for len(r.Distribution) <= t+1 {
						r.Distribution = append(r.Distribution, 0)
					}
					r.Distribution[t+1] += pa.p * q
					callsFinished += pa.calls * q
					continue
				}
				// Every combination of the losers' waits.
				var rec func(j int, cs []client, q float64)
				rec = func(j int, cs []client, q float64) {
					if j == len(losers) {
						key := fmt.Sprint(cs)
						if _, ok := clients[key]; !ok {
							clients[key] = append([]client(nil), cs...)
						}
						x := next[key]
						x.p += pa.p * q
						x.calls += pa.calls * q
						next[key] = x
						return
					}
					i := losers[j]
					for wait, pw := range waitLaw(sc, cs[i].retry) {
						if pw == 0 {
							continue
						}
						c2 := append([]client(nil), cs...)
						c2[i].at = t + wait
						rec(j+1, c2, q*pw)
					}
				}
				rec(0, base, q)
			}
		}
		cur = next
	}
	for t, p := range r.Distribution {
		r.Finished += p
		r.Completion += float64(t) * p
	}
	if r.Finished == 0 {
		return r, fmt.Errorf("bruteforce: no trial finishes by the horizon")
	}
	r.Completion /= r.Finished
	r.Calls = callsFinished / r.Finished
	return r, nil
}

func ones(n int) []bool {
	b := make([]bool, n)
	for i := range b {
		b[i] = true
	}
	return b
}

func allServed(cs []client) bool {
	for _, c := range cs {
		if !c.served {
			return false
		}
	}
	return true
}

// subsets lists every k-subset of n items as membership flags.
func subsets(n, k int) [][]bool {
	var out [][]bool
	for mask := 0; mask < 1<<n; mask++ {
		bits := 0
		for m := mask; m > 0; m &= m - 1 {
			bits++
		}
		if bits != k {
			continue
		}
		s := make([]bool, n)
		for i := range s {
			s[i] = mask>>i&1 == 1
		}
		out = append(out, s)
	}
	return out
}

// WaitLaw is the law of the wait before retry n (n ≥ 1) as a map from
// ticks to probability, for oracles of other servers.
func WaitLaw(sc model.Scenario, n int) map[int]float64 { return waitLaw(sc, n) }

// waitLaw is the law of the wait before retry n as a map from ticks to
// probability: the delay's law from DESIGN.md's table, then the rounding,
// then max(1, ·).
func waitLaw(sc model.Scenario, n int) map[int]float64 {
	p := sc.Policy
	ceiling := p.Base
	for range n {
		ceiling *= 2
	}
	ceiling = math.Min(ceiling, p.Cap)
	if w, ok := slots(p, n); ok {
		law := map[int]float64{}
		for j := 1; j <= w; j++ {
			law[j] = 1 / float64(w)
		}
		return law
	}
	var lo, hi float64 // the delay is uniform on [lo, hi), a point when equal
	switch p.Kind {
	case policy.None:
	case policy.Fixed:
		lo, hi = p.FixedDelay, p.FixedDelay
	case policy.Expo:
		lo, hi = ceiling, ceiling
	case policy.Full:
		lo, hi = 0, ceiling
	case policy.Equal:
		lo, hi = ceiling/2, ceiling
	}
	law := map[int]float64{}
	add := func(r int, q float64) { law[max(1, r)] += q }
	if lo == hi {
		var r float64
		switch sc.Rounding {
		case policy.HalfEven:
			r = math.RoundToEven(lo)
		case policy.HalfUp:
			r = math.Round(lo)
		case policy.Ceil:
			r = math.Ceil(lo)
		case policy.Floor:
			r = math.Floor(lo)
		}
		add(int(r), 1)
		return law
	}
	cdf := func(x float64) float64 { return math.Min(1, math.Max(0, (x-lo)/(hi-lo))) }
	for r := 0; float64(r) <= hi+1; r++ {
		x := float64(r)
		switch sc.Rounding {
		case policy.HalfEven, policy.HalfUp: // r is the value in [r − ½, r + ½]
			add(r, cdf(x+0.5)-cdf(x-0.5))
		case policy.Ceil: // (r − 1, r]
			add(r, cdf(x)-cdf(x-1))
		case policy.Floor: // [r, r + 1)
			add(r, cdf(x+1)-cdf(x))
		}
	}
	return law
}

// slots is the window W of retry n of a window policy of the contention
// literature (a slot uniform on 1…W), written from the definitions in
// policy/contention.go's doc, not from its code: poly ⌈base·n^r⌉, loglog
// w₁ = 2·base, w ← w·(1 + 1/lg lg max(w, 4)), sawtooth's phases j of
// windows base·2^j … base·2, window ⌊cap⌋; each at most ⌊cap⌋ and at
// least 1.
func slots(p policy.Policy, n int) (int, bool) {
	top := math.Max(1, math.Floor(p.Cap))
	fit := func(w float64) (int, bool) { return int(math.Max(1, math.Min(top, math.Ceil(w)))), true }
	switch p.Kind {
	case policy.Poly:
		r := p.Exponent
		if r == 0 {
			r = 2
		}
		return fit(p.Base * math.Pow(float64(n), r))
	case policy.LogLog:
		w := 2 * p.Base
		for range n - 1 {
			w *= 1 + 1/math.Log2(math.Log2(math.Max(w, 4)))
		}
		return fit(w)
	case policy.Sawtooth:
		var seq []float64
		for j := 1; len(seq) < n; j++ {
			if p.Base*math.Pow(2, float64(j)) > top {
				for len(seq) < n {
					seq = append(seq, top)
				}
				break
			}
			for i := j; i >= 1 && len(seq) < n; i-- {
				seq = append(seq, p.Base*math.Pow(2, float64(i)))
			}
		}
		return fit(seq[n-1])
	case policy.Window:
		return int(top), true
	}
	return 0, false
}
