package model

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func spec(t *testing.T, kv ...string) (Scenario, error) {
	t.Helper()
	return ScenarioOf(kv...)
}

// The time model follows what was said: --time when given, else
// continuous time as soon as a field of the window server is, while
// --tick alone keeps the tick model; in continuous time the window is the
// tick, so a capacity rate is per window.
func TestSpecTimeModel(t *testing.T) {
	for _, c := range []struct {
		kv     []string
		time   TimeModel
		tick   time.Duration
		k      int
		trip   RoundTrip
		spread time.Duration
	}{
		{nil, TickTime, 0, 10, RoundTrip{}, 0},
		{[]string{"policy", "retry-go-v4", "tick", "100ms"}, TickTime, 100 * time.Millisecond, 10, RoundTrip{}, 0},
		{[]string{"time", "continuous"}, ContinuousTime, time.Second, 10, RoundTrip{}, 0},
		{[]string{"window", "10ms", "capacity", "200/s"}, ContinuousTime, 10 * time.Millisecond, 2, RoundTrip{}, 0},
		{[]string{"window", "100ms", "tick", "100ms", "capacity", "50"}, ContinuousTime, 100 * time.Millisecond, 50, RoundTrip{}, 0},
		{[]string{"latency", "5ms"}, ContinuousTime, time.Second, 10, RoundTrip{A: 5 * time.Millisecond}, 0},
		{[]string{"policy", "cenkalti-v4", "latency", "uniform:2ms,8ms", "first-spread", "50ms"}, ContinuousTime, 0, 10,
			RoundTrip{Law: UniformTrip, A: 2 * time.Millisecond, B: 8 * time.Millisecond}, 50 * time.Millisecond},
		{[]string{"time", "continuous", "latency", "lognormal:5ms,2ms", "tick", "20ms"}, ContinuousTime, 20 * time.Millisecond, 10,
			RoundTrip{Law: LogNormalTrip, A: 5 * time.Millisecond, B: 2 * time.Millisecond}, 0},
		{[]string{"latency-per-flight", "50us", "window", "10ms"}, ContinuousTime, 10 * time.Millisecond, 10, RoundTrip{}, 0},
	} {
		sc, err := spec(t, c.kv...)
		if err != nil {
			t.Errorf("%v: %v", c.kv, err)
			continue
		}
		if sc.Time != c.time || sc.Policy.Tick != c.tick && !(c.tick == 0 && sc.Policy.TickLength() == time.Second) ||
			sc.Capacity != c.k || sc.Latency != c.trip || sc.FirstSpread != c.spread {
			t.Errorf("%v: time %s tick %s k %d latency %s spread %s", c.kv, sc.Time, sc.Policy.Tick, sc.Capacity, sc.Latency, sc.FirstSpread)
		}
		if c.time == ContinuousTime && sc.Window() != sc.Policy.TickLength() {
			t.Errorf("%v: window %s, tick %s", c.kv, sc.Window(), sc.Policy.TickLength())
		}
		if got, err := SpecOf(sc).Scenario(); err != nil || got != sc {
			t.Errorf("%v: SpecOf rebuilds %+v, %v", c.kv, got, err)
		}
	}
}

// What continuous time cannot mean is refused, naming the flag.
func TestSpecTimeRefusals(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		flag string
	}{
		{[]string{"time", "sometimes"}, "time"},
		{[]string{"time", "tick", "window", "100ms"}, "window"},
		{[]string{"time", "tick", "latency", "5ms"}, "latency"},
		{[]string{"time", "tick", "first-spread", "5ms"}, "first-spread"},
		{[]string{"window", "100ms", "tick", "10ms"}, "window"},
		{[]string{"window", "100ms", "rounding", "ceil"}, "rounding"},
		{[]string{"window", "100ms", "first-window", "3"}, "first-window"},
		{[]string{"window", "100ms", "server", "collision"}, "server"},
		{[]string{"window", "100ms", "server", "occ"}, "server"},
		{[]string{"window", "0s"}, "window"},
		{[]string{"window", "100ms", "capacity", "15/s"}, "capacity"},
		{[]string{"latency", "sometimes"}, "latency"},
		{[]string{"latency", "uniform:8ms,2ms"}, "latency"},
		{[]string{"latency", "-1ms"}, "latency"},
		{[]string{"latency", "lognormal:0s,1ms"}, "latency"},
		{[]string{"latency", "2h"}, "latency"},
		{[]string{"first-spread", "-1ms"}, "first-spread"},
		{[]string{"window", "1µs", "first-spread", "1h"}, "first-spread"},
		{[]string{"time", "tick", "latency-per-flight", "50us"}, "latency-per-flight"},
		{[]string{"time", "tick", "first-arrivals", "quantiles:0s,5ms"}, "first-arrivals"},
		{[]string{"first-arrivals", "quantiles:5ms,1ms"}, "first-arrivals"},
		{[]string{"first-arrivals", "quantiles:0s,5ms", "first-spread", "5ms"}, "first-arrivals"},
		{[]string{"first-arrivals", "soon"}, "first-arrivals"},
		{[]string{"first-answers", "quantiles:0s,5ms"}, "first-answers"},
		{[]string{"time", "tick", "first-answers", "quantiles:0s,5ms"}, "first-answers"},
		{[]string{"first-arrivals", "quantiles:0s,5ms", "first-answers", "quantiles:5ms,1ms"}, "first-answers"},
		{[]string{"latency", "quantiles:2ms,1ms"}, "latency"},
		{[]string{"stalls", "40ms,8ms"}, "stalls"}, // no machine to stop
		{[]string{"time", "tick", "stalls", "40ms,8ms"}, "stalls"},
		{[]string{"latency-per-flight", "50us", "stalls", "40ms"}, "stalls"},
		{[]string{"latency-per-flight", "50us", "stalls", "0s,8ms"}, "stalls"},
		{[]string{"latency-per-flight", "50us", "stalls", "1ms,1s"}, "stalls"},
		{[]string{"latency-per-flight", "-1us"}, "latency-per-flight"},
		{[]string{"latency-per-flight", "often"}, "latency-per-flight"},
		{[]string{"latency-per-flight", "2h"}, "latency-per-flight"},
		// 2·10⁷ clients × 1 s per way is beyond MaxDelay windows of 1 s.
		{[]string{"clients", "20000000", "latency-per-flight", "1s"}, "latency-per-flight"},
		// A retry with no delay and no round trip would reach the full
		// window at the same instant for ever.
		{[]string{"window", "100ms", "policy", "none"}, "latency"},
		{[]string{"window", "100ms", "policy", "failsafe-go-default"}, "latency"},
	} {
		_, err := spec(t, c.kv...)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("%v: %v; want a FieldError naming --%s", c.kv, err, c.flag)
		}
	}
	if _, err := spec(t, "window", "100ms", "policy", "none", "latency", "1ms"); err != nil {
		t.Errorf("policy none with a round trip: %v", err)
	}
	// A latency per flight alone gives every retry a way to travel.
	if _, err := spec(t, "window", "100ms", "policy", "none", "latency-per-flight", "1us"); err != nil {
		t.Errorf("policy none with a latency per flight: %v", err)
	}
}

func TestParseRoundTrip(t *testing.T) {
	for text, want := range map[string]string{"5ms": "5ms", "fixed:5ms": "5ms", "uniform: 2ms, 8ms": "uniform:2ms,8ms", "lognormal:5ms,2ms": "lognormal:5ms,2ms",
		"quantiles:0s, 1ms,3ms": "quantiles:0s,1ms,3ms"} {
		r, err := ParseRoundTrip(text)
		if err != nil || r.String() != want {
			t.Errorf("ParseRoundTrip(%q) = %s, %v; want %s", text, r, err, want)
		}
	}
	for _, text := range []string{"", "uniform:2ms", "lognormal:1,2", "normal:5ms,1ms", "fixed:1ms,2ms", "quantiles:1ms",
		"quantiles:" + strings.Repeat("1ms,", MaxQuantiles) + "2ms"} {
		if _, err := ParseRoundTrip(text); err == nil {
			t.Errorf("ParseRoundTrip(%q) accepted", text)
		}
	}
}

// The log-normal round trip has the mean and standard deviation it was
// given: its quantile function integrated over u by the midpoint rule.
func TestLogNormalTripMoments(t *testing.T) {
	r := RoundTrip{Law: LogNormalTrip, A: 5 * time.Millisecond, B: 2 * time.Millisecond}
	l := r.In(time.Millisecond)
	const n = 1 << 20
	var m1, m2 float64
	for i := range n {
		x := l.Draw((float64(i) + 0.5) / n)
		m1 += x / n
		m2 += x * x / n
	}
	sd := math.Sqrt(m2 - m1*m1)
	if math.Abs(m1-5) > 1e-3 || math.Abs(sd-2) > 1e-2 {
		t.Errorf("log-normal 5ms,2ms: mean %g ms, sd %g ms", m1, sd)
	}
	// Quantiles at p = 0, ½, 1, linear between: the median is Q1, the
	// upper quartile halfway from Q1 to Q2, and draws stay within [Q0, QM].
	q, _ := ParseRoundTrip("quantiles:1ms,2ms,6ms")
	if l := q.In(time.Millisecond); l.Draw(0) != 1 || l.Draw(0.5) != 2 || l.Draw(0.75) != 4 || l.Draw(0.25) != 1.5 || l.Bound() != 6 || math.Abs(l.Draw(math.Nextafter(1, 0))-6) > 1e-9 {
		t.Errorf("quantiles:1ms,2ms,6ms: %g %g %g %g bound %g", l.Draw(0), l.Draw(0.25), l.Draw(0.5), l.Draw(0.75), l.Bound())
	}
	if u := (RoundTrip{Law: UniformTrip, A: 2 * time.Millisecond, B: 8 * time.Millisecond}).In(time.Millisecond); u.Draw(0) != 2 || u.Draw(0.5) != 5 || u.Bound() != 8 {
		t.Errorf("uniform 2ms,8ms: %g %g %g", u.Draw(0), u.Draw(0.5), u.Bound())
	}
}

// Whole ticks mislead where a policy's jitter is narrower than a tick:
// retry-go's first delay is 100–200 ms, so at a tick of 100 ms rounding
// puts it at 1 or 2 ticks. cenkalti's first delay spans 250–750 ms, and
// textbook ticks are the scenario itself, so neither warns.
func TestJitterWithinTick(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		warn bool
	}{
		{[]string{"policy", "retry-go-v4", "tick", "100ms"}, true},
		{[]string{"policy", "retry-go-v4"}, true},
		{[]string{"policy", "grpc-retry", "tick", "100ms"}, true},
		{[]string{"policy", "cenkalti-v4", "tick", "100ms"}, false},
		{[]string{"policy", "retryablehttp-default", "tick", "100ms"}, false},
		{[]string{"policy", "equal"}, false},
		{[]string{"policy", "full", "base", "0.25", "tick", "10ms"}, true},
		{[]string{"policy", "retry-go-v4", "window", "100ms"}, false},
	} {
		sc, err := spec(t, c.kv...)
		if err != nil {
			t.Fatal(err)
		}
		if w := sc.JitterWithinTick(); (w != "") != c.warn || c.warn && !strings.Contains(w, "within a tick") {
			t.Errorf("%v: warning %q, want one: %v", c.kv, w, c.warn)
		}
	}
}

// A continuous-time scenario's JSON names its time model and reads back.
func TestScenarioJSONTime(t *testing.T) {
	sc, err := spec(t, "policy", "cenkalti-v4", "window", "10ms", "latency", "lognormal:5ms,2ms", "first-spread", "40ms", "latency-per-flight", "50µs")
	if err != nil {
		t.Fatal(err)
	}
	first, err := spec(t, "window", "10ms", "first-arrivals", "quantiles:0s,3ms,40ms", "first-answers", "quantiles:1ms,30ms,45ms", "latency-per-flight", "50us", "stalls", "40ms,8ms")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(first)
	var fb Scenario
	if err := json.Unmarshal(b, &fb); err != nil || fb.FirstArrivals != first.FirstArrivals || fb.FirstAnswers != first.FirstAnswers || first.FirstAnswers.IsZero() || fb.Stalls != first.Stalls || first.Stalls != (Stalls{40 * time.Millisecond, 8 * time.Millisecond}) ||
		!strings.Contains(string(b), `"first_arrivals":"quantiles:0s,3ms,40ms"`) || !strings.Contains(string(b), `"stalls":"40ms,8ms"`) || !strings.Contains(string(b), `"first_answers":"quantiles:1ms,30ms,45ms"`) {
		t.Errorf("first arrivals: JSON %s read back %+v, %v", b, fb.FirstArrivals, err)
	}
	if got, err := SpecOf(first).Scenario(); err != nil || got != first {
		t.Errorf("first arrivals: SpecOf rebuilds %+v, %v", got.FirstArrivals, err)
	}
	if err != nil {
		t.Fatal(err)
	}
	if sc.LatencyPerFlight != 50*time.Microsecond {
		t.Errorf("latency per flight %s, want 50µs", sc.LatencyPerFlight)
	}
	b, _ = json.Marshal(sc)
	for _, f := range []string{`"time":"continuous"`, `"window":"10ms"`, `"latency":"lognormal:5ms,2ms"`, `"first_spread":"40ms"`, `"latency_per_flight":"50µs"`} {
		if !strings.Contains(string(b), f) {
			t.Errorf("JSON %s lacks %s", b, f)
		}
	}
	var back Scenario
	if err := json.Unmarshal(b, &back); err != nil || back.Time != sc.Time || back.Latency != sc.Latency || back.FirstSpread != sc.FirstSpread || back.LatencyPerFlight != sc.LatencyPerFlight || back.Policy.TickLength() != sc.Policy.TickLength() {
		t.Errorf("read back %+v, %v", back, err)
	}
	b, _ = json.Marshal(Default())
	if !strings.Contains(string(b), `"time":"tick"`) || strings.Contains(string(b), "latency") {
		t.Errorf("tick JSON %s", b)
	}
}
