package main

import (
	"strings"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// controlFlags are the retry controls of herd simulate.
type controlFlags struct {
	maxAttempts                 int
	bucket                      string
	bucketCap, bucketCost, depo float64
	breaker                     bool
	breakerKind                 string
	window, minCalls, cooldown  int
	threshold, maxRatio         float64
	budget                      bool
	budgetTTL                   time.Duration
	budgetMin                   int
	budgetPercent               float64
	throttling                  bool
	maxTokens, tokenRatio       float64
	adaptive                    bool
	adaptiveK                   float64
	adaptiveWindow              time.Duration
}

// bucketHelp says each bucket in control's words.
func bucketHelp() string {
	var kinds []string
	for _, k := range control.BucketKinds() {
		kinds = append(kinds, string(k)+" ("+k.Summary()+")")
	}
	return "retry control: per-client retry token bucket: " + strings.Join(kinds, " | ")
}

func (f *controlFlags) register(c *cobra.Command) {
	fs := c.Flags()
	b := control.DefaultBreaker()
	bu, th, ad := control.DefaultRetryBudget(), control.DefaultRetryThrottling(), control.DefaultAdaptiveThrottling()
	fs.IntVar(&f.maxAttempts, "max-attempts", 0, "retry control: at most this many sends per request, the first included (0: no limit)")
	fs.StringVar(&f.bucket, "bucket", "none", bucketHelp())
	fs.Float64Var(&f.bucketCap, "bucket-capacity", 0, "tokens the bucket holds, starting full (default: the bucket's own)")
	fs.Float64Var(&f.bucketCost, "bucket-cost", 0, "tokens one retry takes (default: the bucket's own; 10 is the AWS SDKs' legacy cost after a timeout, 5 the 2026 cost after throttling)")
	fs.Float64Var(&f.depo, "bucket-deposit", 0, "tokens the bucket gains per first-try success (aws), per success (brooker) or per new request (brooker-sim) (default: the bucket's own)")
	fs.BoolVar(&f.breaker, "breaker", false, "retry control: a per-client circuit breaker of --breaker-kind")
	fs.StringVar(&f.breakerKind, "breaker-kind", "window", "window: herd's breaker, which refuses sends (they give up) for --breaker-cooldown ticks once the failure share of its last --breaker-window calls reaches --breaker-threshold, then lets one probe through | brooker-sim: the breaker of Brooker's simulator (github.com/mbrooker/simulator_example retry_sim, CircuitBreakerRetryStrategy), which never refuses a send but stops retries while the client's failed calls / requests, counted over the whole run, exceed --breaker-max-ratio (his runs add --max-attempts 4)")
	fs.IntVar(&f.window, "breaker-window", b.Window, "window breaker: calls in its sliding window (1…64)")
	fs.Float64Var(&f.threshold, "breaker-threshold", b.Threshold, "window breaker: failure share that opens it, in (0, 1]")
	fs.IntVar(&f.minCalls, "breaker-min-calls", b.MinCalls, "window breaker: calls it must see before it may open (1…window)")
	fs.IntVar(&f.cooldown, "breaker-cooldown", b.Cooldown, "window breaker: ticks it stays open before its probe")
	fs.Float64Var(&f.maxRatio, "breaker-max-ratio", control.DefaultSimBreaker().MaxFailureRatio, "brooker-sim breaker: the failures / requests above which it stops retries")
	fs.BoolVar(&f.budget, "retry-budget", false, "retry control: Finagle's RetryBudget (twitter/finagle finagle-core service/RetryBudget.scala, TokenRetryBudget over util's leaky TokenBucket): each client may retry --budget-percent of its requests over the last --budget-ttl, plus --budget-min-retries per second; Finagle's defaults")
	fs.DurationVar(&f.budgetTTL, "budget-ttl", bu.TTL, "retry budget: how long deposits last, in [1s, 60s] (converted with --tick; one second per tick when ticks are abstract)")
	fs.IntVar(&f.budgetMin, "budget-min-retries", bu.MinRetriesPerSec, "retry budget: retries per second allowed whatever the traffic")
	fs.Float64Var(&f.budgetPercent, "budget-percent", bu.PercentCanRetry, "retry budget: share of requests that may be retried (0.2 is 20%)")
	fs.BoolVar(&f.throttling, "retry-throttling", false, "retry control: gRPC retry throttling (gRFC A6 retryThrottling, grpc-go retryThrottler): a per-client token count that starts at --throttling-max-tokens; every failed call takes 1, every success adds --throttling-token-ratio, and a failed call is retried only while the count is above half of the maximum; A6's example values")
	fs.Float64Var(&f.maxTokens, "throttling-max-tokens", th.MaxTokens, "retry throttling: maxTokens (> 0)")
	fs.Float64Var(&f.tokenRatio, "throttling-token-ratio", th.TokenRatio, "retry throttling: tokenRatio, tokens a success adds (> 0)")
	fs.BoolVar(&f.adaptive, "adaptive-throttling", false, "retry control: the SRE book's client-side adaptive throttling (Site Reliability Engineering, ch. 21 Handling Overload, eq. 21-1): each client rejects a send locally, and its request gives up, with probability max(0, (requests − K·accepts)/(requests + 1)) over the trailing --adaptive-window, where requests counts its attempted sends and accepts those the server served")
	fs.Float64Var(&f.adaptiveK, "adaptive-k", ad.K, "adaptive throttling: K, the multiple of accepts a client may send (the book's 2)")
	fs.DurationVar(&f.adaptiveWindow, "adaptive-window", ad.Window, "adaptive throttling: the trailing window (the book's 2 minutes; converted with --tick; one second per tick when ticks are abstract)")
	var kinds []string
	for _, k := range control.BucketKinds() {
		kinds = append(kinds, string(k))
	}
	complete(c, "bucket", kinds)
	complete(c, "breaker-kind", []string{"window", "brooker-sim"})
}

// controls builds and validates the controls the flags ask for.
func (f *controlFlags) controls(fs *pflag.FlagSet, sc model.Scenario) (control.Controls, error) {
	return control.Settings{
		MaxAttempts: f.maxAttempts, Bucket: f.bucket, BucketCapacity: f.bucketCap, BucketCost: f.bucketCost, BucketDeposit: f.depo,
		Breaker: f.breaker, BreakerKind: f.breakerKind, BreakerWindow: f.window, BreakerMinCalls: f.minCalls, BreakerCooldown: f.cooldown,
		BreakerThreshold: f.threshold, BreakerMaxRatio: f.maxRatio,
		Budget: f.budget, BudgetTTL: f.budgetTTL, BudgetMinRetries: f.budgetMin, BudgetPercent: f.budgetPercent,
		Throttling: f.throttling, MaxTokens: f.maxTokens, TokenRatio: f.tokenRatio,
		Adaptive: f.adaptive, AdaptiveK: f.adaptiveK, AdaptiveWindow: f.adaptiveWindow,
		Given: fs.Changed,
	}.Controls(sc)
}

// trafficFlags switch herd simulate to open-loop or closed-loop traffic.
type trafficFlags struct {
	rate                              float64
	ticks, start, length, outCap      int
	rejectCost                        float64
	recoveredBacklog, collapseBacklog int
	series, drain, startCohort        bool
	loop                              string
	think                             int
}

func (f *trafficFlags) register(c *cobra.Command) {
	fs := c.Flags()
	d := model.DefaultTraffic(1)
	fs.Float64Var(&f.rate, "rate", 0, "open loop: new requests per tick, a Poisson stream spread over the --clients (0: the thundering-herd cohort)")
	fs.StringVar(&f.loop, "loop", "open", "open: with --rate, Poisson arrivals | closed: each of the --clients sends its next request only after its previous one was served or gave up, plus --think-time ticks (no --rate)")
	fs.IntVar(&f.think, "think-time", 0, "closed loop: idle ticks between the end of a client's request and its next")
	fs.IntVar(&f.ticks, "ticks", d.Ticks, "open and closed loops: ticks per trial")
	fs.IntVar(&f.start, "outage-start", d.OutageStart, "open and closed loops: first tick of the outage")
	fs.IntVar(&f.length, "outage", d.OutageLength, "open and closed loops: ticks the outage lasts (0: no trigger)")
	fs.IntVar(&f.outCap, "outage-capacity", 0, "open and closed loops: the server's capacity during the outage, in [0, capacity) (0: every call fails)")
	fs.Float64Var(&f.rejectCost, "reject-cost", 0, "open and closed loops, capacity server: share of a tick's capacity that rejecting one request costs, in [0, 1]; above 0, goodput falls under overload (⌊(k − c·m)/(1 − c)⌋ of m > k arrivals are served)")
	fs.IntVar(&f.recoveredBacklog, "recovered-backlog", 0, "open and closed loops: backlog at or under which, with no request given up in that tick, the system has recovered (0: the capacity)")
	fs.IntVar(&f.collapseBacklog, "collapse-backlog", 0, "open and closed loops: stop a trial as not recovered once its backlog has grown this much after the outage (0: play every tick)")
	fs.BoolVar(&f.drain, "drain", false, "open and closed loops: after the last tick send no new requests and play on until every pending request is served or gives up (at most --ticks more), so calls per request count whole lives, as Brooker's simulator does (default: on with --server flaky, off otherwise; --drain=false turns it off)")
	fs.BoolVar(&f.startCohort, "start-cohort", false, "open loop: every client also sends one request at tick 0, as the clients of Brooker's retry_sim do when they start")
	fs.BoolVar(&f.series, "series", false, "open and closed loops, JSON: add the mean sends, goodput and backlog of every tick")
	complete(c, "loop", []string{"open", "closed"})
}

// traffic says which kind of run the flags ask for and builds its traffic
// and closed loop.
func (f *trafficFlags) traffic(fs *pflag.FlagSet, sc model.Scenario) (model.RunMode, model.Traffic, model.ClosedLoop, error) {
	return model.TrafficSettings{
		Rate: f.rate, Ticks: f.ticks, OutageStart: f.start, OutageLength: f.length, OutageCapacity: f.outCap,
		RejectCost: f.rejectCost, RecoveredBacklog: f.recoveredBacklog, CollapseBacklog: f.collapseBacklog,
		Drain: f.drain, StartCohort: f.startCohort, Loop: f.loop, Think: f.think, Given: fs.Changed,
	}.Resolve(sc)
}
