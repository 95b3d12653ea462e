package main

import (
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/spf13/pflag"
)

// registerQueueFlags adds the queue server's scenario flags.
func registerQueueFlags(fs *pflag.FlagSet) {
	fs.Int("queue-limit", 0, "--server queue: the most requests the queue holds; a send over it is rejected at once (0: unbounded)")
	fs.Int("timeout", 0, "--server queue: ticks of response time a client waits before it abandons the attempt and retries, while the server still serves it (0: never)")
}

// queueDescription says the queue server's parameters in one line.
func queueDescription(sc model.Scenario) string {
	limit, timeout := "unbounded", "no timeout"
	if l := sc.Queue.Limit; l > 0 {
		limit = fmt.Sprintf("at most %d queued", l)
	}
	if t := sc.Queue.Timeout; t > 0 {
		timeout = fmt.Sprintf("clients time out after %d ticks", t)
	}
	return fmt.Sprintf("FIFO queue %s, %s", limit, timeout)
}

// queueMetrics are the rows of the queue server's statistics.
func queueMetrics(q *analysis.QueueStats) []metric {
	if q == nil {
		return nil
	}
	m := []metric{
		{"goodput (useful completions/tick)", &q.Goodput, nil},
		{"useful completions", &q.Useful, nil},
		{"wasted work (abandoned requests served)", &q.Wasted, nil},
		{"wasted share of completions", &q.WastedShare, nil},
		{"attempts timed out", &q.TimedOut, nil},
		{"sends rejected (queue full)", &q.Rejected, nil},
		{"peak queue", &q.PeakQueue, nil},
	}
	if r := q.Response; r != nil {
		m = append(m, metric{"response time (ticks, successes)", &r.Estimate, r.Quantiles})
	}
	if l := q.Latency; l != nil {
		m = append(m, metric{"latency (ticks, served requests)", &l.Estimate, l.Quantiles})
	}
	return m
}
