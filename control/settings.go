package control

import (
	"strings"
	"time"

	"github.com/herdlab/herd/model"
)

// Settings are the retry controls as a user gives them, each parameter by
// the name of its flag: which controls are on, their parameters, and which
// parameters were given. Controls turns them into valid Controls.
type Settings struct {
	MaxAttempts                                     int
	Bucket                                          string // a BucketKind
	BucketCapacity, BucketCost, BucketDeposit       float64
	Breaker                                         bool
	BreakerKind                                     string // window or brooker-sim
	BreakerWindow, BreakerMinCalls, BreakerCooldown int
	BreakerThreshold, BreakerMaxRatio               float64
	Budget                                          bool
	BudgetTTL                                       time.Duration
	BudgetMinRetries                                int
	BudgetPercent                                   float64
	Throttling                                      bool
	MaxTokens, TokenRatio                           float64
	Adaptive                                        bool
	AdaptiveK                                       float64
	AdaptiveWindow                                  time.Duration
	// Given says whether the parameter of that flag name was given; nil:
	// none was.
	Given func(name string) bool
}

func (s Settings) given(name string) bool { return s.Given != nil && s.Given(name) }

// needs refuses the parameters given without the control they belong to.
func (s Settings) needs(on bool, control string, params ...string) error {
	if on {
		return nil
	}
	for _, n := range params {
		if s.given(n) {
			return model.Usagef("--%s needs %s", n, control)
		}
	}
	return nil
}

// Controls builds and validates the controls; a parameter given without
// the control it belongs to is refused.
func (s Settings) Controls(sc model.Scenario) (Controls, error) {
	kind, err := ParseBucketKind(s.Bucket)
	if err != nil {
		return Controls{}, model.Usagef("--bucket: %w", err)
	}
	if s.BreakerKind != "window" && s.BreakerKind != "brooker-sim" {
		return Controls{}, model.Usagef("--breaker-kind must be window or brooker-sim, got %q", s.BreakerKind)
	}
	window, sim := s.Breaker && s.BreakerKind == "window", s.Breaker && s.BreakerKind == "brooker-sim"
	var buckets []string
	for _, k := range BucketKinds() {
		if k != NoBucket {
			buckets = append(buckets, string(k))
		}
	}
	for _, err := range []error{
		s.needs(kind != NoBucket, "--bucket "+strings.Join(buckets, "|"), "bucket-capacity", "bucket-cost", "bucket-deposit"),
		s.needs(s.Breaker, "--breaker", "breaker-kind"),
		s.needs(window, "--breaker (--breaker-kind window)", "breaker-window", "breaker-threshold", "breaker-min-calls", "breaker-cooldown"),
		s.needs(sim, "--breaker --breaker-kind brooker-sim", "breaker-max-ratio"),
		s.needs(s.Budget, "--retry-budget", "budget-ttl", "budget-min-retries", "budget-percent"),
		s.needs(s.Throttling, "--retry-throttling", "throttling-max-tokens", "throttling-token-ratio"),
		s.needs(s.Adaptive, "--adaptive-throttling", "adaptive-k", "adaptive-window"),
	} {
		if err != nil {
			return Controls{}, err
		}
	}
	ctl := Controls{MaxAttempts: s.MaxAttempts, Bucket: DefaultBucket(kind)}
	if s.given("bucket-capacity") {
		ctl.Bucket.Capacity = s.BucketCapacity
	}
	if s.given("bucket-cost") {
		ctl.Bucket.RetryCost = s.BucketCost
	}
	if s.given("bucket-deposit") {
		ctl.Bucket.Deposit = s.BucketDeposit
	}
	if window {
		ctl.Breaker = Breaker{Window: s.BreakerWindow, Threshold: s.BreakerThreshold, MinCalls: s.BreakerMinCalls, Cooldown: s.BreakerCooldown}
	}
	if sim {
		ctl.SimBreaker = SimBreaker{MaxFailureRatio: s.BreakerMaxRatio}
	}
	if s.Budget {
		ctl.Budget = RetryBudget{TTL: s.BudgetTTL, MinRetriesPerSec: s.BudgetMinRetries, PercentCanRetry: s.BudgetPercent}
	}
	if s.Throttling {
		ctl.Throttling = RetryThrottling{MaxTokens: s.MaxTokens, TokenRatio: s.TokenRatio}
	}
	if s.Adaptive {
		ctl.Adaptive = AdaptiveThrottling{K: s.AdaptiveK, Window: s.AdaptiveWindow}
	}
	// A control asked for is checked even where its parameters would read
	// as off (a ratio or a count of 0).
	for _, k := range []struct {
		on bool
		c  Control
	}{{sim, ctl.SimBreaker}, {s.Budget, ctl.Budget}, {s.Throttling, ctl.Throttling}, {s.Adaptive, ctl.Adaptive}} {
		if k.on {
			if err := k.c.Validate(sc); err != nil {
				return ctl, err
			}
		}
	}
	return ctl, ctl.ValidateFor(sc)
}
