//go:build race

package montecarlo

// slowdown is how many times slower the engines run in this build: the
// race detector's instrumentation costs them about tenfold, so bounds on
// how soon a run stops (which poll every so much work, not every so much
// time) stretch by as much.
const slowdown = 10
