package control

import (
	"fmt"
	"github.com/herdlab/herd/model"
	"time"
)

// RetryBudget is Finagle's default retry budget (twitter/finagle,
// finagle-core …/service/RetryBudget.scala, RetryBudget.apply and
// TokenRetryBudget, over twitter/util's TokenBucket.newLeakyBucket and
// WindowedAdder): each client may retry about PercentCanRetry of its
// requests over a window of TTL, plus MinRetriesPerSec retries per second
// whatever its traffic. Finagle's defaults are 20%, 10 per second and
// 10 s.
//
// The rule, in Finagle's integer tokens: every new request deposits 1000
// tokens (0 when the percentage is 0) as it starts (RetryFilter calls
// deposit once per request); a retry withdraws ⌊1000 / percent⌋ (1 when
// the percentage is 0) and is allowed only when the balance — the sum of
// the deposits and withdrawals of the last TTL, plus a constant reserve of
// MinRetriesPerSec × ⌊TTL in s⌋ withdrawals — is at least that much.
// Deposits and withdrawals expire together after about TTL: Finagle keeps
// them in 10 slices of TTL/10 (the current one and the nine before), and so
// does herd, its slices aligned at tick 0 and TTL/10 rounded down to whole
// ticks. So over any TTL the retries are at most the percentage of the
// requests plus the reserve. TTL 0 means no budget.
//
// TTL and MinRetriesPerSec are in seconds; herd converts them with the
// scenario's tick (one second per tick when ticks are abstract).
type RetryBudget struct {
	TTL              time.Duration `json:"ttl"`
	MinRetriesPerSec int           `json:"min_retries_per_sec"`
	PercentCanRetry  float64       `json:"percent_can_retry"`
}

// DefaultRetryBudget is Finagle's RetryBudget(): 10 s, 10 per second, 20%.
func DefaultRetryBudget() RetryBudget {
	return RetryBudget{TTL: 10 * time.Second, MinRetriesPerSec: 10, PercentCanRetry: 0.2}
}

// finagleScale is TokenRetryBudget.ScaleFactor: tokens per request.
const finagleScale = 1000

// budgetSlices is WindowedAdder's number of slices in Finagle's leaky
// bucket.
const budgetSlices = 10

// Name is "finagle budget".
func (RetryBudget) Name() string { return "finagle budget" }

// Cause is ByBudget.
func (RetryBudget) Cause() Cause { return ByBudget }

// Validate checks Finagle's ranges (RetryBudget.apply's requires) and that
// a slice is at least a tick.
func (b RetryBudget) Validate(sc model.Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case b.TTL < time.Second || b.TTL > time.Minute:
		return bad("budget-ttl", "a duration in [1s, 60s] (Finagle's range)", b.TTL)
	case b.MinRetriesPerSec < 0 || b.MinRetriesPerSec > 1e6:
		return bad("budget-min-retries", "an integer number of retries per second in [0, 1e6]", b.MinRetriesPerSec)
	case !model.Finite(b.PercentCanRetry) || b.PercentCanRetry < 0 || b.PercentCanRetry > finagleScale:
		return bad("budget-percent", "a share of requests in [0, 1000] (0.2 is 20%)", b.PercentCanRetry)
	case ticksOf(sc, b.TTL) < budgetSlices:
		return bad("budget-ttl", fmt.Sprintf("at least %d ticks long (Finagle keeps it in %d slices; a tick is %g s)", budgetSlices, budgetSlices, 1/sc.TicksPerSecond()), b.TTL)
	}
	return nil
}

// BytesPerClient is the ten slices and the current slice's number.
func (RetryBudget) BytesPerClient(model.Scenario) int64 { return 8*budgetSlices + 8 }

// amounts are Finagle's deposit, withdrawal and reserve in tokens.
func (b RetryBudget) amounts() (deposit, withdraw, reserve int64) {
	deposit, withdraw = finagleScale, int64(finagleScale/b.PercentCanRetry)
	if b.PercentCanRetry == 0 {
		deposit, withdraw = 0, 1
	}
	reserve = int64(b.MinRetriesPerSec) * int64(b.TTL/time.Second) * withdraw
	return deposit, withdraw, reserve
}

// NewState is every client's budget with nothing deposited.
func (b RetryBudget) NewState(sc model.Scenario, clients int) ControlState {
	s := &budgetState{slice: ticksOf(sc, b.TTL) / budgetSlices,
		sums: make([]int64, budgetSlices*clients), at: make([]int64, clients)}
	s.deposit, s.withdraw, s.reserve = b.amounts()
	s.Reset()
	return s
}

// budgetState holds, per client, the ten slices' sums (slice j of the
// client's ring holds the slices whose number is j mod 10) and the number
// of the newest slice written.
type budgetState struct {
	slice                      int64 // ticks per slice
	deposit, withdraw, reserve int64
	sums                       []int64
	at                         []int64
}

func (s *budgetState) Reset() {
	clear(s.sums)
	clear(s.at)
}

// ring is client c's slices brought to tick t: the slices that have
// expired since its last write are cleared.
func (s *budgetState) ring(c int32, t int) []int64 {
	r := s.sums[int(c)*budgetSlices : int(c)*budgetSlices+budgetSlices]
	now := int64(t) / s.slice
	if gone := now - s.at[c]; gone > 0 {
		for j := range min(gone, budgetSlices) {
			r[(s.at[c]+1+j)%budgetSlices] = 0
		}
		s.at[c] = now
	}
	return r
}

func (s *budgetState) Start(c int32, t int) {
	r := s.ring(c, t)
	r[s.at[c]%budgetSlices] += s.deposit
}

func (*budgetState) Send(int32, int, func() float64) bool { return true }

func (*budgetState) Outcome(int32, int, bool, bool) {}

// Retry is TokenBucket.tryGet(withdraw) on the leaky bucket: allowed when
// the window's sum plus the reserve is at least the withdrawal.
func (s *budgetState) Retry(c int32, t int) bool {
	r := s.ring(c, t)
	var sum int64
	for _, v := range r {
		sum += v
	}
	if sum+s.reserve < s.withdraw {
		return false
	}
	r[s.at[c]%budgetSlices] -= s.withdraw
	return true
}
