package analysis

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// The queue chain refuses a cohort that can never finish before it
// follows a single tick (an ended context is not even looked at), with a
// usage error, and only such a cohort: on a grid of small cohorts around
// the rule's threshold, every cohort it refuses has all of its Monte
// Carlo trials censored at a horizon of 400 ticks, and the cohort one
// client below the threshold of the command herd model --method chain
// --server queue -n 5 -k 1 --policy equal --base 1 --cap 3 --timeout 1 is
// accepted and does finish.
func TestQueueChainRefusesOnlyCohortsThatNeverFinish(t *testing.T) {
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	refused := func(sc model.Scenario) bool {
		_, err := solve.QueueChainOf(ended, sc, nil, control.Controls{}, solve.QueueChainOptions{})
		var u *model.UsageError
		return errors.As(err, &u)
	}
	censoredShare := func(sc model.Scenario) float64 {
		sc.Horizon = 400
		o, err := Outcomes(context.Background(), sc, montecarlo.Options{Trials: 400, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		c := 0
		for _, x := range o {
			if x.Censored {
				c++
			}
		}
		return float64(c) / float64(len(o))
	}
	cohort := func(n, k, timeout int, kind policy.Kind, cap float64) model.Scenario {
		sc := scenario(n, k, model.Queue, kind, 1, cap, policy.HalfEven)
		sc.Queue = model.Queueing{Timeout: timeout}
		return sc
	}
	if sc := cohort(5, 1, 1, policy.Equal, 3); !refused(sc) {
		t.Error("the cohort of -n 5 -k 1 --policy equal --base 1 --cap 3 --timeout 1 is not refused before the chain runs")
	}
	below := cohort(3, 1, 1, policy.Equal, 3)
	if refused(below) || censoredShare(below) == 1 {
		t.Errorf("3 clients, equal, cap 3, timeout 1: refused %v, every trial censored", refused(below))
	}
	n := 0
	for _, k := range []int{1, 2} {
		for _, timeout := range []int{1, 2} {
			for _, p := range []struct {
				kind policy.Kind
				cap  float64
			}{{policy.Equal, 3}, {policy.Full, 4}, {policy.Fixed, 32}} {
				for clients := 2; clients <= 14; clients++ {
					sc := cohort(clients, k, timeout, p.kind, p.cap)
					if !refused(sc) {
						continue
					}
					n++
					if s := censoredShare(sc); s != 1 {
						t.Errorf("%s refused, but %.1f%% of its trials finish within 400 ticks", describe(sc), 100*(1-s))
					}
				}
			}
		}
	}
	t.Logf("%d cohorts of the grid refused", n)
	if n < 10 {
		t.Errorf("only %d cohorts of the grid refused; the test needs at least 10", n)
	}
	sc := cohort(5, 1, 1, policy.Equal, 3)
	sc.Policy.Retries = 3
	if refused(sc) {
		t.Error("a cohort whose clients give up after 3 retries is refused")
	}
}

func describe(sc model.Scenario) string {
	return fmt.Sprintf("N = %d, k = %d, timeout %d, %s cap %g", sc.Clients, sc.Capacity, sc.Queue.Timeout, sc.Policy.Kind, sc.Policy.Cap)
}
