package plots

import (
	"math"
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

// The band is the upper ends left to right, then the lower ends right to
// left, with unbounded and non-positive ends clipped to a log axis.
func TestBandClipsToLogAxis(t *testing.T) {
	p := newPanel("", "x", "y")
	ys := newSpan()
	ys.add(1, 100)
	if err := frame(&p.Y, ys, true); err != nil {
		t.Fatal(err)
	}
	pts := []point{{1, 2, -3, 5}, {2, 10, 0, math.Inf(1)}, {3, 50, 40, 60}}
	poly, err := band(p, pts, black)
	if err != nil {
		t.Fatal(err)
	}
	ring := poly.XYs[0]
	wantX := []float64{1, 2, 3, 3, 2, 1}
	wantY := []float64{5, p.Y.Max, 60, 40, p.Y.Min, p.Y.Min}
	if len(ring) != len(wantX) {
		t.Fatalf("ring has %d vertices, want %d", len(ring), len(wantX))
	}
	for i, v := range ring {
		if v.X != wantX[i] || v.Y != wantY[i] {
			t.Errorf("vertex %d = (%g, %g), want (%g, %g)", i, v.X, v.Y, wantX[i], wantY[i])
		}
		if v.Y <= 0 {
			t.Errorf("vertex %d reaches the log axis with %g ≤ 0", i, v.Y)
		}
	}
}

func TestFrameRejectsNonPositiveOnLogAxis(t *testing.T) {
	var ax plot.Axis
	s := newSpan()
	s.add(0, 10)
	if err := frame(&ax, s, true); err == nil || !strings.Contains(err.Error(), "≤ 0") {
		t.Errorf("frame of [0, 10] on a log axis: %v, want an error", err)
	}
	// An interval end ≤ 0 is not a value: it is clipped, not an error.
	s = newSpan()
	s.addPoints([]point{{1, 2, -1, 5}})
	if err := frame(&ax, s, true); err != nil || ax.Min <= 0 || ax.Min > 2 || ax.Max < 5 {
		t.Errorf("frame of 2 in [-1, 5] on a log axis: [%g, %g], %v; want a positive range around [2, 5]", ax.Min, ax.Max, err)
	}
	s = newSpan()
	s.add(math.Inf(1), math.NaN())
	if err := frame(&ax, s, false); err == nil {
		t.Error("frame of no finite value succeeded")
	}
}

func TestTicks(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var l []string
		for _, t := range ts {
			if t.Label != "" {
				l = append(l, t.Label)
			}
		}
		return l
	}
	for _, c := range []struct {
		ticker     plot.Ticker
		min, max   float64
		wantLabels string
	}{
		{plainTicks{}, 0, 18.5, "0 5 10 15"},
		{plainTicks{}, -0.2, 1.1, "0 0.5 1"},
		{plainTicks{}, 12, 41, "15 20 25 30 35 40"},
		{logTicks{}, 0.9, 1100, "1 10 100 1000"},
		{logTicks{}, 9, 41, "9 10 20 30 40"},
		{logTicks{}, 0.9, 60, "1 2 5 10 20 50"},
	} {
		if got := strings.Join(labels(c.ticker.Ticks(c.min, c.max)), " "); got != c.wantLabels {
			t.Errorf("%T on [%g, %g]: labels %q, want %q", c.ticker, c.min, c.max, got, c.wantLabels)
		}
	}
}
