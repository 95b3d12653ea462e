package main

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/herdlab/herd/internal/bruteforce"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// herd model --method chain prints the law of completion of a queue cohort
// whose clients give up after --retries: its quantiles and its masses are
// those of the brute-force enumeration over labelled clients and an
// explicit queue (bruteforce.SolveQueue), which shares no code with the
// chain.
func TestModelChainPrintsCompletionLawUnderRetryLimit(t *testing.T) {
	out, stderr, code := herd(t, "model", "--method", "chain", "--server", "queue", "-n", "5", "-k", "1", "--policy", "full", "--cap", "4",
		"--queue-limit", "3", "--timeout", "2", "--retries", "3", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var got struct {
		Completion struct {
			Mean         float64
			Quantiles    map[string]struct{ Value float64 }
			Distribution []struct {
				Completion int
				P          float64
			}
		}
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity, sc.Policy.Kind, sc.Policy.Base, sc.Policy.Cap, sc.Policy.Retries = model.Queue, 5, 1, policy.Full, 1, 4, 3
	sc.Queue = model.Queueing{Limit: 3, Timeout: 2}
	want, err := bruteforce.SolveQueue(sc, 3, 1000)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0.0
	for _, m := range got.Completion.Distribution {
		w := 0.0
		if m.Completion < len(want.Distribution) {
			w = want.Distribution[m.Completion]
		}
		if math.Abs(m.P-w) > 1e-12 {
			t.Errorf("P(completion = %d) = %.15g, brute force %.15g", m.Completion, m.P, w)
		}
		seen += m.P
	}
	if math.Abs(seen-1) > 1e-12 {
		t.Errorf("the printed law sums to %.15g", seen)
	}
	for name, q := range map[string]float64{"p50": 0.5, "p90": 0.9, "p99": 0.99} {
		cum, at := 0.0, -1
		for c, p := range want.Distribution {
			if cum += p; cum >= q {
				at = c
				break
			}
		}
		if v, ok := got.Completion.Quantiles[name]; !ok || v.Value != float64(at) {
			t.Errorf("completion %s printed %v (present %v), brute force %d", name, v.Value, ok, at)
		}
	}
}

// A queue cohort that can never finish is refused at once, before the
// chain follows it, with exit 2 and the reason in the user's terms.
func TestModelChainRefusesACohortThatNeverFinishes(t *testing.T) {
	_, stderr, code := herd(t, "model", "--method", "chain", "--server", "queue", "-n", "5", "-k", "1", "--policy", "equal", "--base", "1", "--cap", "3", "--timeout", "1")
	if code != 2 || !strings.Contains(stderr, "never finishes") || !strings.Contains(stderr, "times out before it is served") {
		t.Errorf("exit %d: %s", code, stderr)
	}
}
