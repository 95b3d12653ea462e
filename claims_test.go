package herd_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/herdlab/herd/analysis"
)

// The verdicts herd reaches on the registered claims at the default budget
// (analysis.DefaultClaimTrials trials per scenario, seed 1), in the claim's
// own model and in the other. A change to a model, an engine or a check
// that flips one of them fails here and has to be explained in review.
var wantVerdicts = map[string][2]analysis.Verdict{
	"aws-work-grows-n2":                              {analysis.Holds, analysis.Holds},
	"aws-time-grows-linearly":                        {analysis.Holds, analysis.Holds},
	"aws-expo-reduces-work-slightly":                 {analysis.HoldsOnlyWhen, analysis.Fails},
	"aws-expo-clusters":                              {analysis.Holds, analysis.Holds},
	"aws-full-gaps-gone":                             {analysis.Holds, analysis.Holds},
	"aws-full-halves-calls-at-100":                   {analysis.Holds, analysis.Fails},
	"aws-full-faster-than-expo":                      {analysis.Holds, analysis.Holds},
	"aws-full-equal-same-calls":                      {analysis.Holds, analysis.Holds},
	"aws-decorrelated-more-calls":                    {analysis.HoldsOnlyWhen, analysis.Fails},
	"aws-expo-clear-loser":                           {analysis.Holds, analysis.HoldsOnlyWhen},
	"aws-equal-slightly-more-work":                   {analysis.HoldsOnlyWhen, analysis.Fails},
	"aws-equal-much-longer":                          {analysis.Holds, analysis.Fails},
	"aws-full-less-work-more-time-than-decorrelated": {analysis.HoldsOnlyWhen, analysis.Fails},
	"aws-jitter-keeps-n2":                            {analysis.Fails, analysis.Fails},
	"seed-expo-as-many-calls-as-fixed":               {analysis.Holds, analysis.Fails},
	"seed-expo-13x-slower-at-200":                    {analysis.Holds, analysis.Holds},
	"seed-jitter-cuts-21-to-64":                      {analysis.Holds, analysis.HoldsOnlyWhen},
	"seed-jitter-cut-grows-with-n":                   {analysis.Holds, analysis.Holds},
	"seed-decorrelated-fewest-calls":                 {analysis.Holds, analysis.Fails},
	"seed-decorrelated-fastest-or-nearly":            {analysis.HoldsOnlyWhen, analysis.Holds},
	"seed-equal-widest-spread":                       {analysis.Holds, analysis.Fails},
	"seed-jitter-matters-more-than-which":            {analysis.Holds, analysis.Holds},
	"seed-expo-never-recovers":                       {analysis.HoldsOnlyWhen, analysis.Fails},
	"seed-full-disperses-most":                       {analysis.Fails, analysis.Fails},
	"seed-equal-min-wait-disperses-less":             {analysis.Holds, analysis.Fails},
}

var (
	claimsOnce  sync.Once
	claimsSeed1 []analysis.ClaimResult
	claimsErr   error
)

func claimsAtSeed1(t *testing.T) []analysis.ClaimResult {
	t.Helper()
	claimsOnce.Do(func() {
		claimsSeed1, claimsErr = analysis.EvaluateClaims(context.Background(), analysis.ClaimOptions{Seed: 1})
	})
	if claimsErr != nil {
		t.Fatal(claimsErr)
	}
	return claimsSeed1
}

func TestClaimVerdicts(t *testing.T) {
	got := claimsAtSeed1(t)
	if len(got) < 15 || len(got) != len(wantVerdicts) {
		t.Fatalf("%d claims evaluated, want the %d of wantVerdicts (at least 15)", len(got), len(wantVerdicts))
	}
	for _, c := range got {
		want, ok := wantVerdicts[c.ID]
		if !ok {
			t.Errorf("claim %s has no expected verdict", c.ID)
			continue
		}
		if c.Verdict != want[0] || c.Other.Verdict != want[1] {
			t.Errorf("%s: verdict %s (%s) / other model %s (%s), want %s / %s",
				c.ID, c.Verdict, c.Condition, c.Other.Verdict, c.Other.Condition, want[0], want[1])
		}
		if (c.Verdict == analysis.HoldsOnlyWhen) != (c.Condition != "") {
			t.Errorf("%s: verdict %s with condition %q", c.ID, c.Verdict, c.Condition)
		}
		if c.Quote == "" || c.Source == "" || c.Check == "" || len(c.Evidence) == 0 || len(c.Other.Evidence) == 0 {
			t.Errorf("%s: quote, source, check or evidence missing", c.ID)
		}
		wantTransfer := analysis.DoesNotTransfer
		if want[0] == want[1] && want[0] != analysis.Inconclusive {
			wantTransfer = analysis.Transfers
		}
		if c.Transfer != wantTransfer {
			t.Errorf("%s: transfer %q, want %q", c.ID, c.Transfer, wantTransfer)
		}
	}
}

// No verdict flips between two seeds at the default budget, unless one of
// them is inconclusive. (Conditions, such as a crossover client count, may
// move with the seed; the verdict may not.)
func TestClaimVerdictsStableAcrossSeeds(t *testing.T) {
	if testing.Short() {
		t.Skip("evaluates every claim at a second seed (about 20 s of CPU)")
	}
	a := claimsAtSeed1(t)
	b, err := analysis.EvaluateClaims(context.Background(), analysis.ClaimOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		for _, p := range [][2]analysis.Verdict{{a[i].Verdict, b[i].Verdict}, {a[i].Other.Verdict, b[i].Other.Verdict}} {
			if p[0] != p[1] && p[0] != analysis.Inconclusive && p[1] != analysis.Inconclusive {
				t.Errorf("%s: %s at seed 1, %s at seed 2", a[i].ID, p[0], p[1])
			}
		}
	}
}

// The same seed gives the same claims, byte for byte, whatever the number
// of workers.
func TestClaimsReproducible(t *testing.T) {
	run := func(workers int) []byte {
		r, err := analysis.EvaluateClaims(context.Background(), analysis.ClaimOptions{Trials: 100, Seed: 3, Workers: workers, Origin: "seed"})
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := run(1), run(3); string(a) != string(b) {
		t.Fatal("claims differ between 1 and 3 workers")
	}
}
