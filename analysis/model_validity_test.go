package analysis

import (
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// Each model's solution carries the validity of its method: the closed
// form exact, the exact chain conditional on the mass left unfinished at a
// short horizon, the mean field approximate with the errors measured at a
// validated scenario.
func TestSolutionValidityFollowsTheMethod(t *testing.T) {
	mk := func(n, k int, server model.Server, kind policy.Kind, cap float64) model.Scenario {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Server, sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap = n, k, server, kind, 1, cap
		return sc
	}
	closed := mk(100, 10, model.Capacity, policy.Expo, 32)
	short := mk(5, 1, model.Collision, policy.Full, 8)
	short.Horizon = 30
	large := mk(10000, 100, model.Capacity, policy.Full, 32)
	for _, c := range []struct {
		method string
		sc     model.Scenario
		kind   string
	}{{solve.MethodClosed, closed, ValidityExact}, {solve.MethodMarkov, short, ValidityConditional}, {solve.MethodMeanField, large, ValidityApproximate}} {
		r, err := solve.Solve(c.method, c.sc, solve.DefaultSolveOptions())
		if err != nil {
			t.Fatalf("%s: %v", c.method, err)
		}
		v, warn := SolutionValidity(r, c.sc)
		if v.Kind != c.kind {
			t.Errorf("%s: validity %q, want %q", c.method, v.Kind, c.kind)
		}
		switch c.kind {
		case ValidityExact:
			if len(warn) > 0 {
				t.Errorf("%s: an exact result warns %q", c.method, warn)
			}
		case ValidityConditional:
			if v.Unfinished != r.Markov.Unfinished || !(v.Unfinished > 0) || len(warn) != 1 {
				t.Errorf("%s: unfinished %g (the chain's %g), warnings %q", c.method, v.Unfinished, r.Markov.Unfinished, warn)
			}
		case ValidityApproximate:
			if v.CallsError == nil || v.NearestValidated == nil || v.InRegion == nil || !*v.InRegion {
				t.Errorf("%s at N = 10⁴, N/k = 100: %+v, want the measured errors of a scenario in the validated region", c.method, v)
			}
		}
	}
}

// The queue chain's result is conditional on every mass it did not
// follow, summed, each named by a warning; a cut below 1e-6 is not counted.
func TestQueueChainValidityCountsTheMassLost(t *testing.T) {
	if v, warn := QueueChainValidity(solve.QueueChain{Truncated: 1e-7}); v.Kind != ValidityExact || warn != nil {
		t.Errorf("a cut of 1e-7 alone: %+v %q, want exact", v, warn)
	}
	r := solve.QueueChain{Unfinished: 1e-3, Overflow: 2e-3, Truncated: 4e-3, Ticks: 90, Options: solve.QueueChainOptions{MaxBacklog: 7, MaxQueue: 9}}
	v, warn := QueueChainValidity(r)
	if v.Kind != ValidityConditional || math.Abs(v.Unfinished-7e-3) > 1e-15 {
		t.Errorf("lost 1e-3 + 2e-3 + 4e-3: %+v, want conditional on 7e-3", v)
	}
	if len(warn) != 3 || !strings.Contains(warn[0], "tick 90") || !strings.Contains(warn[1], "--max-backlog 7, --max-queue 9") || !strings.Contains(warn[2], "cut") {
		t.Errorf("warnings %q, want the unfinished (at tick 90), the overflow (past the bounds 7 and 9) and the cut", warn)
	}
	r.Truncated = 1e-7
	if v, warn := QueueChainValidity(r); math.Abs(v.Unfinished-3e-3) > 1e-15 || len(warn) != 2 {
		t.Errorf("with a cut of 1e-7: %+v %q, want conditional on 3e-3 and two warnings", v, warn)
	}
}
