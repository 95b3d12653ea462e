package solve

import (
	"context"
	"math"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

func queueSc(n, k, timeout, limit int, kind policy.Kind) model.Scenario {
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity, sc.Policy.Kind = model.Queue, n, k, kind
	sc.Queue = model.Queueing{Limit: limit, Timeout: timeout}
	return sc
}

// A queue server whose queue holds k requests and whose clients never time
// out is the capacity server: each tick admits k of the sends at random,
// serves them all, and rejects the rest at once. The queue chain must then
// give the cohort chain's law of calls and completion, which markov.go
// computes by another route.
func TestQueueChainWithLimitKIsTheCapacityServer(t *testing.T) {
	for _, c := range []struct {
		n, k int
		kind policy.Kind
		w    int
	}{{6, 2, policy.Full, 1}, {5, 1, policy.Equal, 1}, {7, 3, policy.Fixed, 1}, {5, 2, policy.Expo, 1}, {4, 1, policy.Full, 3}} {
		sc := queueSc(c.n, c.k, 0, c.k, c.kind)
		sc.FirstWindow = c.w
		q, err := QueueChainOf(context.Background(), sc, nil, control.Controls{}, QueueChainOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cap := sc
		cap.Server, cap.Queue = model.Capacity, model.Queueing{}
		m, err := MarkovChain(cap, MarkovOptions{})
		if err != nil {
			t.Fatal(err)
		}
		near := func(what string, a, b float64) {
			if math.Abs(a-b) > 1e-9*math.Max(1, math.Abs(b)) {
				t.Errorf("%+v: %s %v, markov %v", c, what, a, b)
			}
		}
		near("calls mean", q.Calls.Mean, m.Calls.Mean)
		near("calls sd", q.Calls.SD, m.Calls.SD)
		near("completion mean", q.Completion.Mean, m.Completion.Mean)
		near("completion sd", q.Completion.SD, m.Completion.SD)
		for i := range max(len(q.Distribution), len(m.Distribution)) {
			at := func(d []float64) float64 {
				if i < len(d) {
					return d[i]
				}
				return 0
			}
			near("P(completion)", at(q.Distribution), at(m.Distribution))
		}
		if q.Wasted.Mean != 0 || math.Abs(q.Rejected.Mean-(q.Calls.Mean-float64(c.n))) > 1e-9 {
			t.Errorf("%+v: wasted %v, rejected %v of calls %v", c, q.Wasted, q.Rejected, q.Calls)
		}
	}
}

// Without a timeout an unbounded queue serves a cohort in ⌈N/k⌉ ticks with
// N calls, certainly; with a timeout below ⌈N/k⌉ work is wasted.
func TestQueueChainCohortCertainties(t *testing.T) {
	q, err := QueueChainOf(context.Background(), queueSc(7, 2, 0, 0, policy.Full), nil, control.Controls{}, QueueChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if q.Calls != (Moment{7, 0}) || q.Completion != (Moment{4, 0}) || q.Wasted.Mean != 0 {
		t.Errorf("no timeout: calls %v, completion %v, wasted %v", q.Calls, q.Completion, q.Wasted)
	}
	q, err = QueueChainOf(context.Background(), queueSc(7, 2, 3, 0, policy.Fixed), nil, control.Controls{}, QueueChainOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !(q.Wasted.Mean > 0) || q.Wasted != q.TimedOut {
		t.Errorf("timeout 3 < 4: wasted %v, timed out %v", q.Wasted, q.TimedOut)
	}
}
