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
