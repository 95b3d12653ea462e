package study

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// TestAuditFlagsSynchronizedDefaults: on a herd of 2,000 clients against
// k = 20 at 1 s ticks, the presets without jitter (retryablehttp's
// DefaultBackoff, failsafe-go's no-delay default) send every first retry
// within one second and must be flagged; full jitter spreads its first
// retry over two seconds (U(0, 2)) and must not be. Rows are ranked and the best has no
// difference from itself.
func TestAuditFlagsSynchronizedDefaults(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 2000, 20
	a, err := RunAudit(context.Background(), sc, nil, montecarlo.Options{Trials: 20, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(policy.Kinds()) + len(policy.Presets()); len(a.Rows) != want {
		t.Fatalf("%d rows, want %d", len(a.Rows), want)
	}
	sync := a.Synchronized()
	for _, p := range []string{"retryablehttp-default", "failsafe-go-default"} {
		if !slices.Contains(sync, p) {
			t.Errorf("%s not flagged synchronized (flagged: %v)", p, sync)
		}
	}
	for i, r := range a.Rows {
		if r.Rank != i+1 {
			t.Errorf("row %d has rank %d", i, r.Rank)
		}
		if r.Policy == "full" && r.Synchronized {
			t.Errorf("full jitter flagged synchronized: sync %v", r.Sync.Mean)
		}
		if i > 0 && auditLess(r, a.Rows[i-1]) {
			t.Errorf("rows %d and %d out of order", i-1, i)
		}
	}
	if d := a.Rows[0].VsBest.Completion; d.Mean != 0 || d.Significant {
		t.Errorf("best row differs from itself: %+v", d)
	}
	if pts := PresetsAuditData(a); len(pts) != len(a.Rows) {
		t.Errorf("figure data has %d points for %d rows", len(pts), len(a.Rows))
	}
}

// The synchronized flags are defined in real time, so an audit of the
// same server (the same capacity per second) gives the library presets the
// same flags at 1 s, 100 ms and 10 ms ticks. (Textbook policies take their
// base and cap in ticks, so their delays, and flags, change with the tick.)
func TestAuditSyncFlagsHoldAtEveryTick(t *testing.T) {
	var want []string
	for _, tick := range []string{"1s", "100ms", "10ms"} {
		var spec model.Spec
		spec.Set("clients", "300")
		spec.Set("capacity", "100/s")
		spec.Set("tick", tick)
		sc, err := spec.Scenario()
		if err != nil {
			t.Fatal(err)
		}
		a, err := RunAudit(context.Background(), sc, nil, montecarlo.Options{Trials: 2, Seed: 1, Use: montecarlo.Auto}, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := a.Synchronized()
		slices.Sort(got) // rows come in rank order, which the tick may change
		if want == nil {
			want = got
			if len(got) == 0 || len(got) == len(policy.Presets()) {
				t.Fatalf("tick %s: %d of %d presets flagged; the check needs some of each", tick, len(got), len(policy.Presets()))
			}
			continue
		}
		if !slices.Equal(got, want) {
			t.Errorf("tick %s flags %v, tick 1s flags %v", tick, got, want)
		}
	}
}

// FirstRetrySync on laws whose answer is known: a point mass puts every
// first retry in one window, U(0, 2 s) puts half in a 1 s window, and a
// first-request window of two 1 s ticks spreads a point mass over two.
func TestFirstRetrySync(t *testing.T) {
	sc := model.Default()
	sc.Policy.Tick = time.Second
	for _, c := range []struct {
		kind policy.Kind
		w    int
		want float64
	}{{policy.Expo, 1, 1}, {policy.Full, 1, 0.5}, {policy.Equal, 1, 1}, {policy.Expo, 2, 0.5}, {policy.Full, 2, 0.5}} {
		sc.Policy.Kind, sc.FirstWindow = c.kind, c.w
		if got, err := FirstRetrySync(context.Background(), sc, time.Second); err != nil || math.Abs(got-c.want) > 1/400.0+1e-9 {
			t.Errorf("%s W=%d: %g (%v), want %g", c.kind, c.w, got, err, c.want)
		}
	}
}

// FirstRetrySync's scan costs the first window's square (10¹⁰ law
// evaluations here): a cancel at 50 ms ends it with the context's error
// within a few seconds.
func TestFirstRetrySyncStopsWhenCancelled(t *testing.T) {
	sc := model.Default()
	sc.FirstWindow = 100_000
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if _, err := FirstRetrySync(ctx, sc, time.Second); !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 5*time.Second {
		t.Errorf("%v after %v, want the context's error within 5 s", err, time.Since(start).Round(time.Millisecond))
	}
}
