package control

import (
	"github.com/herdlab/herd/model"
	"testing"
	"time"
)

// step is one thing a client does to its control, and what the control
// must answer: start a request, send (with the uniform number the rule
// draws, if it draws), an outcome, or ask to retry.
type step struct {
	op   string // "start", "send", "ok", "fail", "ok-retry", "retry"
	tick int
	u    float64 // the draw a randomised send gets; negative: it must not draw
	want bool    // send and retry: allowed?
}

// play runs a hand-computed sequence against one client's state.
func play(t *testing.T, name string, s ControlState, steps []step) {
	t.Helper()
	for i, st := range steps {
		switch st.op {
		case "start":
			s.Start(0, st.tick)
		case "ok", "fail", "ok-retry", "fail-retry":
			s.Outcome(0, st.tick, st.op == "fail" || st.op == "fail-retry", st.op == "ok-retry" || st.op == "fail-retry")
		case "send":
			drew := false
			got := s.Send(0, st.tick, func() float64 {
				drew = true
				if st.u < 0 {
					t.Fatalf("%s step %d: the send drew a number where the rule's probability is 0", name, i)
				}
				return st.u
			})
			if got != st.want {
				t.Fatalf("%s step %d (send at tick %d, u = %g): allowed %v, want %v", name, i, st.tick, st.u, got, st.want)
			}
			if st.u >= 0 && !drew {
				t.Fatalf("%s step %d: the send did not draw", name, i)
			}
		case "retry":
			if got := s.Retry(0, st.tick); got != st.want {
				t.Fatalf("%s step %d (retry at tick %d): allowed %v, want %v", name, i, st.tick, got, st.want)
			}
		default:
			t.Fatalf("bad op %q", st.op)
		}
	}
}

func repeat(n int, s step) []step {
	out := make([]step, n)
	for i := range out {
		out[i] = s
	}
	return out
}

func seq(parts ...[]step) []step {
	var out []step
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

var (
	start = step{op: "start"}
	okay  = step{op: "ok"}
	fail  = step{op: "fail"}
	yes   = step{op: "retry", want: true}
	no    = step{op: "retry", want: false}
)

// Brooker's retry_sim bucket (5 tokens, 0.1 per new request, a retry only
// while above 1): a start at 5 stays at 5 (capped); four retries take it
// to 1, and the fifth is refused since 1 is not above 1; the next start
// makes 1.1 and allows one retry, leaving 0.1; nine more starts make
// 0.1 + 0.9, which in his floating-point arithmetic is exactly 1.0 (not
// above 1: refused), and a tenth allows one. So at high failure rates a
// client retries once per ten requests.
func TestBrookerSimBucketRule(t *testing.T) {
	s := DefaultBucket(BrookerSimBucket).NewState(model.Default(), 1)
	play(t, "brooker-sim", s, seq(
		[]step{start, yes, yes, yes, yes, no, no},
		[]step{start, yes, no},
		repeat(9, start), []step{no},
		[]step{start, yes, no},
	))
	// Successes deposit nothing: only starts do.
	s.Reset()
	play(t, "brooker-sim successes", s, seq(repeat(4, yes), repeat(30, okay), []step{no}))
}

// herd's "brooker" bucket, for contrast: 10 tokens, 0.1 per success, a
// retry while at least 1 token.
func TestBrookerBucketRule(t *testing.T) {
	s := DefaultBucket(BrookerBucket).NewState(model.Default(), 1)
	play(t, "brooker", s, seq(repeat(10, yes), []step{no}, repeat(10, start), []step{no},
		repeat(20, okay), []step{yes, yes, no}))
}

// The AWS SDKs' legacy quota: 500 tokens, 5 a retry, a successful retry
// refunds 5, a first-try success adds 1.
func TestAWSBucketRule(t *testing.T) {
	s := DefaultBucket(AWSBucket).NewState(model.Default(), 1)
	play(t, "aws", s, seq(repeat(100, yes), []step{no},
		[]step{{op: "ok-retry"}, yes, no}, // refund 5: one more retry
		repeat(4, okay), []step{no}, []step{okay, yes, no}))
}

// The 2026 costs, against the steps of aws-sdk-go-v2's own
// TestRetry2026StandardMode (v1.42.0): "retry eventually succeeds"
// (500 → 486 → 472, then the retry's success refunds 14: 486), "retry
// quota reached after a single retry" (14 tokens: one retry, then none)
// and "retry quota recovery after successful responses" (30 → 16 → 2,
// success 16, retry 2, success 16).
func TestAWS2026BucketRule(t *testing.T) {
	b := DefaultBucket(AWS2026Bucket)
	tokens := func(s ControlState) float64 { return s.(*bucketState).tokens[0] }
	s := b.NewState(model.Default(), 1)
	for i, want := range []float64{486, 472} {
		if !s.Retry(0, 0) || tokens(s) != want {
			t.Fatalf("retry %d: quota %g, want %g", i+1, tokens(s), want)
		}
	}
	s.Outcome(0, 0, false, true)
	if tokens(s) != 486 {
		t.Fatalf("after the retry's success: %g, want 486", tokens(s))
	}
	b.Capacity = 14
	play(t, "aws-2026, 14 tokens", b.NewState(model.Default(), 1), []step{yes, no})
	b.Capacity = 30
	s = b.NewState(model.Default(), 1)
	for i, c := range []struct {
		op   string
		want float64
	}{{"retry", 16}, {"retry", 2}, {"ok-retry", 16}, {"retry", 2}, {"ok-retry", 16}} {
		if c.op == "retry" {
			s.Retry(0, 0)
		} else {
			s.Outcome(0, 0, false, true)
		}
		if tokens(s) != c.want {
			t.Fatalf("recovery step %d: quota %g, want %g", i, tokens(s), c.want)
		}
	}
	if b := DefaultBucket(AWS2026Bucket); b.Capacity != 500 || b.RetryCost != 14 || b.Deposit != 1 {
		t.Errorf("aws-2026 defaults %+v", b)
	}
}

// Brooker's retry_sim breaker at 10%: after 20 requests, a failure makes
// 1/20 and is retried, a second 2/20 = 0.1 (not above 0.1) too, a third
// 3/20 is not; successes do not lower the ratio (a fourth failure after
// five successes is 4/20), new requests do (30 more: a fifth is 5/50).
func TestSimBreakerRule(t *testing.T) {
	s := DefaultSimBreaker().NewState(model.Default(), 1)
	play(t, "brooker-sim breaker", s, seq(
		repeat(20, start),
		[]step{fail, yes, fail, yes, fail, no},
		repeat(5, okay), []step{fail, no}, // 4/20
		repeat(30, start), []step{fail, yes}, // 5/50
	))
	s.Reset()
	play(t, "first request fails", s, []step{start, fail, no})
}

// Finagle's budget, in its own tokens: 1000 a request, 5000 a retry at
// 20%, over a TTL of 10 ticks kept in 1-tick slices.
func TestRetryBudgetRule(t *testing.T) {
	sc := model.Default() // abstract ticks: one second each
	b := RetryBudget{TTL: 10 * time.Second, MinRetriesPerSec: 0, PercentCanRetry: 0.2}
	if d, w, r := b.amounts(); d != 1000 || w != 5000 || r != 0 {
		t.Fatalf("amounts %d %d %d", d, w, r)
	}
	at := func(tick int, s step) step { s.tick = tick; return s }
	play(t, "finagle 20%", b.NewState(sc, 1), seq(
		repeat(5, start), []step{yes, no}, // 5 requests pay for one retry
		repeat(4, start), []step{no}, []step{start, yes, no},
	))
	// Deposits expire after the TTL: five requests at tick 0 pay for a
	// retry up to tick 9, not at tick 10.
	s := b.NewState(sc, 1)
	play(t, "finagle expiry", s, seq(repeat(5, start), []step{at(9, yes)}))
	s.Reset()
	play(t, "finagle expiry", s, seq(repeat(5, start), []step{at(10, no)}))
	// The reserve: 1 retry per second over 10 s is 10 retries with no
	// request at all; withdrawals expire too, so the next 10 come 10 ticks
	// later.
	b.MinRetriesPerSec = 1
	play(t, "finagle reserve", b.NewState(sc, 1), seq(repeat(10, yes), []step{no, at(9, no), at(10, yes)}, repeat(9, at(10, yes)), []step{at(10, no)}))
	// Finagle's defaults: 20%, 10 per second, 10 s: a reserve of 100 retries.
	d := DefaultRetryBudget()
	play(t, "finagle default", d.NewState(sc, 1), seq(repeat(100, yes), []step{no}, repeat(5, start), []step{yes, no}))
	// No percentage and no minimum is Finagle's Empty budget.
	play(t, "finagle empty", RetryBudget{TTL: 10 * time.Second}.NewState(sc, 1), seq(repeat(50, start), []step{no}))
	// With a 100 ms tick the TTL is 100 ticks in slices of 10.
	sc.Policy.Tick = 100 * time.Millisecond
	play(t, "finagle 100ms ticks", b.NewState(sc, 1), seq(repeat(10, yes), []step{no, at(99, no), at(100, yes)}))
}

// gRPC retry throttling with A6's example (10 tokens, 0.1): failures take
// 10 → 9, 8, 7, 6 and are retried; the fifth leaves 5, not above half,
// and is not; a success adds 0.1 (5.1) but the next failure leaves 4.1;
// twenty successes bring it to 6.1 (6.0999999999999925 in float64), and a
// failure (5.1) is retried again; the count never falls below 0.
func TestRetryThrottlingRule(t *testing.T) {
	s := DefaultRetryThrottling().NewState(model.Default(), 1)
	play(t, "grpc", s, seq(
		[]step{fail, yes, fail, yes, fail, yes, fail, yes, fail, no},
		[]step{okay, fail, no},
		repeat(20, okay), []step{fail, yes},
		repeat(10, fail), []step{no},
	))
	if got := s.(*throttlingState).tokens[0]; got != 0 {
		t.Errorf("after ten more failures the count is %g, want 0", got)
	}
}

// SRE adaptive throttling, K = 2, a window of 3 ticks (1-tick slices). At
// tick 0 the first send goes without a draw (p = 0) and fails; then
// p = (1 − 0)/2 rejects u = 0.4; p = 2/3 lets u = 0.7 through, and its
// success is an accept; p = (3 − 2)/4 rejects u = 0.24. At tick 1,
// p = (4 − 2)/5 rejects u = 0.39 and p = (5 − 2)/6 lets u = 0.51 through.
// At tick 3 tick 0's counts have left the window (ticks 1…3 hold 2
// requests, no accept): p = 2/3 rejects u = 0.1; at tick 4 (ticks 2…4: 1
// request) p = 1/2 lets u = 0.6 through; at tick 7 the window is empty.
func TestAdaptiveThrottlingRule(t *testing.T) {
	a := AdaptiveThrottling{K: 2, Window: 3 * time.Second}
	send := func(tick int, u float64, want bool) step { return step{op: "send", tick: tick, u: u, want: want} }
	s := a.NewState(model.Default(), 1)
	play(t, "sre", s, []step{
		send(0, -1, true), fail,
		send(0, 0.4, false),
		send(0, 0.7, true), okay,
		send(0, 0.24, false),
		send(1, 0.39, false),
		send(1, 0.51, true),
		send(3, 0.1, false),
		send(4, 0.6, true),
		send(7, -1, true),
	})
	// With every send served the probability stays max(0, (n − 2n)/(n + 1)) = 0.
	s.Reset()
	var steps []step
	for range 50 {
		steps = append(steps, send(0, -1, true), okay)
	}
	play(t, "sre healthy", s, steps)
	if p := DefaultAdaptiveThrottling().RejectProbability(100, 10); p != 80.0/101 {
		t.Errorf("p(100, 10) = %g, want 80/101", p)
	}
	// A window longer than 20 ticks is 20 slices of ⌈W/20⌉ ticks: the
	// book's two minutes at 1 s ticks are 20 slices of 6.
	if st := DefaultAdaptiveThrottling().NewState(model.Default(), 1).(*adaptiveState); st.n != 20 || st.slice != 6 {
		t.Errorf("two minutes: %d slices of %d ticks", st.n, st.slice)
	}
}
