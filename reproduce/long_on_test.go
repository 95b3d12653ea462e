//go:build long

package reproduce

// longSuite is set by the long build tag: the statistical suites then run
// at full size (go test -tags long, which .ci/run runs), except under the
// race detector, where they keep the default run's size (the engines run
// about tenfold slower; .ci/run runs them at full size without it).
const longSuite = !raceDetector
