package stats

import (
	"math"
	"testing"
)

// Known values of the exact interval: 0 of 100 → [0, 0.0362]; 100 of 100
// → [0.9638, 1]; no trials say nothing, [0, 1].
func TestNewShare(t *testing.T) {
	s := NewShare(0, 100)
	if s.Value != 0 || s.CI95[0] != 0 || math.Abs(s.CI95[1]-0.03621669) > 1e-6 {
		t.Errorf("0/100: %+v", s)
	}
	s = NewShare(100, 100)
	if s.Value != 1 || s.CI95[1] != 1 || math.Abs(s.CI95[0]-(1-0.03621669)) > 1e-6 {
		t.Errorf("100/100: %+v", s)
	}
	if s := NewShare(0, 0); s.Value != 0 || s.CI95 != (Interval{0, 1}) {
		t.Errorf("0/0: %+v", s)
	}
}

// Wilson's interval for 0 of 10 is [0, z²/(10 + z²)] = [0, 0.2775]; for 5
// of 10 it is 0.5 ± 0.2634 (Newcombe 1998, table I, method 3).
func TestWilson(t *testing.T) {
	if s := Wilson(0, 10); s.CI95[0] != 0 || math.Abs(s.CI95[1]-0.2775) > 1e-4 {
		t.Errorf("0/10: %+v", s)
	}
	if s := Wilson(5, 10); math.Abs(s.CI95[0]-0.2366) > 1e-4 || math.Abs(s.CI95[1]-0.7634) > 1e-4 {
		t.Errorf("5/10: %+v", s)
	}
}
