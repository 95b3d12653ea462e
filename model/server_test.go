package model

import (
	"errors"
	"testing"
)

// half serves half of a tick's arrivals, at most k: a server added as one
// type and one registry line reaches parsing, validation, the horizon and
// the serving rule through its variant alone.
type half struct{}

func (half) Name() string           { return "half" }
func (half) Served(m, k int) int    { return min(m/2, k) }
func (half) Plays() Plays           { return Plays{Cohort: TickEngines} }
func (half) Words(Scenario) string  { return "serves half" }
func (half) Brief(Scenario) string  { return " half" }
func (half) horizon(s Scenario) int { return 77 }
func (half) validate(s Scenario, bad badField) error {
	if s.Capacity%2 != 0 {
		return bad("capacity", "even on the half server", s.Capacity)
	}
	return nil
}

func TestAServerIsOneVariant(t *testing.T) {
	saved := servers
	t.Cleanup(func() { servers = saved })
	servers = append(append([]ServerVariant(nil), saved...), half{})

	kind, err := ParseServer("half")
	if err != nil {
		t.Fatal(err)
	}
	sc := Default()
	sc.Server, sc.Capacity = kind, 10
	if err := sc.Validate(); err != nil {
		t.Fatalf("valid scenario refused: %v", err)
	}
	if got := sc.DefaultHorizon(); got != 77 {
		t.Errorf("horizon %d, want the variant's 77", got)
	}
	if got := sc.Served(15); got != 7 {
		t.Errorf("served %d of 15, want 7", got)
	}
	if kind.String() != "half" || ServerNames()[len(ServerNames())-1] != "half" {
		t.Errorf("names: %s, %v", kind, ServerNames())
	}
	sc.Capacity = 9
	var fe *FieldError
	if err := sc.Validate(); !errors.As(err, &fe) || fe.Flag != "capacity" {
		t.Errorf("odd capacity: got %v, want the variant's refusal", err)
	}
	sc.Capacity, sc.FailureRate = 10, 0.5
	if err := sc.Validate(); !errors.As(err, &fe) || fe.Flag != "failure-rate" {
		t.Errorf("failure rate on a server without one: got %v", err)
	}
}

// The capacity and collision rules of one tick.
func TestServedByServer(t *testing.T) {
	for _, c := range []struct {
		s       Server
		m, k, w int
	}{{Capacity, 3, 5, 3}, {Capacity, 8, 5, 5}, {Collision, 5, 5, 5}, {Collision, 6, 5, 0}, {Queue, 8, 5, 5}} {
		if got := c.s.Variant().Served(c.m, c.k); got != c.w {
			t.Errorf("%s serves %d of %d at k=%d, want %d", c.s, got, c.m, c.k, c.w)
		}
	}
}
