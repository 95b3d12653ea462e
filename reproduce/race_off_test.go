//go:build !race

package reproduce

// raceDetector is set by the race build (go test -race): the statistical
// suites that grow under the long tag then keep their default size, since
// the detector slows the engines about tenfold (see longSuite).
const raceDetector = false
