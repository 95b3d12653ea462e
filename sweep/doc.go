// Package sweep runs a grid of scenarios and writes one JSON line per point,
// so that a large study can be split over machines and joined again byte
// for byte.
//
//   - A SweepSpec is a Grid (the text of each varied field, as its flag
//     would take it: lists, lo:hi:step and lo:hi:*factor ranges) with the
//     trials, seed and engine of every point; ReadSweepSpec reads one from
//     a YAML or JSON file and Validate checks its run settings against
//     montecarlo's bounds. Points expands the grid in a fixed order
//     (GridFields, the last varying fastest) and Hash names the sweep.
//   - RunSweep simulates the points (analysis.Simulate) and emits a
//     SweepRow per point in grid order, each carrying the spec's hash and
//     ending with an integrity check (a hash of the row's other bytes)
//     that ResumeFrom and Merge verify, naming the file and line of a bad
//     row (RowError).
//   - A Shard runs every n-th point (ParseShard reads "i/n" or the
//     Kubernetes and Slurm array variables; ShardPoints lists a shard's
//     points); ResumeFrom continues an interrupted shard, and Merge joins
//     shards into the unsharded bytes, refusing missing, duplicated and
//     foreign ones.
//
// A row depends only on the spec, its point and the binary, never on the
// workers or the shard.
package sweep
