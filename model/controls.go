package model

import (
	"errors"
	"fmt"
	"strings"
)

// BucketKind names a retry token bucket.
type BucketKind string

// The retry token buckets herd models. Both are held per client: every
// client has its own bucket, as an SDK client object or a process does.
const (
	// NoBucket lets every retry through.
	NoBucket BucketKind = "none"
	// AWSBucket is the retry quota of the AWS SDKs' standard retry mode
	// (aws-sdk-go-v2 aws/retry: DefaultRetryRateTokens 500,
	// DefaultRetryCost 5, DefaultRetryTimeoutCost 10,
	// DefaultNoRetryIncrement 1): the bucket starts full at 500 tokens; a
	// retry takes its cost (5, or 10 when the failure was a timeout) and is
	// not made when the bucket holds less; a request that succeeds on a
	// retry puts that retry's cost back, and one that succeeds on its first
	// try adds 1, never above the capacity.
	AWSBucket BucketKind = "aws"
	// BrookerBucket is the adaptive retry bucket of Marc Brooker's "Fixing
	// retries with token buckets and circuit breakers" (2022): every
	// successful call deposits a fraction of a token (0.1), a retry takes one
	// whole token and is not made without it, and the bucket holds a
	// limited number of tokens. Retries are then at most 0.1 × successes
	// plus the bucket's size, whatever the failure rate.
	BrookerBucket BucketKind = "brooker"
)

// BucketKinds lists the bucket names.
func BucketKinds() []BucketKind { return []BucketKind{NoBucket, AWSBucket, BrookerBucket} }

// ParseBucketKind reads one of BucketKinds.
func ParseBucketKind(s string) (BucketKind, error) {
	for _, k := range BucketKinds() {
		if string(k) == s {
			return k, nil
		}
	}
	return "", fmt.Errorf("bucket must be one of %s, got %q", bucketList(), s)
}

func bucketList() string {
	var s []string
	for _, k := range BucketKinds() {
		s = append(s, string(k))
	}
	return strings.Join(s, ", ")
}

// Bucket is a retry token bucket with its parameters. The zero value after
// Defaults has been applied is the kind's published defaults.
type Bucket struct {
	Kind BucketKind `json:"kind"`
	// Capacity is the most tokens the bucket holds; it starts full.
	Capacity float64 `json:"capacity"`
	// RetryCost is what one retry takes.
	RetryCost float64 `json:"retry_cost"`
	// Deposit is what a successful call adds: for AWSBucket, a success on
	// the first try (a success on a retry refunds that retry's cost
	// instead); for BrookerBucket, every success.
	Deposit float64 `json:"deposit"`
}

// DefaultBucket is the kind's published parameters. herd's servers reject
// at once rather than time out, so the AWS retry costs 5; the timeout cost
// of 10 is had by setting RetryCost.
func DefaultBucket(k BucketKind) Bucket {
	switch k {
	case AWSBucket:
		return Bucket{Kind: k, Capacity: 500, RetryCost: 5, Deposit: 1}
	case BrookerBucket:
		return Bucket{Kind: k, Capacity: 10, RetryCost: 1, Deposit: 0.1}
	}
	return Bucket{Kind: NoBucket}
}

// Breaker is a per-client circuit breaker. Closed, it records the outcome
// of each of the client's calls in a sliding window of the last Window
// calls; when the window holds at least MinCalls outcomes and the share of
// failures reaches Threshold, it opens. Open, it refuses every send of the
// client for Cooldown ticks: the request is failed locally and given up,
// without reaching the server. Then it is half-open: the client's next send
// is a probe and other sends in the same tick are refused; a successful
// probe closes it with an empty window, a failed one opens it again.
// Window 0 means no breaker.
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

// Controls are the client-side limits on retries that compose with any
// policy: a limit on attempts, a retry token bucket and a circuit breaker.
// A request that a control stops gives up. The zero value is no control.
type Controls struct {
	// MaxAttempts is the most sends of one request, the first included
	// (MaxAttempts − 1 retries); 0 means no limit.
	MaxAttempts int
	Bucket      Bucket
	Breaker     Breaker
}

// MaxAttemptsLimit bounds MaxAttempts.
const MaxAttemptsLimit = 1 << 30

// Active reports whether any control is on.
func (c Controls) Active() bool {
	return c.MaxAttempts > 0 || (c.Bucket.Kind != NoBucket && c.Bucket.Kind != "") || c.Breaker.Window > 0
}

// String names the controls in a table or legend: "none", "aws bucket",
// "brooker bucket + breaker", …
func (c Controls) String() string {
	var s []string
	if c.MaxAttempts > 0 {
		s = append(s, fmt.Sprintf("%d attempts", c.MaxAttempts))
	}
	if c.Bucket.Kind != NoBucket && c.Bucket.Kind != "" {
		s = append(s, string(c.Bucket.Kind)+" bucket")
	}
	if c.Breaker.Window > 0 {
		s = append(s, "breaker")
	}
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, " + ")
}

// InCohort is the cohort scenario that plays sc under the controls. The
// synchronized cohort has one way to give up, its policy's retry limit, so
// an attempt limit A is the retry limit A − 1 (the smaller of it and the
// policy's own). A limit of 1 would allow no retry at all, which the
// policy cannot say (its retry limit 0 means none), and the token bucket
// and the circuit breaker act on a stream of requests over time: those are
// open-loop controls and are refused here.
func (c Controls) InCohort(sc Scenario) (Scenario, error) {
	if c.Bucket.Kind != NoBucket && c.Bucket.Kind != "" || c.Breaker.Window > 0 {
		return sc, errors.New("--bucket and --breaker need open-loop mode (--rate) for now")
	}
	if a := c.MaxAttempts; a > 0 {
		if a == 1 {
			return sc, errors.New("--max-attempts 1 (no retries) needs open-loop mode (--rate); the cohort needs at least 2")
		}
		if r := sc.Policy.Retries; r == 0 || r > a-1 {
			sc.Policy.Retries = a - 1
		}
	}
	return sc, nil
}

// Validate checks every parameter and returns the first violation as a
// *FieldError naming its flag.
func (c Controls) Validate() error {
	bad := func(flag, valid string, got any) error {
		return &FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	if c.MaxAttempts < 0 || c.MaxAttempts > MaxAttemptsLimit {
		return bad("max-attempts", fmt.Sprintf("0 (no limit) or an integer in [1, %d]", MaxAttemptsLimit), c.MaxAttempts)
	}
	b := c.Bucket
	if b.Kind != "" {
		if _, err := ParseBucketKind(string(b.Kind)); err != nil {
			return bad("bucket", "one of "+bucketList(), fmt.Sprintf("%q", b.Kind))
		}
	}
	if b.Kind != NoBucket && b.Kind != "" {
		switch {
		case !finite(b.Capacity) || b.Capacity < 0 || b.Capacity > 1e12:
			return bad("bucket-capacity", "a number of tokens in [0, 1e12]", b.Capacity)
		case !finite(b.RetryCost) || b.RetryCost <= 0 || b.RetryCost > 1e12:
			return bad("bucket-cost", "a number of tokens in (0, 1e12]", b.RetryCost)
		case !finite(b.Deposit) || b.Deposit < 0 || b.Deposit > 1e12:
			return bad("bucket-deposit", "a number of tokens in [0, 1e12]", b.Deposit)
		}
	}
	k := c.Breaker
	if k.Window == 0 {
		return nil
	}
	switch {
	case k.Window < 0 || k.Window > MaxBreakerWindow:
		return bad("breaker-window", fmt.Sprintf("0 (no breaker) or an integer in [1, %d] calls", MaxBreakerWindow), k.Window)
	case !finite(k.Threshold) || k.Threshold <= 0 || k.Threshold > 1:
		return bad("breaker-threshold", "a failure share in (0, 1]", k.Threshold)
	case k.MinCalls < 1 || k.MinCalls > k.Window:
		return bad("breaker-min-calls", fmt.Sprintf("an integer in [1, breaker-window = %d]", k.Window), k.MinCalls)
	case k.Cooldown < 1 || k.Cooldown > MaxWindow:
		return bad("breaker-cooldown", fmt.Sprintf("an integer in [1, %d] ticks", int(MaxWindow)), k.Cooldown)
	}
	return nil
}
