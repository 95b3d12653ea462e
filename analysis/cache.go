package analysis

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// Cache holds the results of the runs of one process (one `herd claims`,
// `herd plots` or `herd paper-data`), so that a scenario asked for by
// several claims, figures or tables is played once. It is the one place
// where results are shared: Simulate and Outcomes look in the cache of
// their context (WithCache) and play the scenario only when it holds no
// result for it yet.
//
// An entry is addressed by its content: what was computed (a summary or
// the paired outcomes), the scenario, and the options that decide the
// numbers — trials, seed, engine asked for and whether arrivals are
// recorded. Workers, the memory budget and progress callbacks are left
// out because they never change a result (Run folds trials in order). So a
// cached result is byte for byte the result of playing the run again.
//
// Results handed out are shared: callers must not modify them. A run that
// fails (or is cancelled) is not kept. Concurrent askers for one key wait
// for the one computation. Its zero value is not ready: use NewCache.
type Cache struct {
	mu           sync.Mutex
	m            map[cacheKey]*cacheEntry
	hits, misses atomic.Int64
	// tapes keeps the new arrivals of the open-loop trials played, which
	// runs of other controls or outages on the same trials read instead of
	// drawing (montecarlo.ArrivalTapes; withTapes).
	tapes *montecarlo.ArrivalTapes
}

// NewCache is an empty cache.
func NewCache() *Cache {
	return &Cache{m: map[cacheKey]*cacheEntry{}, tapes: montecarlo.NewArrivalTapes()}
}

// WithTapes is opt reading and keeping the arrival tapes of the cache of
// ctx, when it carries one: the runs of one process share the arrivals of
// their trials, which never changes a result.
func WithTapes(ctx context.Context, opt montecarlo.Options) montecarlo.Options {
	if c := CacheOf(ctx); c != nil && opt.Tapes == nil {
		opt.Tapes = c.tapes
	}
	return opt
}

// cacheKey is the content address of a result: a SHA-256 of what
// determines it.
type cacheKey [sha256.Size]byte

type cacheEntry struct {
	done chan struct{}
	v    any
	err  error
}

// Stats are how many results were found in the cache and how many were
// computed.
func (c *Cache) Stats() (hits, misses int64) { return c.hits.Load(), c.misses.Load() }

// TapesKept is how many arrival tapes the cache holds.
func (c *Cache) TapesKept() int { return c.tapes.Len() }

type cacheCtxKey struct{}

// WithCache returns ctx carrying the cache c: the runs below it share
// their results through c. A nil c turns caching off below ctx, even for
// callers that would bring their own (EnsureCache): every run is played.
func WithCache(ctx context.Context, c *Cache) context.Context {
	return context.WithValue(ctx, cacheCtxKey{}, c)
}

// CacheOf is the cache ctx carries, or nil.
func CacheOf(ctx context.Context) *Cache {
	c, _ := ctx.Value(cacheCtxKey{}).(*Cache)
	return c
}

// EnsureCache is ctx with a new cache when it carries none and caching
// was not turned off (WithCache with nil); otherwise ctx.
func EnsureCache(ctx context.Context) context.Context {
	if ctx.Value(cacheCtxKey{}) != nil {
		return ctx
	}
	return WithCache(ctx, NewCache())
}

// address is the content address of what computes a result of sc with
// opt (extra holds a workload's own parameters, when any): the SHA-256 of
// every field of them, unexported ones included (%#v), so two runs that
// could differ never share an address.
func address(what string, sc model.Scenario, opt montecarlo.Options, extra any) cacheKey {
	type material struct {
		What     string
		Scenario model.Scenario
		Trials   int
		Seed     uint64
		Engine   montecarlo.EngineName
		Arrivals bool
		Extra    any
	}
	return sha256.Sum256(fmt.Appendf(nil, "%#v", material{what, sc, opt.Trials, opt.Seed, opt.Use, opt.Arrivals, extra}))
}

// Cached returns the result of compute — the result named what of the
// cohort sc played with opt — from the cache of ctx, computing it first
// when absent; without a cache it computes. what must name one function
// of (sc, opt): two computations under one name must give the same result.
func Cached[T any](ctx context.Context, what string, sc model.Scenario, opt montecarlo.Options, compute func() (T, error)) (T, error) {
	return CachedWith(ctx, what, sc, opt, nil, compute)
}

// CachedWith is Cached with a workload's own parameters in the address.
func CachedWith[T any](ctx context.Context, what string, sc model.Scenario, opt montecarlo.Options, extra any, compute func() (T, error)) (T, error) {
	c := CacheOf(ctx)
	if c == nil {
		return compute()
	}
	k := address(what, sc, opt, extra)
	for {
		c.mu.Lock()
		e, ok := c.m[k]
		if !ok {
			e = &cacheEntry{done: make(chan struct{})}
			c.m[k] = e
		}
		c.mu.Unlock()
		if ok {
			select {
			case <-e.done:
			case <-ctx.Done():
				var zero T
				return zero, ctx.Err()
			}
			if e.err != nil {
				continue // the computation failed and was dropped: try again
			}
			c.hits.Add(1)
			return e.v.(T), nil
		}
		c.misses.Add(1)
		v, err := compute()
		if err != nil {
			c.mu.Lock()
			delete(c.m, k)
			c.mu.Unlock()
			e.err = err
			close(e.done)
			return v, err
		}
		e.v = v
		close(e.done)
		return v, nil
	}
}

// offer keeps v as the result named what of sc played with opt in the
// cache of ctx, unless the cache holds (or is computing) one already: for a
// computation that gives a second result on its way (Outcomes gives the
// summary of the trials it played). v must be what Cached's compute for
// that name would give. Without a cache it does nothing.
func offer[T any](ctx context.Context, what string, sc model.Scenario, opt montecarlo.Options, v T) {
	c := CacheOf(ctx)
	if c == nil {
		return
	}
	k := address(what, sc, opt, nil)
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.m[k]; ok {
		return
	}
	e := &cacheEntry{done: make(chan struct{}), v: v}
	close(e.done)
	c.m[k] = e
}
