// Package analysis holds herd's studies and reproductions: it runs the
// Monte Carlo engine on scenarios and folds the trials into summaries whose
// numbers carry their uncertainty (package stats).
//
//   - Simulate runs one scenario and returns a Summary (calls, completion
//     and latency with their intervals and quantiles, censored trials
//     counted and warned about); SimulateEach runs several on common random
//     numbers. Compare, Outcomes and CompareOutcomes pair trial i of one
//     scenario with trial i of another.
//   - A Cache in the context (WithCache) shares results within a run:
//     Simulate, Outcomes, SimulateTraffic and SimulateClosedLoop look a run
//     up by its content (scenario, workload, trials, seed, engine,
//     arrivals) and play it only once; EachPoint plays independent points
//     side by side, results in order, so neither changes a byte.
//   - The studies shared by the figures and the paper are defined once, in
//     studies.go: LoadStudy, SensitivityStudy, TailStudy and AuditStudy,
//     each with its grid, its trials at full scale and a Run method, and
//     ScalingStudy, the doublings of N whose local exponents
//     (LocalExponent) judge the growth claims, with trials per rung chosen
//     from a pilot (RunRung); the policy lists Jittered and Certain go with
//     them.
//   - Validate cross-checks the two routes on a grid of scenarios
//     (DefaultValidationGrid): the closed form against every trial, the
//     exact Markov chain by Bonferroni-corrected z scores and a chi-square
//     test of the law of completion, the mean field by its relative error
//     and by that error shrinking with N. Each Check has a CheckVerdict:
//     pass, fail or info.
//   - ReproduceSeed reruns the seed article's table (Agree compares each
//     number with the printed one); ReproduceAWS reruns the AWS blog's OCC
//     simulation (AWSCallsVersusClients, AWSTimeVersusClients are its
//     figures' data); ReproduceBrooker reruns the experiments of Brooker's
//     retry_sim on the flaky server beside the recorded values of his
//     simulator (data/brooker_retry_sim.json, with their provenance).
//   - RunAudit ranks the textbook policies and every library preset on one
//     thundering herd; RunningQuantiles follows tail quantiles as trials
//     accumulate (convergence).
//   - SimulateTraffic folds open-loop trials into a TrafficSummary
//     (recovered share, recovery time, goodput, requests given up by
//     cause), SimulateClosedLoop closed-loop ones; Metastability and RecoveryVersusLoad sweep it over λ/k and
//     outage length, FirstWindowEffect over first-request windows, and
//     Amplify sets the layered closed form beside its simulation.
//
// Claims about published statements are judged in package claims, grids
// of scenarios are run by package sweep; both build on this package.
package analysis
