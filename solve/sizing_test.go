package solve

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// A parameter that scales a model's memory is refused by its flag before
// anything is allocated, in well under a second.
func TestModelsSizedBeforeTheyAllocate(t *testing.T) {
	dec := model.Default()
	dec.Clients, dec.Capacity = 100, 10
	dec.Policy = policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 32}
	wideCap := dec
	wideCap.Policy.Cap = 100_000
	spread := model.Default()
	spread.Clients, spread.Capacity, spread.FirstWindow = 3, 1, 1000
	spread.Policy = policy.Policy{Kind: policy.Full, Base: 1, Cap: 4}
	queue := model.Default()
	queue.Server = model.Queue
	retries, wideQueue := queue, queue
	retries.Policy.Retries = 65536
	wideQueue.Policy.Cap = 1e7
	for _, c := range []struct {
		name, flag string
		solve      func() error
	}{
		{"meanfield --grid 65536", "grid", func() error { _, err := MeanFieldModel(dec, MeanFieldOptions{Grid: 65536}); return err }},
		{"meanfield --cap 100000", "cap", func() error { _, err := MeanFieldModel(wideCap, MeanFieldOptions{}); return err }},
		{"markov --first-window 1000", "--first-window", func() error { _, err := MarkovChain(spread, MarkovOptions{}); return err }},
		{"chain --retries 65536", "retries", func() error {
			_, err := QueueChainOf(context.Background(), retries, nil, control.Controls{}, QueueChainOptions{})
			return err
		}},
		{"chain --max-attempts 5000", "max-attempts", func() error {
			_, err := QueueChainOf(context.Background(), queue, nil, control.Controls{MaxAttempts: 5000}, QueueChainOptions{})
			return err
		}},
		{"chain --cap 1e7", "--cap", func() error {
			_, err := QueueChainOf(context.Background(), wideQueue, nil, control.Controls{}, QueueChainOptions{})
			return err
		}},
	} {
		start := time.Now()
		err := c.solve()
		var fe *model.FieldError
		var un *Unsupported
		named := errors.As(err, &fe) && fe.Flag == c.flag || errors.As(err, &un) && un.Limit && strings.Contains(un.Reason, c.flag)
		if !named || time.Since(start) > 5*time.Second {
			t.Errorf("%s: %v after %v; want a refusal naming %s at once", c.name, err, time.Since(start), c.flag)
		}
	}
}

// The queue chain counts the memory of one tick's states as it builds
// them: open-loop traffic whose states explode is refused at the budget,
// not after gigabytes.
func TestQueueChainStatesWithinTheirBudget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds 64 MiB of states")
	}
	sc := model.Default()
	sc.Server, sc.Clients, sc.Capacity = model.Queue, 6, 2
	sc.Queue.Timeout = 2
	tr := model.Traffic{Rate: 1, Ticks: 100}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := QueueChainOf(context.Background(), sc, &tr, control.Controls{}, QueueChainOptions{})
	runtime.ReadMemStats(&after)
	var un *Unsupported
	if !errors.As(err, &un) || !strings.Contains(un.Reason, "exceed 64 MiB") {
		t.Fatalf("got %v, want the tick's 64 MiB refused", err)
	}
	// Two ticks alive at once, the estimate of a state within a factor 2.
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > 4*chainTickBytes {
		t.Errorf("the heap grew by %d MiB, more than 4 × %d MiB", grew>>20, chainTickBytes>>20)
	}
}

// A cancelled context ends the long loops: the mean field's cells and
// ticks, the exact chain's first sends.
func TestModelsStopWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dec := model.Default()
	dec.Clients, dec.Capacity = 100, 10
	dec.Policy = policy.Policy{Kind: policy.Decorrelated, Base: 1, Cap: 32}
	if _, err := MeanFieldModel(dec, MeanFieldOptions{Grid: 2048, Context: ctx}); !errors.Is(err, context.Canceled) {
		t.Errorf("meanfield: %v, want context.Canceled", err)
	}
	spread := model.Default()
	spread.Clients, spread.Capacity, spread.FirstWindow = 3, 1, 1000
	spread.Policy = policy.Policy{Kind: policy.Full, Base: 1, Cap: 4}
	start := time.Now()
	if _, err := MarkovChain(spread, MarkovOptions{MaxStates: 1 << 30, Context: ctx}); !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("markov: %v after %v, want context.Canceled at once", err, time.Since(start))
	}
}
