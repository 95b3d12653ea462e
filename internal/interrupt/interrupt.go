// Package interrupt turns SIGINT and SIGTERM into the cancellation of a
// run's context, and says afterwards whether one came at all: a signal
// that arrives as the run ends, after its last poll of the context, still
// marks the run interrupted, as the default handler would have.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"syscall"
)

// A Watch cancels its context on the first SIGINT or SIGTERM.
type Watch struct {
	ctx           context.Context
	cancel        context.CancelFunc
	sigs          chan os.Signal
	done, watched chan struct{}
}

// Start watches for the signals and returns the context they cancel.
func Start() (context.Context, *Watch) {
	ctx, cancel := context.WithCancel(context.Background())
	w := &Watch{ctx: ctx, cancel: cancel, sigs: make(chan os.Signal, 1), done: make(chan struct{}), watched: make(chan struct{})}
	signal.Notify(w.sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		defer close(w.watched)
		select {
		case <-w.sigs:
			cancel()
		case <-w.done:
		}
	}()
	return ctx, w
}

// Stop stops watching and reports whether a signal came since Start. Once
// signal.Stop returns, every signal delivered before it is in the channel
// or was taken by the watcher, which has cancelled the context by then.
func (w *Watch) Stop() bool {
	signal.Stop(w.sigs)
	close(w.done)
	<-w.watched
	came := w.ctx.Err() != nil || len(w.sigs) > 0
	w.cancel()
	return came
}
