package virtual

import (
	"slices"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// A Client is one client's whole request: the library's retry loop around
// call, which asks the window server once and says whether it admitted
// the call. It returns whether the client was served (false: it gave up).
type Client func(call func() bool) bool

// Trial is what one bubble measured.
type Trial struct {
	Calls  int64
	GaveUp int64
	// Completion is when the last served client was served, from the
	// common start (0 when nobody was).
	Completion time.Duration
	// Served[c] is when client c was served, −1 when it gave up.
	Served []time.Duration
}

// windowServer is herd's continuous-time window server inside a bubble:
// the windows [iτ, (i+1)τ) from the start admit their first k calls and
// fail the rest at once; a call and its answer take no time. Calls that
// arrive at the same instant are decided in the order of their clients'
// numbers, and one client runs at a time after its answer (until it
// blocks again), so that a library drawing from a process-wide source
// draws in an order fixed by the seed, not by the scheduler.
type windowServer struct {
	k     int
	tau   time.Duration
	start time.Time

	mu      sync.Mutex
	pending []int32 // calls made at the current instant, not yet decided

	kick    chan struct{} // a call is pending (buffer 1)
	done    chan struct{} // every client has returned
	answers []chan bool   // one per client (buffer 1)

	window int64 // the current window's number
	used   int   // calls it admitted
	trial  Trial
}

// call is client c's call to the server.
func (s *windowServer) call(c int32) bool {
	s.mu.Lock()
	s.pending = append(s.pending, c)
	s.mu.Unlock()
	select {
	case s.kick <- struct{}{}:
	default:
	}
	return <-s.answers[c]
}

// serve decides the calls, instant by instant, until the clients are done.
func (s *windowServer) serve() {
	var batch []int32
	for {
		select {
		case <-s.kick:
		case <-s.done:
			return
		}
		for {
			synctest.Wait() // every call of this instant is pending
			s.mu.Lock()
			batch, s.pending = s.pending, batch[:0]
			s.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			slices.Sort(batch)
			for _, c := range batch {
				s.answers[c] <- s.decide(c)
				synctest.Wait() // client c draws and sleeps (or returns)
			}
		}
	}
}

// decide admits or fails client c's call now.
func (s *windowServer) decide(c int32) bool {
	at := time.Since(s.start)
	s.trial.Calls++
	if w := int64(at / s.tau); w != s.window {
		s.window, s.used = w, 0
	}
	if s.used >= s.k {
		return false
	}
	s.used++
	s.trial.Served[c] = at
	s.trial.Completion = max(s.trial.Completion, at)
	return true
}

// An Env is what the clients of one trial share, set up inside its bubble
// from the server's call (by client number): each client's whole request
// and what stops the shared parts once every client has returned.
type Env func(call func(c int32) bool) (client func(c int32) bool, stop func())

// Alone is the Env of clients that share nothing: each runs client
// around its own calls.
func Alone(client Client) Env {
	return func(call func(c int32) bool) (func(c int32) bool, func()) {
		return func(c int32) bool { return client(func() bool { return call(c) }) }, func() {}
	}
}

// Play runs one trial in a new bubble: n clients start together against a
// window server admitting k calls per window of length tau; a failed
// call's answer is back trip after it reached the server. setup runs
// first inside the bubble (to seed a library's source).
func Play(t *testing.T, n, k int, tau, trip time.Duration, env Env, setup func()) Trial {
	var out Trial
	synctest.Test(t, func(t *testing.T) {
		if setup != nil {
			setup()
		}
		s := &windowServer{k: k, tau: tau, start: time.Now(), kick: make(chan struct{}, 1), done: make(chan struct{}),
			answers: make([]chan bool, n), trial: Trial{Served: make([]time.Duration, n)}}
		for c := range s.answers {
			s.answers[c] = make(chan bool, 1)
			s.trial.Served[c] = -1
		}
		served := make(chan struct{})
		go func() { s.serve(); close(served) }()
		client, stop := env(func(c int32) bool {
			ok := s.call(c)
			if !ok && trip > 0 {
				time.Sleep(trip)
			}
			return ok
		})
		var wg sync.WaitGroup
		var mu sync.Mutex
		for c := range int32(n) {
			wg.Go(func() {
				if !client(c) {
					mu.Lock()
					s.trial.GaveUp++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		stop()
		close(s.done)
		<-served
		out = s.trial
	})
	return out
}
