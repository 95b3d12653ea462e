package solve

import (
	"fmt"
	"time"

	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/service"
	"gonum.org/v1/gonum/mat"
)

// MethodServiceChain names the exact continuous-time chain of the service
// server.
const MethodServiceChain = "service-chain"

// The service chain is the service server (service.Run) where its
// state is small and memoryless: one worker, a waiting room of at most
// MaxServiceChainRoom, Poisson arrivals at a constant rate λ, exponential
// service of rate μ, no network, exponential timeouts of rate θ from each
// send (or none), and immediate retries up to A attempts. Its state is the
// line at the server, head (in service) first, each request either
// abandoned or live with its attempt number; every transition carries the
// counts the engine keeps, and the steady state gives their long-run
// rates per second (derivation in docs/servers.md).

// MaxServiceChainRoom bounds the chain's waiting room, and
// MaxServiceChainAttempts its attempts: the states number
// Σ_{n ≤ room+1} (attempts+1)^n.
const (
	MaxServiceChainRoom     = 5
	MaxServiceChainAttempts = 4
)

// ServiceRates are the long-run rates per second of a service run's
// events in its steady state.
type ServiceRates struct {
	Goodput, Wasted, Timeouts, Rejections, Drops, GiveUps, Sends float64
	States                                                       int
}

// serviceCounts are the counts one transition adds.
type serviceCounts struct{ success, wasted, timeouts, rejections, drops, giveups, sends float64 }

func (c *serviceCounts) add(o serviceCounts) {
	c.success += o.success
	c.wasted += o.wasted
	c.timeouts += o.timeouts
	c.rejections += o.rejections
	c.drops += o.drops
	c.giveups += o.giveups
	c.sends += o.sends
}

// ServiceChainOf solves the chain of a run, or says why the run is outside
// it.
func ServiceChainOf(run service.Run) (ServiceRates, error) {
	s := run.Server
	no := func(why string) (ServiceRates, error) {
		return ServiceRates{}, &Unsupported{Method: MethodServiceChain, Reason: why}
	}
	switch {
	case s.Workers != 1:
		return no("one worker only")
	case s.Room < 0 || s.Room > MaxServiceChainRoom:
		return no(fmt.Sprintf("a waiting room of 0 to %d", MaxServiceChainRoom))
	case !s.Service.Exp:
		return no("exponential service only")
	case !s.Network.IsZero():
		return no("no network delay")
	case s.Timeout > 0 && !s.TimeoutExp:
		return no("exponential timeouts (or none) only")
	case s.LateSuccess || s.Slope != 0 || len(s.Pauses) > 0:
		return no("no late successes, no slope, no pauses")
	case run.Attempts > MaxServiceChainAttempts || run.Attempts > 1 && run.Policy.Kind != policy.None:
		return no(fmt.Sprintf("at most %d attempts, retried at once (policy none)", MaxServiceChainAttempts))
	case len(run.Load) != 1 || run.Arrivals != service.Poisson || run.Cohort != 0:
		return no("Poisson arrivals at a constant rate, no cohort")
	}
	sec := func(d time.Duration) float64 { return d.Seconds() }
	lambda, mu, theta := run.Load[0].Rate, 1/sec(s.Service.Mean), 0.0
	if s.Timeout > 0 {
		theta = 1 / sec(s.Timeout)
	}
	return serviceChain(lambda, mu, theta, s.Room, run.Attempts, s.Cancel, s.RejectFinal)
}

// serviceChain builds the generator over the states reachable from the
// empty line and solves πQ = 0, Σπ = 1.
func serviceChain(lambda, mu, theta float64, room, attempts int, cancel, final bool) (ServiceRates, error) {
	type edge struct {
		to     int
		rate   float64
		counts serviceCounts
	}
	index := map[string]int{"": 0}
	states := []string{""}
	var edges [][]edge
	id := func(s string) int {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = len(states)
		states = append(states, s)
		return len(states) - 1
	}
	// admit is a send of attempt k to line s: it joins, or is rejected
	// and dropped, or retried at once until the attempts run out.
	admit := func(s string, k int) (string, serviceCounts) {
		var c serviceCounts
		for ; ; k++ {
			c.sends++
			if len(s) <= room {
				return s + string(rune('0'+k)), c
			}
			c.rejections++
			if final {
				c.drops++
				return s, c
			}
			if k >= attempts {
				c.giveups++
				return s, c
			}
		}
	}
	for i := 0; i < len(states); i++ {
		s := states[i]
		var out []edge
		to, c := admit(s, 1)
		out = append(out, edge{id(to), lambda, c})
		if len(s) > 0 {
			c := serviceCounts{}
			if s[0] == '0' {
				c.wasted = 1
			} else {
				c.success = 1
			}
			out = append(out, edge{id(s[1:]), mu, c})
		}
		for j := 0; j < len(s) && theta > 0; j++ {
			if s[j] == '0' {
				continue
			}
			k := int(s[j] - '0')
			rest := s[:j] + "0" + s[j+1:]
			if cancel {
				rest = s[:j] + s[j+1:]
			}
			c := serviceCounts{timeouts: 1}
			if k < attempts {
				var more serviceCounts
				rest, more = admit(rest, k+1)
				c.add(more)
			} else {
				c.giveups++
			}
			out = append(out, edge{id(rest), theta, c})
		}
		edges = append(edges, out)
	}
	n := len(states)
	// Qᵀπ = 0 with the last equation replaced by Σπ = 1.
	a := mat.NewDense(n, n, nil)
	for i, out := range edges {
		for _, e := range out {
			if e.to == i {
				continue
			}
			a.Set(e.to, i, a.At(e.to, i)+e.rate)
			a.Set(i, i, a.At(i, i)-e.rate)
		}
	}
	b := mat.NewVecDense(n, nil)
	for j := range n {
		a.Set(n-1, j, 1)
	}
	b.SetVec(n-1, 1)
	var pi mat.VecDense
	if err := pi.SolveVec(a, b); err != nil {
		return ServiceRates{}, fmt.Errorf("service chain: %w", err)
	}
	var r serviceCounts
	for i, out := range edges {
		for _, e := range out {
			w := pi.AtVec(i) * e.rate
			r.add(serviceCounts{e.counts.success * w, e.counts.wasted * w, e.counts.timeouts * w, e.counts.rejections * w, e.counts.drops * w, e.counts.giveups * w, e.counts.sends * w})
		}
	}
	return ServiceRates{Goodput: r.success, Wasted: r.wasted, Timeouts: r.timeouts, Rejections: r.rejections, Drops: r.drops,
		GiveUps: r.giveups, Sends: r.sends, States: n}, nil
}
