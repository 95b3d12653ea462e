package plots

import (
	"bufio"
	"context"
	_ "embed" // the measured benchmark output behind EngineCost
	"fmt"
	"io"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// engineCostData is the raw output of `make bench-cost` (go test -bench
// BenchmarkCostVersusN -count 5 ./montecarlo), header lines included. The
// figure reads these committed measurements instead of timing anything
// itself, so that it is byte-identical from run to run; `make bench-cost`
// measures again and `make plots` (which rebuilds herd) redraws.
//
//go:embed data/engine-cost.txt
var engineCostData string

// engineCostFile is where engineCostData lives, for error messages and the
// figure's note.
const engineCostFile = "plots/data/engine-cost.txt"

// costBenchmark is the benchmark whose results the figure draws.
const costBenchmark = "BenchmarkCostVersusN"

// costKey is one sub-benchmark: an engine at a cohort size.
type costKey struct {
	engine string
	n      int
}

// costBench is BenchmarkCostVersusN's output: the machine it ran on (the
// goos, goarch, cpu header lines), GOMAXPROCS (the name's -P suffix), and
// every run's ns/op by engine and N.
type costBench struct {
	header  map[string]string
	procs   int
	samples map[costKey][]float64
}

// costPoint summarizes the runs of one sub-benchmark: the median time per
// trial and the fastest and slowest runs, in ns.
type costPoint struct {
	n                int
	median, min, max float64
	runs             int
}

// parseCostBench reads Go benchmark output (the format of `go test
// -bench`): "key: value" header lines, and result lines "NAME-P ITERATIONS
// VALUE UNIT [VALUE UNIT]…" whose names are
// BenchmarkCostVersusN/ENGINE/N=n/k=k. Other lines (PASS, ok) are skipped;
// a failed run, a result of another benchmark, or a result without ns/op
// is an error naming the line.
func parseCostBench(r io.Reader) (costBench, error) {
	b := costBench{header: map[string]string{}, samples: map[costKey][]float64{}}
	sc := bufio.NewScanner(r)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(text, "--- FAIL") || text == "FAIL" || strings.HasPrefix(text, "FAIL\t"):
			return b, fmt.Errorf("line %d: the benchmark run failed: %q", line, text)
		case strings.HasPrefix(text, "Benchmark"):
			key, procs, ns, err := parseCostLine(text)
			if err != nil {
				return b, fmt.Errorf("line %d: %w", line, err)
			}
			if b.procs != 0 && procs != b.procs {
				return b, fmt.Errorf("line %d: GOMAXPROCS %d, but earlier lines ran with %d", line, procs, b.procs)
			}
			b.procs = procs
			b.samples[key] = append(b.samples[key], ns)
		default:
			if k, v, ok := strings.Cut(text, ": "); ok && !strings.ContainsAny(k, " \t") {
				b.header[k] = strings.TrimSpace(v)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return b, err
	}
	if len(b.samples) == 0 {
		return b, fmt.Errorf("no %s results", costBenchmark)
	}
	return b, nil
}

// parseCostLine reads one result line.
func parseCostLine(text string) (key costKey, procs int, ns float64, err error) {
	f := strings.Fields(text)
	if len(f) < 4 || len(f)%2 != 0 {
		return key, 0, 0, fmt.Errorf("malformed result %q (want NAME ITERATIONS VALUE UNIT …)", text)
	}
	name := f[0]
	procs = 1 // go test omits the suffix when GOMAXPROCS is 1
	if i := strings.LastIndexByte(name, '-'); i >= 0 {
		if p, err := strconv.Atoi(name[i+1:]); err == nil && p > 0 {
			name, procs = name[:i], p
		}
	}
	parts := strings.Split(name, "/")
	if parts[0] != costBenchmark || len(parts) < 3 {
		return key, 0, 0, fmt.Errorf("result of %s, want %s/ENGINE/N=n/…", name, costBenchmark)
	}
	key.engine = parts[1]
	for _, p := range parts[2:] {
		if v, ok := strings.CutPrefix(p, "N="); ok {
			if key.n, err = strconv.Atoi(v); err != nil || key.n <= 0 {
				return key, 0, 0, fmt.Errorf("%s: N must be a positive integer", name)
			}
		}
	}
	if key.n == 0 {
		return key, 0, 0, fmt.Errorf("%s names no N=", name)
	}
	for i := 2; i+1 < len(f); i += 2 {
		if f[i+1] != "ns/op" {
			continue
		}
		ns, err = strconv.ParseFloat(f[i], 64)
		if err != nil || !(ns > 0) || math.IsInf(ns, 0) {
			return key, 0, 0, fmt.Errorf("%s: ns/op %q is not a positive number", name, f[i])
		}
		return key, procs, ns, nil
	}
	return key, 0, 0, fmt.Errorf("%s reports no ns/op", name)
}

// engines lists the engines measured, sorted.
func (b costBench) engines() []string {
	var es []string
	for k := range b.samples {
		if !slices.Contains(es, k.engine) {
			es = append(es, k.engine)
		}
	}
	sort.Strings(es)
	return es
}

// points summarizes engine e's runs at each N, in increasing N.
func (b costBench) points(e string) []costPoint {
	var pts []costPoint
	for k, ns := range b.samples {
		if k.engine != e {
			continue
		}
		s := slices.Clone(ns)
		slices.Sort(s)
		m := len(s) / 2
		med := s[m]
		if len(s)%2 == 0 {
			med = (s[m-1] + s[m]) / 2
		}
		pts = append(pts, costPoint{n: k.n, median: med, min: s[0], max: s[len(s)-1], runs: len(s)})
	}
	sort.Slice(pts, func(i, j int) bool { return pts[i].n < pts[j].n })
	return pts
}

// engineLabels are the legend's names of the engines.
var engineLabels = map[string]string{
	"clients": "per-client engine (--engine clients)",
	"counts":  "count engine (--engine counts)",
}

// EngineCost draws the cost of one Monte Carlo trial against the cohort
// size N for both engines, log-log, from the committed benchmark output
// (engineCostData): the medians of the runs, with whiskers from the fastest
// to the slowest run, and a dotted slope-1 guide (cost ∝ N) through the
// per-client engine's smallest cohort. It runs no trials, so cfg does not
// change it.
func EngineCost(_ context.Context, _ Config) (*Drawing, error) {
	b, err := parseCostBench(strings.NewReader(engineCostData))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", engineCostFile, err)
	}
	return drawEngineCost(b)
}

func drawEngineCost(b costBench) (*Drawing, error) {
	const ms = 1e6 // ns per ms
	p := newPanel("", "clients N (log axis), k = N/100", "")
	xs, ys := newSpan(), newSpan()
	series := map[string][]point{}
	minRuns, maxRuns := math.MaxInt, 0
	for _, e := range b.engines() {
		for _, c := range b.points(e) {
			series[e] = append(series[e], point{float64(c.n), c.median / ms, c.min / ms, c.max / ms})
			xs.add(float64(c.n))
			minRuns, maxRuns = min(minRuns, c.runs), max(maxRuns, c.runs)
		}
		ys.addPoints(series[e])
	}
	var guide []point
	if c := series["clients"]; len(c) >= 2 {
		first, last := c[0], c[len(c)-1]
		guide = []point{first, {x: last.x, y: first.y * last.x / first.x}}
		ys.add(guide[1].y)
	}
	if err := frame(&p.X, xs, true); err != nil {
		return nil, err
	}
	if err := frame(&p.Y, ys, true); err != nil {
		return nil, err
	}
	p.X.Tick.Marker = decadeTicks{}
	var keys []Key
	for _, e := range b.engines() {
		sty := engineStyleOf(e)
		bars, err := errorBars(p, series[e], sty.color)
		if err != nil {
			return nil, err
		}
		l, err := curve(series[e], thin(sty.color))
		if err != nil {
			return nil, err
		}
		g, err := scatter(series[e], engineGlyph(e))
		if err != nil {
			return nil, err
		}
		p.Add(bars, l, g)
		label := engineLabels[e]
		if label == "" {
			label = e
		}
		keys = append(keys, Key{label, []plot.Thumbnailer{&plotter.Line{LineStyle: thin(sty.color)}, g}})
	}
	if guide != nil {
		l, err := curve(guide, dotted(grey))
		if err != nil {
			return nil, err
		}
		p.Add(l)
		keys = append(keys, Key{"cost proportional to N (guide)", []plot.Thumbnailer{l}})
	}
	runs := strconv.Itoa(minRuns)
	if maxRuns != minRuns {
		runs = fmt.Sprintf("%d to %d", minRuns, maxRuns)
	}
	machine := strings.TrimSpace(strings.Join([]string{b.header["goos"] + "/" + b.header["goarch"], b.header["cpu"]}, ", "))
	return &Drawing{
		Title:  "Cost of one trial against N: the per-client engine and the count engine",
		Legend: keys,
		Rows:   []Row{{Panels: []*plot.Plot{p}, YLabel: "time per trial (ms, log axis)"}},
		Note: fmt.Sprintf("Glyphs are the median of %s runs of %s (make bench-cost writes %s), whiskers span the fastest and the slowest run; "+
			"full jitter, base 1, cap 32, N/k = 100, each trial played on one goroutine. The per-client engine is not run above 10^6 clients "+
			"(10^7 takes seconds a trial, and above 50 million it is refused). Measured on %s, GOMAXPROCS %d.",
			runs, costBenchmark, engineCostFile, machine, b.procs),
		Width: vg.Inch * 9, Height: vg.Inch * 6.5,
	}, nil
}

// decadeTicks label the powers of ten as 10^n (plain numbers up to 10^9
// would crowd the axis), with unlabelled minor ticks at the other
// integers.
type decadeTicks struct{}

func (decadeTicks) Ticks(min, max float64) []plot.Tick {
	var ticks []plot.Tick
	for e := math.Floor(math.Log10(min)); math.Pow(10, e) <= max; e++ {
		dec := math.Pow(10, e)
		for m := 1; m < 10; m++ {
			v := float64(m) * dec
			if v < min || v > max {
				continue
			}
			t := plot.Tick{Value: v}
			if m == 1 {
				t.Label = fmt.Sprintf("10^%d", int(e))
			}
			ticks = append(ticks, t)
		}
	}
	return ticks
}
