package montecarlo

import (
	"syscall"
	"time"
)

// threadCPU is the CPU time (user + system) the calling OS thread has
// used, for benchmarks that lock their goroutine to its thread: on a busy
// machine it counts the work, where the wall clock counts the waiting too.
func threadCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
