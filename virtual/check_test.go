//go:debug randseednop=0

package virtual

import (
	"flag"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	full    = flag.Bool("full", false, "the whole grid: N ∈ {1,000, 10,000} × τ ∈ {1 ms, 100 ms} (make virtual-check)")
	only    = flag.String("only", "", "comma-separated presets to check (all when empty)")
	clients = flag.String("clients", "", "comma-separated N to check instead of the grid's (k = N/40 a window), e.g. 2000")
	windows = flag.String("windows", "", "comma-separated windows τ to check instead of the grid's, e.g. 100ms")
)

// custom replaces g's clients and windows with the -clients and -windows
// flags' values; a number of clients the grid has no trials for gets the
// full grid's at N = 1,000.
func custom(g Grid) (Grid, error) {
	if *clients != "" {
		g.Clients = nil
		trials, herd := maps.Clone(g.Trials), maps.Clone(g.HerdTrials)
		for _, f := range strings.Split(*clients, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < g.PerWindow {
				return g, fmt.Errorf("-clients: %q is not a number of clients of at least %d (k = N/%d must be at least 1)", f, g.PerWindow, g.PerWindow)
			}
			g.Clients = append(g.Clients, n)
			if _, ok := trials[n]; !ok {
				trials[n], herd[n] = fullGrid.Trials[1000], fullGrid.HerdTrials[1000]
			}
		}
		g.Trials, g.HerdTrials = trials, herd
	}
	if *windows != "" {
		g.Windows = nil
		for _, f := range strings.Split(*windows, ",") {
			d, err := time.ParseDuration(strings.TrimSpace(f))
			if err != nil || d <= 0 {
				return g, fmt.Errorf("-windows: %q is not a positive duration such as 100ms", f)
			}
			g.Windows = append(g.Windows, d)
		}
	}
	return g, nil
}

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
	g, err := custom(g)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range Check(t, g, os.Stdout) {
		if !r.Agree {
			t.Errorf("%s disagrees", r.Case)
		}
	}
}
