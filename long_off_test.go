//go:build !long

package herd_test

import (
	"context"
	"testing"

	"github.com/herdlab/herd/claims"
)

// longSuite is set by the long build tag: the statistical suites then run
// at full size (go test -tags long, which .ci/run runs).
const longSuite = false

// claimsAtSeed1Of evaluates the claims of the origins at the default budget
// and seed 1.
func claimsAtSeed1Of(t *testing.T, origins ...string) []claims.Result {
	t.Helper()
	var got []claims.Result
	for _, origin := range origins {
		r, err := claims.Evaluate(context.Background(), claims.Options{Seed: 1, Origin: origin})
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, r...)
	}
	return got
}
