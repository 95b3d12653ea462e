package model

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// The limiter servers are the rate limiters people deploy, in continuous
// time: a rate of r = k per window τ (-k 500/s) and a burst.
//
// The token bucket holds at most Burst tokens, starts full and gains r
// tokens per second; an arrival that finds a whole token takes it and is
// admitted, any other is answered at once with a failure.
//
// The gcra server is nginx's limit_req (ngx_http_limit_req_module) with
// one key: its state is an excess in thousandths of a request and the
// time of the last admission on nginx's millisecond clock. The first
// arrival is admitted with excess 0; each later one computes excess −
// ⌊rate·ms/1000⌋ + 1000 (rate in thousandths of a request per second,
// ms the whole milliseconds since the last admission), floored at 0, and
// is rejected when that is above Burst·1000, the state unchanged;
// otherwise it is admitted and the state kept. Without Nodelay an
// admitted request is answered excess·1000/rate ms later (nginx delays
// it); with Nodelay at once. In continuous time it is GCRA with emission
// interval 1/r and tolerance Burst/r, a token bucket of Burst + 1 tokens
// on a millisecond clock. docs/limiters.md derives both and says how the
// live check compares them with a real nginx.
const (
	TokenBucket Server = 5
	GCRA        Server = 6
)

// Limiting is the limiter servers' parameters.
type Limiting struct {
	// Burst is the token bucket's size (≥ 1; when not given, k: one
	// window's tokens), or nginx's burst (≥ 0; default 0).
	Burst int
	// Nodelay answers the requests gcra admits at once, as nginx's
	// nodelay; without it they are paced (delayed).
	Nodelay bool
}

// MaxBurst bounds a limiter's burst.
const MaxBurst = 1 << 40

// MaxLimiterRate bounds a gcra rate, in requests per second, so that
// nginx's arithmetic in thousandths stays within 64 bits.
const MaxLimiterRate = 1e9

type tokenBucket struct{}

func (tokenBucket) Name() string        { return "token-bucket" }
func (tokenBucket) Served(m, k int) int { return upTo(m, k) }
func (tokenBucket) Plays() Plays        { return limiterPlays("token bucket") }
func (tokenBucket) Words(s Scenario) string {
	return fmt.Sprintf("token bucket of %d tokens refilled at %d per %s", s.Limiter.Burst, s.Capacity, s.Window())
}
func (tokenBucket) Brief(s Scenario) string { return fmt.Sprintf(" b=%d", s.Limiter.Burst) }
func (tokenBucket) horizon(s Scenario) int  { return s.everyTickServes(0) }
func (tokenBucket) validate(s Scenario, bad badField) error {
	if err := s.validateLimiter(bad, 1); err != nil {
		return err
	}
	if s.Limiter.Nodelay {
		return bad("nodelay", "left out with --server token-bucket, which answers at once (nginx's pacing is --server gcra without --nodelay)", true)
	}
	return nil
}

type gcra struct{}

func (gcra) Name() string        { return "gcra" }
func (gcra) Served(m, k int) int { return upTo(m, k) }
func (gcra) Plays() Plays        { return limiterPlays("gcra") }
func (gcra) Words(s Scenario) string {
	mode := "admitted requests paced"
	if s.Limiter.Nodelay {
		mode = "nodelay"
	}
	return fmt.Sprintf("nginx limit_req (GCRA) at %d per %s, burst %d, %s", s.Capacity, s.Window(), s.Limiter.Burst, mode)
}
func (gcra) Brief(s Scenario) string {
	if s.Limiter.Nodelay {
		return fmt.Sprintf(" b=%d nodelay", s.Limiter.Burst)
	}
	return fmt.Sprintf(" b=%d", s.Limiter.Burst)
}
func (gcra) horizon(s Scenario) int { return s.everyTickServes(0) }
func (gcra) validate(s Scenario, bad badField) error {
	if err := s.validateLimiter(bad, 0); err != nil {
		return err
	}
	if m := s.RateMilli(); m < 1 || float64(s.Capacity)/s.Window().Seconds() > MaxLimiterRate {
		return bad("capacity", fmt.Sprintf("a rate in [0.001, %g] requests per second with --server gcra (nginx counts thousandths of a request per second)", float64(MaxLimiterRate)),
			fmt.Sprintf("%d per %s", s.Capacity, s.Window()))
	}
	return nil
}

func limiterPlays(name string) Plays {
	return Plays{Cohort: NoCohort, ContinuousTime: true,
		Unmodelled: "the " + name + " runs in continuous time, where the window engine plays it; use simulate"}
}

// validateLimiter checks what the limiter servers share: continuous time
// and a burst of at least least.
func (s Scenario) validateLimiter(bad badField, least int) error {
	if !s.InContinuousTime() {
		return bad("time", fmt.Sprintf("continuous with --server %s (give -k as a rate such as 500/s, or --time continuous --window 1s)", s.Server), s.Time)
	}
	if b := s.Limiter.Burst; b < least || b > MaxBurst {
		return bad("burst", fmt.Sprintf("an integer in [%d, %d] with --server %s", least, int64(MaxBurst), s.Server), b)
	}
	return nil
}

// validateLimiting refuses the limiter servers' fields on other servers.
func (s Scenario) validateLimiting(bad badField) error {
	if s.Server == TokenBucket || s.Server == GCRA {
		return nil
	}
	switch {
	case s.Limiter.Burst != 0:
		return bad("burst", "0 unless --server token-bucket or gcra", s.Limiter.Burst)
	case s.Limiter.Nodelay:
		return bad("nodelay", "left out unless --server gcra", true)
	}
	return nil
}

// RateMilli is a gcra server's rate as nginx keeps it: thousandths of a
// request per second, a whole number (⌊1000·k/τ⌋, so 30/min is 500).
func (s Scenario) RateMilli() int64 {
	w := s.Window()
	if w <= 0 {
		return 0
	}
	x := float64(s.Capacity) * 1000 * float64(time.Second) / float64(w)
	if x > math.MaxInt64/2 {
		return math.MaxInt64 / 2
	}
	return int64(math.Floor(x * (1 + 1e-12)))
}

// setLimiter reads --burst and --nodelay for Spec.Set.
func (s *Spec) setLimiter(field, text string) error {
	bad := func(valid string) error { return &FieldError{Flag: field, Valid: valid, Got: strconv.Quote(text)} }
	if field == "nodelay" {
		b, err := strconv.ParseBool(text)
		if err != nil {
			return bad("true or false")
		}
		s.nodelay = b
		return nil
	}
	n, err := readInt(text)
	if err != nil {
		return bad("an integer")
	}
	s.burst = n
	return nil
}

// applyLimiter sets the limiter's fields of sc: a token bucket's burst
// is k (one window's tokens) unless given.
func (s Spec) applyLimiter(sc *Scenario) {
	sc.Limiter = Limiting{Burst: s.burst, Nodelay: s.nodelay && s.Given("nodelay")}
	if !s.Given("burst") {
		sc.Limiter.Burst = 0
		if sc.Server == TokenBucket {
			sc.Limiter.Burst = sc.Capacity
		}
	}
}

// admitGap bounds, in windows, the time from one admission to when the
// server could admit again: a window for the window server (its next
// window) and for the token bucket (a token every 1/k windows); for gcra
// 1000/rate seconds (its rate in thousandths, rounded down) and up to two
// of nginx's milliseconds. continuousHorizon builds on it.
func (s Scenario) admitGap() float64 {
	if s.Server != GCRA {
		return 1
	}
	ms := 1e6/float64(max(1, s.RateMilli())) + 2
	return max(1, ms*float64(time.Millisecond)/float64(s.Window()))
}

// Help is the server in a paragraph of herd simulate's help.
func (tokenBucket) Help() string {
	return `--server token-bucket runs in continuous time at the rate -k gives (500/s):
it holds --burst tokens (default k) and admits an arrival that finds a
whole token.`
}

// Help is the server in a paragraph of herd simulate's help.
func (gcra) Help() string {
	return `--server gcra is nginx's limit_req, in continuous time at the rate -k
gives: its --burst (default 0) admits burst + 1 at once; --nodelay answers
them at once, else nginx paces them one per 1/rate, in nginx's own
arithmetic on its millisecond clock (docs/limiters.md).`
}
