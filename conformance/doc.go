// Package conformance checks herd's library presets against the real
// libraries. It is a separate module so that herd's own module does not
// depend on the libraries it models.
//
// For every preset whose library is a Go module served by the module proxy,
// the tests draw at least 10,000 delays per retry number from the library
// and from herd's preset (policy.Preset.Law) and compare the two laws with a
// two-sample Kolmogorov–Smirnov test (gonum's stat.KolmogorovSmirnov) at a
// Bonferroni-corrected family-wise level of 0.001. Deterministic parts —
// delays without jitter, retry limits, elapsed-time limits — must match
// exactly. TestAlteredPresetsAreRejected shows that the same checks reject
// a preset whose formula is altered (retry numbers shifted by one, or
// delays scaled by 10%).
//
// Run it with `make conformance` (or `cd conformance && go test ./...`).
package conformance
