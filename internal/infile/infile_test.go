package infile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestReadRefusesWhatItCannotBound(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	if err := os.WriteFile(big, make([]byte, 2049), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, says string }{
		{"/dev/zero", "not a regular file (it is a character device)"},
		{fifo, "not a regular file (it is a named pipe)"},
		{dir, "not a regular file (it is a directory)"},
		{big, "more than 2 KiB"},
		{filepath.Join(dir, "missing"), "no such file or directory"},
	} {
		_, err := Read("policies", c.path, 2048)
		var te *Error
		if !errors.As(err, &te) || !strings.Contains(err.Error(), c.says) || !strings.HasPrefix(err.Error(), "--policies ") {
			t.Errorf("%s: %v, want a refusal naming --policies and saying %q", c.path, err, c.says)
		}
	}
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("policies: []\n"), 0o644)
	if b, err := Read("policies", ok, 2048); err != nil || string(b) != "policies: []\n" {
		t.Errorf("a small file: %q, %v", b, err)
	}
}

func TestReadLinesStopsAtALongLine(t *testing.T) {
	dir := t.TempDir()
	rows := filepath.Join(dir, "rows")
	text := "short\n" + strings.Repeat("x", 100) + "\n" + strings.Repeat("y", 300000) + "\nlast"
	if err := os.WriteFile(rows, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	// Every line within the bound: the file as it is, a last line without
	// its newline included.
	if b, err := ReadLines("", rows, 1<<20, 300001); err != nil || string(b) != text {
		t.Errorf("lines within the bound: %d bytes, %v; want the %d bytes", len(b), err, len(text))
	}
	// Line 3 (longer than ReadLines' buffer) over the bound.
	_, err := ReadLines("", rows, 1<<20, 300000)
	if err == nil || !strings.Contains(err.Error(), rows+": line 3 is longer than") {
		t.Errorf("a line over the bound: %v, want a refusal naming the file and line 3", err)
	}
	if _, err := ReadLines("", rows, 1<<20, 100); err == nil || !strings.Contains(err.Error(), "line 2 ") {
		t.Errorf("line 2 over the bound: %v", err)
	}
}
