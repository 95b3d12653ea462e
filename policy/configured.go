package policy

import (
	"fmt"
	"math"
)

// The rules of the retry configurations herd reads (--config; package
// config reads the files): each takes its parameters from Policy.Config,
// in seconds, and draws each delay with its source's own arithmetic. They
// are listed by ConfiguredKinds, not among Kinds, and reached only from a
// configuration file, since none has defaults of its own.
const (
	// GRPC is gRFC A6's retry backoff: retry n waits
	// U(0, min(initialBackoff·backoffMultiplier^(n−1), maxBackoff)), as
	// grpc-java and grpc-core draw it (grpc-go since v1.69 draws the same
	// ceiling times U(0.8, 1.2) instead; preset grpc-retry).
	GRPC Kind = "grpc-a6"
	// Envoy is Envoy's route retry back-off as its code draws it since
	// Envoy 1.14 (source/common/common/backoff_strategy.cc,
	// JitteredExponentialBackOffStrategy, after envoyproxy/envoy#10417):
	// an interval I₁ = base_interval in whole ms that doubles while it is
	// below ⌊max_interval/2⌋ and is max_interval after; retry n waits
	// (random mod Iₙ) ms, uniform on the integers 0…Iₙ−1.
	Envoy Kind = "envoy"
	// EnvoyDocs is the reading of Envoy's router docs, [0, (2ⁿ−1)·base)
	// for retry n, as Envoy's code drew it before 1.14
	// (JitteredBackOffStrategy): retry n waits (random mod Mₙ) ms clamped
	// to max_interval, Mₙ = (2^cₙ − 1)·base with c₁ = 1 and cₙ₊₁ = cₙ + 1
	// while Mₙ ≤ max_interval (Mₙ stays once it passes it). A user asks for
	// it by name (config.EnvoyDocs); Envoy itself has not drawn it since.
	EnvoyDocs Kind = "envoy-docs"
	// Resilience4j is resilience4j's IntervalFunction as its Spring
	// configuration picks it (CommonRetryConfigurationProperties): an
	// interval Iₙ in whole ms, I₁ = waitDuration and Iₙ₊₁ = ⌊Iₙ·multiplier⌋
	// (multiplier 1 without exponential backoff), drawn uniformly on
	// [Iₙ(1−f), Iₙ(1+f)) with a randomized wait (f = randomizedWaitFactor),
	// then clamped to exponentialMaxWaitDuration when it applies.
	Resilience4j Kind = "resilience4j"
	// Polly is Polly v8's retry delay (Polly.Core Retry/RetryHelper.cs,
	// GetRetryDelay) for a constant, linear or exponential BackoffType,
	// with UseJitter drawing U(0.75d, 1.25d) around the constant or linear
	// delay d; MaxDelay clamps after the jitter.
	Polly Kind = "polly"
	// PollyDecorrelated is Polly v8's exponential BackoffType with
	// UseJitter: DecorrelatedJitterBackoffV2 scaled by Delay/1.4, each delay
	// the increment of w(t) = 2ᵗ·tanh(√(4t)) between the previous draw and
	// t = n − 1 + U(0, 1); MaxDelay clamps after.
	PollyDecorrelated Kind = "polly-decorrelated"
	// ClientGo is k8s.io/apimachinery's wait.Backoff as
	// wait.ExponentialBackoff steps it (pkg/util/wait/backoff.go, delay):
	// retry n waits dₙ·U(1, 1 + Jitter) with d₁ = Duration and
	// dₙ₊₁ = dₙ·Factor in whole nanoseconds. Its Cap is a retry limit there
	// (package config turns it into one), not a delay clamp.
	ClientGo Kind = "client-go"
)

// ConfiguredKinds lists the rules of the retry configurations herd reads.
func ConfiguredKinds() []Kind {
	return []Kind{GRPC, Envoy, EnvoyDocs, Resilience4j, Polly, PollyDecorrelated, ClientGo}
}

// IsConfigured reports whether the kind is the rule of a retry
// configuration (ConfiguredKinds).
func (k Kind) IsConfigured() bool { return RuleOf(k).configured }

// Config holds the parameters of a configured rule, in seconds, each named
// by what its sources call it.
type Config struct {
	// Initial is the first delay's scale: gRPC initialBackoff, Envoy
	// base_interval, resilience4j waitDuration, Polly Delay, client-go
	// Duration.
	Initial float64 `json:"initial"`
	// Multiplier is the growth per retry: gRPC backoffMultiplier,
	// resilience4j exponentialBackoffMultiplier (1 when not exponential),
	// client-go Factor (0: none).
	Multiplier float64 `json:"multiplier,omitempty"`
	// Max is the largest delay (0: none): gRPC maxBackoff, Envoy
	// max_interval, resilience4j exponentialMaxWaitDuration, Polly MaxDelay.
	Max float64 `json:"max,omitempty"`
	// Jitter is a randomization factor (0: none): resilience4j
	// randomizedWaitFactor, client-go Jitter.
	Jitter float64 `json:"jitter,omitempty"`
	// Shape is Polly's BackoffType.
	Shape Shape `json:"shape,omitempty"`
	// Jittered is Polly's UseJitter.
	Jittered bool `json:"jittered,omitempty"`
}

// Shape is Polly's DelayBackoffType.
type Shape string

// Polly's backoff types.
const (
	Constant    Shape = "constant"
	Linear      Shape = "linear"
	Exponential Shape = "exponential"
)

// pollyJitterSpread is Polly's JitterFactor: ApplyJitter draws
// d + d·0.5·U − d·0.25, uniform on [0.75d, 1.25d).
const pollyJitterSpread = 0.25

// pollyScale is Polly's RpScalingFactor, 1/1.4.
const pollyScale = 1 / 1.4

// configured are the rules of ConfiguredKinds. Their laws depend on the
// policy's Config and their classes, randomness and largest delay are
// found by scanning the retries the policy's limit allows (configuredRule).
var configured = []rule{
	{kind: GRPC, formula: "U(0, min(initialBackoff·backoffMultiplier^(n−1), maxBackoff)) s (gRFC A6)",
		law: func(p Policy, n int, _ float64) Law { return uniform(0, grpcCeiling(p.Config, n)) }},
	{kind: Envoy, formula: "k ms, k uniform on 0…Iₙ−1, I₁ = base_interval, Iₙ₊₁ = 2Iₙ while Iₙ < ⌊max_interval/2⌋, else max_interval (Envoy ≥ 1.14)",
		law: func(p Policy, n int, _ float64) Law {
			i := envoyInterval(p.Config, n)
			return Law{Lo: 0, Hi: float64(i) / 1000, Max: math.Inf(1), Steps: int(i)}
		}},
	{kind: EnvoyDocs, formula: "min(k, max_interval) ms, k uniform on 0…Mₙ−1, Mₙ = (2ⁿ−1)·base_interval until it first passes max_interval, then held (Envoy's router docs; its code before 1.14)",
		law: func(p Policy, n int, _ float64) Law {
			m := envoyDocsModulus(p.Config, n)
			return Law{Lo: 0, Hi: float64(m) / 1000, Max: math.Round(p.Config.Max*1000) / 1000, Steps: int(m)}
		}},
	{kind: Resilience4j, formula: "Iₙ·U(1−f, 1+f) clamped to the max wait, Iₙ = ⌊Iₙ₋₁·multiplier⌋ ms, I₁ = waitDuration (resilience4j IntervalFunction)",
		law: func(p Policy, n int, _ float64) Law {
			i := r4jInterval(p.Config, n) / 1000
			f := p.Config.Jitter
			return Law{Lo: i * (1 - f), Hi: i * (1 + f), Max: maxOrInf(p.Config.Max)}
		}},
	{kind: Polly, formula: "d = Delay (constant), n·Delay (linear) or 2ⁿ⁻¹·Delay (exponential), times U(0.75, 1.25) with UseJitter, clamped to MaxDelay (Polly v8)",
		law: func(p Policy, n int, _ float64) Law {
			c := p.Config
			d := c.Initial
			switch c.Shape {
			case Linear:
				d *= float64(n)
			case Exponential:
				d *= math.Exp2(float64(n - 1))
			}
			l := point(d)
			if c.Jittered && d > 0 {
				l = uniform(d*(1-pollyJitterSpread), d*(1+pollyJitterSpread))
			}
			l.Max = maxOrInf(c.Max)
			return l
		}},
	{kind: PollyDecorrelated, formula: "(Delay/1.4)·(w(t) − w(t_prev)), t = n − 1 + U(0, 1), w(t) = 2ᵗ·tanh(√(4t)), clamped to MaxDelay (Polly v8 exponential with UseJitter)",
		stateful: true,
		law: func(p Policy, n int, prev float64) Law {
			return Law{Lo: float64(n - 1), Hi: float64(n), Max: maxOrInf(p.Config.Max), Warp: WarpPolly, Scale: p.Config.Initial * pollyScale, From: prev}
		},
		Sup: func(p Policy, n int) float64 {
			// The previous draw's t lies in [n−2, n−1), and 0 before retry 1.
			s := p.Config.Initial * pollyScale * (pollyCurve(float64(n)) - pollyCurve(math.Max(0, float64(n-2))))
			return math.Min(s, maxOrInf(p.Config.Max))
		}},
	{kind: ClientGo, formula: "dₙ·U(1, 1 + Jitter), d₁ = Duration, dₙ₊₁ = dₙ·Factor in whole ns (wait.Backoff as wait.ExponentialBackoff steps it)",
		law: func(p Policy, n int, _ float64) Law {
			d := clientGoDuration(p.Config, n)
			return Law{Lo: d, Hi: d * (1 + p.Config.Jitter), Max: math.Inf(1)}
		}},
}

func maxOrInf(m float64) float64 {
	if m > 0 {
		return m
	}
	return math.Inf(1)
}

// grpcCeiling is min(initialBackoff·multiplier^(n−1), maxBackoff).
func grpcCeiling(c Config, n int) float64 {
	return math.Min(c.Initial*math.Pow(c.Multiplier, float64(n-1)), c.Max)
}

// envoyInterval is Envoy's interval before retry n, in whole ms: base and
// max interval are read in whole ms (Envoy's PROTOBUF_GET_MS).
func envoyInterval(c Config, n int) int64 {
	base, most := int64(math.Round(c.Initial*1000)), int64(math.Round(c.Max*1000))
	i := base
	for k := 1; k < n && i != most; k++ {
		if i < most/2 {
			i *= 2
		} else {
			i = most
		}
	}
	return i
}

// envoyDocsModulus is Mₙ of EnvoyDocs in whole ms: (2^c − 1)·base, c
// counting up from 1 while the modulus has not passed max_interval.
func envoyDocsModulus(c Config, n int) int64 {
	base, most := int64(math.Round(c.Initial*1000)), int64(math.Round(c.Max*1000))
	m := base
	for k := 1; k < n && m <= most; k++ {
		m = 2*m + base // (2^(c+1) − 1)·base
	}
	return m
}

// r4jInterval is resilience4j's interval before retry n, in ms: Java's
// (long)(x·multiplier) iterated from waitDuration, saturating as a long
// does.
func r4jInterval(c Config, n int) float64 {
	i := math.Round(c.Initial * 1000)
	m := c.Multiplier
	if m == 0 {
		m = 1
	}
	for k := 1; k < n && m != 1; k++ {
		i = math.Min(math.Trunc(i*m), math.MaxInt64)
	}
	return i
}

// clientGoDuration is wait.Backoff's Duration before retry n: Factor (0:
// none) applied n−1 times in whole nanoseconds, as time.Duration does.
func clientGoDuration(c Config, n int) float64 {
	d := c.Initial
	if c.Multiplier == 0 {
		return d
	}
	for range n - 1 {
		d = math.Min(truncatedMul(d, c.Multiplier), math.MaxInt64/1e9)
	}
	return d
}

// configuredRule completes a configured rule: its delays are in seconds,
// it has no state of its own to start from (Polly's decorrelated curve
// starts at w = 0), and its classes, randomness and largest delay come from
// its laws over the retries its limit allows (every configuration has one).
func configuredRule(r rule) rule {
	r.Units, r.configured = InSeconds, true
	r.start = func(Policy) float64 { return 0 }
	if r.Sup == nil {
		r.Sup = func(p Policy, n int) float64 { return r.law(p, n, 0).Sup() }
	}
	sup := r.Sup
	last := func(p Policy) int { return min(max(p.Retries, 1), MaxScan) }
	r.classes = func(p Policy) int {
		// The smallest c whose law is the law of every retry after it up
		// to the limit (retries past MaxScan are refused by Config.Check).
		l := last(p)
		c := l
		for c > 1 && r.law(p, c-1, 0).Equal(r.law(p, l, 0)) {
			c--
		}
		return c
	}
	r.randomFor = func(p Policy) bool {
		if r.stateful {
			return true
		}
		for n := 1; n <= last(p); n++ {
			if !r.law(p, n, 0).Deterministic() {
				return true
			}
		}
		return false
	}
	r.largest = func(p Policy) float64 {
		m := 0.0
		for n := 1; n <= last(p); n++ {
			m = math.Max(m, sup(p, n))
		}
		return m
	}
	return r
}

// CheckConfig says what is wrong with a configured policy's parameters, naming
// herd's own field (the reader of the file names the source's), or nil.
func (p Policy) CheckConfig() error {
	c := p.Config
	bad := func(field, valid string, got float64) error {
		return fmt.Errorf("%s's %s must be %s, got %g", p.Kind, field, valid, got)
	}
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case !p.Kind.IsConfigured():
		return nil
	case p.Retries < 1 || p.Retries > MaxScan:
		return fmt.Errorf("%s needs a retry limit in [1, %d], got %d", p.Kind, MaxScan, p.Retries)
	case !finite(c.Initial) || c.Initial < 0 || c.Initial > 1e6:
		return bad("initial delay", "in [0, 1e6] s", c.Initial)
	case !finite(c.Multiplier) || c.Multiplier < 0 || c.Multiplier > 1e3:
		return bad("multiplier", "in [0, 1000]", c.Multiplier)
	case !finite(c.Max) || c.Max < 0 || c.Max > 1e6:
		return bad("largest delay", "in [0, 1e6] s (0: none)", c.Max)
	case !finite(c.Jitter) || c.Jitter < 0 || c.Jitter > 1e3:
		return bad("jitter", "in [0, 1000]", c.Jitter)
	}
	switch p.Kind {
	case GRPC:
		if c.Initial <= 0 || c.Max <= 0 || c.Multiplier <= 0 {
			return fmt.Errorf("%s needs initial backoff, max backoff and multiplier > 0", p.Kind)
		}
	case Envoy, EnvoyDocs:
		if c.Initial < 0.001 || c.Max < c.Initial {
			return fmt.Errorf("%s needs a base interval of at least 1 ms and a max interval at least as long", p.Kind)
		}
	}
	return nil
}

// describe says the parameters that are set, in seconds.
func (c Config) describe() string {
	s := fmt.Sprintf("initial %gs", c.Initial)
	if c.Multiplier != 0 {
		s += fmt.Sprintf(", multiplier %g", c.Multiplier)
	}
	if c.Max != 0 {
		s += fmt.Sprintf(", max %gs", c.Max)
	}
	if c.Jitter != 0 {
		s += fmt.Sprintf(", jitter %g", c.Jitter)
	}
	if c.Shape != "" {
		s += ", " + string(c.Shape)
	}
	if c.Jittered {
		s += ", jittered"
	}
	return s
}
