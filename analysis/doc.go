// Package analysis is herd's runner: it plays scenarios on the Monte Carlo
// engines and folds the trials into summaries whose numbers carry their
// uncertainty (package stats), and it checks the analytical models against
// them.
//
//   - Simulate runs one scenario and returns a Summary; SimulateEach runs
//     several on common random numbers; Compare, Outcomes, CompareOutcomes
//     and ComparePolicies pair trial i of one scenario with trial i of
//     another. SimulateTraffic and SimulateClosedLoop fold open- and
//     closed-loop trials into a TrafficSummary.
//   - A Cache (WithCache) shares results within a run, addressed by their
//     content, so that each is played once; EachPoint plays independent
//     points side by side, results in order. Neither changes a byte.
//   - Validate cross-checks the two routes on a grid of scenarios
//     (DefaultValidationGrid): closed form, exact Markov chain, queue chain
//     and mean field against Monte Carlo, each Check with a verdict; the
//     Validity of each model says how far its numbers can be trusted.
//
// The studies built on it are in package study, the reproductions of
// published experiments in package reproduce.
package analysis
