package solve

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/internal/bruteforce"
	"github.com/herdlab/herd/policy"
)

// The chain's law of completion under an attempt limit is the oracle's,
// to rounding, on tiny cohorts: with --retries, with --max-attempts, with
// and without a queue limit. (The command's own case, 5 clients, is
// cmd/herd's TestModelChainPrintsCompletionLawUnderRetryLimit.)
func TestQueueChainCompletionLawUnderAttemptLimitMatchesOracle(t *testing.T) {
	cases := []struct {
		n, k, timeout, limit int
		kind                 policy.Kind
		cap                  float64
		retries, attempts    int
	}{
		{4, 1, 2, 2, policy.Full, 4, 3, 0},
		{4, 1, 1, 3, policy.Full, 4, 2, 0},
		{4, 2, 1, 0, policy.Full, 4, 2, 0},
		{3, 1, 2, 0, policy.Equal, 3, 2, 0},
		{4, 2, 1, 2, policy.Full, 8, 0, 3},
		{4, 1, 3, 2, policy.Full, 4, 1, 0},
	}
	for _, c := range cases {
		sc := queueSc(c.n, c.k, c.timeout, c.limit, c.kind)
		sc.Policy.Base, sc.Policy.Cap, sc.Policy.Retries = 1, c.cap, c.retries
		ctl := control.Controls{MaxAttempts: c.attempts}
		name := fmt.Sprintf("%+v", c)
		q, err := QueueChainOf(context.Background(), sc, nil, ctl, QueueChainOptions{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		giveUp := c.retries
		if c.attempts > 0 {
			giveUp = c.attempts - 1
		}
		o, err := bruteforce.SolveQueue(sc, giveUp, 1000)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		total, mean := 0.0, 0.0
		for c, p := range o.Distribution {
			total += p
			mean += float64(c) * p
		}
		if math.Abs(total-1) > 1e-12 || q.Unfinished > 1e-12 {
			t.Fatalf("%s: oracle finishes %v, chain leaves %v unfinished", name, total, q.Unfinished)
		}
		if len(q.Distribution) == 0 {
			t.Fatalf("%s: the chain gives no law of completion", name)
		}
		worst := 0.0
		at := func(d []float64, i int) float64 {
			if i < len(d) {
				return d[i]
			}
			return 0
		}
		for i := range max(len(q.Distribution), len(o.Distribution)) {
			worst = math.Max(worst, math.Abs(at(q.Distribution, i)-at(o.Distribution, i)))
		}
		if worst > 1e-12 {
			t.Errorf("%s: P(completion = t) differs from the oracle's by up to %.3g\nchain  %v\noracle %v", name, worst, q.Distribution, o.Distribution)
		}
		if math.Abs(q.Completion.Mean-mean) > 1e-12 || math.Abs(q.Calls.Mean-o.Calls) > 1e-9 {
			t.Errorf("%s: completion %v, calls %v; oracle %v, %v", name, q.Completion.Mean, q.Calls.Mean, mean, o.Calls)
		}
		t.Logf("%s: law of completion within %.2g of the oracle's; mean %.6g", name, worst, mean)
	}
}
