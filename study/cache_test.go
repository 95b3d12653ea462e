package study

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// A run's Cache hands out what playing the run again gives, byte for byte:
// runs that differ in one thing the address covers (policy, trials, seed,
// engine, arrivals, the traffic of an open loop) each get their own result,
// and asking again, in any order and several at once, gives the first
// result. Dropping one of those from the address (tried by hand: trials)
// makes the second of two runs that differ in it come back with the
// first's numbers, and this test fail.
func TestCacheIsUncachedBytes(t *testing.T) {
	type run struct {
		sc  model.Scenario
		opt montecarlo.Options
	}
	full := model.Default()
	equal := full
	equal.Policy.Kind = policy.Equal
	base := montecarlo.Options{Trials: 40, Seed: 3, Workers: 2}
	more, seed, clients, arr := base, base, base, base
	more.Trials, seed.Seed, clients.Use, arr.Arrivals = 41, 4, montecarlo.Clients, true
	runs := []run{{full, base}, {equal, base}, {full, more}, {full, seed}, {full, clients}, {full, arr}}

	uncached := make([][]byte, len(runs))
	for i, r := range runs {
		s, err := analysis.Simulate(analysis.WithCache(context.Background(), nil), r.sc, r.opt)
		if err != nil {
			t.Fatal(err)
		}
		uncached[i], _ = json.Marshal(s)
	}
	c := analysis.NewCache()
	ctx := analysis.WithCache(context.Background(), c)
	order := []int{5, 0, 1, 0, 2, 3, 4, 2, 1, 5, 3, 4}
	got := make([][]byte, len(order))
	if err := analysis.EachPoint(ctx, len(order), 4, func(ctx context.Context, j int) error {
		r := runs[order[j]]
		s, err := analysis.Simulate(ctx, r.sc, r.opt)
		got[j], _ = json.Marshal(s)
		return err
	}, nil); err != nil {
		t.Fatal(err)
	}
	for j, i := range order {
		if string(got[j]) != string(uncached[i]) {
			t.Errorf("run %d (ask %d): cached\n%s\nuncached\n%s", i, j, got[j], uncached[i])
		}
	}
	if hits, misses := c.Stats(); misses != int64(len(runs)) || hits != int64(len(order)-len(runs)) {
		t.Errorf("%d hits, %d misses; want %d and %d", hits, misses, len(order)-len(runs), len(runs))
	}

	// The open loop: traffic is part of the address.
	sc, tr := MetastabilityScenario()
	tr.Ticks, tr.Rate, tr.OutageLength = 300, 10, 20
	tr2 := tr
	tr2.Rate = 12
	opt := montecarlo.Options{Trials: 20, Seed: 1}
	for _, tr := range []model.Traffic{tr, tr2, tr} {
		a, err := analysis.SimulateTraffic(ctx, sc, tr, control.Controls{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		b, err := analysis.SimulateTraffic(analysis.WithCache(context.Background(), nil), sc, tr, control.Controls{}, opt)
		if err != nil {
			t.Fatal(err)
		}
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if string(ja) != string(jb) {
			t.Errorf("traffic at rate %g: cached\n%s\nuncached\n%s", tr.Rate, ja, jb)
		}
	}
}

// A failed run is not kept: a cancelled context fails the run, and the
// next ask plays it.
func TestCacheDropsFailures(t *testing.T) {
	c := analysis.NewCache()
	ctx := analysis.WithCache(context.Background(), c)
	dead, cancel := context.WithCancel(ctx)
	cancel()
	opt := montecarlo.Options{Trials: 10, Seed: 1}
	if _, err := analysis.Simulate(dead, model.Default(), opt); err == nil {
		t.Fatal("a cancelled run succeeded")
	}
	if _, err := analysis.Simulate(ctx, model.Default(), opt); err != nil {
		t.Fatalf("after a cancelled run: %v", err)
	}
	if _, misses := c.Stats(); misses != 2 {
		t.Errorf("%d misses, want 2 (the failure is played again)", misses)
	}
}

// RunPaired plays each point of a sensitivity grid once and gives what
// Run and Compare give played apart, uncached, byte for byte: the
// summaries and the paired differences. Under a cache it plays one run
// per point, and keeps the paired policies' summaries with their outcomes.
// Playing the summary and the outcomes apart (tried by hand: Simulate then
// Outcomes in RunPaired), or not keeping the summary that Outcomes played
// (no offer), makes this test fail.
func TestRunPairedPlaysOnce(t *testing.T) {
	opt := montecarlo.Options{Trials: 60, Seed: 5, Workers: 2}
	for _, kinds := range [][]policy.Kind{Jittered, {policy.Equal, policy.Full}} {
		g := SensitivityGrid{Kinds: kinds, Bases: []float64{0.5, 2}, Caps: []float64{8, 64}, Trials: opt.Trials}
		bare := analysis.WithCache(context.Background(), nil)
		want, err := g.Run(bare, opt, nil)
		if err != nil {
			t.Fatal(err)
		}
		var wantDiff [][]analysis.Comparison
		for _, base := range g.Bases {
			var row []analysis.Comparison
			for _, cap := range g.Caps {
				c, err := analysis.Compare(bare, g.Scenario(policy.Full, base, cap), g.Scenario(policy.Decorrelated, base, cap), opt)
				if err != nil {
					t.Fatal(err)
				}
				row = append(row, c)
			}
			wantDiff = append(wantDiff, row)
		}
		c := analysis.NewCache()
		calls := 0
		got, diff, err := g.RunPaired(analysis.WithCache(context.Background(), c), opt, func(done, total int) { calls = total })
		if err != nil {
			t.Fatal(err)
		}
		for name, pair := range map[string][2]any{"summaries": {want, got}, "differences": {wantDiff, diff}} {
			a, _ := json.Marshal(pair[0])
			b, _ := json.Marshal(pair[1])
			if string(a) != string(b) {
				t.Errorf("kinds %v: %s of RunPaired\n%s\nplayed apart\n%s", kinds, name, b, a)
			}
		}
		plays := 0 // Kinds, Full and Decorrelated on the grid
		for _, k := range []policy.Kind{policy.Full, policy.Equal, policy.Decorrelated} {
			if slices.Contains(kinds, k) || k != policy.Equal {
				plays += len(g.Bases) * len(g.Caps)
			}
		}
		if _, misses := c.Stats(); misses != int64(plays) || calls != plays {
			t.Errorf("kinds %v: %d runs played, progress over %d; want %d", kinds, misses, calls, plays)
		}
		// The paired policies' summaries are in the cache, kept by their play.
		ctx := analysis.WithCache(context.Background(), c)
		for _, k := range []policy.Kind{policy.Full, policy.Decorrelated} {
			if _, err := analysis.Simulate(ctx, g.Scenario(k, g.Bases[0], g.Caps[0]), opt); err != nil {
				t.Fatal(err)
			}
		}
		if _, misses := c.Stats(); misses != int64(plays) {
			t.Errorf("kinds %v: Simulate after RunPaired played %d more runs, want none", kinds, misses-int64(plays))
		}
	}
}

// The cache's arrival tapes change no number: recovery against load and a
// metastability map, whose runs share their trials' arrivals across
// controls and outages, give with a cache (runs reading one another's
// tapes, several at once) what they give with none (every run drawing its
// own). Breaking what a tape stands for (tried by hand: a quiet stretch
// read off the tape counting one call too few) makes this test fail.
func TestCacheTapesAreUncachedBytes(t *testing.T) {
	sc, base := MetastabilityScenario()
	base.Ticks, base.OutageLength = 800, 30
	ctls := StandardControls()
	loads := []float64{0.3, 0.5, 0.9}
	grid := MapGrid{Loads: loads, Outages: []int{0, 30}}
	opt := montecarlo.Options{Trials: 12, Seed: 2, Workers: 2}
	play := func(ctx context.Context) []byte {
		r, err := RecoveryVersusLoad(ctx, sc, base, ctls, loads, opt)
		if err != nil {
			t.Fatal(err)
		}
		var maps []MetastabilityMap
		for _, ctl := range ctls {
			m, err := Metastability(ctx, sc, base, ctl, grid, opt)
			if err != nil {
				t.Fatal(err)
			}
			maps = append(maps, m)
		}
		b, _ := json.Marshal([]any{r, maps})
		return b
	}
	uncached := play(analysis.WithCache(context.Background(), nil))
	c := analysis.NewCache()
	cached := play(analysis.WithCache(context.Background(), c))
	if string(cached) != string(uncached) {
		t.Errorf("with tapes\n%s\nwithout\n%s", cached, uncached)
	}
	if c.TapesKept() == 0 {
		t.Error("no tape was kept")
	}
}
