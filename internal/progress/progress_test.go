package progress

import (
	"bytes"
	"testing"
)

func TestSilentOffTerminal(t *testing.T) {
	var w bytes.Buffer
	b := New(&w, false, "trials", 10)
	if b != nil {
		t.Fatalf("New off a terminal = %v, want nil", b)
	}
	b.Set(5)
	b.Of(6, 20)
	b.Describe("x")
	b.Clear()
	b.Finish()
	if w.Len() != 0 {
		t.Errorf("a nil bar wrote %q", w.String())
	}
}

func TestSilentInTheFirstSecond(t *testing.T) {
	var w bytes.Buffer
	b := New(&w, true, "trials", 10)
	b.Set(3)
	b.Of(4, 12)
	b.Finish()
	if w.Len() != 0 {
		t.Errorf("a run shorter than a second drew %q", w.String())
	}
	if b.total != 12 {
		t.Errorf("total after Of(4, 12) = %d, want 12", b.total)
	}
}
