package interrupt

import (
	"os"
	"syscall"
	"testing"
	"time"
)

// A SIGINT cancels the context and Stop says it came; without one, Stop
// says none did.
func TestWatch(t *testing.T) {
	ctx, w := Start()
	if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ctx.Done():
	case <-time.After(10 * time.Second):
		t.Fatal("SIGINT did not cancel the context")
	}
	if !w.Stop() {
		t.Error("Stop after a SIGINT says none came")
	}
	if _, w := Start(); w.Stop() {
		t.Error("Stop without a signal says one came")
	}
}
