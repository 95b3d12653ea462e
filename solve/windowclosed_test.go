package solve

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// The no-jitter cohort in continuous time, computed by hand: 100 clients,
// 10 per window, expo with base 1 and cap 32 windows, no round trip. The
// waves reach the server at 0, 2, 6, 14, 30, 62, 94, 126, 158, 190
// windows (delays 2, 4, 8, 16, 32, 32, …), each admitting 10: 550 calls and
// the last success at 190 windows — where the tick model says 191, since
// a tick's arrivals end with it.
func TestWindowClosedFormByHand(t *testing.T) {
	sc, err := spec(t, "policy", "expo", "window", "100ms")
	if err != nil {
		t.Fatal(err)
	}
	r, err := WindowClosedForm(sc)
	if err != nil {
		t.Fatal(err)
	}
	var times []float64
	for _, w := range r.Waves {
		times = append(times, w.Time)
	}
	if r.Calls != 550 || r.Served != 100 || r.Completion != 19000 || fmt.Sprint(times) != "[0 200 600 1400 3000 6200 9400 12600 15800 19000]" {
		t.Errorf("expo cohort: calls %d served %d completion %g ms, waves at %v", r.Calls, r.Served, r.Completion, times)
	}
	// With a 30 ms round trip each wave comes 30 ms later than the last
	// plus its delay, so the tenth comes at 19000 + 9·30 ms.
	sc.Latency = model.RoundTrip{A: 30 * time.Millisecond}
	if r, err = WindowClosedForm(sc); err != nil || r.Calls != 550 || math.Abs(r.Completion-19270) > 1e-9 {
		t.Errorf("expo cohort with 30ms round trip: calls %d completion %g ms (%v)", r.Calls, r.Completion, err)
	}
	// A delay shorter than the rest of a full window lands in that window
	// and fails again: with base 0.25 the first retry comes after 0.5
	// windows, in window 0, which the first wave filled; the tick model
	// would wait one whole tick.
	sc, _ = spec(t, "policy", "expo", "window", "100ms", "base", "0.25", "clients", "30")
	if r, err = WindowClosedForm(sc); err != nil {
		t.Fatal(err)
	}
	if r.Waves[1].Time != 50 || r.Waves[1].Served != 0 || r.Waves[2].Time != 150 || r.Waves[2].Served != 10 {
		t.Errorf("base 0.25: waves %+v", r.Waves)
	}
	// retryablehttp's default: exactly 1, 2, 4, 8 s and 4 retries, so 5
	// waves of 200, 190, …, 160 clients, 50 served, 150 give up.
	sc, _ = spec(t, "policy", "retryablehttp-default", "window", "100ms", "clients", "200")
	if r, err = WindowClosedForm(sc); err != nil || r.Calls != 900 || r.Served != 50 || r.GaveUp != 150 || r.Completion != 15000 {
		t.Errorf("retryablehttp: %+v, %v", r, err)
	}
}

// The tick models refuse continuous time rather than answer in ticks.
func TestModelsRefuseContinuousTime(t *testing.T) {
	sc, _ := spec(t, "policy", "expo", "window", "100ms")
	for _, m := range Methods() {
		_, err := Solve(m, sc, DefaultSolveOptions())
		var u *Unsupported
		if !errors.As(err, &u) || !strings.Contains(u.Reason, "continuous time") {
			t.Errorf("%s: %v", m, err)
		}
	}
}

func spec(t *testing.T, kv ...string) (model.Scenario, error) {
	t.Helper()
	return model.ScenarioOf(kv...)
}
