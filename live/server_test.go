package main

import (
	"context"
	"net/http"
	"testing"
	"time"
)

// The server admits the first k requests of each window, counted from the
// first arrival, answers the rest with an immediate 503, records every
// arrival of every client, and listens on 127.0.0.1 only.
func TestWindowServerAdmitsFirstK(t *testing.T) {
	const k, window = 3, time.Second
	s, err := startWindowServer(k, window, 8)
	if err != nil {
		t.Fatal(err)
	}
	defer s.close()
	if host := s.ln.Addr().String(); host[:len("127.0.0.1:")] != "127.0.0.1:" {
		t.Fatalf("listening on %s", host)
	}
	c := newClient(0, s.url(), window, false)
	codes := func(n int) []int {
		var out []int
		for i := range n {
			c.id = i
			resp, err := c.http.Do(c.request(context.Background()))
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			out = append(out, resp.StatusCode)
		}
		return out
	}
	first := codes(5)
	time.Sleep(window + 50*time.Millisecond - time.Since(s.origin)%window) // into the next window
	second := codes(4)
	want := func(got []int, ok int) {
		for i, code := range got {
			if w := map[bool]int{true: http.StatusOK, false: http.StatusServiceUnavailable}[i < ok]; code != w {
				t.Errorf("request %d of a window: %d, want %d (all: %v)", i, code, w, got)
			}
		}
	}
	want(first, k)
	want(second, k)
	if s.calls != 9 || len(s.arrivals[0]) != 2 || len(s.arrivals[4]) != 1 || s.arrivals[0][0] != 0 {
		t.Errorf("calls %d, arrivals %v", s.calls, s.arrivals)
	}
	c.http.CloseIdleConnections()
}

// A repetition's clients all finish, the server is stopped, and what was
// measured adds up: every client is served or gave up, calls are the
// arrivals recorded, and the round trips pair each retry with its delay.
func TestRepetitionAddsUp(t *testing.T) {
	l, _ := libraryNamed("full-jitter")
	cs := caseSpec{lib: l, clients: 40, k: 5, window: 20 * time.Millisecond}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := runRepetition(ctx, cs, false)
	if err != nil {
		t.Fatal(err)
	}
	if r.served+r.gaveUp != cs.clients || r.gaveUp != 0 || r.unaligned != 0 {
		t.Errorf("served %d, gave up %d, unaligned %d", r.served, r.gaveUp, r.unaligned)
	}
	if int64(len(r.trips)) != r.calls-int64(cs.clients) {
		t.Errorf("%d round trips for %d calls of %d clients", len(r.trips), r.calls, cs.clients)
	}
	if r.completion <= 0 || r.calls < int64(cs.clients) {
		t.Errorf("completion %s, calls %d", r.completion, r.calls)
	}
}
