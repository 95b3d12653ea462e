package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// A replayed trace measures what the live run measured: the same calls,
// served clients, completion, first arrivals, round trips, ways and
// lateness, to the trace's microsecond.
func TestReplayMeasuresAsTheLiveRun(t *testing.T) {
	l, _ := libraryNamed("full-jitter")
	cs := caseSpec{lib: l, clients: 40, k: 5, window: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var buf bytes.Buffer
	buf.WriteString(traceHeader + "\n")
	var live []repetition
	for i := range 2 {
		r, err := runRepetition(ctx, cs, true)
		if err != nil {
			t.Fatal(err)
		}
		if r.unaligned != 0 {
			t.Skipf("%d clients did not pair up; the comparison needs every client", r.unaligned) // not a pass: reported as skipped
		}
		writeTrace(&buf, cs, i+1, r.requests)
		live = append(live, r)
	}
	// The trace writes the grid's name; this case is not in the grid, so
	// name it as one that is (the replay looks the case up by name).
	grid0 := grid(false)[0]
	text := strings.ReplaceAll(buf.String(), cs.String(), grid0.String())
	// A second case's run between the first's (cases measured at once
	// write their runs as they end) leaves the first's two runs together.
	other := grid(false)[1].String()
	lines := strings.SplitAfter(text, "\n")
	var mixed strings.Builder
	for i, l := range lines {
		mixed.WriteString(l)
		if i == 1 {
			mixed.WriteString(other + ",1,0,0,0,0,0,1,true,-1\n")
		}
	}
	got, err := replay(strings.NewReader(mixed.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || len(got[0].reps) != 2 || got[1].cs.String() != other || len(got[1].reps) != 1 {
		t.Fatalf("replayed %d cases", len(got))
	}
	const us = time.Microsecond
	near := func(what string, a, b time.Duration, slack time.Duration) {
		t.Helper()
		if d := a - b; d < -slack || d > slack {
			t.Errorf("%s: live %s, replayed %s", what, a, b)
		}
	}
	for i, r := range got[0].reps {
		w := live[i]
		if r.calls != w.calls || r.served != w.served || r.gaveUp != w.gaveUp {
			t.Errorf("run %d: calls/served/gave up live %d/%d/%d, replayed %d/%d/%d", i, w.calls, w.served, w.gaveUp, r.calls, r.served, r.gaveUp)
		}
		near("completion", w.completion, r.completion, us)
		near("latest first arrival", w.firstMax, r.firstMax, us)
		if len(r.firsts) != len(w.firsts) || len(r.trips) != len(w.trips) || len(r.flights) != len(w.flights) || len(r.lateness) != len(w.lateness) {
			t.Fatalf("run %d: firsts %d/%d, trips %d/%d, ways %d/%d, lateness %d/%d (live/replayed)", i,
				len(w.firsts), len(r.firsts), len(w.trips), len(r.trips), len(w.flights), len(r.flights), len(w.lateness), len(r.lateness))
		}
		sum := func(xs []time.Duration) (s time.Duration) {
			for _, x := range xs {
				s += x
			}
			return s
		}
		// Each value differs by the trace's rounding, at most 3 µs a value.
		near("first arrivals", sum(w.firsts), sum(r.firsts), time.Duration(len(r.firsts))*us)
		near("round trips", sum(w.trips), sum(r.trips), time.Duration(3*len(r.trips))*us)
		near("lateness", sum(w.lateness), sum(r.lateness), time.Duration(3*len(r.lateness))*us)
	}
}

// A file that is not a trace is refused, naming what it found.
func TestReplayRefusesOtherFiles(t *testing.T) {
	_, err := replay(strings.NewReader("a,b\n1,2\n"))
	if err == nil || !strings.Contains(err.Error(), "not a -trace file") {
		t.Fatalf("err = %v", err)
	}
}
