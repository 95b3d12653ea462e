// Command live checks herd's continuous-time prediction against real retry
// libraries and a real server (issue 19).
//
// It starts a loopback window server (net/http on 127.0.0.1 only) that
// admits the first k requests of each window of length τ — windows counted
// from the first request that arrives — and answers the rest at once with
// 503, then releases N goroutine clients at one instant. Each client retries
// with a real library's default backoff: cenkalti/backoff v4.3.0
// (ExponentialBackOff through RetryNotify), avast/retry-go v4.7.0 (Do with its
// defaults), hashicorp/go-retryablehttp v0.7.8 (Client.Do with its defaults),
// or a hand-written Full Jitter (U(0, min(32τ, τ·2ⁿ)) before retry n, no
// limit). The delays the libraries draw are recorded through their own hooks
// (Notify, DelayType, Backoff), which wrap and return the library's value.
//
// Each repetition measures calls (requests the server saw), completion (when
// the server admitted its last request, from the first arrival: herd's
// completion in continuous time is in the server's time too) and give-ups; and the two parameters of the network that herd's
// model takes: the spread of the first arrivals over [0, S), and the round
// trip of each retry, the time from a failure at the server to the client's
// next arrival there less the delay the library drew (the response's way
// back, the timer's lateness and the next request's way there). herd then
// predicts the same scenario in continuous time (analysis.Simulate with
// --window τ, --first-spread S and a uniform --latency with the measured
// quartiles: see measuredNetwork) and the two are compared: a case agrees when
// herd's mean is within 5% of the live mean, or within the combined 95%
// intervals where those are wider.
//
// Every loop is bounded (the libraries' limits, an attempt cap for Full
// Jitter, a per-request timeout and a total -timeout), every server is
// closed after its repetition, and nothing listens beyond 127.0.0.1.
//
//	make live-check           # the grid (a few minutes)
//	cd live && go run . -short # the short version .ci/run runs
package main
