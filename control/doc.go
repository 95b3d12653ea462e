// Package control is the retry controls that limit retries whatever the
// policy: an attempt limit and at most one Control of each kind, each with
// its source's parameters and its per-client rule as a ControlState in its
// own file.
//
//   - retry token buckets (bucket.go): the AWS SDKs' legacy and 2026
//     quotas, herd's reading of Brooker's post, his simulator's bucket;
//   - circuit breakers (breaker.go): herd's sliding window, Brooker's
//     simulator's;
//   - Finagle's retry budget (budget.go);
//   - gRPC retry throttling and the SRE book's adaptive throttling
//     (throttling.go).
//
// Controls.List is the order they are asked in; the engines of package
// montecarlo only compose them.
package control
