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
package analysis
