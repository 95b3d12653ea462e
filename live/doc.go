// Command live checks herd's continuous-time prediction against real retry
// libraries and a real server, in wall-clock time.
//
// It starts a loopback window server (net/http on 127.0.0.1 only) that
// admits the first k requests of each window of length τ and answers the
// rest at once with 503, then releases N goroutine clients at one instant.
// Each client retries with a real library's default backoff: cenkalti/backoff
// v4, avast/retry-go v4, hashicorp/go-retryablehttp, or a hand-written Full
// Jitter; the delays they draw are recorded through the libraries' own hooks.
//
// Each repetition measures calls, completion and give-ups, and, from the
// times of every exchange, the network herd's model takes (the machine's
// time per way in flight, the clients' own time, the first arrivals and
// answers, the machine's stalls). herd predicts the same scenario in
// continuous time from that network, and a case agrees when herd's mean is
// within 5% of the live mean or within the wider of two 95% intervals (the
// runs' paired differences, and herd's own law of the runs' mean).
//
// With -nginx the server is a real nginx's limit_req on 127.0.0.1 instead
// (one per run, in the foreground, stopped after it), predicted by herd's
// gcra server (make live-nginx; docs/limiters.md).
//
// docs/live.md says in full what is measured, how herd is judged, why cases
// run one at a time, and what -trace, -replay and -load=false do.
//
// Every loop is bounded, every server is closed after its repetition, and
// nothing listens beyond 127.0.0.1.
//
//	make live-check            # the full grid (about 16 minutes idle)
//	cd live && go run . -short # the short version .ci/run runs
package main
