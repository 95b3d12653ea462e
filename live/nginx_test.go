package main

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// The decisions of a run against nginx are read from the clients'
// exchanges: halfway through one answered at once, one median half after
// the send for one nginx paced; completion is the last admitted decision,
// or the last paced answer less that half.
func TestNginxRequests(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms float64) time.Time { return t0.Add(time.Duration(ms * 1e6)) }
	ex := func(sent, answered float64) exchange { return exchange{at(sent), at(answered)} }
	for _, nodelay := range []bool{true, false} {
		cs := caseSpec{clients: 2, nginx: &nginxLimit{rate: 10, burst: 1, nodelay: nodelay}}
		// Client 0 is admitted at once; client 1 is rejected (2 ms round
		// trip), waits 100 ms, and is admitted, answered 52 ms after its
		// send (paced 50 ms without nodelay).
		a := []exchange{ex(0, 2)}
		b := []exchange{ex(1, 3), ex(103, 155)}
		clients := []*client{{exchanges: &a}, {exchanges: &b, delays: []time.Duration{100 * time.Millisecond}}}
		r := nginxRequests(cs, clients, []error{nil, nil}, 3, false)
		// The first decision, client 0's at 1 ms, is the origin.
		want := 155.0 - 1 - 1 // paced: answer less the median half (1 ms)
		if nodelay {
			want = 129 - 1 // halfway through 103–155
		}
		if got := float64(r.completion) / 1e6; got != want || r.calls != 3 || r.served != 2 || r.unaligned != 0 {
			t.Errorf("nodelay %v: completion %v ms, %d calls, %d served, %d unaligned; want %v, 3, 2, 0", nodelay, got, r.calls, r.served, r.unaligned, want)
		}
		if len(r.firsts) != 2 || r.firsts[0] != 0 || r.firsts[1] != time.Millisecond {
			t.Errorf("nodelay %v: first decisions %v, want 0 and 1 ms", nodelay, r.firsts)
		}
	}
	// A client that gave up is counted, none of its requests admitted.
	a := []exchange{ex(0, 2)}
	r := nginxRequests(caseSpec{clients: 1, nginx: &nginxLimit{rate: 10}}, []*client{{exchanges: &a}}, []error{errors.New("gave up")}, 1, false)
	if r.gaveUp != 1 || r.completion != 0 {
		t.Errorf("gave up %d, completion %v; want 1 and 0", r.gaveUp, r.completion)
	}
}

// The herd command -v prints for a case is one herd parses: every flag
// but a boolean is followed by its value, and --nodelay stands alone
// (herd would read "--nodelay true" as a subcommand "true").
func TestSimulateCommandParses(t *testing.T) {
	for _, cs := range nginxGrid(false) {
		words := strings.Fields(simulateCommand(cs, network{}, 10))
		for i := 2; i < len(words); i++ {
			if !strings.HasPrefix(words[i], "--") {
				t.Fatalf("%s: %q is no flag: %s", cs, words[i], strings.Join(words, " "))
			}
			if words[i] != "--nodelay" {
				i++
			}
		}
		if has := strings.Contains(strings.Join(words, " "), " --nodelay"); has != cs.nginx.nodelay {
			t.Errorf("%s: --nodelay given %v, want %v", cs, has, cs.nginx.nodelay)
		}
	}
}
