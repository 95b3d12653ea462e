//go:build !long

package reproduce

// longSuite is set by the long build tag: the statistical suites then run
// at full size (go test -tags long, which .ci/run runs).
const longSuite = false
