//go:debug randseednop=0

package conformance

import (
	"container/heap"
	"context"
	"math"
	mrand "math/rand"
	"testing"
	"time"

	retrygo "github.com/avast/retry-go/v4"
	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// arrival is one client's attempt reaching the server.
type arrival struct {
	at      time.Duration
	client  int
	attempt int // 1 for the first send
}

type arrivals []arrival

func (a arrivals) Len() int { return len(a) }
func (a arrivals) Less(i, j int) bool {
	if a[i].at != a[j].at {
		return a[i].at < a[j].at
	}
	return a[i].client < a[j].client
}
func (a arrivals) Swap(i, j int) { a[i], a[j] = a[j], a[i] }
func (a *arrivals) Push(x any)   { *a = append(*a, x.(arrival)) }
func (a *arrivals) Pop() any {
	old := *a
	x := old[len(old)-1]
	*a = old[:len(old)-1]
	return x
}

// stampede plays n clients released together against a limiter that
// admits the first k requests of each window of length tau (windows from
// the release) and fails the rest at once, with no network delay; each
// client waits, before its retries, the delays retry-go's own Do drew for
// it (waits[c]), and gives up when they run out. It returns the calls and
// the clients that gave up. It shares no code with herd's engines.
func stampede(n, k int, tau time.Duration, waits [][]time.Duration) (calls, gaveUp int) {
	q := make(arrivals, 0, n)
	for c := range n {
		q = append(q, arrival{0, c, 1})
	}
	heap.Init(&q)
	admitted := map[int64]int{}
	for q.Len() > 0 {
		a := heap.Pop(&q).(arrival)
		calls++
		w := int64(a.at / tau)
		if admitted[w] < k {
			admitted[w]++
			continue
		}
		if a.attempt > len(waits[a.client]) {
			gaveUp++
			continue
		}
		heap.Push(&q, arrival{a.at + waits[a.client][a.attempt-1], a.client, a.attempt + 1})
	}
	return calls, gaveUp
}

// A practitioner's question, "2,000 clients reconnect with retry-go's
// defaults to a service limited to 50 requests per 100 ms: how many give
// up?", answered by herd in continuous time and by an event simulation of
// the same service whose clients wait what retry-go's own Do draws: the
// mean give-ups and calls agree within 4 standard errors of their
// difference.
func TestRetryGoStampedeMatchesHerd(t *testing.T) {
	const n, k, trials = 2000, 50, 100
	tau := 100 * time.Millisecond
	mrand.Seed(1)
	var gave, calls []float64
	for range trials {
		waits := make([][]time.Duration, n)
		for c := range waits {
			rec := &recorder{}
			_ = retrygo.Do(func() error { return errTransient }, retrygo.WithTimer(rec))
			waits[c] = rec.waits
		}
		c, g := stampede(n, k, tau, waits)
		calls, gave = append(calls, float64(c)), append(gave, float64(g))
	}
	sc, err := model.ScenarioOf("clients", "2000", "capacity", "50/100ms", "policy", "retry-go-v4")
	if err != nil {
		t.Fatal(err)
	}
	if !sc.InContinuousTime() || sc.Policy.Tick != tau || sc.Capacity != k {
		t.Fatalf("-k 50/100ms: continuous %v, window %s, k %d; want continuous time, 100ms, 50", sc.InContinuousTime(), sc.Policy.Tick, sc.Capacity)
	}
	s, err := analysis.Simulate(context.Background(), sc, montecarlo.Options{Trials: 400, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []struct {
		name   string
		theirs []float64
		herd   float64
		se     float64
	}{{"gave up", gave, s.GaveUp.Mean, s.GaveUp.SE()}, {"calls", calls, s.Calls.Mean, s.Calls.SE()}} {
		mean, sd := meanSD(m.theirs)
		se := math.Hypot(sd/math.Sqrt(float64(len(m.theirs))), m.se)
		if d := m.herd - mean; math.Abs(d) > 4*se {
			t.Errorf("%s: herd %.2f, retry-go's own delays %.2f; difference %.2f beyond 4 × %.3f", m.name, m.herd, mean, d, se)
		} else {
			t.Logf("%s: herd %.2f, retry-go's own delays %.2f ± %.2f (difference %.2f, 4σ %.2f)", m.name, m.herd, mean, 1.96*sd/math.Sqrt(float64(len(m.theirs))), d, 4*se)
		}
	}
}

func meanSD(x []float64) (mean, sd float64) {
	for _, v := range x {
		mean += v
	}
	mean /= float64(len(x))
	for _, v := range x {
		sd += (v - mean) * (v - mean)
	}
	return mean, math.Sqrt(sd / float64(len(x)-1))
}
