package control

import "math"

// EnvoyBudget is an Envoy cluster's retry budget
// (envoy.config.cluster.v3.CircuitBreakers.Thresholds.RetryBudget, as
// source/common/upstream/resource_manager_impl.h applies it): a retry is
// allowed while the retries outstanding are fewer than
// max(⌊BudgetPercent/100 · (active + pending requests)⌋,
// MinRetryConcurrency). A retry is outstanding from the moment it is
// granted, through its back-off, until its own outcome; the requests that
// have failed and wait in back-off are no longer active requests
// (envoyproxy/envoy#30205). Envoy's defaults are 20% and 3.
//
// It is one state shared by every request through one Envoy, which herd's
// per-client controls cannot hold: herd computes its decisions on a wave
// of simultaneous failures (FirstWave) and does not play it in a
// simulation.
type EnvoyBudget struct {
	BudgetPercent       float64 // percent, 20 for 20%
	MinRetryConcurrency int
}

// DefaultEnvoyBudget is Envoy's RetryBudget with no field set.
func DefaultEnvoyBudget() EnvoyBudget {
	return EnvoyBudget{BudgetPercent: 20, MinRetryConcurrency: 3}
}

// limit is the budget's ceiling on outstanding retries with active
// requests in flight.
func (b EnvoyBudget) limit(active int) int {
	return max(int(math.Floor(b.BudgetPercent/100*float64(active))), b.MinRetryConcurrency)
}

// FirstWave is how many of n requests that fail together the budget lets
// retry. Envoy decides them one at a time: the j-th decision (j = 1…n)
// sees the n − j requests whose failures it has not handled yet as active
// (its own stream is gone) and the retries granted before it as
// outstanding, since they wait in back-off. With counted false it plays
// the accounting envoy#30205 warns against, retries in back-off not
// counted: every decision then sees none outstanding.
func (b EnvoyBudget) FirstWave(n int, counted bool) int {
	granted := 0
	for j := 1; j <= n; j++ {
		outstanding := granted
		if !counted {
			outstanding = 0
		}
		if outstanding < b.limit(n-j) {
			granted++
		}
	}
	return granted
}
