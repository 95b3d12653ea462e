package model

import (
	"encoding/json"
	"errors"
	"testing"
)

// The limiter servers read their rate from -k per window, their burst and
// nodelay from their flags, and keep them through JSON and SpecOf.
func TestLimiterSpec(t *testing.T) {
	for _, c := range []struct {
		kv          []string
		burst       int
		nodelay     bool
		rateMilli   int64
		windowMilli int64
	}{
		{[]string{"server", "token-bucket", "capacity", "500/s"}, 500, false, 500_000, 1000},
		{[]string{"server", "token-bucket", "capacity", "500/s", "burst", "100"}, 100, false, 500_000, 1000},
		{[]string{"server", "gcra", "capacity", "500/s", "burst", "100", "nodelay", "true"}, 100, true, 500_000, 1000},
		{[]string{"server", "gcra", "capacity", "30/min"}, 0, false, 500, 60_000},
		{[]string{"server", "gcra", "capacity", "5/10ms", "burst", "3"}, 3, false, 500_000, 10},
	} {
		sc, err := ScenarioOf(c.kv...)
		if err != nil {
			t.Fatalf("%v: %v", c.kv, err)
		}
		if !sc.InContinuousTime() || sc.Limiter.Burst != c.burst || sc.Limiter.Nodelay != c.nodelay || sc.RateMilli() != c.rateMilli || sc.Window().Milliseconds() != c.windowMilli {
			t.Errorf("%v: continuous %v, burst %d, nodelay %v, rate %d/1000 s, window %v", c.kv, sc.InContinuousTime(), sc.Limiter.Burst, sc.Limiter.Nodelay, sc.RateMilli(), sc.Window())
		}
		b, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		var back Scenario
		want := sc
		want.Horizon = sc.EffectiveHorizon() // JSON writes the horizon in force
		if err := json.Unmarshal(b, &back); err != nil || back != want {
			t.Errorf("%v: JSON %s reads back as %+v (%v)", c.kv, b, back, err)
		}
		if again, err := SpecOf(sc).Scenario(); err != nil || again != sc {
			t.Errorf("%v: SpecOf rebuilds %+v (%v)", c.kv, again, err)
		}
	}
}

// Each combination that means nothing is refused by the flag it names.
func TestLimiterRefusals(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		flag string
	}{
		{[]string{"server", "gcra", "capacity", "10"}, "time"},
		{[]string{"server", "token-bucket", "capacity", "10", "time", "tick"}, "time"},
		{[]string{"server", "token-bucket", "capacity", "500/s", "nodelay", "true"}, "nodelay"},
		{[]string{"server", "token-bucket", "capacity", "500/s", "burst", "0"}, "burst"},
		{[]string{"server", "gcra", "capacity", "500/s", "burst", "-1"}, "burst"},
		{[]string{"capacity", "500/s", "burst", "3"}, "burst"},
		{[]string{"capacity", "500/s", "nodelay", "true"}, "nodelay"},
		{[]string{"server", "queue", "burst", "3"}, "burst"},
		{[]string{"server", "gcra", "capacity", "1/h"}, "capacity"},
		{[]string{"server", "gcra", "capacity", "500/s", "nodelay", "maybe"}, "nodelay"},
		{[]string{"server", "gcra", "capacity", "500/s", "burst", "1.5"}, "burst"},
	} {
		_, err := ScenarioOf(c.kv...)
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("%v: got %v, want a refusal of --%s", c.kv, err, c.flag)
		}
	}
}

// nginx's millisecond clock bounds gcra's wait for its next admission, and
// so the horizon, when a window is shorter than a millisecond.
func TestLimiterHorizonCoversTheClock(t *testing.T) {
	sc, err := ScenarioOf("server", "gcra", "capacity", "1/100us", "clients", "10", "policy", "fixed", "fixed-delay", "1")
	if err != nil {
		t.Fatal(err)
	}
	// r = 10,000/s: one admission per 0.1 ms = 1 window, but nginx's
	// clock moves by whole ms: a bound is 1/r + 2 ms, 21 windows.
	if g := sc.admitGap(); g < 21-1e-9 || g > 21+1e-9 {
		t.Errorf("gap %v windows, want 21 (1/r + 2 ms in windows of 0.1 ms)", g)
	}
}
