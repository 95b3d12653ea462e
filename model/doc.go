// Package model is herd's vocabulary: what a thundering-herd experiment
// is, in the user's words.
//
// A Scenario says who retries against what: N clients that all send their
// first request at tick 0 (or spread over a first-request window), a Server
// (capacity, collision, the continuous-time OCC row, flaky, queue, and the
// limiters in continuous time: a token bucket and nginx's GCRA), a retry
// policy (package policy) and the Rounding that turns its delays into
// ticks, and a time model: whole ticks, or continuous time against the
// window server (timemodel.go). Scenario.Validate is the one place where
// the valid range of every field is decided; its errors are FieldErrors
// that name the command-line flag. Spec builds a Scenario from what a user
// said (flags, a sweep grid's point, a spec file) and is the one place the
// defaults that depend on the server and the policy are applied.
//
// Traffic turns a scenario into an open loop with an outage (or, with
// ClosedLoop, a closed loop of clients), and defines the server's goodput
// under overload, when a run has recovered and whether it drains.
// Amplification is the closed form of retries stacked over layers.
//
// The semantics are DESIGN.md's; docs/models.md derives them at length.
// The retry controls are package control, the analytical models package
// solve.
package model
