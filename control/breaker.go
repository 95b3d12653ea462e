package control

import (
	"fmt"
	"github.com/herdlab/herd/model"
	"math/bits"
)

// Breaker is herd's per-client circuit breaker, the common
// sliding-window design (closed, open, half-open). Closed, it records the
// outcome of each of the client's calls in a window of the last Window
// calls; when the window holds at least MinCalls outcomes and the share of
// failures reaches Threshold, it opens. Open, it refuses every send of the
// client for Cooldown ticks: the request is failed locally and given up,
// without reaching the server. Then it is half-open: the client's next send
// is a probe and other sends in the same tick are refused; a successful
// probe closes it with an empty window, a failed one opens it again.
// Window 0 means no breaker.
//
// It is not the breaker of Brooker's simulator, which stops only retries
// and never opens: see SimBreaker.
type Breaker struct {
	Window    int     // calls in the sliding window, 0 (no breaker) or 1…64
	Threshold float64 // failure share that opens it, in (0, 1]
	MinCalls  int     // outcomes needed before it may open, 1…Window
	Cooldown  int     // ticks it stays open, ≥ 1
}

// DefaultBreaker is a breaker over the last 20 calls that opens at 50%
// failures once it has seen 10 calls, and stays open 30 ticks.
func DefaultBreaker() Breaker {
	return Breaker{Window: 20, Threshold: 0.5, MinCalls: 10, Cooldown: 30}
}

// MaxBreakerWindow is the longest sliding window: the window is one 64-bit
// word per client.
const MaxBreakerWindow = 64

// Name is "breaker".
func (Breaker) Name() string { return "breaker" }

// Cause is ByBreaker.
func (Breaker) Cause() Cause { return ByBreaker }

// Validate checks the breaker's parameters.
func (k Breaker) Validate(model.Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case k.Window < 0 || k.Window > MaxBreakerWindow:
		return bad("breaker-window", fmt.Sprintf("0 (no breaker) or an integer in [1, %d] calls", MaxBreakerWindow), k.Window)
	case !model.Finite(k.Threshold) || k.Threshold <= 0 || k.Threshold > 1:
		return bad("breaker-threshold", "a failure share in (0, 1]", k.Threshold)
	case k.MinCalls < 1 || k.MinCalls > k.Window:
		return bad("breaker-min-calls", fmt.Sprintf("an integer in [1, breaker-window = %d]", k.Window), k.MinCalls)
	case k.Cooldown < 1 || k.Cooldown > model.MaxWindow:
		return bad("breaker-cooldown", fmt.Sprintf("an integer in [1, %d] ticks", int(model.MaxWindow)), k.Cooldown)
	}
	return nil
}

// BytesPerClient is the window, its fill, the state and the reopening tick.
func (Breaker) BytesPerClient(model.Scenario) int64 { return 14 }

// The breaker's states.
const (
	breakerClosed uint8 = iota
	breakerOpen
	breakerProbing // half-open with its one probe sent this tick
)

// NewState is every client's breaker, closed with an empty window.
func (k Breaker) NewState(_ model.Scenario, clients int) ControlState {
	return &breakerState{k: k, mask: ^uint64(0) >> (64 - k.Window),
		window: make([]uint64, clients), filled: make([]uint8, clients),
		state: make([]uint8, clients), until: make([]int32, clients)}
}

// breakerState holds, per client, the last outcomes (bit 1 = failure,
// newest lowest), how many of the window's slots are filled, the state,
// and the first tick the open breaker lets a probe through.
type breakerState struct {
	k      Breaker
	mask   uint64
	window []uint64
	filled []uint8
	state  []uint8
	until  []int32
}

func (s *breakerState) Reset() {
	clear(s.window)
	clear(s.filled)
	clear(s.state)
}

func (*breakerState) Start(int32, int) {}

func (s *breakerState) Send(c int32, t int, _ func() float64) bool {
	switch s.state[c] {
	case breakerOpen:
		if t < int(s.until[c]) {
			return false
		}
		s.state[c] = breakerProbing
		return true
	case breakerProbing:
		return false
	}
	return true
}

func (s *breakerState) Outcome(c int32, t int, failed, _ bool) {
	switch s.state[c] {
	case breakerOpen:
		return // a send let through before it opened this tick
	case breakerProbing:
		if failed {
			s.trip(c, t)
		} else {
			s.state[c], s.window[c], s.filled[c] = breakerClosed, 0, 0
		}
		return
	}
	w := s.window[c] << 1
	if failed {
		w |= 1
	}
	s.window[c] = w & s.mask
	if int(s.filled[c]) < s.k.Window {
		s.filled[c]++
	}
	n := int(s.filled[c])
	if n >= s.k.MinCalls && float64(bits.OnesCount64(s.window[c])) >= s.k.Threshold*float64(n) {
		s.trip(c, t)
	}
}

// trip opens client c's breaker after the outcomes of tick t: it refuses
// the next Cooldown ticks.
func (s *breakerState) trip(c int32, t int) {
	s.state[c] = breakerOpen
	s.until[c] = int32(min(t+1+s.k.Cooldown, 1<<31-1))
}

func (*breakerState) Retry(int32, int) bool { return true }

// SimBreaker is the circuit breaker of Brooker's simulator exactly as its
// code has it (github.com/mbrooker/simulator_example, retry_sim,
// retry_strategy.py CircuitBreakerRetryStrategy, commit bbfe394): each
// client counts, over the whole run, the requests it started and the
// failed calls it saw (first tries and retries); when a call fails, the
// failure is counted and the request is retried only if failures /
// requests is at most MaxFailureRatio (his 0.1). It never refuses a send
// and never resets: it stops retries, not traffic. His runs compose it with
// three retries (--max-attempts 4). MaxFailureRatio 0 means no breaker.
type SimBreaker struct {
	MaxFailureRatio float64 `json:"max_failure_ratio"`
}

// DefaultSimBreaker is his 10%.
func DefaultSimBreaker() SimBreaker { return SimBreaker{MaxFailureRatio: 0.1} }

// Name is "brooker-sim breaker".
func (SimBreaker) Name() string { return "brooker-sim breaker" }

// Cause is ByBreaker.
func (SimBreaker) Cause() Cause { return ByBreaker }

// Validate checks the ratio.
func (k SimBreaker) Validate(model.Scenario) error {
	if r := k.MaxFailureRatio; !model.Finite(r) || r <= 0 || r > 1e6 {
		return &model.FieldError{Flag: "breaker-max-ratio", Valid: "a ratio of failures to requests in (0, 1e6]", Got: fmt.Sprint(r)}
	}
	return nil
}

// BytesPerClient is the two counts.
func (SimBreaker) BytesPerClient(model.Scenario) int64 { return 16 }

// NewState is every client's counts, zero.
func (k SimBreaker) NewState(_ model.Scenario, clients int) ControlState {
	return &simBreakerState{max: k.MaxFailureRatio, calls: make([]float64, clients), failures: make([]float64, clients)}
}

type simBreakerState struct {
	max             float64
	calls, failures []float64
}

func (s *simBreakerState) Reset() {
	clear(s.calls)
	clear(s.failures)
}

func (s *simBreakerState) Start(c int32, _ int) { s.calls[c]++ }

func (*simBreakerState) Send(int32, int, func() float64) bool { return true }

func (s *simBreakerState) Outcome(c int32, _ int, failed, _ bool) {
	if failed {
		s.failures[c]++
	}
}

// Retry is retry_sim's test "failures / calls > max_rate: do not retry".
func (s *simBreakerState) Retry(c int32, _ int) bool {
	return !(s.failures[c]/s.calls[c] > s.max)
}
