package analysis

import (
	"context"
	"errors"
	"runtime"
	"sync"
)

// MostPointsAtOnce bounds how many independent points of a study play at
// once: each point's run already spreads its trials over the workers, and
// budgets its memory alone (montecarlo.NewPlan), so a few at a time fill
// the cores between folds without multiplying the memory by the cores.
const MostPointsAtOnce = 4

// EachPoint runs point(ctx, i) for i = 0…n−1, up to min(workers,
// MostPointsAtOnce) at once (workers 0: one per CPU), and returns the
// error of the lowest i that failed (a failure, not a cancellation that
// followed one), cancelling the points not yet started. Each point must
// write only its own result, a function of its inputs alone, so that the
// results are the same whatever the workers and the order points finish
// in. done, when set, is called after each point that succeeded, one call
// at a time, with the number done so far.
func EachPoint(ctx context.Context, n, workers int, point func(ctx context.Context, i int) error, done func(count int)) error {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	return eachAtOnce(ctx, n, min(workers, MostPointsAtOnce), point, done)
}

// eachAtOnce is EachPoint with at most at points at once.
func eachAtOnce(ctx context.Context, n, at int, point func(ctx context.Context, i int) error, done func(count int)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	errs := make([]error, n)
	next := make(chan int)
	var mu sync.Mutex
	count := 0
	var wg sync.WaitGroup
	for range max(1, min(at, n)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if errs[i] = point(ctx, i); errs[i] != nil {
					cancel()
					continue
				}
				mu.Lock()
				count++
				if done != nil {
					done(count)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	var first error
	for _, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return err
		}
		if first == nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	return ctx.Err()
}
