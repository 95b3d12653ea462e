package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/stats"
)

// TrafficSimulation is herd simulate's result for open-loop or
// closed-loop traffic, its JSON document.
type TrafficSimulation struct {
	analysis.TrafficSummary
	Provenance Provenance `json:"provenance"`
}

// trafficMetrics are the rows of a traffic run: requests, calls, goodput,
// the give-ups by cause, backlog, recovery and the queue's statistics.
func trafficMetrics(s analysis.TrafficSummary) []metric {
	m := []metric{
		{"new requests", &s.NewRequests, nil},
		{"calls", &s.Calls, nil},
		{"calls per new request", &s.Load, nil},
		{"served", &s.Served, nil},
		{"served per new request", &s.ServedShare, nil},
	}
	if s.Traffic.Loop != "closed" {
		m = append(m, metric{"goodput after outage / rate", &s.Goodput, nil})
	}
	m = append(m, []metric{
		{"gave up", &s.GaveUp, nil},
		{"  by attempts limit", &s.GaveUpBy.Limit, nil},
		{"  by token bucket", &s.GaveUpBy.Bucket, nil},
		{"  by circuit breaker", &s.GaveUpBy.Breaker, nil},
	}...)
	for _, e := range []struct {
		name string
		e    *stats.Estimate
	}{{"  by retry budget", s.GaveUpBy.Budget}, {"  by retry throttling", s.GaveUpBy.Throttling}, {"  by adaptive throttling", s.GaveUpBy.Adaptive}} {
		if e.e != nil {
			m = append(m, metric{e.name, e.e, nil})
		}
	}
	m = append(m, []metric{
		{"backlog at horizon", &s.Backlog, nil},
		{"peak backlog", &s.PeakBacklog, nil},
		{"peak sends/tick", &s.Peak, nil},
	}...)
	if s.RecoveryTicks != nil {
		m = append(m, metric{"recovery (ticks, recovered trials)", &s.RecoveryTicks.Estimate, s.RecoveryTicks.Quantiles})
	}
	return append(m, queueMetrics(s.Queue)...)
}

// trafficHead says what was run: the scenario, the traffic, the trials
// and how many recovered, and the engine.
func trafficHead(s analysis.TrafficSummary) []string {
	t := s.Traffic
	loop := fmt.Sprintf("open loop: %g new requests/tick (λ/k = %.3g)", t.Rate, t.Load)
	if t.StartCohort {
		loop += " and every client's first at tick 0"
	}
	if t.Loop == "closed" {
		loop = fmt.Sprintf("closed loop: each client's next request %d ticks after its previous one ended,", *t.Think)
	}
	drain := ""
	if t.Drain {
		drain = ", then drained"
	}
	r := s.Recovered
	return []string{
		Describe(s.Scenario),
		fmt.Sprintf("%s for %d ticks%s; %s; reject cost %g; controls: %s",
			loop, t.Ticks, drain, OutagePhrase(t.OutageStart, t.OutageLength, t.OutageCapacity), t.RejectCost, s.Controls.Name),
		fmt.Sprintf("%d trials, seed %d: %d recovered within the horizon (share %s); mean ± half its 95%% interval",
			s.Trials, s.Seed, r.Count, Share(r)),
		fmt.Sprintf("engine: %s (%s)", s.Engine.Engine, s.Engine.Reason),
	}
}

// Table writes the simulation for a terminal, its table fitted to width
// (0: no limit).
func (r TrafficSimulation) Table(w io.Writer, width int) error {
	return metricTable(w, trafficHead(r.TrafficSummary), trafficMetrics(r.TrafficSummary), r.Warnings, width)
}

// Markdown writes the simulation as markdown.
func (r TrafficSimulation) Markdown(w io.Writer) error {
	return metricMarkdown(w, trafficHead(r.TrafficSummary), trafficMetrics(r.TrafficSummary), r.Warnings)
}

// CSV writes the recovered share, then one row per metric.
func (r TrafficSimulation) CSV(w io.Writer) error {
	s := r.TrafficSummary
	cw := csv.NewWriter(w)
	cw.Write(append(append([]string(nil), runColumns...), "metric", "mean", "sd", "n", "ci95_lo", "ci95_hi"))
	rec := s.Recovered
	cw.Write(append(runCells(s.Scenario, s.Seed, s.Trials), "recovered share", csvNum(rec.Value), "", strconv.Itoa(rec.N), csvNum(rec.CI95[0]), csvNum(rec.CI95[1])))
	for _, m := range trafficMetrics(s) {
		cw.Write(append(runCells(s.Scenario, s.Seed, s.Trials), strings.TrimSpace(m.name), csvNum(m.e.Mean), csvNum(m.e.SD), strconv.Itoa(m.e.N), csvNum(m.e.CI95[0]), csvNum(m.e.CI95[1])))
	}
	cw.Flush()
	return cw.Error()
}
