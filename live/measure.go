package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"time"
)

// caseSpec is one cell of the grid: a library's clients against a window
// server.
type caseSpec struct {
	lib     library
	clients int
	k       int
	window  time.Duration
	// nginx, when set, is a real nginx's limit_req instead of the window
	// server (nginx.go).
	nginx *nginxLimit
}

func (c caseSpec) String() string {
	if c.nginx != nil {
		return fmt.Sprintf("%s %d %s", c.lib.name, c.clients, c.nginx)
	}
	return fmt.Sprintf("%s %d/%d τ=%s", c.lib.name, c.clients, c.k, c.window)
}

// repetition is what one live run measured.
type repetition struct {
	calls          int64
	served, gaveUp int
	// completion is when the server admitted its last request, from the
	// first arrival (herd's completion in continuous time: server times).
	completion time.Duration
	// firstMax is the latest first arrival; trips are the round trips of
	// the retries (next arrival − failure − the library's delay).
	firstMax time.Duration
	trips    []time.Duration
	// firsts are every client's first arrival.
	firsts []time.Duration
	// answers are when those first sends' answers were back at their
	// clients.
	answers []time.Duration
	// requests is every request, when tracing.
	requests []request
	// flights are the ways of every exchange (a request's way to the
	// server, its answer's way back) with the exchanges in flight when
	// each began; lateness is, for every retry, the time from the answer
	// back at the client to the retry's send less the delay drawn (the
	// client's own time and its timer's lateness).
	flights  []flight
	lateness []time.Duration
	// stalls are the gaps of at least minStall with no send, decision or
	// answer at all while at least minStuck exchanges were in flight, and
	// busy the time that many were. The ways and the lateness are counted without the stalls
	// they overlap (the model adds those as --stalls).
	stalls []stall
	busy   time.Duration
	// firstWave is when the last first send's answer was back, and
	// lateStalls and lateBusy the stalls that began after it and the busy
	// time after it: the machine's stops that the
	// laws of the first arrivals and answers do not already hold.
	firstWave  time.Duration
	lateStalls []stall
	lateBusy   time.Duration
	// lateGaps are the gaps after the first wave by the number in flight
	// (-gaps), whatever that number.
	lateGaps gapTable
	// waves are, for each attempt, how long its rejected requests'
	// decisions and their answers took (-gaps).
	waves []wave
	// unaligned counts clients whose arrivals, exchanges and recorded
	// delays do not pair up (an attempt that never reached the server);
	// their times are left out of the measurements.
	unaligned int
}

// release is how long the clients' goroutines get to park before they are
// released together.
const release = 100 * time.Millisecond

// runRepetition starts a server, releases the case's clients at one
// instant, waits for every one of them to succeed or give up, and stops the
// server.
func runRepetition(ctx context.Context, cs caseSpec, trace bool) (repetition, error) {
	if cs.nginx != nil {
		return runNginxRepetition(ctx, cs, trace)
	}
	srv, err := startWindowServer(cs.k, cs.window, cs.clients)
	if err != nil {
		return repetition{}, err
	}
	srv.decisions = make([][]decision, cs.clients)
	defer srv.close()
	clients, errs := releaseClients(ctx, cs, srv.url())
	if err := ctx.Err(); err != nil {
		return repetition{}, fmt.Errorf("%s: %w", cs, err)
	}
	srv.close() // before reading what it recorded
	r := repetition{calls: srv.calls, completion: srv.lastAdmitted}
	var traced [][]request
	for i, c := range clients {
		if errs[i] != nil {
			r.gaveUp++
		} else {
			r.served++
		}
		if a := srv.arrivals[i]; len(a) == 0 || len(a) != len(c.delays)+1 || len(*c.exchanges) != len(a) {
			r.unaligned++
			continue
		}
		traced = append(traced, tracedRequests(i, srv, c))
	}
	r.measure(traced)
	if trace {
		for _, rs := range traced {
			r.requests = append(r.requests, rs...)
		}
	}
	return r, nil
}

// measure sets the repetition's network measurements from the requests of
// its clients whose attempts pair up (each client's, in order): what a live
// run and a replayed trace (see replay) both measure, from the requests'
// times alone.
func (r *repetition) measure(clients [][]request) {
	for _, rs := range clients {
		r.firstMax = max(r.firstMax, rs[0].decided)
		r.firsts = append(r.firsts, rs[0].decided)
		r.answers = append(r.answers, rs[0].answered)
		for j := 1; j < len(rs); j++ {
			r.trips = append(r.trips, rs[j].decided-rs[j-1].decided-rs[j-1].delay)
		}
	}
	for _, a := range r.answers {
		r.firstWave = max(r.firstWave, a)
	}
	r.stalls, r.busy, r.lateBusy, r.lateGaps = stalls(clients, r.firstWave)
	r.waves = waves(clients)
	for _, s := range r.stalls {
		if s.from >= r.firstWave {
			r.lateStalls = append(r.lateStalls, s)
		}
	}
	stopped := stoppedWithin(r.stalls)
	for _, rs := range clients {
		for j := 1; j < len(rs); j++ {
			from := rs[j-1].answered + rs[j-1].delay
			r.lateness = append(r.lateness, rs[j].sent-from-stopped(from, rs[j].sent))
		}
	}
	r.flights = flights(clients, stopped)
}

// stall is one stop of the machine, [from, to).
type stall struct{ from, to time.Duration }

// stoppedWithin is, for sorted disjoint stalls, how long the machine was
// stopped within [a, b).
func stoppedWithin(ss []stall) func(a, b time.Duration) time.Duration {
	return func(a, b time.Duration) time.Duration {
		var t time.Duration
		i, _ := slices.BinarySearchFunc(ss, a, func(s stall, a time.Duration) int { return cmp.Compare(s.to, a) })
		for ; i < len(ss) && ss[i].from < b; i++ {
			t += max(0, min(b, ss[i].to)-max(a, ss[i].from))
		}
		return t
	}
}

// minStall is the shortest gap counted as a stall: twenty unloaded ways
// (~100 µs each on loopback).
const minStall = 2 * time.Millisecond

// minStuck is how many exchanges must be in flight through a gap for it
// to be the machine's stop. With one, the gap is mostly that exchange's own
// time (a wake-up, a slow handler) and no other way waited on it: on the
// idle machine's τ = 10 ms runs of 2026-12-02 (16 cases, 8 runs each; a
// trace not kept in the repository, -replay TRACE -gaps prints these
// rates of any trace), gaps of 2 ms after
// the first wave came 31 times a second while one exchange was in flight,
// 19 while two were (a slow exchange is more often joined by one send than
// by two) and 15, 15 and 9 while 3–5, 6–20 and more were, no longer falling
// with the number; at cenkalti 200/10, 41 of its 46 gaps had one in flight,
// and taken as stops of the whole machine they stopped every way in flight
// at high load as well, bunched the retries, and put herd's completion 29%
// late.
const minStuck = 3

// stalls finds the machine's stops: gaps between consecutive events (a
// send, a decision, an answer) of at least minStall while at least
// minStuck exchanges were in flight, when the machine had ways to carry
// and nothing moved; and the time that many were in flight (when a stop
// can be seen), in all and from the time from on; and from then on, the
// gaps of at least minStall and the time by the number in flight, whatever
// it was.
func stalls(clients [][]request, from time.Duration) ([]stall, time.Duration, time.Duration, gapTable) {
	type event struct {
		at    time.Duration
		delta int // +1 a send, −1 an answer, 0 a decision
	}
	var evs []event
	for _, rs := range clients {
		for _, x := range rs {
			evs = append(evs, event{x.sent, 1}, event{x.decided, 0}, event{x.answered, -1})
		}
	}
	slices.SortFunc(evs, func(a, b event) int { return cmp.Compare(a.at, b.at) })
	var out []stall
	var busy, after time.Duration
	var gaps gapTable
	inFlight := 0
	for i, e := range evs {
		if i > 0 && inFlight > 0 {
			gap := e.at - evs[i-1].at
			if evs[i-1].at >= from {
				gaps.add(inFlight, gap)
			}
			if inFlight >= minStuck {
				busy += gap
				if evs[i-1].at >= from {
					after += gap
				}
				if gap >= minStall {
					out = append(out, stall{evs[i-1].at, e.at})
				}
			}
		}
		inFlight += e.delta
	}
	return out, busy, after, gaps
}

// gapFloors are the least numbers in flight of the gap table's rows.
var gapFloors = [...]int{1, 2, 3, 6, 21, 101}

// gapTable is, for each row of gapFloors, the time that some number in
// its range was in flight and the gaps of at least minStall that began
// then: a machine's stops come at one rate whatever the number in flight,
// an exchange's own slow times mostly while it is alone (see minStuck).
type gapTable [len(gapFloors)]struct {
	time time.Duration
	gaps int
}

func (g *gapTable) add(inFlight int, gap time.Duration) {
	i := len(gapFloors) - 1
	for inFlight < gapFloors[i] {
		i--
	}
	g[i].time += gap
	if gap >= minStall {
		g[i].gaps++
	}
}

func (g *gapTable) addTable(o gapTable) {
	for i := range g {
		g[i].time += o[i].time
		g[i].gaps += o[i].gaps
	}
}

// write prints the table's rows: the gaps, the time and their rate.
func (g gapTable) write(w io.Writer, name string) {
	fmt.Fprintf(w, "%s: gaps of %s or more after the first wave, by the exchanges in flight\n", name, minStall)
	for i, row := range g {
		if row.time == 0 {
			continue
		}
		rng := fmt.Sprintf("%d+", gapFloors[i])
		if i+1 < len(gapFloors) {
			if hi := gapFloors[i+1] - 1; hi > gapFloors[i] {
				rng = fmt.Sprintf("%d–%d", gapFloors[i], hi)
			} else {
				rng = strconv.Itoa(gapFloors[i])
			}
		}
		fmt.Fprintf(w, "  %7s in flight: %4d gaps in %9.1f ms, %6.1f a second\n", rng, row.gaps, float64(row.time)/1e6, float64(row.gaps)/row.time.Seconds())
	}
}

// flight is one way of one exchange: how long it took and how many other
// exchanges were in flight (sent and not yet answered) when it began.
type flight struct {
	took     time.Duration
	inFlight int
}

// flights are the ways of every exchange of the clients whose exchanges
// and arrivals pair up.
func flights(clients [][]request, stopped func(a, b time.Duration) time.Duration) []flight {
	var sent, answered []time.Duration
	var all []request
	for _, rs := range clients {
		for _, x := range rs {
			all = append(all, x)
			sent, answered = append(sent, x.sent), append(answered, x.answered)
		}
	}
	slices.Sort(sent)
	slices.Sort(answered)
	// inFlight is the number of exchanges sent before t and answered after.
	inFlight := func(t time.Duration) int {
		s, _ := slices.BinarySearch(sent, t)
		a, _ := slices.BinarySearch(answered, t+1)
		return s - a
	}
	out := make([]flight, 0, 2*len(all))
	for _, x := range all {
		out = append(out, flight{x.decided - x.sent - stopped(x.sent, x.decided), inFlight(x.sent)},
			flight{x.answered - x.decided - stopped(x.decided, x.answered), inFlight(x.decided) - 1})
	}
	return out
}

// request is one traced request, its times from the server's origin (the
// first arrival): the client's send, the handler's entry, the server's
// decision, the client's answer, and the delay the client drew after it
// (−1 after the last).
type request struct {
	client, attempt                  int
	sent, entered, decided, answered time.Duration
	admitted                         bool
	delay                            time.Duration
}

func tracedRequests(i int, srv *windowServer, c *client) []request {
	var out []request
	for j, x := range *c.exchanges {
		d := srv.decisions[i][j]
		r := request{client: i, attempt: j, sent: x.sent.Sub(srv.origin), entered: d.entered.Sub(srv.origin),
			decided: d.decided.Sub(srv.origin), answered: x.answered.Sub(srv.origin), admitted: d.admitted, delay: -1}
		if j < len(c.delays) {
			r.delay = c.delays[j]
		}
		out = append(out, r)
	}
	return out
}

// wave is one attempt's rejected requests: how many, and the 5–95% ranges
// of their decisions at the server and of their answers at the clients.
// A busy machine answers a wave in a clump after it (answered shorter
// than decided), which is why herd's machine carries requests first.
type wave struct {
	attempt, rejected int
	decided, answered time.Duration
}

// waves are the waves of the clients' requests, attempt by attempt, while
// an attempt had at least 20 rejected requests.
func waves(clients [][]request) []wave {
	var out []wave
	for a := 0; ; a++ {
		var dec, ans []time.Duration
		for _, rs := range clients {
			if a < len(rs) && !rs[a].admitted {
				dec, ans = append(dec, rs[a].decided), append(ans, rs[a].answered)
			}
		}
		if len(dec) < 20 {
			return out
		}
		out = append(out, wave{a, len(dec), span90(dec), span90(ans)})
	}
}

// span90 is the 5–95% range of ts (which it sorts).
func span90(ts []time.Duration) time.Duration {
	slices.Sort(ts)
	n := len(ts) - 1
	return ts[n*95/100] - ts[n*5/100]
}

// releaseClients makes the case's clients of url, releases them at one
// instant and waits for every one to succeed or give up (or the context to
// end); errs[i] is client i's outcome.
func releaseClients(ctx context.Context, cs caseSpec, url string) (clients []*client, errs []error) {
	clients = make([]*client, cs.clients)
	errs = make([]error, cs.clients)
	start := make(chan struct{})
	finished := make(chan struct{}, cs.clients)
	for i := range clients {
		clients[i] = newClient(i, url, cs.window, true)
		go func() {
			defer func() { finished <- struct{}{} }()
			select {
			case <-start:
			case <-ctx.Done():
				errs[i] = ctx.Err()
				return
			}
			errs[i] = cs.lib.retry(ctx, clients[i])
		}()
	}
	time.Sleep(release)
	close(start)
	for range clients {
		<-finished
	}
	for _, c := range clients {
		c.http.CloseIdleConnections()
	}
	return clients, errs
}
