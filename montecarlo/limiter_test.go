package montecarlo

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// A synchronized cohort with a certain delay d and no round trip arrives
// in waves: every client still waiting arrives at j·d. Each case's waves
// are worked out by hand from the limiter's rule (docs/limiters.md), and
// every trial must give exactly those calls, that completion and that
// mean latency.
func TestLimiterWavesClosedForm(t *testing.T) {
	// waves is the calls and completion (ms) of waves j = 0, 1, … that
	// admit first, then each, until n clients are served, d ms apart.
	waves := func(n, first, each int, d float64) (calls int64, completion, latency float64) {
		left, j := n, 0
		for ; left > 0; j++ {
			calls += int64(left)
			got := min(left, map[bool]int{true: first, false: each}[j == 0])
			latency += float64(got) * float64(j) * d
			left -= got
		}
		return calls, float64(j-1) * d, latency / float64(n)
	}
	for _, c := range []struct {
		name        string
		kv          []string
		first, each int     // admitted by the first wave, by each later one
		d           float64 // ms between waves
	}{
		// A bucket of b = 20 refilled by r·d = 30 ≥ b is full at every
		// wave: the first wave admits exactly b, and so does each later one.
		{"bucket refilled", []string{"server", "token-bucket", "capacity", "10/100ms", "burst", "20", "clients", "95", "policy", "fixed", "fixed-delay", "3"}, 20, 20, 300},
		// r·d = 3 < b = 25: b, then the 3 tokens that came in since.
		{"bucket drained", []string{"server", "token-bucket", "capacity", "10/100ms", "burst", "25", "clients", "100", "policy", "fixed", "fixed-delay", "0.3"}, 25, 3, 30},
		// nginx's burst b = 9 admits b + 1 at once; then r·d = 5 per wave.
		{"gcra drained", []string{"server", "gcra", "capacity", "10/100ms", "burst", "9", "nodelay", "true", "clients", "100", "policy", "fixed", "fixed-delay", "0.5"}, 10, 5, 50},
		// r·d = 20 > b + 1: b + 1 per wave.
		{"gcra refilled", []string{"server", "gcra", "capacity", "10/100ms", "burst", "9", "nodelay", "true", "clients", "100", "policy", "fixed", "fixed-delay", "2"}, 10, 10, 200},
		// Without a burst nginx admits one request per 1/r = 10 ms.
		{"gcra one per 1/r", []string{"server", "gcra", "capacity", "100/s", "clients", "5", "policy", "fixed", "fixed-delay", "0.01"}, 1, 1, 10},
	} {
		sc := windowScenario(t, c.kv...)
		calls, completion, latency := waves(sc.Clients, c.first, c.each, c.d)
		playWindow(t, sc, 20, func(tr *Trial) {
			if tr.Calls != calls || tr.Served != int64(sc.Clients) || tr.Censored ||
				math.Abs(tr.Time-completion) > 1e-6 || math.Abs(tr.LatencySum/float64(tr.Served)-latency) > 1e-6 {
				t.Errorf("%s trial %d: %d calls, completion %v ms, mean latency %v ms; by hand %d, %v, %v",
					c.name, tr.Index, tr.Calls, tr.Time, tr.LatencySum/float64(tr.Served), calls, completion, latency)
			}
		})
	}
}

// nginx rejects without touching its state: with r = 100/s, no burst and
// waves 5 ms apart, a wave drains only half a request since the last
// admission and is rejected, and the next, 10 ms after it, is admitted.
// So every other wave admits one: 5 + 4 + 4 + 3 + 3 + 2 + 2 + 1 + 1 calls.
func TestGCRARejectionKeepsState(t *testing.T) {
	sc := windowScenario(t, "server", "gcra", "capacity", "100/s", "clients", "5", "policy", "fixed", "fixed-delay", "0.005", "nodelay", "true")
	playWindow(t, sc, 20, func(tr *Trial) {
		if tr.Calls != 25 || tr.Time != 40 {
			t.Errorf("trial %d: %d calls, completion %v ms; want 25 and 40", tr.Index, tr.Calls, tr.Time)
		}
	})
}

// Without nodelay nginx paces what its burst admits: the i-th request of
// a burst of b + 1 = 10 at once has excess i requests and is answered
// i·1000/r ms later, so at r = 100/s the last answer is 90 ms after the
// burst and the mean latency 45 ms, where nodelay answers all at once.
func TestGCRAPacesWithoutNodelay(t *testing.T) {
	for _, nodelay := range []bool{false, true} {
		kv := []string{"server", "gcra", "capacity", "100/s", "burst", "9", "clients", "10", "policy", "fixed", "fixed-delay", "1"}
		want := 90.0
		if nodelay {
			kv, want = append(kv, "nodelay", "true"), 0
		}
		sc := windowScenario(t, kv...)
		playWindow(t, sc, 5, func(tr *Trial) {
			if tr.Calls != 10 || tr.Time != want || math.Abs(tr.LatencySum/10-want/2) > 1e-9 {
				t.Errorf("nodelay %v: %d calls, completion %v ms, mean latency %v ms; want 10, %v, %v", nodelay, tr.Calls, tr.Time, tr.LatencySum/10, want, want/2)
			}
		})
	}
}

// referenceLimiter plays one trial of a limiter scenario the plain way,
// with nothing of the engine: its own random numbers, every next arrival
// found by scanning the clients, full jitter's delays drawn by its formula
// (U(0, min(cap, base·2ⁿ)) before retry n), a fixed round trip, first
// sends uniform over the spread, and the limiter written as GCRA on its
// theoretical arrival time tat (admit at t when tat − t ≤ tolerance, then
// tat = max(tat, t) + 1/r): the token bucket of b tokens is tolerance
// (b − 1)/r in real time; nginx's burst b is tolerance b/r on a clock of
// whole ms with a phase uniform on one ms, pacing an admitted request to
// ⌊tat − 1/r − now⌋ ms after its clock's now. It returns calls, completion
// (ms) and the mean latency (ms).
func referenceLimiter(sc model.Scenario, rng *rand.Rand) (calls int64, completion, latency float64) {
	w := float64(sc.Window()) / 1e6 // ms per window
	T := w / float64(sc.Capacity)   // ms per request
	lat := float64(sc.Latency.A) / 1e6
	n := sc.Clients
	next, first := make([]float64, n), make([]float64, n)
	retry := make([]int, n)
	for c := range n {
		first[c] = rng.Float64() * float64(sc.FirstSpread) / 1e6
		next[c] = first[c]
	}
	nginx := sc.Server == model.GCRA
	tolerance := float64(sc.Limiter.Burst-1) * T
	phase := 0.0
	if nginx {
		tolerance, phase = float64(sc.Limiter.Burst)*T, rng.Float64()
	}
	tat := math.Inf(-1)
	for {
		c := -1
		for i := range n {
			if !math.IsInf(next[i], 1) && (c < 0 || next[i] < next[c]) {
				c = i
			}
		}
		if c < 0 {
			return calls, completion, latency / float64(n)
		}
		a := next[c]
		calls++
		now := a
		if nginx {
			now = math.Floor(a + phase)
		}
		if tat-now <= tolerance+1e-9*T {
			tat = math.Max(tat, now) + T
			answered := a
			if nginx && !sc.Limiter.Nodelay {
				answered += math.Floor(tat - T - now + 1e-9)
			}
			completion = math.Max(completion, answered)
			latency += answered - first[c]
			next[c] = math.Inf(1)
			continue
		}
		retry[c]++
		d := math.Min(sc.Policy.Cap, sc.Policy.Base*math.Pow(2, float64(retry[c])))
		next[c] = a + lat + rng.Float64()*d*w
	}
}

// The engine against the reference, on scenarios with jitter, spread and
// a round trip: their means of calls, completion and latency over 2,000
// trials each must agree within 4 standard errors of their difference.
func TestLimiterMatchesReference(t *testing.T) {
	const trials = 2000
	for _, kv := range [][]string{
		{"server", "token-bucket", "capacity", "10/100ms", "burst", "20", "clients", "100", "policy", "full", "base", "1", "cap", "8", "latency", "5ms", "first-spread", "50ms"},
		{"server", "gcra", "capacity", "50/100ms", "burst", "10", "nodelay", "true", "clients", "100", "policy", "full", "base", "0.2", "cap", "4", "latency", "1ms", "first-spread", "20ms"},
		{"server", "gcra", "capacity", "50/100ms", "burst", "10", "clients", "100", "policy", "full", "base", "0.2", "cap", "4", "latency", "1ms", "first-spread", "20ms"},
		{"server", "gcra", "capacity", "30/100ms", "clients", "40", "policy", "full", "base", "0.5", "cap", "4", "latency", "2ms"},
	} {
		sc := windowScenario(t, kv...)
		var engine [3]stats.Moments
		playWindow(t, sc, trials, func(tr *Trial) {
			engine[0].Add(float64(tr.Calls))
			engine[1].Add(tr.Time)
			engine[2].Add(tr.LatencySum / float64(tr.Served))
		})
		var ref [3]stats.Moments
		rng := rand.New(rand.NewPCG(11, 13))
		for range trials {
			c, comp, l := referenceLimiter(sc, rng)
			ref[0].Add(float64(c))
			ref[1].Add(comp)
			ref[2].Add(l)
		}
		for i, name := range []string{"calls", "completion", "latency"} {
			e, r := engine[i].Estimate(), ref[i].Estimate()
			se := math.Hypot(e.SD, r.SD) / math.Sqrt(trials)
			if d := e.Mean - r.Mean; math.Abs(d) > 4*se+1e-9 {
				t.Errorf("%v: %s %.4g (engine) against %.4g (reference), %.1f standard errors apart", kv, name, e.Mean, r.Mean, d/se)
			}
		}
	}
}

// Same seed, same trials, whatever the workers.
func TestLimiterSameWhateverWorkers(t *testing.T) {
	for _, server := range []string{"token-bucket", "gcra"} {
		sc := windowScenario(t, "server", server, "capacity", "10/100ms", "burst", "5", "clients", "200", "policy", "full", "latency", "uniform:1ms,5ms", "first-spread", "30ms")
		var got [2][]string
		for i, workers := range []int{1, 3} {
			got[i] = make([]string, 300)
			err := Run(context.Background(), sc, Options{Trials: 300, Seed: 5, Workers: workers}, func(tr *Trial) error {
				got[i][tr.Index] = fmt.Sprintf("%d %v %v", tr.Calls, tr.Time, tr.LatencySum)
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		}
		for j := range got[0] {
			if got[0][j] != got[1][j] {
				t.Fatalf("%s trial %d: %s with 1 worker, %s with 3", server, j, got[0][j], got[1][j])
			}
		}
	}
}

// solve.WindowClosedForm follows the limiters' waves too (a cohort whose
// delays and round trip are certain): every trial must be its calls,
// give-ups and completion, on waves whose wave times are whole ms.
func TestLimiterClosedFormOfWaves(t *testing.T) {
	for _, kv := range [][]string{
		{"server", "token-bucket", "capacity", "10/100ms", "burst", "25", "policy", "fixed", "fixed-delay", "0.3"},
		{"server", "token-bucket", "capacity", "7/100ms", "burst", "3", "policy", "expo", "latency", "2ms", "clients", "60"},
		{"server", "gcra", "capacity", "100/s", "burst", "9", "policy", "expo", "base", "0.02", "latency", "1ms", "clients", "300"},
		{"server", "gcra", "capacity", "100/s", "burst", "9", "nodelay", "true", "policy", "retryablehttp-default", "latency", "1ms", "clients", "300"},
		{"server", "gcra", "capacity", "30/min", "burst", "2", "policy", "fixed", "fixed-delay", "0.05", "clients", "12", "retries", "30"},
	} {
		sc := windowScenario(t, kv...)
		want, err := solve.WindowClosedForm(sc)
		if err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		playWindow(t, sc, 5, func(tr *Trial) {
			if tr.Calls != want.Calls || tr.Served != want.Served || tr.GaveUp != want.GaveUp || tr.Censored || math.Abs(tr.Time-want.Completion) > 1e-9*max(1, want.Completion) {
				t.Errorf("%v trial %d: calls %d served %d gave up %d completion %v ms; closed form %d, %d, %d, %v ms",
					kv, tr.Index, tr.Calls, tr.Served, tr.GaveUp, tr.Time, want.Calls, want.Served, want.GaveUp, want.Completion)
			}
		})
	}
	// Waves between nginx's milliseconds depend on its clock's phase.
	sc := windowScenario(t, "server", "gcra", "capacity", "100/s", "policy", "fixed", "fixed-delay", "0.0005")
	if _, err := solve.WindowClosedForm(sc); err == nil {
		t.Error("gcra waves 0.5 ms apart: closed form given, want a refusal")
	}
}
