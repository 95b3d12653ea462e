// Package service is the continuous-time service server, as deployed
// services are: c FIFO workers behind a waiting room, a service-time law
// with a concurrency slope, a load that steps and ramps, clients whose
// requests cross a network each way, time out from the send and retry,
// work wasted or cancelled, pauses. A Run says one server, load and client
// rule; RunTrials plays seeded, reproducible trials of it in parallel.
// docs/servers.md gives the semantics and what was checked.
package service
