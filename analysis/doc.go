// Package analysis turns trials and models into statistics that carry their
// uncertainty.
//
// Every estimate has its sample size and a 95% interval: Student-t for means
// (Estimate), exact distribution-free order-statistic intervals for the
// quantiles of a per-trial quantity such as completion (QuantileOf), and
// Woodruff intervals with trial-clustered standard errors for the quantiles
// of per-client latency, whose values within one trial are not independent
// (LatencyQuantiles). Simulate runs the Monte Carlo engine and folds its
// trials into a Summary.
//
// A sweep (SweepSpec, from flags or a YAML/JSON file via ReadSweepSpec)
// expands a Grid into scenarios; RunSweep simulates them and emits one JSON
// line per point in grid order, each carrying the spec's hash. A Shard runs
// every n-th point (ParseShard reads Kubernetes and Slurm array variables),
// ResumeFrom continues an interrupted shard, and Merge joins shards into
// the unsharded bytes, refusing missing, duplicated and foreign ones.
//
// Validate is the cross-validation of the two routes: it runs a grid of
// scenarios (DefaultValidationGrid) through the analytical models of
// package model and through Monte Carlo and judges each Check — the closed
// form against every trial, the exact chain by Bonferroni-corrected z
// scores and a chi-square test of the law of completion, the mean field by
// its relative error in calls and by that error shrinking with N.
//
// SimulateTraffic folds open-loop trials into a TrafficSummary (recovered
// share with its exact Clopper–Pearson interval, recovery time over the
// trials that recovered, goodput, calls per new request, requests given up
// by cause). Metastability and RecoveryVersusLoad sweep it over λ/k and
// outage length; Amplify sets the layered closed form beside its
// simulation; ControlClaims turns all of it into verdicts on published
// claims.
//
// SimulateClosedLoop does the same for a closed loop of clients.
// ReproduceBrooker reruns the experiments of Brooker's retry_sim on the
// flaky server beside the recorded values of his simulator
// (data/brooker_retry_sim.json, with their provenance).
//
// ReproduceAWS reruns the AWS blog's OCC simulation (AWSCallsVersusClients
// and AWSTimeVersusClients are its figures' data). The claims registry
// (Claims, EvaluateClaims) holds the statements of the blog and the seed
// articles with their exact quotes; a Lab runs each claim's check in the
// model it was made in and in the other (capacity vs OCC), caching runs so
// that policies are compared trial by trial on common random numbers, and
// turns paired intervals into verdicts: holds, fails, holds-only-when (with
// a condition found by bisection over the client count) or inconclusive.
package analysis
