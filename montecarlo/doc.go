// Package montecarlo simulates scenarios trial by trial.
//
// An Engine plays one trial of a scenario from a random stream and records
// it in a Trial. Run spreads trials over workers, gives trial i the stream
// Stream(seed, scenario, i) — derived only from the seed, the scenario's
// clients, capacity, server and first-request window, and i — and hands the
// trials to a fold function strictly in trial order, so every statistic
// built from them is byte-identical whatever the number of workers.
//
// Because the stream does not depend on the policy, two policies run on
// the same scenario and seed share their random numbers trial by trial
// (common random numbers), which is what paired comparisons need.
//
// ClientEngine is the per-client tick engine: a ring of per-tick buckets
// holds who sends when, so its cost grows with the number of calls, not with
// ticks × clients. CountEngine plays policies whose delay law depends on the
// retry number alone on counts per (tick, retry class) — hypergeometric
// winners, multinomial delays — so its cost does not grow with N at all;
// it draws from the same law as ClientEngine (count_test.go proves it with
// two-sample tests). Choose, called by NewEngine and NewEngineUsing, is the
// one place that decides which engine plays a scenario: Default (the zero
// value of Options.Use, the CLI's default) and Auto take the count engine
// wherever it can play the scenario, the per-client engine otherwise, and
// Run uses fewer workers rather than more than MemoryBudget.
//
// OpenLoopEngine, the request engine, plays model.Traffic: Poisson
// arrivals of new requests from the scenario's clients (the OpenLoop
// workload) or each client's next request after its last one ended (the
// ClosedLoop workload), an outage, retries under the policy and the
// per-client retry controls of control.Controls (controls.go composes their
// model.ControlStates: asked before each send and retry, told each start
// and outcome), on the capacity, collision or flaky server, and records
// whether and when the backlog recovers after the outage in Trial.Open; a
// draining trial plays on after its last tick until no request is pending. StackEngine walks a call tree through layers that each retry,
// to check model.Amplification.
//
// OCCEngine is the event engine of the AWS blog's optimistic-concurrency
// row (model.OCC): continuous time in milliseconds, one pending write per
// client in a 4-ary heap, each client on its own random stream so that
// policies share their draws. It fills Trial.Time (and CallTimes) instead
// of the tick fields; Trial.CompletionTime reads either kind of trial.
//
// WindowEngine plays the cohort in continuous time (model.ContinuousTime,
// the Window workload that CohortOf picks): arrivals at real times against
// the window server, which admits the first k arrivals of each window; a
// failed attempt comes back one round trip plus its unrounded delay later.
// It shares the OCC engine's heap and per-client streams, allocates
// nothing per event, and records give-ups and latencies in ms (a
// histogram of geometric bins, LatencyBinEdge) besides Trial.Time.
//
// RunStations plays Håstad, Leighton and Rogoff's channel (Stations): N
// stations with FIFO queues fed Bernoulli arrivals, whose heads send with
// probability 1/W_b after b collisions, on the collision server; trial i
// on Stream(seed, scenario, i), whatever the workers.
package montecarlo
