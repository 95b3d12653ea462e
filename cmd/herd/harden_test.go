package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 14, item 1: a shard count near MaxInt panicked in ShardPoints and
// left an empty --out behind.
func TestSweepHugeShardCount(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f")
	_, stderr, code := herd(t, "sweep", "-n", "10,20", "--trials", "5", "--shard", "1/9223372036854775807", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil || strings.Count(string(b), "\n") != 1 || !strings.Contains(string(b), `"point":1,`) {
		t.Errorf("--out holds %q (%v), want the one row of point 1", b, err)
	}
}

// Issue 14, item 7: a point an engine refuses refuses the sweep with exit 2
// before any row is written or --out created.
func TestSweepRefusedPointWritesNothing(t *testing.T) {
	out := filepath.Join(t.TempDir(), "f")
	_, stderr, code := herd(t, "sweep", "-n", "10,1000000000", "--engine", "clients", "--trials", "2", "--out", out)
	if code != 2 || !strings.Contains(stderr, "--engine counts") || !strings.Contains(stderr, "grid point 1") {
		t.Errorf("exit %d, %q; want exit 2 naming the point and the alternative", code, stderr)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out exists after a refused sweep: %v", err)
	}
}
