package main

import (
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

// herd agrees with the live mean within 5%, or within the wider of the
// paired differences' t-interval and herd's own interval, and not beyond.
func TestAgreesTakesTheWiderInterval(t *testing.T) {
	live := stats.Estimate{Mean: 100}
	herd := stats.Estimate{Mean: 120}
	diff := stats.Estimate{Mean: 20, CI95: &stats.Interval{15, 25}} // ± 5
	for _, c := range []struct {
		herd   stats.Estimate
		byHerd float64
		want   bool
	}{
		{stats.Estimate{Mean: 104}, 0, true}, // within 5%
		{herd, 0, false},                     // 20 off, intervals ± 5
		{herd, 19, false},                    // herd's ± 19 is not enough
		{herd, 25, true},                     // herd's ± 25 is
		{stats.Estimate{Mean: 80}, 25, true}, // either side
	} {
		if got := agrees(live, c.herd, diff, c.byHerd); got != c.want {
			t.Errorf("agrees(live 100, herd %g, diff ± 5, herd's ± %g) = %t, want %t", c.herd.Mean, c.byHerd, got, c.want)
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
