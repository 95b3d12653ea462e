// Package herd is a research toolkit for retry backoff with jitter.
//
// When N clients fail at the same moment and retry, each policy — fixed
// delay, exponential without jitter, Full, Equal and Decorrelated Jitter —
// costs the server some number of calls and takes some time until every
// client is served. herd computes this two independent ways that must
// agree, analytical models and seeded Monte Carlo, and reports every number
// with its 95% interval and its provenance.
//
// The packages, in the direction of their imports (docs/ARCHITECTURE.md
// says where each rule lives):
//
//   - model: the vocabulary (Scenario, Server, Policy, Rounding) and the
//     analytical models. It imports no other herd package.
//   - montecarlo: the simulation engines and the parallel, reproducible
//     trial runner (trial i draws from a stream derived only from the seed,
//     the scenario and i), and the bounds of a run (Options.Validate).
//   - stats: values that carry their uncertainty (Student-t estimates,
//     order-statistic and clustered quantile intervals, Clopper–Pearson
//     shares, paired differences) and the tests that compare them. It
//     imports no other herd package.
//   - analysis: the studies and reproductions — Simulate, the comparison of
//     models with Monte Carlo (Validate), the seed and AWS reproductions,
//     audits, open-loop and layered runs, and the studies the figures and
//     the paper share.
//   - claims: the registry of published claims and the one vocabulary of
//     verdicts (holds, fails, holds-only-when, inconclusive).
//   - sweep: grids of scenarios, spec files, shards, resume and merge.
//   - plots: one function per figure; paperdata: every number and table of
//     the paper, from the same studies as the figures.
//   - cmd/herd: the command line, which only parses, calls and formats.
//
// The semantics every package shares are in DESIGN.md; analysis_test.go
// states the project's top-level claims as tests.
package herd
