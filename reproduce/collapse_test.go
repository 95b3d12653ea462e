package reproduce

import (
	"context"
	"math"
	"testing"

	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/stats"
)

func brookerSetting(t *testing.T, shape, variant string) CollapseSetting {
	t.Helper()
	for _, s := range BrookerCollapse() {
		if s.Shape == shape && s.Variant == variant {
			return s
		}
	}
	t.Fatalf("no row %s %s", shape, variant)
	return CollapseSetting{}
}

// The ramp's amplification over [50 s, 70 s) agrees within 5% with the
// independent simulation of his script, without backoff and with his
// jittered backoff.
func TestBrookerRampAmplificationMatchesIndependent(t *testing.T) {
	n := 20
	if longSuite {
		n = 400
	}
	for _, v := range []string{"no-backoff", "backoff"} {
		s := brookerSetting(t, "ramp", v)
		row, err := PlayCollapse(context.Background(), s, service.Options{Trials: n, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		var ind stats.Moments
		for i := range n {
			sim := runBrookerSim(uint64(i)+1, true, v == "backoff")
			st, _, re := sim.window(50, 70)
			ind.Add(float64(st+re) / float64(st))
		}
		e := ind.Estimate()
		if d := math.Abs(row.Amplification.Mean - e.Mean); d > 0.05*e.Mean {
			t.Errorf("%s: herd %.3f, independent %.3f ± %.3f: differ by more than 5%%", v, row.Amplification.Mean, e.Mean, e.SE())
		}
		t.Logf("%s: herd %.3f ± %.3f, independent %.3f ± %.3f (his script %g)", v, row.Amplification.Mean, row.Amplification.SE(), e.Mean, e.SE(), s.Published)
	}
}

// The spike's collapsed share without backoff agrees with the independent
// simulation's (a two-sided two-proportion z test at 99.9%), and with his
// jittered backoff no run collapses.
func TestBrookerSpikeCollapseMatchesIndependent(t *testing.T) {
	n := 30
	if longSuite {
		n = 1000
	}
	s := brookerSetting(t, "spike", "no-backoff")
	row, err := PlayCollapse(context.Background(), s, service.Options{Trials: n, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	agree := func(name string, row CollapseRow, backoff bool) int {
		k := 0
		for i := range n {
			sim := runBrookerSim(uint64(i)+1, false, backoff)
			if _, good, _ := sim.window(60, 80); float64(good)/20 < s.CollapseGoodput {
				k++
			}
		}
		p1, p2 := row.Collapsed.Value, float64(k)/float64(n)
		p := (p1 + p2) / 2
		if se := math.Sqrt(p * (1 - p) * 2 / float64(n)); math.Abs(p1-p2) > 3.29*se {
			t.Errorf("%s collapsed: herd %d of %d, independent %d of %d: differ at 99.9%%", name, row.Collapsed.Count, n, k, n)
		}
		t.Logf("%s collapsed: herd %d/%d, independent %d/%d", name, row.Collapsed.Count, n, k, n)
		return k
	}
	agree("no-backoff", row, false)
	b, err := PlayCollapse(context.Background(), brookerSetting(t, "spike", "backoff"), service.Options{Trials: n, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	agree("backoff", b, true)
	// With his backoff a collapse is rare (about 1 run in 1,000 in both
	// simulations): none in the short run, under 1% in the long one.
	if !longSuite && b.Collapsed.Count != 0 || b.Collapsed.CI95[1] >= 0.01 && longSuite {
		t.Errorf("with his backoff %d of %d runs collapsed (%v)", b.Collapsed.Count, n, b.Collapsed.CI95)
	}
}

// With even arrivals nothing is random: the 1 s pause never recovers, the
// 0.45 s pause recovers, and without retries every pause recovers.
func TestGCCollapseEven(t *testing.T) {
	for _, s := range GCCollapse() {
		if s.Arrivals != "even" {
			continue
		}
		row, err := PlayCollapse(context.Background(), s, service.Options{Trials: 5, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		if row.Trials != 1 {
			t.Errorf("pause %g retries %d: %d trials of a run without randomness, want 1", s.PauseS, s.Retries, row.Trials)
		}
		want := -1
		switch {
		case s.Retries == 0 || s.PauseS == 0.45:
			want = 0
		case s.PauseS == 1:
			want = 1
		}
		if want >= 0 && row.Collapsed.Count != want {
			t.Errorf("pause %g retries %d: collapsed %d, want %d", s.PauseS, s.Retries, row.Collapsed.Count, want)
		}
	}
}
