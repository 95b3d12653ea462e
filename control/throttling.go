package control

import (
	"fmt"
	"github.com/herdlab/herd/model"
	"time"
)

// RetryThrottling is gRPC's retry throttling (gRFC A6 "gRPC Retry
// Design", section "Throttling Configuration" and the retryThrottling
// field of the service config; grpc-go clientconn.go retryThrottler): each
// client (a channel, per server name) keeps a token count that starts at
// MaxTokens and stays in [0, MaxTokens]; every failed call takes 1 token,
// every successful call adds TokenRatio; when a call fails, it is retried
// only if, after taking its token, the count is above MaxTokens / 2. The
// count is taken on every failure, also one that the attempts limit would
// not retry anyway (grpc-go's throttle() comes before its maxAttempts
// check). A6 gives no defaults; herd's are its example, 10 tokens and
// 0.1, which throttle once failures exceed about 10% of successes.
// MaxTokens 0 means no throttling.
type RetryThrottling struct {
	MaxTokens  float64 `json:"max_tokens"`
	TokenRatio float64 `json:"token_ratio"`
}

// DefaultRetryThrottling is A6's example configuration.
func DefaultRetryThrottling() RetryThrottling {
	return RetryThrottling{MaxTokens: 10, TokenRatio: 0.1}
}

// Name is "grpc throttling".
func (RetryThrottling) Name() string { return "grpc throttling" }

// Cause is ByThrottling.
func (RetryThrottling) Cause() Cause { return ByThrottling }

// Validate checks A6's ranges: both parameters greater than zero (herd
// bounds them).
func (r RetryThrottling) Validate(model.Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case !model.Finite(r.MaxTokens) || r.MaxTokens <= 0 || r.MaxTokens > 1e6:
		return bad("throttling-max-tokens", "a number of tokens in (0, 1e6]", r.MaxTokens)
	case !model.Finite(r.TokenRatio) || r.TokenRatio <= 0 || r.TokenRatio > r.MaxTokens:
		return bad("throttling-token-ratio", fmt.Sprintf("a number of tokens in (0, max-tokens = %g]", r.MaxTokens), r.TokenRatio)
	}
	return nil
}

// BytesPerClient is one float64 of tokens.
func (RetryThrottling) BytesPerClient(model.Scenario) int64 { return 8 }

// NewState is every client's token count, full.
func (r RetryThrottling) NewState(_ model.Scenario, clients int) ControlState {
	s := &throttlingState{r: r, tokens: make([]float64, clients)}
	s.Reset()
	return s
}

type throttlingState struct {
	r      RetryThrottling
	tokens []float64
}

func (s *throttlingState) Reset() {
	for i := range s.tokens {
		s.tokens[i] = s.r.MaxTokens
	}
}

func (*throttlingState) Start(int32, int) {}

func (*throttlingState) Send(int32, int, func() float64) bool { return true }

func (s *throttlingState) Outcome(c int32, _ int, failed, _ bool) {
	if failed {
		s.tokens[c] = max(0, s.tokens[c]-1)
		return
	}
	s.tokens[c] = min(s.r.MaxTokens, s.tokens[c]+s.r.TokenRatio)
}

// Retry is retryThrottler.throttle()'s answer for the failure just
// counted: retry while the count is above half of MaxTokens.
func (s *throttlingState) Retry(c int32, _ int) bool { return s.tokens[c] > s.r.MaxTokens/2 }

// AdaptiveThrottling is the client-side adaptive throttling of the Google
// SRE book (Beyer et al., "Site Reliability Engineering", O'Reilly 2016,
// chapter 21 "Handling Overload", section "Client-Side Throttling",
// equation 21-1; https://sre.google/sre-book/handling-overload/): each
// client counts, over the trailing Window, its requests — every send the
// application attempts, those it rejected itself included — and its
// accepts — the sends the backend served; before each send it rejects
// the send locally with probability
//
//	max(0, (requests − K·accepts) / (requests + 1)),
//
// so that once requests pass K × accepts the sends that reach the backend
// stay near K × its accepts. The book uses K = 2 and two minutes of
// history. A send rejected locally never reaches the server and its
// request gives up. K 0 means no throttling.
//
// The window is kept in at most 20 slices: with a window of at most 20
// ticks each slice is one tick and the window is exactly the last Window
// ticks, this one included; a longer window is 20 slices of
// ⌈Window / 20⌉ ticks. Window is in seconds, converted with the scenario's
// tick (one second per tick when ticks are abstract).
type AdaptiveThrottling struct {
	K      float64       `json:"k"`
	Window time.Duration `json:"window"`
}

// DefaultAdaptiveThrottling is the book's K = 2 over two minutes.
func DefaultAdaptiveThrottling() AdaptiveThrottling {
	return AdaptiveThrottling{K: 2, Window: 2 * time.Minute}
}

const adaptiveSlices = 20

// Name is "sre throttling".
func (AdaptiveThrottling) Name() string { return "sre throttling" }

// Cause is ByAdaptive.
func (AdaptiveThrottling) Cause() Cause { return ByAdaptive }

// Validate checks K and that the window is at least a tick.
func (a AdaptiveThrottling) Validate(sc model.Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case !model.Finite(a.K) || a.K < 1 || a.K > 1e6:
		return bad("adaptive-k", "a multiplier in [1, 1e6] (the book's 2; 1.1 is more aggressive)", a.K)
	case a.Window <= 0 || a.Window > 24*time.Hour:
		return bad("adaptive-window", "a duration in (0, 24h]", a.Window)
	case ticksOf(sc, a.Window) < 1:
		return bad("adaptive-window", fmt.Sprintf("at least one tick long (a tick is %g s)", 1/sc.TicksPerSecond()), a.Window)
	}
	return nil
}

// BytesPerClient is the slices' two counts, the sums and the newest slice.
func (AdaptiveThrottling) BytesPerClient(model.Scenario) int64 { return 8*adaptiveSlices + 24 }

// NewState is every client's window, empty.
func (a AdaptiveThrottling) NewState(sc model.Scenario, clients int) ControlState {
	w := ticksOf(sc, a.Window)
	n := int64(min(adaptiveSlices, w))
	s := &adaptiveState{k: a.K, n: n, slice: (w + n - 1) / n,
		req: make([]int32, int64(clients)*n), acc: make([]int32, int64(clients)*n),
		reqSum: make([]int64, clients), accSum: make([]int64, clients), at: make([]int64, clients)}
	return s
}

type adaptiveState struct {
	k              float64
	n, slice       int64 // slices, ticks per slice
	req, acc       []int32
	reqSum, accSum []int64
	at             []int64 // newest slice number written, per client
}

func (s *adaptiveState) Reset() {
	clear(s.req)
	clear(s.acc)
	clear(s.reqSum)
	clear(s.accSum)
	clear(s.at)
}

// advance brings client c's window to tick t and returns the index of the
// current slice in its ring.
func (s *adaptiveState) advance(c int32, t int) int64 {
	base := int64(c) * s.n
	now := int64(t) / s.slice
	if gone := now - s.at[c]; gone > 0 {
		for j := range min(gone, s.n) {
			i := base + (s.at[c]+1+j)%s.n
			s.reqSum[c] -= int64(s.req[i])
			s.accSum[c] -= int64(s.acc[i])
			s.req[i], s.acc[i] = 0, 0
		}
		s.at[c] = now
	}
	return base + now%s.n
}

func (*adaptiveState) Start(int32, int) {}

// RejectProbability is equation 21-1 for the counts of the window.
func (a AdaptiveThrottling) RejectProbability(requests, accepts int64) float64 {
	return max(0, (float64(requests)-a.K*float64(accepts))/(float64(requests)+1))
}

func (s *adaptiveState) Send(c int32, t int, draw func() float64) bool {
	i := s.advance(c, t)
	p := AdaptiveThrottling{K: s.k}.RejectProbability(s.reqSum[c], s.accSum[c])
	s.req[i]++
	s.reqSum[c]++
	return p == 0 || draw() >= p
}

func (s *adaptiveState) Outcome(c int32, t int, failed, _ bool) {
	if failed {
		return
	}
	i := s.advance(c, t)
	s.acc[i]++
	s.accSum[c]++
}

func (*adaptiveState) Retry(int32, int) bool { return true }

// OutageRetries is how many retries one client makes over its next
// requests, one after another, when every call fails, from a full count:
// each failure takes a token before the attempts limit is asked (grpc-go's
// order), and each request makes at most attempts sends (0: no limit).
// With no success to refill the count, no order of requests retries more
// than OutageRetries(·, 0) = ⌈MaxTokens/2⌉ − 1.
func (r RetryThrottling) OutageRetries(requests, attempts int) int {
	tokens, retries := r.MaxTokens, 0
	for range requests {
		for a := 1; ; a++ {
			tokens = max(0, tokens-1)
			if !(tokens > r.MaxTokens/2) {
				if a == 1 {
					return retries // no later failure can retry either
				}
				break
			}
			if attempts > 0 && a >= attempts {
				break
			}
			retries++
		}
	}
	return retries
}
