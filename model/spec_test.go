package model

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/policy"
)

// A capacity given as a rate is the same server whatever the tick: its
// requests per second stay fixed while the tick shrinks, and a tick that
// would split a request is refused, not rounded.
func TestSpecCapacityRate(t *testing.T) {
	for _, c := range []struct {
		rate string
		tick time.Duration
		want int
	}{{"100/s", time.Second, 100}, {"100/s", 100 * time.Millisecond, 10}, {"100/s", 10 * time.Millisecond, 1}, {"5/ms", time.Second, 5000}, {"600/min", time.Second, 10}} {
		var s Spec
		if err := s.Set("capacity", c.rate); err != nil {
			t.Fatal(err)
		}
		s.Set("tick", c.tick.String())
		sc, err := s.Scenario()
		if err != nil || sc.Capacity != c.want {
			t.Errorf("-k %s --tick %s: capacity %d (%v), want %d", c.rate, c.tick, sc.Capacity, err, c.want)
		}
	}
	for _, c := range []struct{ rate, tick string }{{"100/s", "3ms"}, {"0/s", "1s"}, {"1/fortnight", "1s"}, {"5/2h", ""}, {"5/-1s", ""}} {
		var s Spec
		err := s.Set("capacity", c.rate)
		if err == nil && c.tick != "" {
			s.Set("tick", c.tick)
		}
		if err == nil {
			_, err = s.Scenario()
		}
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Flag != "capacity" {
			t.Errorf("-k %s --tick %q: %v; want a FieldError naming --capacity", c.rate, c.tick, err)
		}
	}
}

// A capacity per window, with no --tick, is a limiter in real time: the
// window server in continuous time, with that window and that many
// requests per window; --tick keeps the tick model.
func TestSpecCapacityPerWindow(t *testing.T) {
	for _, c := range []struct {
		kv     []string
		window time.Duration
		k      int
	}{
		{[]string{"capacity", "500/s"}, time.Second, 500},
		{[]string{"capacity", "500/sec"}, time.Second, 500},
		{[]string{"capacity", "50/100ms"}, 100 * time.Millisecond, 50},
		{[]string{"capacity", "600/minute"}, time.Minute, 600},
		{[]string{"capacity", "50/100ms", "policy", "retry-go-v4"}, 100 * time.Millisecond, 50},
		{[]string{"capacity", "500/s", "window", "100ms"}, 100 * time.Millisecond, 50},
	} {
		sc, err := ScenarioOf(c.kv...)
		if err != nil || !sc.InContinuousTime() || sc.Policy.Tick != c.window || sc.Capacity != c.k {
			t.Errorf("%v: continuous %v, window %s, k %d (%v); want continuous time, window %s, k %d", c.kv, sc.InContinuousTime(), sc.Policy.Tick, sc.Capacity, err, c.window, c.k)
		}
	}
	for _, kv := range [][]string{{"capacity", "500/s", "tick", "100ms"}, {"capacity", "500/s", "time", "tick", "policy", "retry-go-v4"}, {"capacity", "10/s", "server", "queue", "tick", "1s"}} {
		if sc, err := ScenarioOf(kv...); err != nil || sc.InContinuousTime() {
			t.Errorf("%v: continuous %v (%v); want the tick model", kv, sc.InContinuousTime(), err)
		}
	}
}

// A rate that is no whole number per window is refused with the same rate
// written per a window that holds whole requests, which is accepted.
func TestSpecCapacityHintsAWholeWindow(t *testing.T) {
	for rate, hint := range map[string]string{"0.5/s": "1/2s", "0.3/s": "3/10s", "2.5/s": "1/400ms"} {
		_, err := ScenarioOf("capacity", rate, "server", "gcra")
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Flag != "capacity" || !strings.Contains(err.Error(), "("+hint+")") {
			t.Errorf("-k %s: %v; want a FieldError naming --capacity that suggests %s", rate, err, hint)
			continue
		}
		if _, err := ScenarioOf("capacity", hint, "server", "gcra"); err != nil {
			t.Errorf("-k %s, the rate suggested for %s: %v", hint, rate, err)
		}
	}
}

// Delays given as durations are converted to the scenario's ticks (the
// window in continuous time), or to milliseconds on the OCC server, and
// --policy NAME:FIELD=VALUE,… sets the policy's own fields.
func TestSpecDelaysInRealUnits(t *testing.T) {
	sc, err := ScenarioOf("capacity", "500/s", "policy", "full", "base", "100ms", "cap", "10s")
	if err != nil || sc.Policy.Base != 0.1 || sc.Policy.Cap != 10 {
		t.Errorf("--base 100ms --cap 10s at 500/s: base %g, cap %g windows (%v); want 0.1, 10", sc.Policy.Base, sc.Policy.Cap, err)
	}
	sc, err = ScenarioOf("capacity", "10", "tick", "10ms", "policy", "full", "base", "100ms")
	if err != nil || sc.Policy.Base != 10 {
		t.Errorf("--base 100ms --tick 10ms: base %g ticks (%v); want 10", sc.Policy.Base, err)
	}
	sc, err = ScenarioOf("server", "occ", "policy", "full", "cap", "2s")
	if err != nil || sc.Policy.Cap != 2000 {
		t.Errorf("--server occ --cap 2s: cap %g (%v); want 2000 ms", sc.Policy.Cap, err)
	}
	sc, err = ScenarioOf("capacity", "500/s", "policy", "full:base=100ms,cap=10s,retries=9")
	if err != nil || sc.Policy.Kind != policy.Full || sc.Policy.Base != 0.1 || sc.Policy.Cap != 10 || sc.Policy.Retries != 9 {
		t.Errorf("--policy full:base=100ms,cap=10s,retries=9: %+v (%v)", sc.Policy, err)
	}
	for _, kv := range [][]string{
		{"policy", "full", "base", "100ms"},                   // abstract ticks
		{"policy", "full:base=1", "base", "2"},                // twice
		{"base", "2", "policy", "full:base=1"},                // twice, the other way
		{"policy", "full:rounding=floor"},                     // not a policy field
		{"policy", "full:base"},                               // no value
		{"capacity", "500/s", "policy", "full:base=1,base=2"}, // one field twice
	} {
		var fe *FieldError
		if _, err := ScenarioOf(kv...); !errors.As(err, &fe) {
			t.Errorf("%v: %v; want a FieldError", kv, err)
		}
	}
}

func TestSplitPolicies(t *testing.T) {
	got := SplitPolicies("retry-go-v4,full:base=100ms,cap=10s,retries=9,equal")
	want := []string{"retry-go-v4", "full:base=100ms,cap=10s,retries=9", "equal"}
	if !slices.Equal(got, want) {
		t.Errorf("SplitPolicies = %q, want %q", got, want)
	}
}

// Every field given to a Spec is what the scenario holds, and SpecOf
// rebuilds a scenario from its fields.
func TestSpecOfRoundTrips(t *testing.T) {
	for _, sc := range []Scenario{Default(), AWSScenario(50, policy.Equal), func() Scenario {
		p, _ := policy.LookupPreset("cenkalti-v4")
		s := Default()
		s.Policy = p.Policy(100 * time.Millisecond)
		return s
	}()} {
		got, err := SpecOf(sc).Scenario()
		if err != nil || got != sc {
			t.Errorf("SpecOf(%+v).Scenario() = %+v, %v", sc, got, err)
		}
	}
}

// A spec says only what was given: the server's defaults follow the
// server, so an OCC scenario gets the AWS blog's delays in ms.
func ExampleSpec() {
	var s Spec
	s.Set("server", "occ")
	s.Set("clients", "10")
	sc, _ := s.Scenario()
	fmt.Println(sc.Server, sc.Clients, sc.Policy.Base, sc.Policy.Cap)

	s.Set("capacity", "100/s") // a rate needs a real tick to become requests per tick
	s.Set("server", "capacity")
	s.Set("tick", "100ms")
	sc, _ = s.Scenario()
	fmt.Println(sc.Server, sc.Capacity, "per tick of", sc.Policy.Tick)
	// Output:
	// occ 10 5 2000
	// capacity 10 per tick of 100ms
}

// ScenarioOf sets its pairs in order, as the flags would be, and refuses
// an odd count and a bad field by name.
func TestScenarioOf(t *testing.T) {
	sc, err := ScenarioOf("policy", "full", "clients", "250", "capacity", "7")
	if err != nil || sc.Clients != 250 || sc.Capacity != 7 || sc.Policy.Kind != policy.Full {
		t.Errorf("ScenarioOf = %+v, %v; want full jitter, 250 clients, capacity 7", sc, err)
	}
	if _, err := ScenarioOf("clients"); err == nil {
		t.Error("an odd count: want an error")
	}
	if _, err := ScenarioOf("clients", "-3"); err == nil || !strings.Contains(err.Error(), "clients") {
		t.Errorf("clients -3: %v; want an error naming clients", err)
	}
}

// A capacity per window played in ticks of another length is another
// limiter, and the spec says so; per its own window it says nothing.
func TestSpecWarnsOfALimiterInOtherTicks(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		warn bool
	}{
		{[]string{"capacity", "500/s", "tick", "10ms", "policy", "retry-go-v4"}, true},
		{[]string{"capacity", "500/s", "tick", "1s", "policy", "retry-go-v4"}, false},
		{[]string{"capacity", "500/s", "policy", "retry-go-v4"}, false},
		{[]string{"capacity", "5", "tick", "10ms", "policy", "retry-go-v4"}, false},
	} {
		var s Spec
		for i := 0; i < len(c.kv); i += 2 {
			if err := s.Set(c.kv[i], c.kv[i+1]); err != nil {
				t.Fatal(err)
			}
		}
		sc, err := s.Scenario()
		if err != nil {
			t.Fatal(err)
		}
		if w := s.Warnings(sc); (len(w) > 0) != c.warn {
			t.Errorf("%v: warnings %q, want a warning %v", c.kv, w, c.warn)
		}
	}
}
