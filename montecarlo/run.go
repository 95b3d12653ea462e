package montecarlo

import (
	"context"
	"fmt"
	"runtime"
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
	// Engine, when set, builds the engine for each worker instead of
	// NewEngineUsing(sc, Use).
	Engine func(model.Scenario) (Engine, error)
}

// MemoryBudget bounds the engines of one Run together; Run uses fewer
// workers rather than more memory.
const MemoryBudget = 4 << 30

// DefaultOptions runs 1,000 trials with seed 1 on every core.
func DefaultOptions() Options { return Options{Trials: 1000, Seed: 1} }

// chunk is how many trials each worker plays, on average, between two
// folds. The fold sees the trials in index order whatever the chunk or the
// worker count. Every buffered trial holds its latency histogram, as long
// as its completion (200,000 ticks for an expo cohort with cap 2,048), so
// the buffer is kept to a few dozen trials per worker.
const chunk = 64

// Run plays opt.Trials trials of sc and calls fold with each, in trial
// order, from one goroutine. The *Trial passed to fold is reused after fold
// returns. Run stops at the first error from fold or at ctx's end.
func Run(ctx context.Context, sc model.Scenario, opt Options, fold func(*Trial) error) error {
	if opt.Trials < 1 {
		return fmt.Errorf("trials must be ≥ 1, got %d", opt.Trials)
	}
	newEngine := opt.Engine
	if newEngine == nil {
		newEngine = func(sc model.Scenario) (Engine, error) { return NewEngineUsing(sc, opt.Use) }
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, opt.Trials)
	if opt.Engine == nil {
		// Each worker has its own engine: fewer workers, never a different
		// result, when their engines together would pass MemoryBudget.
		if c, err := Choose(sc, opt.Use); err == nil {
			workers = max(1, min(workers, int(MemoryBudget/max(1, EngineBytes(sc, c.Engine)))))
		}
	}
	engines := make([]Engine, workers)
	for w := range engines {
		e, err := newEngine(sc)
		if err != nil {
			return err
		}
		engines[w] = e
	}
	buf := make([]Trial, min(chunk*workers, opt.Trials))
	for start := 0; start < opt.Trials; start += len(buf) {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := min(len(buf), opt.Trials-start)
		var next atomic.Int64
		var wg sync.WaitGroup
		for _, e := range engines {
			wg.Add(1)
			go func() {
				defer wg.Done()
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
		for j := range n {
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
