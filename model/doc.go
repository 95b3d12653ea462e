// Package model is herd's vocabulary and its analytical models.
//
// # Vocabulary
//
// A Scenario says who retries against what: N clients that all send their
// first request at tick 0 (or spread over a first-request window), a Server
// that accepts at most k requests per tick (capacity, collision, or the
// continuous-time OCC row of occ.go), a retry Policy and the Rounding that
// turns a policy's delay into whole ticks. Scenario.Validate is the one
// place where the valid range of every field is decided; its errors are
// FieldErrors that name the command-line flag.
//
// The semantics are those of DESIGN.md: a client that fails at tick t with
// retry number n (the first retry has n = 1) draws a delay δ from its policy
// and sends again at t + max(1, round(δ)). Policy.Law gives the law of δ, a
// Law: a clamped uniform min(Max, U(Lo, Hi)), which is what every textbook
// policy is, or a lattice or warped uniform for the libraries whose delays
// are not. Law.Draw is the one place a delay is drawn and Law.CDF gives its
// distribution. Rounding.Waits turns a Law into the exact
// law of the wait in ticks (the mass on each Rounding.Interval), the rule
// every model below uses.
//
// That is the tick model. A Scenario's TimeModel may instead be continuous
// time (timemodel.go): the capacity server becomes the window server, whose
// windows (the policy's tick) admit their first k arrivals, a failed
// attempt comes back one RoundTrip plus its unrounded delay later, and the
// first sends spread over FirstSpread. Spec chooses it from --time, or from
// --window, --latency and --first-spread; the analytical models refuse it,
// except WindowClosedForm for a cohort whose delays and round trip are
// certain. Scenario.JitterWithinTick warns where the tick model's rounding,
// not a policy's jitter, decides where its retries land.
//
// # Policies: one table of rules
//
// A Kind names a policy, and each kind has one rule in a registry
// (rules.go): the law of retry n given the client's state, the start state,
// whether the law depends on that state (Policy.Stateful), the number of
// retry classes (Policy.Classes: retries that share a law), the supremum of
// each retry's delay and the largest delay (Policy.MaxDelay), whether
// chance enters (Policy.Random), its units, and its formula (Kind.Formula).
// Every Policy method is one lookup of the kind in that registry.
//
// The textbook policies (Kinds: none, fixed, expo, full, equal,
// decorrelated) take the policy's Base, Cap and FixedDelay, in ticks. The
// library presets (Presets, preset.go) model one client library's default
// backoff each, cited to the source they were written from; their delays
// are the library's own, in seconds, turned into ticks by Policy.Tick, and
// their default limits (Preset.Policy) make clients give up. Both kinds of
// rule stand side by side: adding a policy is adding one rule.
//
// Controls limit retries whatever the policy: an attempt limit and at most
// one Control of each kind, each with its source's parameters and its
// per-client rule as a ControlState in its own file — the retry token
// buckets (bucket.go: the AWS SDKs' legacy and 2026 quotas, herd's reading
// of Brooker's post, his simulator's bucket), the circuit breakers
// (breaker.go: herd's sliding window, Brooker's simulator's), Finagle's
// retry budget (budget.go), gRPC retry throttling and the SRE book's
// adaptive throttling (throttling.go). Traffic turns a scenario into an
// open loop with an outage (or, with ClosedLoop, a closed loop of clients
// with one request each), and defines the server's goodput under overload
// (RejectCost), when a run has recovered and whether it drains. The flaky
// server (flaky.go) fails calls at random whatever the load.
// Amplification is the closed form of retries stacked over layers.
//
// # Models
//
// Three models answer a scenario without simulating it; each refuses, with
// an *Unsupported naming the reason, what it cannot answer. None follows
// clients that give up (a retry limit or a largest elapsed time) or a
// preset that draws from its previous draw: those are for simulation.
//
// ClosedForm is exact for a synchronized cohort (first window 1) whose
// waits are certain — none, fixed, expo, or jitter too narrow to change the
// rounded wait. All pending clients send together, so wave r has N − r·k
// clients, there are R = ⌈N/k⌉ waves, calls = R·N − k·R(R−1)/2, and
// completion is one more than the sum of the first R − 1 waits. The
// collision server with N > k never serves anyone, and ClosedForm says so.
//
// MarkovChain is exact for small cohorts of any policy whose law depends
// on the retry number alone (and decorrelated when its waits are certain),
// on both servers, with any rounding and first window. Its state is the multiset
// of pending clients by (retry class, ticks until they send); retry numbers
// that share all their future wait laws are one class. It assumes nothing
// beyond the scenario semantics: winners are a uniform k-subset
// (multivariate hypergeometric by class), waits are independent draws from
// Rounding.Waits, and it propagates the probability of every state tick by
// tick. Its cost is the number of reachable states, which grows
// combinatorially with N and the width of the wait laws; it refuses a
// scenario past MarkovOptions.MaxStates, and decorrelated otherwise, whose
// law depends on a continuous previous delay.
//
// MeanFieldModel approximates large cohorts by expected numbers and their
// fluctuations: expected arrivals per tick and retry class, the covariance
// of the arrivals booked for the next ticks (the linear-noise
// approximation), and a tick's arrivals drawn from a count law with that
// mean and variance to get its failures' law (so tick 0, where all N
// arrive, is exact); failures spread forward by the same wait laws, and
// decorrelated's previous delay lives on a grid chosen from a tolerance.
// Its law of completion (completionLaw) is built from each tick's failures
// and their next waits, with the ticks that straddle the capacity coupled
// through their correlated arrivals. It is exact only in the limit of large
// N at fixed N/k; herd validate measures its error, and a model result
// quotes it as its validity.
package model
