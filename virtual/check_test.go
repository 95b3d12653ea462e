//go:debug randseednop=0

package virtual

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

var (
	full = flag.Bool("full", false, "the whole grid: N ∈ {1,000, 10,000} × τ ∈ {1 ms, 100 ms} (make virtual-check)")
	only = flag.String("only", "", "comma-separated presets to check (all when empty)")
)

// The grids: k = N/40 calls per window, every library's defaults.
var (
	shortGrid = Grid{Clients: []int{1000}, Windows: []time.Duration{time.Millisecond, 100 * time.Millisecond}, PerWindow: 40,
		Trials: map[int]int{1000: 20}, HerdTrials: map[int]int{1000: 400}}
	fullGrid = Grid{Clients: []int{1000, 10000}, Windows: []time.Duration{time.Millisecond, 100 * time.Millisecond}, PerWindow: 40,
		Trials: map[int]int{1000: 100, 10000: 20}, HerdTrials: map[int]int{1000: 2000, 10000: 500}}
)

// TestMain repeats the check's last line after the test verdict, so that it
// is the last line of make virtual-check.
func TestMain(m *testing.M) {
	code := m.Run()
	if Summary != "" {
		fmt.Println(Summary)
	}
	os.Exit(code)
}

// The real libraries, each in its bubbles against the window server, agree
// with herd's continuous-time prediction of their presets (the short grid,
// or the full one with -full).
func TestVirtualCheck(t *testing.T) {
	g := shortGrid
	if *full {
		g = fullGrid
	}
	if *only != "" {
		g.Only = strings.Split(*only, ",")
	}
	for _, r := range Check(t, g, os.Stdout) {
		if !r.Agree {
			t.Errorf("%s disagrees", r.Case)
		}
	}
}
