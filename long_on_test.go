//go:build long

package herd_test

import (
	"testing"

	"github.com/herdlab/herd/claims"
)

// longSuite is set by the long build tag: the statistical suites then run
// at full size (go test -tags long, which .ci/run runs), except under the
// race detector, where they keep the default run's size (the engines run
// about tenfold slower; .ci/run runs them at full size without it).
const longSuite = !raceDetector

// claimsAtSeed1Of is the claims of the origins at the default budget and
// seed 1, taken from the long suite's one evaluation of every claim
// (claimsAtSeed1): a claim's result depends only on its scenario, budget
// and seed, not on which others are evaluated beside it.
func claimsAtSeed1Of(t *testing.T, origins ...string) []claims.Result {
	t.Helper()
	var got []claims.Result
	for _, origin := range origins {
		for _, r := range claimsAtSeed1(t) {
			if r.Origin == origin {
				got = append(got, r)
			}
		}
	}
	return got
}
