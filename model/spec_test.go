package model

import (
	"errors"
	"fmt"
	"github.com/herdlab/herd/policy"
	"strings"
	"testing"
	"time"
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
	for _, c := range []struct{ rate, tick string }{{"100/s", "3ms"}, {"100/s", ""}, {"0/s", "1s"}, {"1/fortnight", "1s"}} {
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
