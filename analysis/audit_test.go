package analysis

import (
	"context"
	"slices"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// TestAuditFlagsSynchronizedDefaults: on a herd of 2,000 clients against
// k = 20 at 1 s ticks, the presets without jitter (retryablehttp's
// DefaultBackoff, failsafe-go's no-delay default) re-arrive as a whole and
// must be flagged; full jitter spreads its first retry over two ticks
// (U(0, 2)) and must not be. Rows are ranked and the best has no
// difference from itself.
func TestAuditFlagsSynchronizedDefaults(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 2000, 20
	a, err := RunAudit(context.Background(), sc, montecarlo.Options{Trials: 20, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(model.Kinds()) + len(model.Presets()); len(a.Rows) != want {
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
