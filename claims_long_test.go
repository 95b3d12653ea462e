//go:build long

package herd_test

// The long statistical suites of the paper's statements (go test -tags
// long, make test-long): every claim's verdict at the default budget, the
// verdicts' stability across seeds, and the mean field at 10⁵ clients.
// Each takes from tens of seconds to minutes of CPU; the default run keeps
// a cheaper check of the same property, named in each comment.

import (
	"context"
	"sync"
	"testing"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/claims"
	"github.com/herdlab/herd/model"
)

// At larger cohorts than herd validate's grid the mean field's expected
// calls stay within 1% of Monte Carlo (the Bonferroni interval of the
// relative error at 99.9% over these cases must lie inside ±1%).
// (Default run: TestModelsAgreeWithMonteCarlo's mean-field checks at
// N ≤ 10,000.)
func TestMeanFieldCallsWithinOnePercentAtScale(t *testing.T) {
	var grid []analysis.ValidationCase
	for _, kind := range []model.Kind{model.Full, model.Equal} {
		for _, nk := range [][2]int{{100_000, 1000}, {10_000, 100}, {2000, 10}} {
			sc := model.Default()
			sc.Clients, sc.Capacity, sc.Policy.Kind = nk[0], nk[1], kind
			grid = append(grid, analysis.ValidationCase{Method: analysis.MethodMeanField, Scenario: sc, Trials: 200})
		}
	}
	v, err := analysis.Validate(context.Background(), grid, analysis.ValidateOptions{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range v.Checks {
		if c.Quantity == "calls" && c.Verdict != analysis.Pass {
			t.Errorf("%+v: %s", c.Scenario, c.Detail)
		}
		t.Logf("N=%d k=%d %s %s: %s", c.Scenario.Clients, c.Scenario.Capacity, c.Scenario.Policy.Kind, c.Quantity, c.Detail)
	}
}

var (
	claimsOnce  sync.Once
	claimsSeed1 []claims.Result
	claimsErr   error
)

func claimsAtSeed1(t *testing.T) []claims.Result {
	t.Helper()
	claimsOnce.Do(func() {
		claimsSeed1, claimsErr = claims.Evaluate(context.Background(), claims.Options{Seed: 1})
	})
	if claimsErr != nil {
		t.Fatal(claimsErr)
	}
	return claimsSeed1
}

// Every registered claim, the control claims included, gets the verdict of
// wantVerdicts at the default budget and seed 1. (Default run:
// TestCapacityAndOCCClaimVerdicts, the claims with two models.)
func TestClaimVerdicts(t *testing.T) {
	if len(wantVerdicts) < 15 {
		t.Fatalf("wantVerdicts holds %d claims, want at least 15", len(wantVerdicts))
	}
	checkClaimVerdicts(t, claimsAtSeed1(t), len(wantVerdicts))
}

// No verdict flips between two seeds at the default budget, unless one of
// them is inconclusive. (Conditions, such as a crossover client count, may
// move with the seed; the verdict may not.)
func TestClaimVerdictsStableAcrossSeeds(t *testing.T) {
	a := claimsAtSeed1(t)
	b, err := claims.Evaluate(context.Background(), claims.Options{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		for _, p := range [][2]claims.Verdict{{a[i].Verdict, b[i].Verdict}, {a[i].Other.Verdict, b[i].Other.Verdict}} {
			if p[0] != p[1] && p[0] != claims.Inconclusive && p[1] != claims.Inconclusive {
				t.Errorf("%s: %s at seed 1, %s at seed 2", a[i].ID, p[0], p[1])
			}
		}
	}
}
