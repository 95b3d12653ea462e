// Package virtual checks herd's library presets against the libraries'
// own retry loops in virtual time.
//
// Each trial is one testing/synctest bubble: N goroutine clients start
// together, each running a real library's default retry loop (its timers,
// its jitter, its context handling), against herd's continuous-time window
// server in process (windows [iτ, (i+1)τ) from the start admit their first
// k calls and fail the rest at once; a call takes no time). The bubble's
// clock moves only when every goroutine is blocked, so a trial of 10⁴
// clients over minutes of virtual time takes about a second, with no
// network and no scheduler noise. Calls at one instant are decided in the
// order of the clients' numbers, and one client runs at a time after its
// answer, so that libraries drawing from a process-wide source (seeded per
// trial) give byte-identical reruns.
//
// Check compares the mean calls, completion and give-ups of each case with
// herd's continuous-time Monte Carlo of the preset (within 2% or the
// combined interval, Bonferroni over the check) and the law of completion
// by a two-sample Kolmogorov–Smirnov test. docs/virtual.md says what is
// measured and gives the results.
//
//	make virtual-check    # the whole grid (the last line: "A of M agree")
//	cd virtual && go test # the short check .ci/run runs
package virtual
