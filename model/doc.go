// Package model is herd's vocabulary and its analytical models.
//
// A Scenario says who retries against what: N clients that all send their
// first request at tick 0 (or spread over a first-request window), a Server
// that accepts at most k requests per tick, a retry Policy and the Rounding
// that turns a policy's delay into whole ticks. Scenario.Validate is the one
// place where the valid range of every field is decided.
//
// The semantics are those of DESIGN.md: a client that fails at tick t with
// retry number n (the first retry has n = 1) draws a delay δ from its policy
// and sends again at t + max(1, round(δ)). Policy.Law gives the law of δ as a
// clamped uniform, min(Max, U(Lo, Hi)), which is what every textbook policy
// is; the Monte Carlo engines draw from it and the analytical models
// integrate it.
//
// Controls (attempt limit, AWS SDK and Brooker retry token buckets, a
// per-client circuit breaker) limit retries whatever the policy. Traffic
// turns a scenario into an open loop with an outage, and defines the
// server's goodput under overload (RejectCost) and when a run has recovered.
// Amplification is the closed form of retries stacked over layers.
package model
