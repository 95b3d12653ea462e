// Package herd is a research toolkit for retry backoff with jitter.
//
// When N clients fail at the same moment and retry, each policy — fixed
// delay, exponential without jitter, Full, Equal and Decorrelated Jitter —
// costs the server some number of calls and takes some time until every
// client is served. herd computes this two independent ways that must
// agree, analytical models and seeded Monte Carlo, and reports every number
// with its 95% interval and its provenance.
//
// The packages, in the direction of their imports:
//
//   - model: the vocabulary (Scenario, Server, Policy, Rounding) and the
//     analytical models. It imports no other herd package.
//   - montecarlo: the simulation engines and the parallel, reproducible
//     trial runner (trial i draws from a stream derived only from the seed,
//     the scenario and i).
//   - analysis: statistics with intervals (Student-t for means,
//     order-statistic intervals for quantiles, paired comparisons), the
//     comparison of models with Monte Carlo, and reproductions of published
//     results.
//   - plots: one function per figure.
//   - cmd/herd: the command line, which only parses, calls and formats.
//
// The semantics every package shares are in DESIGN.md; analysis_test.go
// states the project's top-level claims as tests.
package herd
