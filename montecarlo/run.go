package montecarlo

import (
	"context"
	"fmt"
	"runtime/debug"
	"sync"
	"sync/atomic"

	"github.com/herdlab/herd/model"
)

// Options says how many trials to run and how.
type Options struct {
	Trials   int    // ≥ 1
	Seed     uint64 // the seed of every trial's stream
	Workers  int    // goroutines; 0 means GOMAXPROCS
	Arrivals bool   // record the arrivals of every tick
	// Progress, when set, is called from the folding goroutine with the
	// number of trials folded so far.
	Progress func(done int)
	// Use names the engine; the zero value is Default (see Choose).
	Use EngineName
	// MaxMemory is the memory budget of the run in bytes (0: DefaultMemory);
	// NewPlan refuses a run whose one trial would not fit, and uses fewer
	// workers, never other results, when many would not.
	MaxMemory int64
	// Tapes, when set, shares the new arrivals of open-loop trials between
	// the runs that play them (ArrivalTapes); it never changes results.
	Tapes *ArrivalTapes

	// build, when set, builds each worker's engine instead of the
	// workload: a test's seam to plant a wrong engine.
	build func(model.Scenario) (Engine, error)
}

// DefaultOptions runs 1,000 trials with seed 1 on every core.
func DefaultOptions() Options { return Options{Trials: 1000, Seed: 1} }

// chunk is how many trials each worker plays, on average, between two
// folds. The fold sees the trials in index order whatever the chunk or the
// worker count. Every buffered trial holds its latency histogram, as long
// as its completion (200,000 ticks for an expo cohort with cap 2,048), so
// the buffer is kept to a few dozen trials per worker.
const chunk = 64

// Run plays opt.Trials trials of the cohort sc and calls fold with each, in
// trial order, from one goroutine. The *Trial passed to fold is reused after
// fold returns. Run stops at the first error from fold or at ctx's end. It
// is NewPlan(sc, CohortOf(sc), opt) and its Run.
func Run(ctx context.Context, sc model.Scenario, opt Options, fold func(*Trial) error) error {
	p, err := NewPlan(sc, CohortOf(sc), opt)
	if err != nil {
		return err
	}
	return p.Run(ctx, fold)
}

// play runs the trials on the engines, per trials per engine between two
// folds; the fold sees them in index order whatever the workers.
func play(ctx context.Context, sc model.Scenario, opt Options, engines []Engine, per int, fold func(*Trial) error) error {
	buf := make([]Trial, min(per*len(engines), opt.Trials))
	var stop atomic.Bool
	for i := range buf {
		buf[i].stop = &stop
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case <-ctx.Done():
			stop.Store(true)
		case <-done:
		}
	}()
	for start := 0; start < opt.Trials; start += len(buf) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(buf), opt.Trials-start)
		var next atomic.Int64
		var wg sync.WaitGroup
		var crash atomic.Pointer[string]
		for _, e := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer func() {
					// A panic in an engine is a bug: carried to the caller's
					// goroutine with its stack, so that main can report it.
					if r := recover(); r != nil {
						msg := fmt.Sprintf("%v\n\nin an engine's goroutine:\n%s", r, debug.Stack())
						crash.CompareAndSwap(nil, &msg)
						stop.Store(true)
					}
				}()
				for {
					j := int(next.Add(1)) - 1
					if j >= n {
						return
					}
					t := &buf[j]
					t.reset(start + j)
					e.Play(Stream(opt.Seed, sc, start+j), t, opt.Arrivals)
				}
			}()
		}
		wg.Wait()
		if msg := crash.Load(); msg != nil {
			panic(*msg)
		}
		if err := ctx.Err(); err != nil {
			return err // the trials of this round may have been cut short
		}
		for j := range n {
			if err := ctx.Err(); err != nil { // a fold may take a while
				return err
			}
			if err := fold(&buf[j]); err != nil {
				return err
			}
		}
		if opt.Progress != nil {
			opt.Progress(start + n)
		}
	}
	return nil
}
