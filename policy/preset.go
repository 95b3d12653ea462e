package policy

import (
	"math"
	"time"
)

// A Preset is a faithful model of one client library's default backoff: the
// law of the delay before each retry, in seconds, its retry limit and where
// the model comes from. The formulas were written from the libraries'
// sources at the versions cited; the conformance module
// (github.com/herdlab/herd/conformance) draws delays from the real Go
// libraries and compares the laws with two-sample Kolmogorov–Smirnov tests.
//
// A preset is chosen by its Name wherever a policy is (Policy.Kind); its
// delays are real times, turned into ticks by Policy.Tick and the
// scenario's rounding.
type Preset struct {
	Name     Kind
	Library  string // the library and the part of it modelled
	Version  string // the version whose source was read
	Source   string // the file (or documentation page) the formula follows
	Formula  string // the delay before retry n ≥ 1, in words and symbols
	Defaults string // the default parameters, in the library's terms
	// Retries is the library's default retry limit (0: none); MaxElapsed
	// its default limit on the time since the first attempt (0: none).
	Retries    int
	MaxElapsed time.Duration
	// Module is the Go module the conformance tests draw from, empty when
	// the library is not a Go module the proxy serves (or its backoff is
	// internal to it); Note says what the conformance tests cannot check.
	Module string
	Note   string
	// Synchronizing says why the default can keep clients in step, when
	// it can (no jitter, a discrete jitter, or a cap applied after the
	// jitter); empty otherwise.
	Synchronizing string

	// The model itself, from which presetRule derives the preset's rule.
	law      func(n int, prev float64) Law // in seconds
	bound    func(n int) float64           // sup of the delay of retry n, when law's Sup depends on prev
	start    float64                       // state before the first retry
	Stateful bool
}

// Law is the preset's law, in seconds, of the delay before retry n ≥ 1 of a
// client whose state is prev (see Policy.Law).
func (p Preset) Law(n int, prev float64) Law { return p.law(n, prev) }

// Start is the state before the first retry.
func (p Preset) Start() float64 { return p.start }

func (p Preset) sup(n int) float64 {
	if p.bound != nil {
		return p.bound(n)
	}
	return p.law(n, p.start).Sup()
}

// Policy is the preset as a policy with its default limits and the given
// tick (0 means DefaultTick).
func (p Preset) Policy(tick time.Duration) Policy {
	return Policy{Kind: p.Name, Retries: p.Retries, MaxElapsed: p.MaxElapsed, Tick: tick}
}

// scaled expresses a law in seconds in units of 1/f seconds.
func (l Law) scaled(f float64) Law {
	l.Max *= f
	if l.Warp == WarpPolly {
		l.Scale *= f
		return l
	}
	l.Lo *= f
	l.Hi *= f
	return l
}

// maxScan bounds the search for a preset's classes.
const MaxScan = 200

func point(x float64) Law        { return Law{Lo: x, Hi: x, Max: math.Inf(1)} }
func uniform(lo, hi float64) Law { return Law{Lo: lo, Hi: hi, Max: math.Inf(1)} }

// truncatedMul is x·f truncated to whole nanoseconds, as time.Duration
// arithmetic does it, in seconds.
func truncatedMul(x, f float64) float64 {
	return math.Trunc(x*1e9*f) / 1e9
}

// cenkaltiInterval is cenkalti/backoff's current interval before retry n:
// 500 ms times 1.5 per retry in whole nanoseconds, set to the 60 s maximum
// once it reaches 60 s / 1.5.
func cenkaltiInterval(n int) float64 {
	cur := 0.5
	for range n - 1 {
		if cur >= 60/1.5 {
			cur = 60
		} else {
			cur = truncatedMul(cur, 1.5)
		}
	}
	return cur
}

// grpcConnect is grpc-go's connection backoff before retry n: Backoff(n−1)
// of internal/backoff with the DefaultConfig.
func grpcConnect(n int) Law {
	if n == 1 {
		return point(1)
	}
	b, limit := 1.0, 120.0
	for r := n - 1; b < limit && r > 0; r-- {
		b *= 1.6
	}
	b = math.Min(b, limit)
	return uniform(b*0.8, b*1.2)
}

var presets = []Preset{
	{
		Name:     "aws-go-v2-legacy",
		Library:  "aws-sdk-go-v2 aws/retry standard retryer (legacy backoff)",
		Version:  "v1.47.8 (default up to v1.47.x; still retry.NewExponentialJitterBackoff in v1.48.0)",
		Source:   "aws/retry/jitter_backoff.go (backoffDelayLegacy), aws/retry/standard.go",
		Formula:  "U(0, 2ⁿ) s while n ≤ ⌊log₂ 20⌋ = 4, then exactly 20 s (the cap replaces the jittered value)",
		Defaults: "MaxAttempts 3, MaxBackoff 20 s",
		Retries:  2,
		Module:   "github.com/aws/aws-sdk-go-v2",
		Synchronizing: "from retry 5 every client waits exactly 20 s (cap applied instead of jitter); " +
			"unreachable with the default 3 attempts",
		law: func(n int, _ float64) Law {
			if n > 4 {
				return point(20)
			}
			return uniform(0, math.Ldexp(1, n))
		},
	},
	{
		Name:     "aws-go-v2-2026",
		Library:  "aws-sdk-go-v2 aws/retry standard retryer, retry behavior 2.1 (transient errors)",
		Version:  "v1.48.0 (opt-in via AWS_NEW_RETRIES_2026 before, default since)",
		Source:   "aws/retry/jitter_backoff.go (backoffDelay2026), aws/retry/standard.go (NewStandard)",
		Formula:  "U(0, min(0.05·2ⁿ⁻¹, 20)) s (cap before jitter)",
		Defaults: "MaxAttempts 3, MaxBackoff 20 s, base 50 ms for non-throttling errors",
		Retries:  2,
		Module:   "github.com/aws/aws-sdk-go-v2",
		law: func(n int, _ float64) Law {
			return uniform(0, math.Min(0.05*math.Exp2(float64(n-1)), 20))
		},
	},
	{
		Name:     "aws-go-v2-2026-throttle",
		Library:  "aws-sdk-go-v2 aws/retry standard retryer, retry behavior 2.1 (throttling errors)",
		Version:  "v1.48.0",
		Source:   "aws/retry/jitter_backoff.go (backoffDelay2026 with a throttle error), aws/retry/standard.go",
		Formula:  "U(0, min(2ⁿ⁻¹, 20)) s (cap before jitter)",
		Defaults: "MaxAttempts 3, MaxBackoff 20 s, base 1 s for throttling errors",
		Retries:  2,
		Module:   "github.com/aws/aws-sdk-go-v2",
		law: func(n int, _ float64) Law {
			return uniform(0, math.Min(math.Exp2(float64(n-1)), 20))
		},
	},
	{
		Name:     "botocore-standard",
		Library:  "botocore retries standard mode (ExponentialBackoff)",
		Version:  "1.43.11",
		Source:   "botocore/retries/standard.py (ExponentialBackoff.delay_amount, NEW_RETRIES_ENABLED unset)",
		Formula:  "U(0, min(2ⁿ⁻¹, 20)) s",
		Defaults: "max_attempts 3, _MAX_BACKOFF 20 s, _BASE 2",
		Retries:  2,
		Note:     "Python library: not in the Go conformance tests",
		law: func(n int, _ float64) Law {
			return uniform(0, math.Min(math.Exp2(float64(n-1)), 20))
		},
	},
	{
		Name:          "grpc-go-connect",
		Library:       "grpc-go connection backoff (backoff.DefaultConfig)",
		Version:       "v1.85.0",
		Source:        "internal/backoff/backoff.go (Exponential.Backoff), backoff/backoff.go, clientconn.go (Backoff(ac.backoffIdx))",
		Formula:       "retry 1: exactly 1 s; retry n ≥ 2: d·U(0.8, 1.2) s with d = min(120, 1.6ⁿ⁻¹) (jitter after the cap)",
		Defaults:      "BaseDelay 1 s, Multiplier 1.6, Jitter 0.2, MaxDelay 120 s, no retry limit",
		Note:          "the backoff is in an internal package of grpc-go: not importable by the conformance tests",
		Synchronizing: "the first reconnection waits exactly 1 s for every client (no jitter at Backoff(0))",
		law:           func(n int, _ float64) Law { return grpcConnect(n) },
	},
	{
		Name:     "grpc-retry-pre-1.69",
		Library:  "gRPC RPC retry policy in grpc-go before v1.69",
		Version:  "v1.68.0",
		Source:   "stream.go (csAttempt.shouldRetry: rand.Int63n(cur)); policy values from grpc/grpc examples/python/retry/retry_client.py",
		Formula:  "U(0, min(0.1·2ⁿ⁻¹, 1)) s",
		Defaults: "service config: maxAttempts 5, initialBackoff 0.1 s, maxBackoff 1 s, backoffMultiplier 2 (gRPC has no built-in policy)",
		Retries:  4,
		Note:     "retry policy runs inside grpc-go's client stream: not drawn by the conformance tests",
		law: func(n int, _ float64) Law {
			return uniform(0, math.Min(0.1*math.Exp2(float64(n-1)), 1))
		},
	},
	{
		Name:     "grpc-retry",
		Library:  "gRPC RPC retry policy in grpc-go since v1.69",
		Version:  "v1.85.0",
		Source:   "stream.go (csAttempt.shouldRetry: cur·(0.8 + 0.4·rand)); policy values from grpc/grpc examples/python/retry/retry_client.py",
		Formula:  "min(0.1·2ⁿ⁻¹, 1)·U(0.8, 1.2) s (jitter after the cap)",
		Defaults: "service config: maxAttempts 5, initialBackoff 0.1 s, maxBackoff 1 s, backoffMultiplier 2",
		Retries:  4,
		Note:     "retry policy runs inside grpc-go's client stream: not drawn by the conformance tests",
		law: func(n int, _ float64) Law {
			d := math.Min(0.1*math.Exp2(float64(n-1)), 1)
			return uniform(0.8*d, 1.2*d)
		},
	},
	{
		Name:       "cenkalti-v4",
		Library:    "cenkalti/backoff v4 ExponentialBackOff",
		Version:    "v4.3.0",
		Source:     "exponential.go (NextBackOff, incrementCurrentInterval, getRandomValueFromInterval), retry.go",
		Formula:    "I·U(0.5, 1.5) s, I = 0.5·1.5ⁿ⁻¹ until I reaches 40 s, then 60 s (jitter after the cap); give up when elapsed + next delay > 15 min",
		Defaults:   "InitialInterval 500 ms, RandomizationFactor 0.5, Multiplier 1.5, MaxInterval 60 s, MaxElapsedTime 15 min",
		MaxElapsed: 15 * time.Minute,
		Module:     "github.com/cenkalti/backoff/v4",
		law: func(n int, _ float64) Law {
			i := cenkaltiInterval(n)
			return uniform(0.5*i, 1.5*i)
		},
	},
	{
		Name:       "cenkalti-v5",
		Library:    "cenkalti/backoff v5 ExponentialBackOff with Retry",
		Version:    "v5.0.3",
		Source:     "exponential.go (NextBackOff), retry.go (Retry: DefaultMaxElapsedTime)",
		Formula:    "I·U(0.5, 1.5) s, I = 0.5·1.5ⁿ⁻¹ until I reaches 40 s, then 60 s; give up when elapsed + next delay > 15 min",
		Defaults:   "InitialInterval 500 ms, RandomizationFactor 0.5, Multiplier 1.5, MaxInterval 60 s, MaxElapsedTime 15 min, MaxTries 0",
		MaxElapsed: 15 * time.Minute,
		Module:     "github.com/cenkalti/backoff/v5",
		law: func(n int, _ float64) Law {
			i := cenkaltiInterval(n)
			return uniform(0.5*i, 1.5*i)
		},
	},
	{
		Name:     "retry-go-v4",
		Library:  "avast/retry-go v4 default (CombineDelay(BackOffDelay, RandomDelay))",
		Version:  "v4.7.0",
		Source:   "retry.go (newDefaultRetryConfig, Do), options.go (BackOffDelay, RandomDelay, CombineDelay)",
		Formula:  "0.1·2ⁿ⁻¹ + U(0, 0.1) s",
		Defaults: "Attempts 10, Delay 100 ms, MaxJitter 100 ms, no MaxDelay",
		Retries:  9,
		Module:   "github.com/avast/retry-go/v4",
		law: func(n int, _ float64) Law {
			d := 0.1 * math.Exp2(float64(min(n-1, 36)))
			return uniform(d, d+0.1)
		},
	},
	{
		Name:          "retryablehttp-default",
		Library:       "hashicorp/go-retryablehttp DefaultBackoff",
		Version:       "v0.7.8",
		Source:        "client.go (DefaultBackoff, Client.Do, defaultRetryWaitMin/Max, defaultRetryMax)",
		Formula:       "exactly min(2ⁿ⁻¹, 30) s, no jitter (Retry-After honoured on 429/503, not modelled)",
		Defaults:      "RetryWaitMin 1 s, RetryWaitMax 30 s, RetryMax 4",
		Retries:       4,
		Module:        "github.com/hashicorp/go-retryablehttp",
		Synchronizing: "no jitter: every client of a cohort retries at the same instant",
		law: func(n int, _ float64) Law {
			return point(math.Min(math.Exp2(float64(n-1)), 30))
		},
	},
	{
		Name:     "retryablehttp-linear-jitter",
		Library:  "hashicorp/go-retryablehttp LinearJitterBackoff",
		Version:  "v0.7.8",
		Source:   "client.go (LinearJitterBackoff)",
		Formula:  "n·U(1, 30) s",
		Defaults: "RetryWaitMin 1 s, RetryWaitMax 30 s, RetryMax 4",
		Retries:  4,
		Module:   "github.com/hashicorp/go-retryablehttp",
		law: func(n int, _ float64) Law {
			return uniform(float64(n), 30*float64(n))
		},
	},
	{
		Name:     "go-retry-expo-jitter",
		Library:  "sethvargo/go-retry NewExponential + WithJitterPercent + WithMaxRetries (the README's examples)",
		Version:  "v0.5.0",
		Source:   "backoff_exponential.go (Next), backoff.go (WithJitterPercent, WithMaxRetries), README.md",
		Formula:  "2ⁿ⁻¹·(1 − J/100) s with J uniform on the integers −5…4: ten equally likely values",
		Defaults: "NewExponential(1 s), WithJitterPercent(5), WithMaxRetries(4); the library has no default policy",
		Retries:  4,
		Module:   "github.com/sethvargo/go-retry",
		Synchronizing: "the jitter takes only 10 values, so a cohort splits into at most 10 " +
			"synchronized groups",
		law: func(n int, _ float64) Law {
			d := math.Exp2(float64(n - 1))
			return Law{Lo: 0.96 * d, Hi: 1.06 * d, Max: math.Inf(1), Steps: 10}
		},
	},
	{
		Name:     "client-go-default-backoff",
		Library:  "k8s.io/apimachinery wait.Backoff with client-go's retry.DefaultBackoff (retry.OnError)",
		Version:  "apimachinery v0.37.2, client-go v0.37.2",
		Source:   "apimachinery pkg/util/wait/backoff.go (delay, ExponentialBackoff), wait.go (Jitter); client-go util/retry/util.go",
		Formula:  "d·U(1, 1.1) s with d = 0.01·5ⁿ⁻¹",
		Defaults: "Steps 4 (3 retries), Duration 10 ms, Factor 5, Jitter 0.1, no Cap",
		Retries:  3,
		Module:   "k8s.io/apimachinery",
		law: func(n int, _ float64) Law {
			d := 0.01
			for range n - 1 {
				d = truncatedMul(d, 5)
			}
			return uniform(d, 1.1*d)
		},
	},
	{
		Name:     "polly-v8-expo-jitter",
		Library:  "Polly v8 retry strategy, BackoffType Exponential with UseJitter (DecorrelatedJitterBackoffV2)",
		Version:  "8.x (Polly.Core)",
		Source:   "src/Polly.Core/Retry/RetryHelper.cs (DecorrelatedJitterBackoffV2), RetryStrategyOptions.TResult.cs",
		Formula:  "(2/1.4)·(w(t) − w(t_prev)) s with t = n − 1 + U(0, 1), w(t) = 2ᵗ·tanh(√(4t)), w(t_prev) = 0 before the first retry",
		Defaults: "MaxRetryAttempts 3, Delay 2 s, MaxDelay unset",
		Retries:  3,
		Note:     ".NET library: not in the Go conformance tests",
		start:    0,
		Stateful: true,
		law: func(n int, prev float64) Law {
			return Law{Lo: float64(n - 1), Hi: float64(n), Max: math.Inf(1), Warp: WarpPolly, Scale: 2 / 1.4, From: prev}
		},
		bound: func(n int) float64 {
			// The previous draw's t lies in [n−2, n−1), and 0 before retry 1.
			return 2 / 1.4 * (pollyCurve(float64(n)) - pollyCurve(math.Max(0, float64(n-2))))
		},
	},
	{
		Name:     "resilience4j-expo-random",
		Library:  "Resilience4j IntervalFunction.ofExponentialRandomBackoff() with RetryConfig defaults",
		Version:  "2.x (resilience4j-core)",
		Source:   "resilience4j-core/src/main/java/io/github/resilience4j/core/IntervalFunction.java",
		Formula:  "I·U(0.5, 1.5) s with I = 500 ms·1.5ⁿ⁻¹ in whole ms (the final truncation to ms is not modelled)",
		Defaults: "initial interval 500 ms, multiplier 1.5, randomization factor 0.5, maxAttempts 3, no max interval",
		Retries:  2,
		Note:     "Java library: not in the Go conformance tests",
		law: func(n int, _ float64) Law {
			ms := 500.0
			for range n - 1 {
				ms = math.Floor(ms * 1.5)
			}
			i := ms / 1000
			return uniform(0.5*i, 1.5*i)
		},
	},
	{
		Name:          "failsafe-go-default",
		Library:       "failsafe-go retrypolicy.NewWithDefaults",
		Version:       "v0.9.8",
		Source:        "retrypolicy/retry.go (defaultMaxRetries, NewWithDefaults), retrypolicy/retryexecutor.go (getDelay)",
		Formula:       "no delay (0 s): the retry follows at once, in the next tick",
		Defaults:      "MaxRetries 2, Delay 0",
		Retries:       2,
		Module:        "github.com/failsafe-go/failsafe-go",
		Synchronizing: "no delay and no jitter: the whole cohort retries together",
		law:           func(int, float64) Law { return point(0) },
	},
	{
		Name:     "gcloud-truncated-expo",
		Library:  "Google Cloud's documented truncated exponential backoff",
		Version:  "documentation as of 2026",
		Source:   "cloud.google.com/storage/docs/retry-strategy (wait = min(2ⁿ + random_number_milliseconds, maximum_backoff))",
		Formula:  "min(2ⁿ⁻¹ + U(0, 1), 32) s: once 2ⁿ⁻¹ ≥ 32 every client waits exactly 32 s (cap after the jitter)",
		Defaults: "random_number_milliseconds ≤ 1000, maximum_backoff 32 s, no retry limit given",
		Note:     "documented algorithm, not a library: not in the Go conformance tests",
		Synchronizing: "from retry 6 the cap replaces the jitter: every client waits exactly 32 s " +
			"(and from retry 5 most of them do)",
		law: func(n int, _ float64) Law {
			d := math.Exp2(float64(n - 1))
			if d >= 32 {
				return point(32)
			}
			return Law{Lo: d, Hi: d + 1, Max: 32}
		},
	},
}

// Presets lists the library presets, in the order of tables and figures.
func Presets() []Preset { return append([]Preset(nil), presets...) }

// LookupPreset finds a preset by name.
func LookupPreset(name Kind) (Preset, bool) {
	if ps := RuleOf(name).preset; ps != nil {
		return *ps, true
	}
	return Preset{}, false
}
