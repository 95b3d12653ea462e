package main

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdlab/herd/stats"
)

// A gap with one exchange in flight is that exchange's own time, not the
// machine's stop; the same gap with minStuck exchanges in flight is one,
// and the busy time counts only the time that many were in flight.
func TestStallsNeedExchangesStuck(t *testing.T) {
	ms := time.Millisecond
	ex := func(client int, sent, decided, answered time.Duration) []request {
		return []request{{client: client, sent: sent, entered: decided, decided: decided, answered: answered, delay: -1}}
	}
	// One exchange alone, 5 ms between its send and its decision.
	alone := [][]request{ex(0, 0, 5*ms, 5*ms+100*time.Microsecond)}
	got, busy, _, gaps := stalls(alone, 0)
	if len(got) != 0 || busy != 0 {
		t.Errorf("one exchange in flight: %d stalls, busy %s; want none and 0", len(got), busy)
	}
	if gaps[0].gaps != 1 || gaps[0].time != 5*ms+100*time.Microsecond { // the table counts it, in its row of one in flight
		t.Errorf("one exchange in flight: the gaps' table's first row is %+v", gaps[0])
	}
	// Three exchanges sent within 0.2 ms, then nothing for 5 ms.
	var three [][]request
	for c := range 3 {
		at := time.Duration(c) * 100 * time.Microsecond
		three = append(three, ex(c, at, 5*ms+at, 5*ms+at+50*time.Microsecond))
	}
	got, busy, after, gaps := stalls(three, 0)
	if len(got) != 1 || got[0].from != 200*time.Microsecond || got[0].to != 5*ms {
		t.Fatalf("three exchanges stuck: stalls %v; want one over [200µs, 5ms)", got)
	}
	// Three are in flight from the third send (200 µs) to the first
	// answer (5.05 ms).
	if want := 5*ms + 50*time.Microsecond - 200*time.Microsecond; busy != want || after != want {
		t.Errorf("busy %s, after %s; want %s", busy, after, want)
	}
	if gaps[2].gaps != 1 || gaps[0].gaps+gaps[1].gaps != 0 { // in the row of 3–5 in flight
		t.Errorf("three exchanges stuck: the gaps' table is %+v", gaps)
	}
	if _, _, after, _ := stalls(three, time.Second); after != 0 {
		t.Errorf("busy after 1 s: %s; want 0", after)
	}
}

// herd agrees with the live mean within 5%, or within either of the
// paired differences' t-interval and herd's own interval, and not beyond.
func TestAgreesTakesTheWiderInterval(t *testing.T) {
	live := stats.Estimate{Mean: 100}
	herd := stats.Estimate{Mean: 120}
	diff := stats.Estimate{Mean: 20, CI95: &stats.Interval{15, 25}} // ± 5
	for _, c := range []struct {
		herd   stats.Estimate
		byHerd *stats.Interval
		want   bool
	}{
		{stats.Estimate{Mean: 104}, nil, true},                     // within 5%
		{herd, nil, false},                                         // 20 off, intervals ± 5
		{herd, &stats.Interval{101, 139}, false},                   // herd's interval does not hold the live mean
		{herd, &stats.Interval{95, 145}, true},                     // herd's does
		{stats.Estimate{Mean: 80}, &stats.Interval{55, 100}, true}, // either side, ends included
	} {
		if got := agrees(live, c.herd, diff, c.byHerd); got != c.want {
			t.Errorf("agrees(live 100, herd %g, diff ± 5, herd's %v) = %t, want %t", c.herd.Mean, c.byHerd, got, c.want)
		}
	}
}

// twoPoint is n trials of a law that is hi with probability p and lo
// otherwise, in that proportion.
func twoPoint(n int, p, lo, hi float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = lo
		if float64(i) < p*float64(n) {
			out[i] = hi
		}
	}
	return out
}

// herd's interval on the mean of three runs of a two-point law holds the
// mean of three runs all at the upper point when that happens more than
// 2.5% of the time (0.38³ = 5.5%), where a normal interval on the law's
// variance does not, and excludes it when it is rarer (0.25³ = 1.6%).
func TestMeanIntervalIsTheLawsNotNormal(t *testing.T) {
	const lo, hi = 26_100.0, 51_800.0
	for _, c := range []struct {
		p    float64
		want bool
	}{{0.38, true}, {0.25, false}} {
		run := twoPoint(1000, c.p, lo, hi)
		iv := meanInterval([][]float64{run, run, run})
		if got := iv[0] <= hi && hi <= iv[1]; got != c.want {
			t.Errorf("p = %g: interval %v holds the mean of three runs at %g: %t, want %t", c.p, *iv, hi, got, c.want)
		}
		mean, sd := c.p*hi+(1-c.p)*lo, (hi-lo)*math.Sqrt(c.p*(1-c.p))
		if normal := mean + 1.959963984540054*sd/math.Sqrt(3); normal >= hi {
			t.Errorf("p = %g: the normal interval's upper end %g holds %g: the case does not tell the two apart", c.p, normal, hi)
		}
	}
	if meanInterval([][]float64{{1}, nil}) != nil {
		t.Error("a run without outcomes: want no interval")
	}
}

// Means of three runs drawn from herd's own law fall outside herd's
// interval at most 5% of the time: for a continuous law about 5% (within
// 4σ of a binomial over the 2,000 checks), for a two-point law less.
func TestMeanIntervalCoversTheLaw(t *testing.T) {
	src := rand.New(rand.NewPCG(7, 8))
	normal := make([]float64, 2000)
	for i := range normal {
		normal[i] = 100 + 10*src.NormFloat64()
	}
	for _, c := range []struct {
		name     string
		run      []float64
		min, max float64 // the share outside
	}{
		{"normal", normal, 0.05 - 4*math.Sqrt(0.05*0.95/2000), 0.05 + 4*math.Sqrt(0.05*0.95/2000)},
		{"two-point", twoPoint(1000, 0.38, 26_100, 51_800), 0, 0.05 + 4*math.Sqrt(0.05*0.95/2000)},
	} {
		iv := meanInterval([][]float64{c.run, c.run, c.run})
		out := 0
		for range 2000 {
			m := (c.run[src.IntN(len(c.run))] + c.run[src.IntN(len(c.run))] + c.run[src.IntN(len(c.run))]) / 3
			if m < iv[0] || m > iv[1] {
				out++
			}
		}
		if share := float64(out) / 2000; share < c.min || share > c.max {
			t.Errorf("%s: %.4f of the means outside %v, want within [%.4f, %.4f]", c.name, share, *iv, c.min, c.max)
		}
	}
}

// A wave's rejected requests decided 1 ms apart and answered 0.1 ms apart:
// its 5–95% ranges are 21 and 2.1 ms; a wave of fewer than 20 is left out.
func TestWavesMeasureTheClump(t *testing.T) {
	var clients [][]request
	for c := range 25 {
		at := time.Duration(c) * time.Millisecond
		rs := []request{{client: c, decided: at, answered: 100*time.Millisecond + at/10, delay: time.Second}}
		if c < 5 { // a second attempt, rejected too: 5 of them
			rs = append(rs, request{client: c, attempt: 1, decided: 2 * time.Second, answered: 2 * time.Second, delay: -1})
		}
		clients = append(clients, rs)
	}
	got := waves(clients)
	if len(got) != 1 || got[0].rejected != 25 || got[0].decided != 21*time.Millisecond || got[0].answered != 2100*time.Microsecond {
		t.Errorf("waves = %+v; want one of 25, decided over 21ms, answered within 2.1ms", got)
	}
}

// A measure within 5% is judged by the 5%, one beyond it by its intervals.
func TestByIntervalCountsTheMeasuresBeyond5Percent(t *testing.T) {
	e := func(m float64) stats.Estimate { return stats.Estimate{Mean: m} }
	rows := []row{
		{calls: e(100), herdCalls: e(104), completion: e(100), herdCompletion: e(110)},
		{calls: e(100), herdCalls: e(94), completion: e(0), herdCompletion: e(0)},
	}
	if got := byInterval(rows); got != 2 {
		t.Errorf("byInterval = %d, want 2 (completion 10%% off, calls 6%% off)", got)
	}
}

// Ten cases of three runs whose paired differences are −s, 0, +s in
// herd's standard deviations spread by s, pooled and in the median; were
// herd right, the median of three runs' spread would be √(ln 2) (the
// median of χ²₂ is 2 ln 2) and the pooled one within √(χ²₂₀/20)'s 95%
// range, [0.692, 1.307].
func TestDispersionPoolsTheRuns(t *testing.T) {
	for _, s := range []float64{1, 3} {
		rows := make([]row, 10)
		for i := range rows {
			for _, z := range []float64{-s, 0, s} {
				rows[i].zCalls.Add(z)
			}
		}
		d, ok := dispersion(rows, func(r row) stats.Moments { return r.zCalls })
		if !ok || math.Abs(d.pooled-s) > 1e-12 || math.Abs(d.median-s) > 1e-12 || d.df != 20 {
			t.Errorf("s = %g: %+v, %t; want pooled and median %g over 20 degrees of freedom", s, d, ok, s)
		}
		if math.Abs(d.nullMedian-math.Sqrt(math.Ln2)) > 1e-9 || math.Abs(d.lo-0.6925) > 5e-4 || math.Abs(d.hi-1.3071) > 5e-4 {
			t.Errorf("were herd right: median %g, range %g–%g; want %g and 0.6925–1.3071", d.nullMedian, d.lo, d.hi, math.Sqrt(math.Ln2))
		}
	}
	if _, ok := dispersion([]row{{}}, func(r row) stats.Moments { return r.zCalls }); ok {
		t.Error("no runs: want no dispersion")
	}
}
