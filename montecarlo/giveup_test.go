package montecarlo

import (
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

func playOne(t *testing.T, sc model.Scenario) Trial {
	t.Helper()
	if err := sc.Validate(); err != nil {
		t.Fatal(err)
	}
	e, err := NewClientEngine(sc)
	if err != nil {
		t.Fatal(err)
	}
	var tr Trial
	tr.reset(0)
	e.Play(Stream(1, sc, 0), &tr, true)
	return tr
}

// TestRetryLimitGivesUp checks a deterministic preset against counts
// worked out by hand: retryablehttp's DefaultBackoff waits 1, 2, 4, 8 s and
// gives up after 4 retries. With N = 1000, k = 10 and 1 s ticks, the sends
// are at ticks 0, 1, 3, 7, 15 with 1000, 990, 980, 970, 960 clients; 10 are
// served each time and the 950 left give up.
func TestRetryLimitGivesUp(t *testing.T) {
	p, _ := policy.LookupPreset("retryablehttp-default")
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy = 1000, 10, p.Policy(time.Second)
	tr := playOne(t, sc)
	if tr.Calls != 4900 || tr.GaveUp != 950 || tr.Served != 50 || tr.Completion != 16 || tr.Censored {
		t.Errorf("got calls %d, gave up %d, served %d, completion %d, censored %v; want 4900, 950, 50, 16, false",
			tr.Calls, tr.GaveUp, tr.Served, tr.Completion, tr.Censored)
	}
	// Without the limit the same herd is served in full.
	sc.Policy.Retries = 5000
	if tr := playOne(t, sc); tr.GaveUp != 0 || tr.Served != 1000 {
		t.Errorf("with a limit no client reaches: gave up %d, served %d", tr.GaveUp, tr.Served)
	}
}

// TestMaxElapsedGivesUp: with an elapsed-time limit of M ticks no client
// sends after tick M, and every client is served or gives up.
func TestMaxElapsedGivesUp(t *testing.T) {
	p, _ := policy.LookupPreset("cenkalti-v4")
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server = 200, 1, model.Collision
	sc.Policy = p.Policy(time.Second)
	sc.Policy.MaxElapsed = 20 * time.Second
	tr := playOne(t, sc)
	if tr.GaveUp == 0 || tr.Served+tr.GaveUp != 200 || tr.Censored {
		t.Fatalf("served %d + gave up %d, censored %v: want 200 in all, some giving up", tr.Served, tr.GaveUp, tr.Censored)
	}
	for tick := 21; tick < len(tr.Arrivals); tick++ {
		if tr.Arrivals[tick] > 0 {
			t.Errorf("%d arrivals at tick %d, past the 20 s limit", tr.Arrivals[tick], tick)
		}
	}
}
