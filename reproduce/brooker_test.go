package reproduce

import (
	"context"
	"math"
	"testing"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// The record says where its numbers come from, and every row it holds is
// complete: one count triple per seed, with unique calls ≥ successes and
// total calls ≥ unique calls.
func TestBrookerRecord(t *testing.T) {
	rec, err := Brooker()
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Commit) != 40 || rec.Command == "" || rec.Date == "" || rec.Python == "" || rec.MaxT != 10 || len(rec.Published) == 0 {
		t.Fatalf("provenance incomplete: %+v", rec)
	}
	runs := rec.Seeds[1] - rec.Seeds[0] + 1
	for _, r := range rec.Rows {
		if len(r.Runs) != runs {
			t.Errorf("%s %s p = %g: %d runs, want %d", r.Experiment, r.Name, r.FailureRate, len(r.Runs), runs)
		}
		for _, x := range r.Runs {
			if x[2] < x[0] || x[1] < x[2] || x[2] < int64(r.Clients) {
				t.Errorf("%s %s p = %g: counts %v", r.Experiment, r.Name, r.FailureRate, x)
			}
		}
	}
	for _, r := range rec.Reproduced() {
		if _, _, _, err := BrookerSetting(r, rec.MaxT); err != nil {
			t.Error(err)
		}
	}
}

// herd's rerun agrees with the recorded rows of his simulator at the
// Bonferroni level — here those at p = 0.1 and 0.5 (every row under -tags
// long: brooker_long_test.go) — and his bucket gives 1.14 ± 0.01 calls
// per request at p = 0.5. The test can fail: herd's own "brooker" bucket
// (10 tokens, a deposit per success) in place of his simulator's, on the
// p = 0.5 row, disagrees.
func TestBrookerReproductionAgrees(t *testing.T) {
	rec, err := Brooker()
	if err != nil {
		t.Fatal(err)
	}
	var rows []BrookerRow
	for _, r := range rec.Reproduced() {
		if r.FailureRate == 0.1 || r.FailureRate == 0.5 {
			rows = append(rows, r)
		}
	}
	checkBrooker(t, rec, rows)
}

func checkBrooker(t *testing.T, rec BrookerRecord, rows []BrookerRow) {
	ctx := context.Background()
	opt := montecarlo.Options{Trials: 100, Seed: 1}
	r, err := rec.Reproduce(ctx, rows, opt, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r.Agree != r.Comparisons || r.Comparisons != 2*len(rows) {
		for _, row := range r.Rows {
			for _, c := range []Compared{row.Load, row.Success} {
				if !c.Agrees {
					t.Errorf("%s %s p = %g: herd %g ± %g, his %g ± %g (z = %.1f)", row.Experiment, row.Name, row.FailureRate, c.Mean, c.SE(), c.Published.Mean, c.Published.SD, c.Z)
				}
			}
		}
		t.Fatalf("%d of %d comparisons agree", r.Agree, r.Comparisons)
	}
	var bucket *BrookerComparison
	for i, row := range r.Rows {
		if row.Experiment == "run_sims_retry_backoff" && row.Name == "adaptive_10pct_no_backoff" && row.FailureRate == 0.5 {
			bucket = &r.Rows[i]
		}
	}
	if bucket == nil || math.Abs(bucket.Load.Mean-1.14) > 0.01 {
		t.Fatalf("his bucket at p = 0.5 (the no-backoff row of his backoff experiment, the setting of the post's 1.14): %+v", bucket)
	}
	// The planted mistake, on that same row.
	planted := 0
	for _, row := range r.Record.Rows {
		if row.Experiment != bucket.Experiment || row.Name != bucket.Name || row.FailureRate != 0.5 {
			continue
		}
		planted++
		sc, tr, _, err := BrookerSetting(row, r.Record.MaxT)
		if err != nil {
			t.Fatal(err)
		}
		s, err := analysis.SimulateTraffic(ctx, sc, tr, control.Controls{Bucket: control.DefaultBucket(control.BrookerBucket)}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if a := stats.AgreePooled(s.Load, row.Load(), r.Level); a.Agrees {
			t.Errorf("herd's brooker bucket (load %g) agrees with his simulator's (%g): the check cannot tell them apart", s.Load.Mean, row.Load().Mean)
		}
	}
	if planted != 1 {
		t.Fatalf("the planted mistake ran on %d rows, want 1", planted)
	}
}
