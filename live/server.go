package main

import (
	"context"
	"errors"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// windowServer admits the first k requests of each window of length τ,
// counted from the first request that arrives, and answers the others at
// once with 503 Service Unavailable (no Retry-After: the clients' own
// backoff decides).
type windowServer struct {
	k      int
	window time.Duration

	mu      sync.Mutex
	started bool
	origin  time.Time
	current int64 // the window of the last arrival
	used    int
	calls   int64
	// lastAdmitted is the offset of the latest admitted request.
	lastAdmitted time.Duration
	// arrivals[c] are the offsets from the origin of client c's requests.
	arrivals [][]time.Duration
	// decisions[c] are the same requests' handler entries and verdicts,
	// recorded when tracing (nil otherwise).
	decisions [][]decision

	srv  *http.Server
	ln   net.Listener
	done chan struct{}
}

// startWindowServer listens on 127.0.0.1 (a free port) for clients
// 0…clients−1, who name themselves in the X-Client header.
func startWindowServer(k int, window time.Duration, clients int) (*windowServer, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &windowServer{k: k, window: window, arrivals: make([][]time.Duration, clients), ln: ln, done: make(chan struct{})}
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		defer close(s.done)
		if err := s.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			panic(err) // cannot happen on a listener we own
		}
	}()
	return s, nil
}

func (s *windowServer) url() string { return "http://" + s.ln.Addr().String() + "/" }

// decision is one request at the server: when its handler began (before
// the server's lock) and when it was decided, and whether it was admitted.
type decision struct {
	entered, decided time.Time
	admitted         bool
}

func (s *windowServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	entered := time.Now()
	c, err := strconv.Atoi(r.Header.Get("X-Client"))
	s.mu.Lock()
	now := time.Now()
	if !s.started {
		s.started, s.origin = true, now
	}
	at := now.Sub(s.origin)
	if win := int64(at / s.window); win != s.current {
		s.current, s.used = win, 0
	}
	admitted := s.used < s.k
	if admitted {
		s.used++
		s.lastAdmitted = at
	}
	s.calls++
	if err == nil && c >= 0 && c < len(s.arrivals) {
		s.arrivals[c] = append(s.arrivals[c], at)
		if s.decisions != nil {
			s.decisions[c] = append(s.decisions[c], decision{entered, now, admitted})
		}
	}
	s.mu.Unlock()
	if !admitted {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// close stops the server and waits for it: no listener or handler
// outlives a repetition.
func (s *windowServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if s.srv.Shutdown(ctx) != nil {
		s.srv.Close()
	}
	<-s.done
}
