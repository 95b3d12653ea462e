package main

import (
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// controlFlags are the retry controls of herd simulate and herd model.
type controlFlags struct{ control.Settings }

func (f *controlFlags) register(c *cobra.Command) {
	fs := c.Flags()
	b := control.DefaultBreaker()
	bu, th, ad := control.DefaultRetryBudget(), control.DefaultRetryThrottling(), control.DefaultAdaptiveThrottling()
	fs.IntVar(&f.MaxAttempts, "max-attempts", 0, "retry control: at most this many sends per request, the first included (0: no limit)")
	fs.StringVar(&f.Bucket, "bucket", "none", control.BucketHelp())
	fs.Float64Var(&f.BucketCapacity, "bucket-capacity", 0, "tokens the bucket holds, starting full (default: the bucket's own)")
	fs.Float64Var(&f.BucketCost, "bucket-cost", 0, "tokens one retry takes (default: the bucket's own; 10 is the AWS SDKs' legacy cost after a timeout, 5 the 2026 cost after throttling)")
	fs.Float64Var(&f.BucketDeposit, "bucket-deposit", 0, "tokens the bucket gains per first-try success (aws), per success (brooker) or per new request (brooker-sim) (default: the bucket's own)")
	fs.BoolVar(&f.Breaker, "breaker", false, "retry control: a per-client circuit breaker of --breaker-kind")
	fs.StringVar(&f.BreakerKind, "breaker-kind", "window", "window: herd's breaker, which refuses sends (they give up) for --breaker-cooldown ticks once the failure share of its last --breaker-window calls reaches --breaker-threshold, then lets one probe through | brooker-sim: the breaker of Brooker's simulator (github.com/mbrooker/simulator_example retry_sim, CircuitBreakerRetryStrategy), which never refuses a send but stops retries while the client's failed calls / requests, counted over the whole run, exceed --breaker-max-ratio (his runs add --max-attempts 4)")
	fs.IntVar(&f.BreakerWindow, "breaker-window", b.Window, "window breaker: calls in its sliding window (1…64)")
	fs.Float64Var(&f.BreakerThreshold, "breaker-threshold", b.Threshold, "window breaker: failure share that opens it, in (0, 1]")
	fs.IntVar(&f.BreakerMinCalls, "breaker-min-calls", b.MinCalls, "window breaker: calls it must see before it may open (1…window)")
	fs.IntVar(&f.BreakerCooldown, "breaker-cooldown", b.Cooldown, "window breaker: ticks it stays open before its probe")
	fs.Float64Var(&f.BreakerMaxRatio, "breaker-max-ratio", control.DefaultSimBreaker().MaxFailureRatio, "brooker-sim breaker: the failures / requests above which it stops retries")
	fs.BoolVar(&f.Budget, "retry-budget", false, "retry control: Finagle's RetryBudget (twitter/finagle finagle-core service/RetryBudget.scala, TokenRetryBudget over util's leaky TokenBucket): each client may retry --budget-percent of its requests over the last --budget-ttl, plus --budget-min-retries per second; Finagle's defaults")
	fs.DurationVar(&f.BudgetTTL, "budget-ttl", bu.TTL, "retry budget: how long deposits last, in [1s, 60s] (converted with --tick; one second per tick when ticks are abstract)")
	fs.IntVar(&f.BudgetMinRetries, "budget-min-retries", bu.MinRetriesPerSec, "retry budget: retries per second allowed whatever the traffic")
	fs.Float64Var(&f.BudgetPercent, "budget-percent", bu.PercentCanRetry, "retry budget: share of requests that may be retried (0.2 is 20%)")
	fs.BoolVar(&f.Throttling, "retry-throttling", false, "retry control: gRPC retry throttling (gRFC A6 retryThrottling, grpc-go retryThrottler): a per-client token count that starts at --throttling-max-tokens; every failed call takes 1, every success adds --throttling-token-ratio, and a failed call is retried only while the count is above half of the maximum; A6's example values")
	fs.Float64Var(&f.MaxTokens, "throttling-max-tokens", th.MaxTokens, "retry throttling: maxTokens (> 0)")
	fs.Float64Var(&f.TokenRatio, "throttling-token-ratio", th.TokenRatio, "retry throttling: tokenRatio, tokens a success adds (> 0)")
	fs.BoolVar(&f.Adaptive, "adaptive-throttling", false, "retry control: the SRE book's client-side adaptive throttling (Site Reliability Engineering, ch. 21 Handling Overload, eq. 21-1): each client rejects a send locally, and its request gives up, with probability max(0, (requests − K·accepts)/(requests + 1)) over the trailing --adaptive-window, where requests counts its attempted sends and accepts those the server served")
	fs.Float64Var(&f.AdaptiveK, "adaptive-k", ad.K, "adaptive throttling: K, the multiple of accepts a client may send (the book's 2)")
	fs.DurationVar(&f.AdaptiveWindow, "adaptive-window", ad.Window, "adaptive throttling: the trailing window (the book's 2 minutes; converted with --tick; one second per tick when ticks are abstract)")
	complete(c, "bucket", control.BucketNames())
	complete(c, "breaker-kind", []string{"window", "brooker-sim"})
}

// controls builds and validates the controls the flags ask for.
func (f *controlFlags) controls(fs *pflag.FlagSet, sc model.Scenario) (control.Controls, error) {
	settings := f.Settings
	settings.Given = fs.Changed
	return settings.Controls(sc)
}

// trafficFlags switch herd simulate to open-loop or closed-loop traffic.
type trafficFlags struct {
	model.TrafficSettings
	series bool
}

func (f *trafficFlags) register(c *cobra.Command) {
	fs := c.Flags()
	d := model.DefaultTraffic(1)
	fs.Float64Var(&f.Rate, "rate", 0, "open loop: new requests per tick, a Poisson stream spread over the --clients (0: the thundering-herd cohort)")
	fs.StringVar(&f.Loop, "loop", "open", "open: with --rate, Poisson arrivals | closed: each of the --clients sends its next request only after its previous one was served or gave up, plus --think-time ticks (no --rate)")
	fs.IntVar(&f.Think, "think-time", 0, "closed loop: idle ticks between the end of a client's request and its next")
	fs.IntVar(&f.Ticks, "ticks", d.Ticks, "open and closed loops: ticks per trial")
	fs.IntVar(&f.OutageStart, "outage-start", d.OutageStart, "open and closed loops: first tick of the outage")
	fs.IntVar(&f.OutageLength, "outage", d.OutageLength, "open and closed loops: ticks the outage lasts (0: no trigger)")
	fs.IntVar(&f.OutageCapacity, "outage-capacity", 0, "open and closed loops: the server's capacity during the outage, in [0, capacity) (0: every call fails)")
	fs.Float64Var(&f.RejectCost, "reject-cost", 0, "open and closed loops, capacity server: share of a tick's capacity that rejecting one request costs, in [0, 1]; above 0, goodput falls under overload (⌊(k − c·m)/(1 − c)⌋ of m > k arrivals are served)")
	fs.IntVar(&f.RecoveredBacklog, "recovered-backlog", 0, "open and closed loops: backlog at or under which, with no request given up in that tick, the system has recovered (0: the capacity)")
	fs.IntVar(&f.CollapseBacklog, "collapse-backlog", 0, "open and closed loops: stop a trial as not recovered once its backlog has grown this much after the outage (0: play every tick)")
	fs.BoolVar(&f.Drain, "drain", false, "open and closed loops: after the last tick send no new requests and play on until every pending request is served or gives up (at most --ticks more), so calls per request count whole lives, as Brooker's simulator does (default: on with --server flaky, off otherwise; --drain=false turns it off)")
	fs.BoolVar(&f.StartCohort, "start-cohort", false, "open loop: every client also sends one request at tick 0, as the clients of Brooker's retry_sim do when they start")
	fs.BoolVar(&f.series, "series", false, "open and closed loops, JSON: add the mean sends, goodput and backlog of every tick")
	complete(c, "loop", []string{"open", "closed"})
}

// traffic says which kind of run the flags ask for and builds its traffic
// and closed loop.
func (f *trafficFlags) traffic(fs *pflag.FlagSet, sc model.Scenario) (model.RunMode, model.Traffic, model.ClosedLoop, error) {
	settings := f.TrafficSettings
	settings.Given = fs.Changed
	return settings.Resolve(sc)
}
