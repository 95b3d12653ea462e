package bruteforce

import (
	"fmt"

	"github.com/herdlab/herd/model"
)

// QueueResult is the exact law of a cohort on the queue server.
type QueueResult struct {
	// Distribution[t] is the probability of completion t (the last
	// success + 1; 0 when every client gave up).
	Distribution []float64
	Calls        float64 // mean over the trials (all finish)
}

type oClient struct {
	at, retry int // tick of its next send (−1: waiting in the queue), retry number
	done      bool
}

type oReq struct {
	owner, sent int
	abandoned   bool
}

type oState struct {
	cs   []oClient
	q    []oReq
	last int // tick of the last success, −1 before the first
}

func (s oState) key() string { return fmt.Sprint(s.cs, s.q, s.last) }

func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var out [][]int
	for _, p := range permutations(n - 1) {
		for i := 0; i <= len(p); i++ {
			q := append(append(append([]int{}, p[:i]...), n-1), p[i:]...)
			out = append(out, q)
		}
	}
	return out
}

// SolveQueue is the exact law of a tiny cohort on the queue server
// (sc.Queue), computed without the queue chain's code or its ideas:
// clients by name, the queue as an explicit list of requests (owner, tick
// sent, abandoned), every order of a tick's sends enumerated as a
// permutation, each failed client's wait from waitLaw, and no merging
// beyond identical labelled states. It follows model.Queueing's five steps
// as written there. giveUpAfter is the retry whose failure gives up
// (0: never); a cohort still running after maxTicks is an error. Its cost
// grows like N!·(support)^N per state; it is meant for N ≤ 5.
func SolveQueue(sc model.Scenario, giveUpAfter, maxTicks int) (QueueResult, error) {
	type mass struct {
		s        oState
		p, calls float64
	}
	k, T, limit := sc.Capacity, sc.Queue.Timeout, sc.Queue.Limit
	start := oState{cs: make([]oClient, sc.Clients), last: -1}
	cur := map[string]*mass{start.key(): {s: start, p: 1}}
	dist := map[int]float64{}
	var calls float64
	for t := 0; len(cur) > 0; t++ {
		if t >= maxTicks {
			return QueueResult{}, fmt.Errorf("bruteforce: a trial is still running after %d ticks", maxTicks)
		}
		next := map[string]*mass{}
		put := func(s oState, p, calls float64) {
			if p == 0 {
				return
			}
			k := s.key()
			m, ok := next[k]
			if !ok {
				m = &mass{s: s}
				next[k] = m
			}
			m.p += p
			m.calls += calls
		}
		for _, m := range cur {
			var senders []int
			for i, c := range m.s.cs {
				if !c.done && c.at == t {
					senders = append(senders, i)
				}
			}
			callsHere := m.calls + m.p*float64(len(senders))
			perms := permutations(len(senders))
			for _, perm := range perms {
				pp := m.p / float64(len(perms))
				cp := callsHere / float64(len(perms))
				cs := append([]oClient(nil), m.s.cs...)
				q := append([]oReq(nil), m.s.q...)
				last := m.s.last
				var failed []int
				// Steps 1–2: join the tail unless the queue is full.
				for _, j := range perm {
					i := senders[j]
					if limit > 0 && len(q) >= limit {
						failed = append(failed, i)
						continue
					}
					q = append(q, oReq{owner: i, sent: t})
					cs[i].at = -1
				}
				// Step 3: the first k of the queue are completed.
				n := min(k, len(q))
				for _, r := range q[:n] {
					if !r.abandoned {
						cs[r.owner].done = true
						last = t
					}
				}
				q = q[n:]
				// Step 4: an attempt sent at s times out at the end of s+T−1.
				for j := range q {
					if T > 0 && !q[j].abandoned && q[j].sent+T-1 == t {
						q[j].abandoned = true
						failed = append(failed, q[j].owner)
					}
				}
				// Step 5: give up, or wait and send again.
				var retrying []int
				for _, i := range failed {
					if giveUpAfter > 0 && cs[i].retry == giveUpAfter {
						cs[i].done = true
						continue
					}
					cs[i].retry++
					retrying = append(retrying, i)
				}
				var rec func(j int, cs []oClient, p float64)
				rec = func(j int, cs []oClient, p float64) {
					if j == len(retrying) {
						s := oState{cs: cs, q: q, last: last}
						finished := true
						for _, c := range cs {
							finished = finished && c.done
						}
						if finished {
							dist[last+1] += p
							calls += cp * p / pp
							return
						}
						put(s, p, cp*p/pp)
						return
					}
					i := retrying[j]
					for w, pw := range waitLaw(sc, cs[i].retry) {
						c2 := append([]oClient(nil), cs...)
						c2[i].at = t + w
						rec(j+1, c2, p*pw)
					}
				}
				rec(0, cs, pp)
			}
		}
		cur = next
	}
	var r QueueResult
	for c, p := range dist {
		for len(r.Distribution) <= c {
			r.Distribution = append(r.Distribution, 0)
		}
		r.Distribution[c] += p
	}
	r.Calls = calls
	return r, nil
}
