package control

import (
	"fmt"
	"strings"

	"github.com/herdlab/herd/model"
)

// BucketKind names a retry token bucket.
type BucketKind string

// The retry token buckets herd models, each held per client.
const (
	// NoBucket lets every retry through.
	NoBucket BucketKind = "none"
	// AWSBucket is the retry quota of the AWS SDKs' standard retry mode as
	// it has long been (aws-sdk-go-v2 aws/retry/standard.go, the constants
	// DefaultRetryRateTokens 500, DefaultRetryCost 5,
	// DefaultRetryTimeoutCost 10, DefaultNoRetryIncrement 1; unchanged up
	// to v1.42.0 when AWS_NEW_RETRIES_2026 is not set): the bucket starts
	// full at 500 tokens; a retry takes its cost (5, or 10 when the failure
	// was a timeout) and is not made when the bucket holds less; a request
	// that succeeds on a retry puts that retry's cost back, and one that
	// succeeds on its first try adds 1, never above the capacity. herd's
	// servers reject at once rather than time out, so the cost is 5.
	AWSBucket BucketKind = "aws"
	// AWS2026Bucket is the same quota with the retry costs of the AWS SDKs'
	// 2026 retry behaviour (aws-sdk-go-v2 v1.42.0, 2026-06-08, "preview of
	// standard retry changes behind AWS_NEW_RETRIES_2026"; the costs are
	// those of aws/retry/retry2026_test.go, TestRetry2026StandardMode, and
	// of the SDKs and Tools reference guide's retry-behavior page): a retry
	// after a transient error (a 5xx) takes 14 tokens and one after a
	// throttling error 5; refunds and the first-try increment of 1 as
	// above. A failure on herd's servers is taken as transient (14); give
	// --bucket-cost 5 for throttling errors.
	AWS2026Bucket BucketKind = "aws-2026"
	// BrookerBucket is herd's reading of the adaptive retry bucket of Marc
	// Brooker's "Fixing retries with token buckets and circuit breakers"
	// (2022): it holds 10 tokens, every successful call (a first try or a
	// retry) deposits 0.1, and a retry takes one whole token and is not made
	// without it, so retries are at most 0.1 × successes plus the bucket's
	// size. It is not his simulator's bucket: see BrookerSimBucket.
	BrookerBucket BucketKind = "brooker"
	// BrookerSimBucket is the bucket of Brooker's own simulator exactly as
	// its code has it (github.com/mbrooker/simulator_example, retry_sim,
	// retry_strategy.py AdaptiveRetryStrategy, commit bbfe394): 5 tokens,
	// starting full; each new request deposits 0.1 when it starts (whatever
	// its outcome), never above 5; a failed call is retried only while the
	// bucket holds more than 1 token (strictly), which takes 1. It limits
	// retries, not attempts per request: a request retries as long as the
	// bucket allows (add --max-attempts for a limit).
	BrookerSimBucket BucketKind = "brooker-sim"
)

// BucketKinds lists the bucket names.
func BucketKinds() []BucketKind {
	return []BucketKind{NoBucket, AWSBucket, AWS2026Bucket, BrookerBucket, BrookerSimBucket}
}

// BucketNames are the buckets' names, "none" among them.
func BucketNames() []string {
	var names []string
	for _, k := range BucketKinds() {
		names = append(names, string(k))
	}
	return names
}

// BucketHelp says each bucket in a line of help.
func BucketHelp() string {
	var kinds []string
	for _, k := range BucketKinds() {
		kinds = append(kinds, string(k)+" ("+k.Summary()+")")
	}
	return "retry control: per-client retry token bucket: " + strings.Join(kinds, " | ")
}

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

// Bucket is a retry token bucket with its parameters. DefaultBucket gives
// each kind's published parameters.
type Bucket struct {
	Kind BucketKind `json:"kind"`
	// Capacity is the most tokens the bucket holds; it starts full.
	Capacity float64 `json:"capacity"`
	// RetryCost is what one retry takes.
	RetryCost float64 `json:"retry_cost"`
	// Deposit is what the bucket gains: for the AWS kinds, a success on
	// the first try (a success on a retry refunds that retry's cost
	// instead); for BrookerBucket, every success; for BrookerSimBucket,
	// every new request as it starts.
	Deposit float64 `json:"deposit"`
}

// DefaultBucket is the kind's published parameters.
func DefaultBucket(k BucketKind) Bucket {
	switch k {
	case AWSBucket:
		return Bucket{Kind: k, Capacity: 500, RetryCost: 5, Deposit: 1}
	case AWS2026Bucket:
		return Bucket{Kind: k, Capacity: 500, RetryCost: 14, Deposit: 1}
	case BrookerBucket:
		return Bucket{Kind: k, Capacity: 10, RetryCost: 1, Deposit: 0.1}
	case BrookerSimBucket:
		return Bucket{Kind: k, Capacity: 5, RetryCost: 1, Deposit: 0.1}
	}
	return Bucket{Kind: NoBucket}
}

// Name is "aws bucket", "brooker-sim bucket", …
func (b Bucket) Name() string { return string(b.Kind) + " bucket" }

// Cause is ByBucket.
func (Bucket) Cause() Cause { return ByBucket }

// Validate checks the bucket's parameters.
func (b Bucket) Validate(model.Scenario) error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	switch {
	case !model.Finite(b.Capacity) || b.Capacity < 0 || b.Capacity > 1e12:
		return bad("bucket-capacity", "a number of tokens in [0, 1e12]", b.Capacity)
	case !model.Finite(b.RetryCost) || b.RetryCost <= 0 || b.RetryCost > 1e12:
		return bad("bucket-cost", "a number of tokens in (0, 1e12]", b.RetryCost)
	case !model.Finite(b.Deposit) || b.Deposit < 0 || b.Deposit > 1e12:
		return bad("bucket-deposit", "a number of tokens in [0, 1e12]", b.Deposit)
	}
	return nil
}

// BytesPerClient is one float64 of tokens.
func (Bucket) BytesPerClient(model.Scenario) int64 { return 8 }

// NewState is every client's bucket, full.
func (b Bucket) NewState(_ model.Scenario, clients int) ControlState {
	s := &bucketState{b: b, tokens: make([]float64, clients)}
	s.Reset()
	return s
}

type bucketState struct {
	b      Bucket
	tokens []float64
}

func (s *bucketState) Reset() {
	for i := range s.tokens {
		s.tokens[i] = s.b.Capacity
	}
}

func (s *bucketState) Start(c int32, _ int) {
	if s.b.Kind == BrookerSimBucket {
		s.tokens[c] = min(s.tokens[c]+s.b.Deposit, s.b.Capacity)
	}
}

func (*bucketState) Send(int32, int, func() float64) bool { return true }

func (s *bucketState) Outcome(c int32, _ int, failed, retried bool) {
	if failed {
		return
	}
	b := &s.b
	switch b.Kind {
	case AWSBucket, AWS2026Bucket:
		add := b.Deposit
		if retried {
			add = b.RetryCost // the successful retry's cost comes back
		}
		s.tokens[c] = min(b.Capacity, s.tokens[c]+add)
	case BrookerBucket:
		s.tokens[c] = min(b.Capacity, s.tokens[c]+b.Deposit)
	}
}

func (s *bucketState) Retry(c int32, _ int) bool {
	cost := s.b.RetryCost
	enough := s.tokens[c] >= cost
	if s.b.Kind == BrookerSimBucket {
		enough = s.tokens[c] > cost // retry_sim: "if self.bucket > 1.0"
	}
	if !enough {
		return false
	}
	s.tokens[c] -= cost
	return true
}
