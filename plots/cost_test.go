package plots

import (
	"strings"
	"testing"
)

// costSample is benchmark output written by hand: three runs of clients
// at N = 1000 (median 120, the middle one), two of counts at N = 1000
// (median the mean of 80 and 100), one of counts at N = 10⁹, with the
// header lines and the trailer go test prints.
const costSample = `goos: linux
goarch: amd64
pkg: github.com/herdlab/herd/montecarlo
cpu: Test CPU @ 1 GHz
BenchmarkCostVersusN/clients/N=1000/k=10-4   	  100	  150 ns/op	 77092701 calls/s	  53 B/op	  5 allocs/op
BenchmarkCostVersusN/clients/N=1000/k=10-4   	  100	  110 ns/op	 77092701 calls/s	  53 B/op	  5 allocs/op
BenchmarkCostVersusN/clients/N=1000/k=10-4   	  100	  120 ns/op	 77092701 calls/s	  53 B/op	  5 allocs/op
BenchmarkCostVersusN/counts/N=1000/k=10-4    	  100	  100 ns/op
BenchmarkCostVersusN/counts/N=1000/k=10-4    	  100	   80 ns/op
BenchmarkCostVersusN/counts/N=1000000000/k=10000000-4  	  1	  90 ns/op
PASS
ok  	github.com/herdlab/herd/montecarlo	180.1s
`

func TestParseCostBench(t *testing.T) {
	b, err := parseCostBench(strings.NewReader(costSample))
	if err != nil {
		t.Fatal(err)
	}
	if b.procs != 4 || b.header["cpu"] != "Test CPU @ 1 GHz" || b.header["goarch"] != "amd64" {
		t.Errorf("procs %d, header %v; want 4 and the cpu and goarch lines", b.procs, b.header)
	}
	if got := b.engines(); strings.Join(got, ",") != "clients,counts" {
		t.Errorf("engines %v, want clients and counts", got)
	}
	want := map[string][]costPoint{
		"clients": {{n: 1000, median: 120, min: 110, max: 150, runs: 3}},
		"counts":  {{n: 1000, median: 90, min: 80, max: 100, runs: 2}, {n: 1_000_000_000, median: 90, min: 90, max: 90, runs: 1}},
	}
	for e, w := range want {
		got := b.points(e)
		if len(got) != len(w) {
			t.Fatalf("%s: %d points %+v, want %+v", e, len(got), got, w)
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s point %d = %+v, want %+v", e, i, got[i], w[i])
			}
		}
	}
}

// TestParseCostBenchRejects shows the parser refusing what the figure
// must not draw from, naming the problem.
func TestParseCostBenchRejects(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"goos: linux\nPASS\n", "no BenchmarkCostVersusN results"},
		{"BenchmarkEngineCost/full/N=100/k=10/clients-2  10  5 ns/op\n", "want BenchmarkCostVersusN"},
		{"BenchmarkCostVersusN/clients/k=10-2  10  5 ns/op\n", "names no N="},
		{"BenchmarkCostVersusN/clients/N=-3/k=10-2  10  5 ns/op\n", "positive integer"},
		{"BenchmarkCostVersusN/clients/N=10/k=1-2  10  5 B/op\n", "no ns/op"},
		{"BenchmarkCostVersusN/clients/N=10/k=1-2  10  x ns/op\n", "not a positive number"},
		{"BenchmarkCostVersusN/clients/N=10/k=1-2  10  5\n", "malformed"},
		{"BenchmarkCostVersusN/clients/N=10/k=1-2  10  5 ns/op\nBenchmarkCostVersusN/clients/N=10/k=1-4  10  5 ns/op\n", "GOMAXPROCS"},
		{"BenchmarkCostVersusN/clients/N=10/k=1-2  10  5 ns/op\n--- FAIL: BenchmarkCostVersusN/counts\n", "failed"},
	} {
		_, err := parseCostBench(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
}

// TestEngineCostData checks the committed measurements: both engines at
// every N that BenchmarkCostVersusN runs (the per-client engine up to 10⁶),
// several runs each, and the machine named in the header.
func TestEngineCostData(t *testing.T) {
	b, err := parseCostBench(strings.NewReader(engineCostData))
	if err != nil {
		t.Fatalf("%s: %v", engineCostFile, err)
	}
	for _, h := range []string{"goos", "goarch", "cpu"} {
		if b.header[h] == "" {
			t.Errorf("%s has no %q header line", engineCostFile, h)
		}
	}
	for e, top := range map[string]int{"clients": 1_000_000, "counts": 1_000_000_000} {
		pts := b.points(e)
		n := 1000
		for _, p := range pts {
			if p.n != n {
				t.Errorf("%s: N = %d where %d was expected", e, p.n, n)
			}
			if p.runs < 3 {
				t.Errorf("%s at N = %d: %d runs, want at least 3 for a median and a spread", e, p.n, p.runs)
			}
			n *= 10
		}
		if n != 10*top {
			t.Errorf("%s: measured up to N = %d, want %d", e, n/10, top)
		}
	}
}
