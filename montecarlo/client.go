package montecarlo

import (
	"fmt"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
)

// MaxEngineClients bounds the per-client engine's cohort: it keeps about 24
// bytes per client, so 50 million clients take about 1.2 GB.
const MaxEngineClients = 50_000_000

// ClientEngine is the per-client tick engine. Bucket t mod R of a ring of
// R = max(MaxDelayTicks, W) + 1 buckets lists the clients that send at tick
// t; a tick's winners are chosen by a partial Fisher–Yates shuffle of its
// bucket, and each loser is appended to the bucket of its next send. Work is
// proportional to calls plus ticks, never to ticks × clients.
type ClientEngine struct {
	sc      model.Scenario
	horizon int
	ring    [][]int32
	retry   []int32   // retry number n of each client
	prev    []float64 // previous unrounded delay (Decorrelated only)
	first   []int32   // first send tick (first-request window only)
	// For policies whose law depends on n alone: the law of retry n is
	// lo[c] + u·width[c] with c = min(n, len(lo)−1), or the fixed wait
	// ticks[c] when the policy draws nothing.
	lo, width []float64
	ticks     []int
}

// NewClientEngine prepares the per-client engine for a valid scenario.
func NewClientEngine(sc model.Scenario) (*ClientEngine, error) {
	if sc.Clients > MaxEngineClients {
		alt := "use --engine counts (or auto), whose memory does not grow with N"
		if why := countSupported(sc); why != "" {
			alt = "the count engine cannot help either (" + why + "); use fewer --clients"
		}
		return nil, &LimitError{Engine: Clients,
			Reason:      fmt.Sprintf("holds at most %d clients (about 24 bytes each per worker), got %d", MaxEngineClients, sc.Clients),
			Alternative: alt}
	}
	e := &ClientEngine{sc: sc, horizon: sc.EffectiveHorizon()}
	r := max(sc.MaxDelayTicks(), sc.FirstWindow) + 1
	e.ring = make([][]int32, r)
	e.retry = make([]int32, sc.Clients)
	if sc.Policy.Kind == model.Decorrelated {
		e.prev = make([]float64, sc.Clients)
	}
	if sc.FirstWindow > 1 {
		e.first = make([]int32, sc.Clients)
	}
	if c := sc.Policy.Classes(); c > 0 {
		e.lo = make([]float64, c+1)
		e.width = make([]float64, c+1)
		e.ticks = make([]int, c+1)
		for n := 1; n <= c; n++ {
			l := sc.Policy.Law(n, sc.Policy.Base)
			e.lo[n], e.width[n] = l.Lo, l.Hi-l.Lo
			e.ticks[n] = sc.Rounding.Ticks(l.Lo)
		}
	}
	return e, nil
}

// wait draws the wait in ticks before retry n of client id.
func (e *ClientEngine) wait(src *rand.PCG, id int32, n int) int {
	p := &e.sc.Policy
	if e.prev != nil {
		d := p.Law(n, e.prev[id]).Draw(uniform(src))
		e.prev[id] = d
		return e.sc.Rounding.Ticks(d)
	}
	c := min(n, len(e.lo)-1)
	if e.width[c] == 0 {
		return e.ticks[c]
	}
	return e.sc.Rounding.Ticks(e.lo[c] + uniform(src)*e.width[c])
}

// Play runs one trial.
func (e *ClientEngine) Play(src *rand.PCG, t *Trial, arrivals bool) {
	sc := &e.sc
	r := len(e.ring)
	for i := range e.ring {
		e.ring[i] = e.ring[i][:0]
	}
	for id := range sc.Clients {
		e.retry[id] = 0
		at := 0
		if e.first != nil {
			at = int(below(src, uint64(sc.FirstWindow)))
			e.first[id] = int32(at)
		}
		if e.prev != nil {
			e.prev[id] = sc.Policy.Base
		}
		e.ring[at] = append(e.ring[at], int32(id))
	}
	k := sc.Capacity
	pending := sc.Clients
	last := -1
	tick := 0
	for ; pending > 0 && tick < e.horizon; tick++ {
		slot := tick % r
		cur := e.ring[slot]
		m := len(cur)
		if arrivals {
			t.Arrivals = append(t.Arrivals, int64(m))
		}
		if m == 0 {
			continue
		}
		t.Calls += int64(m)
		t.Peak = max(t.Peak, int64(m))
		var winners, losers []int32
		switch {
		case m <= k:
			winners = cur
		case sc.Server == model.Collision:
			losers = cur
		case k <= m-k: // shuffle the k winners to the front
			for i := range k {
				j := i + int(below(src, uint64(m-i)))
				cur[i], cur[j] = cur[j], cur[i]
			}
			winners, losers = cur[:k], cur[k:]
		default: // fewer losers than winners: shuffle the losers to the front
			for i := range m - k {
				j := i + int(below(src, uint64(m-i)))
				cur[i], cur[j] = cur[j], cur[i]
			}
			losers, winners = cur[:m-k], cur[m-k:]
		}
		if len(winners) > 0 {
			last = tick
			pending -= len(winners)
			for _, id := range winners {
				start := 0
				if e.first != nil {
					start = int(e.first[id])
				}
				t.served(tick - start + 1)
			}
		}
		for _, id := range losers {
			n := int(e.retry[id]) + 1
			e.retry[id] = int32(n)
			s := (tick + e.wait(src, id, n)) % r
			e.ring[s] = append(e.ring[s], id)
		}
		e.ring[slot] = cur[:0]
	}
	t.Censored = pending > 0
	t.Completion = int64(last + 1)
}
