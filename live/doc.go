// Command live checks herd's continuous-time prediction against real retry
// libraries and a real server.
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
// completion in continuous time is in the server's time too) and give-ups;
// and, from the times of every exchange (the client's send and answer, the
// server's decision) and never from the calls, the network that herd's
// model takes (the load model, -load, the default; see loadNetwork and
// firstArrivals):
//
//   - the machine's time per way, herd's --latency-per-flight: the clients
//     and the server share two cores, so a request's way to the server and
//     its answer's way back take longer the more exchanges are in flight
//     (at τ = 10 ms and N = 1,000 the round trips are ~100 ms while 1,000
//     are in flight and ~1 ms at the end, with ~50 µs per exchange in
//     flight): P is the median of way/(1 + others in flight);
//   - the clients' own time between an answer and the next send less the
//     delay drawn (the timer's lateness), herd's --latency, the uniform law
//     with its quartiles;
//   - the first arrivals' law, herd's --first-arrivals, their quantiles at
//     every 5%, of each run: the burst reaches the server in clumps, not
//     uniformly, and at a different moment in each run;
//   - the law of the first sends' answers back at their clients, herd's
//     --first-answers, of each run: the answers to the burst come back in
//     a clump of their own, which keeps the first retries bunched;
//   - the machine's stalls, herd's --stalls: gaps of at least 2 ms with no
//     send, decision or answer at all while at least 3 exchanges were in
//     flight, after the first wave (the ways and the own time are measured
//     without them); a gap with one in flight is mostly that exchange's own
//     time (see minStuck; -replay FILE -gaps prints the gaps' rate by the
//     number in flight).
//
// With -load=false herd gets the earlier model instead: first arrivals
// uniform over the measured spread and the retries' round trips (failure
// to next arrival less the delay) as one uniform law with their quartiles,
// independent of the load; the table prints its ratios beside the load
// model's. herd predicts the same scenario in continuous time
// (analysis.Simulate with --window τ), once for each run from that run's
// first arrivals and the rest of the network pooled over the runs (see
// judge), and the two are compared: a case agrees when herd's mean is
// within 5% of the live mean, or, where that is wider, within the wider of
// two 95% intervals: the t-interval of the runs' paired differences (herd
// − live) and the interval herd itself puts on the runs' mean (the central
// 95% of the law of the mean of one of its trials per run, each with its
// run's network: a few runs can all miss a mode that herd gives, such as a
// 4th attempt 400 ms later, and their own spread is then too narrow; and
// the law's quantiles rather than a normal interval, because a run's law
// can be two-point, see meanInterval). Under the table the report says how
// many measures the intervals judged (each of them would disagree by chance
// up to 5% of the time were herd exactly right) and how far the runs
// differ from herd's prediction of each in herd's standard deviations of
// one run, by case and pooled, beside what that would be were herd's law
// right (see dispersion).
//
// Cases are measured one at a time: another case's burst on the same two
// cores doubles a case's first-send spread and round trips, load that
// herd's model of the case does not have (with -parallel 2 the cases with
// windows of 50 ms or more are measured two at a time, and those with
// shorter windows still alone, after them). The machine should be idle: on a shared machine whose other sessions run
// in their own scheduler groups (Linux autogroups), nice does not make them
// yield, and the live process then stalls for tens to hundreds of ms at a
// time (the server admits nothing meanwhile); --stalls models that only as
// an exponential on/off machine. -trace writes every request's times to a
// CSV file to look at them, and -replay judges herd again on such a file
// (measured from the requests' times as a live run measures them), so that
// a change to herd's model can be judged on runs recorded on an idle
// machine while the machine is busy.
//
// Every loop is bounded (the libraries' limits, an attempt cap for Full
// Jitter, a per-request timeout and a total -timeout), every server is
// closed after its repetition, and nothing listens beyond 127.0.0.1.
//
//	make live-check           # the grid (about 16 minutes idle, one case at a time)
//	cd live && go run . -short # the short version .ci/run runs
package main
