package main

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// traceHeader is the first line of a -trace file.
const traceHeader = "case,rep,client,attempt,sent_us,entered_us,decided_us,answered_us,admitted,delay_us"

// replayed is one case of a trace: its repetitions, in the order written
// (cases measured at once, -parallel, interleave theirs).
type replayed struct {
	cs   caseSpec
	reps []repetition
}

// replay reads a -trace file back into each case's repetitions, measured
// from the requests' times exactly as a live run measures them (see
// repetition.measure), so that herd's model can be judged again on
// repetitions recorded on an idle machine. What a trace cannot hold is
// left as the live run would count it without the clients that did not pair
// up: calls are the traced requests, completion the latest admitted
// decision, and a client gave up when its last request was rejected.
func replay(in io.Reader) ([]replayed, error) {
	cr := csv.NewReader(bufio.NewReader(in))
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("reading the trace: %w", err)
	}
	if strings.Join(head, ",") != traceHeader {
		return nil, fmt.Errorf("not a -trace file: its first line is %q, want %q", strings.Join(head, ","), traceHeader)
	}
	type key struct {
		name string
		rep  int
	}
	byRep := map[key]map[int][]request{}
	var order []key
	line := 1
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("trace line %d: %w", line, err)
		}
		var ints [8]int64
		for i, f := range []int{1, 2, 3, 4, 5, 6, 7, 9} {
			v, err := strconv.ParseInt(rec[f], 10, 64)
			if err != nil {
				return nil, fmt.Errorf("trace line %d, column %d: %w", line, f+1, err)
			}
			ints[i] = v
		}
		us := func(v int64) time.Duration { return time.Duration(v) * time.Microsecond }
		r := request{client: int(ints[1]), attempt: int(ints[2]), sent: us(ints[3]), entered: us(ints[4]),
			decided: us(ints[5]), answered: us(ints[6]), admitted: rec[8] == "true", delay: -1}
		if ints[7] >= 0 {
			r.delay = us(ints[7])
		}
		k := key{rec[0], int(ints[0])}
		if byRep[k] == nil {
			byRep[k] = map[int][]request{}
			order = append(order, k)
		}
		byRep[k][r.client] = append(byRep[k][r.client], r)
	}
	var out []replayed
	index := map[string]int{} // a case's place in out: cases measured at once interleave their runs
	for _, k := range order {
		cs, ok := caseNamed(k.name)
		if !ok {
			return nil, fmt.Errorf("the trace's case %q is not in the grid", k.name)
		}
		i, seen := index[k.name]
		if !seen {
			i = len(out)
			index[k.name] = i
			out = append(out, replayed{cs: cs})
		}
		var clients [][]request
		for _, c := range slices.Sorted(maps.Keys(byRep[k])) {
			rs := byRep[k][c]
			slices.SortFunc(rs, func(a, b request) int { return cmp.Compare(a.attempt, b.attempt) })
			clients = append(clients, rs)
		}
		rep := repetition{unaligned: cs.clients - len(clients)}
		for _, rs := range clients {
			rep.calls += int64(len(rs))
			last := rs[len(rs)-1]
			if last.admitted {
				rep.served++
			} else {
				rep.gaveUp++
			}
			for _, x := range rs {
				if x.admitted {
					rep.completion = max(rep.completion, x.decided)
				}
			}
		}
		rep.measure(clients)
		out[i].reps = append(out[i].reps, rep)
	}
	return out, nil
}

// caseNamed is the grid's case of that name.
func caseNamed(name string) (caseSpec, bool) {
	for _, cs := range grid(false) {
		if cs.String() == name {
			return cs, true
		}
	}
	return caseSpec{}, false
}
