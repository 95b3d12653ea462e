// Package policy is herd's retry policies and the laws of their delays.
//
// A client that fails with retry number n (the first retry has n = 1)
// draws a delay from its policy's Law (Policy.Law): a clamped uniform
// min(Max, U(Lo, Hi)), which every textbook policy is, or a lattice or
// warped uniform for the libraries whose delays are not. Law.Draw is the
// one place a delay is drawn and Law.CDF gives its distribution;
// Rounding.Waits turns a Law into the exact law of the wait in ticks.
//
// A Kind names a policy and each kind has one rule in one table
// (rules.go): its law given the client's state, start state, retry
// classes, largest delay, randomness, units and formula. The textbook
// policies take Base, Cap and FixedDelay in ticks; the library presets
// (preset.go) model one library's default backoff each, in seconds, cited
// to their source; the window policies of the contention literature
// (contention.go) stand beside them. Adding a policy is adding one rule.
//
// The delay analyser (delays.go, delaychain.go) gives the exact law of
// each delay, of the total wait until retry n and of the time to give up.
// docs/models.md has the derivations.
package policy
