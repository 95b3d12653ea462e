package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
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
	window, minCalls, cooldown  int
	threshold                   float64
}

func (f *controlFlags) register(c *cobra.Command) {
	fs := c.Flags()
	b := model.DefaultBreaker()
	fs.IntVar(&f.maxAttempts, "max-attempts", 0, "retry control: at most this many sends per request, the first included (0: no limit)")
	fs.StringVar(&f.bucket, "bucket", "none", "retry control: per-client retry token bucket: none|aws (500 tokens, a retry costs 5, a success refunds) |brooker (10 tokens, a retry costs 1, a success deposits 0.1)")
	fs.Float64Var(&f.bucketCap, "bucket-capacity", 0, "tokens the bucket holds, starting full (default: the bucket's own)")
	fs.Float64Var(&f.bucketCost, "bucket-cost", 0, "tokens one retry takes (default: the bucket's own; 10 is the AWS SDKs' cost after a timeout)")
	fs.Float64Var(&f.depo, "bucket-deposit", 0, "tokens a success adds (default: the bucket's own)")
	fs.BoolVar(&f.breaker, "breaker", false, "retry control: a per-client circuit breaker that refuses sends, which give up, for --breaker-cooldown ticks once the failure share of its last --breaker-window calls reaches --breaker-threshold, then lets one probe through")
	fs.IntVar(&f.window, "breaker-window", b.Window, "calls in the breaker's sliding window (1…64)")
	fs.Float64Var(&f.threshold, "breaker-threshold", b.Threshold, "failure share that opens the breaker, in (0, 1]")
	fs.IntVar(&f.minCalls, "breaker-min-calls", b.MinCalls, "calls the breaker must see before it may open (1…window)")
	fs.IntVar(&f.cooldown, "breaker-cooldown", b.Cooldown, "ticks the breaker stays open before its probe")
	complete(c, "bucket", []string{"none", "aws", "brooker"})
}

// controls builds and validates the controls; a parameter given without
// the control it belongs to is refused.
func (f *controlFlags) controls(fs *pflag.FlagSet) (model.Controls, error) {
	kind, err := model.ParseBucketKind(f.bucket)
	if err != nil {
		return model.Controls{}, usageError{fmt.Errorf("--bucket: %w", err)}
	}
	if kind == model.NoBucket {
		for _, n := range []string{"bucket-capacity", "bucket-cost", "bucket-deposit"} {
			if fs.Changed(n) {
				return model.Controls{}, usageError{fmt.Errorf("--%s needs --bucket aws or --bucket brooker", n)}
			}
		}
	}
	if !f.breaker {
		for _, n := range []string{"breaker-window", "breaker-threshold", "breaker-min-calls", "breaker-cooldown"} {
			if fs.Changed(n) {
				return model.Controls{}, usageError{fmt.Errorf("--%s needs --breaker", n)}
			}
		}
	}
	ctl := model.Controls{MaxAttempts: f.maxAttempts, Bucket: model.DefaultBucket(kind)}
	if fs.Changed("bucket-capacity") {
		ctl.Bucket.Capacity = f.bucketCap
	}
	if fs.Changed("bucket-cost") {
		ctl.Bucket.RetryCost = f.bucketCost
	}
	if fs.Changed("bucket-deposit") {
		ctl.Bucket.Deposit = f.depo
	}
	if f.breaker {
		ctl.Breaker = model.Breaker{Window: f.window, Threshold: f.threshold, MinCalls: f.minCalls, Cooldown: f.cooldown}
	}
	return ctl, ctl.Validate()
}

// trafficFlags switch herd simulate to open-loop traffic.
type trafficFlags struct {
	rate                              float64
	ticks, start, length, outCap      int
	rejectCost                        float64
	recoveredBacklog, collapseBacklog int
	series                            bool
}

func (f *trafficFlags) register(c *cobra.Command) {
	fs := c.Flags()
	d := model.DefaultTraffic(1)
	fs.Float64Var(&f.rate, "rate", 0, "open loop: new requests per tick, a Poisson stream spread over the --clients (0: the thundering-herd cohort)")
	fs.IntVar(&f.ticks, "ticks", d.Ticks, "open loop: ticks per trial")
	fs.IntVar(&f.start, "outage-start", d.OutageStart, "open loop: first tick of the outage")
	fs.IntVar(&f.length, "outage", d.OutageLength, "open loop: ticks the outage lasts (0: no trigger)")
	fs.IntVar(&f.outCap, "outage-capacity", 0, "open loop: the server's capacity during the outage, in [0, capacity) (0: every call fails)")
	fs.Float64Var(&f.rejectCost, "reject-cost", 0, "open loop, capacity server: share of a tick's capacity that rejecting one request costs, in [0, 1]; above 0, goodput falls under overload (⌊(k − c·m)/(1 − c)⌋ of m > k arrivals are served)")
	fs.IntVar(&f.recoveredBacklog, "recovered-backlog", 0, "open loop: backlog at or under which, with no request given up in that tick, the system has recovered (0: the capacity)")
	fs.IntVar(&f.collapseBacklog, "collapse-backlog", 0, "open loop: stop a trial as not recovered once its backlog has grown this much after the outage (0: play every tick)")
	fs.BoolVar(&f.series, "series", false, "open loop, JSON: add the mean sends, goodput and backlog of every tick")
}

// traffic reports whether open-loop mode is on and builds its traffic;
// open-loop flags without --rate are refused.
func (f *trafficFlags) traffic(fs *pflag.FlagSet, sc model.Scenario) (bool, model.Traffic, error) {
	if !fs.Changed("rate") {
		for _, n := range []string{"ticks", "outage-start", "outage", "outage-capacity", "reject-cost", "recovered-backlog", "collapse-backlog", "series"} {
			if fs.Changed(n) {
				return false, model.Traffic{}, usageError{fmt.Errorf("--%s is an open-loop flag: it needs --rate", n)}
			}
		}
		return false, model.Traffic{}, nil
	}
	tr := model.Traffic{
		Rate: f.rate, Ticks: f.ticks, OutageStart: f.start, OutageLength: f.length,
		OutageCapacity: f.outCap, RejectCost: f.rejectCost,
		RecoveredBacklog: f.recoveredBacklog, CollapseBacklog: f.collapseBacklog,
	}
	if fs.Changed("horizon") {
		return false, tr, usageError{fmt.Errorf("--horizon is for the cohort; in open-loop mode (--rate) a trial lasts --ticks")}
	}
	return true, tr, tr.Validate(sc)
}

// trafficResult is the JSON document of an open-loop herd simulate.
type trafficResult struct {
	analysis.TrafficSummary
	Provenance Provenance `json:"provenance"`
}

func trafficMetrics(s analysis.TrafficSummary) []metric {
	m := []metric{
		{"new requests", &s.NewRequests, nil},
		{"calls", &s.Calls, nil},
		{"calls per new request", &s.Load, nil},
		{"served", &s.Served, nil},
		{"served per new request", &s.ServedShare, nil},
		{"goodput after outage / rate", &s.Goodput, nil},
		{"gave up", &s.GaveUp, nil},
		{"  by attempts limit", &s.GaveUpBy.Limit, nil},
		{"  by token bucket", &s.GaveUpBy.Bucket, nil},
		{"  by circuit breaker", &s.GaveUpBy.Breaker, nil},
		{"backlog at horizon", &s.Backlog, nil},
		{"peak backlog", &s.PeakBacklog, nil},
		{"peak sends/tick", &s.Peak, nil},
	}
	if s.RecoveryTicks != nil {
		m = append(m, metric{"recovery (ticks, recovered trials)", &s.RecoveryTicks.Estimate, s.RecoveryTicks.Quantiles})
	}
	return m
}

// trafficHead says what was run: the scenario, the traffic, the trials
// and how many recovered, and the engine.
func trafficHead(s analysis.TrafficSummary) []string {
	t := s.Traffic
	r := s.Recovered
	return []string{
		describe(s.Scenario),
		fmt.Sprintf("open loop: %g new requests/tick (λ/k = %.3g) for %d ticks; outage ticks %d…%d at capacity %d; reject cost %g; controls: %s",
			t.Rate, t.Load, t.Ticks, t.OutageStart, t.OutageStart+t.OutageLength-1, t.OutageCapacity, t.RejectCost, s.Controls.Name),
		fmt.Sprintf("%d trials, seed %d: %d recovered within the horizon (share %s); mean ± half its 95%% interval",
			s.Trials, s.Seed, r.Count, bracket(r.Value, r.CI95[0], r.CI95[1])),
		fmt.Sprintf("engine: %s (%s)", s.Engine.Engine, s.Engine.Reason),
	}
}

func trafficTable(w io.Writer, s analysis.TrafficSummary, width int) error {
	fmt.Fprintln(w, strings.Join(trafficHead(s), "\n"))
	fmt.Fprintln(w)
	return metricTable(w, trafficMetrics(s), s.Warnings, width)
}

func trafficMarkdown(w io.Writer, s analysis.TrafficSummary) error {
	fmt.Fprintln(w, strings.Join(trafficHead(s), "\n\n"))
	fmt.Fprintln(w)
	return metricMarkdown(w, trafficMetrics(s), s.Warnings)
}

func trafficCSV(w io.Writer, s analysis.TrafficSummary) error {
	cw := csv.NewWriter(w)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	cw.Write(append(append([]string(nil), runColumns...), "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi"))
	r := s.Recovered
	cw.Write(append(runCells(s.Scenario, s.Seed, s.Trials), "recovered share", num(r.Value), "", strconv.Itoa(r.N), num(r.CI95[0]), num(r.CI95[1])))
	for _, m := range trafficMetrics(s) {
		cw.Write(append(runCells(s.Scenario, s.Seed, s.Trials), strings.TrimSpace(m.name), num(m.e.Mean), num(m.e.SD), strconv.Itoa(m.e.N), num(m.e.CI95[0]), num(m.e.CI95[1])))
	}
	cw.Flush()
	return cw.Error()
}
