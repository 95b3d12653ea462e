package analysis

import (
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// QueueStats is what a run on the queue server (model.Queue) says besides
// its summary, each quantity with its 95% interval over trials: the useful
// work, the work nobody waited for, and how long responses took.
type QueueStats struct {
	Limit   int `json:"queue_limit"` // 0: unbounded
	Timeout int `json:"timeout"`     // ticks; 0: none
	// Goodput is each trial's useful completions per tick: served over
	// completion in a cohort, over the ticks played in open-loop traffic.
	Goodput stats.Estimate `json:"goodput"`
	Useful  stats.Estimate `json:"useful"` // successful completions per trial
	// Wasted is the abandoned requests the server served, per trial, and
	// WastedShare their share of everything it served.
	Wasted      stats.Estimate `json:"wasted"`
	WastedShare stats.Estimate `json:"wasted_share"`
	TimedOut    stats.Estimate `json:"timed_out"` // attempts abandoned at the timeout
	Rejected    stats.Estimate `json:"rejected"`  // sends refused by a full queue
	PeakQueue   stats.Estimate `json:"peak_queue"`
	// Response is the response time (wait plus one tick of service) of the
	// successful attempts: the mean of per-trial means and the quantiles of
	// the pooled law, with trial-clustered intervals.
	Response *Distribution `json:"response_time,omitempty"`
	// Latency is, in open-loop traffic, the end-to-end latency of served
	// requests (first send to response), as Summary.Latency is a cohort's.
	Latency *Distribution `json:"latency,omitempty"`
	// QueueAt and WastedAt are the mean queue length after each tick and
	// the mean wasted completions of each tick, when asked with
	// Options.Arrivals.
	QueueAt  []float64 `json:"queue,omitempty"`
	WastedAt []float64 `json:"wasted_series,omitempty"`
}

// queueFold accumulates QueueStats over trials.
type queueFold struct {
	open                                               bool
	goodput, useful, wasted, share, timedOut, rejected stats.Moments
	peak, respMean, latMean                            stats.Moments
	resp, lat                                          stats.LatencyCDF
	queueAt, wastedAt                                  []float64
}

// add folds one trial of the queue engine (a no-op for other engines).
func (f *queueFold) add(t *montecarlo.Trial) {
	q := t.Queue
	if q == nil {
		return
	}
	f.open = t.Open != nil
	if t.Completion > 0 {
		f.goodput.Add(float64(t.Served) / float64(t.Completion))
	}
	f.useful.Add(float64(t.Served))
	f.wasted.Add(float64(q.Wasted))
	if done := t.Served + q.Wasted; done > 0 {
		f.share.Add(float64(q.Wasted) / float64(done))
	}
	f.timedOut.Add(float64(q.TimedOut))
	f.rejected.Add(float64(q.Rejected))
	f.peak.Add(float64(q.PeakQueue))
	if m, ok := q.Response.Mean(); ok {
		f.respMean.Add(m)
	}
	f.resp.Add(q.Response)
	if f.open {
		if m, ok := t.Latency.Mean(); ok {
			f.latMean.Add(m)
		}
		f.lat.Add(t.Latency)
	}
	f.queueAt = addSeries(f.queueAt, q.QueueAt)
	f.wastedAt = addSeries(f.wastedAt, q.WastedAt)
}

// stats is the folded statistics, nil when no trial was on the queue
// server; series are divided by the trials folded.
func (f *queueFold) stats(sc model.Scenario) *QueueStats {
	if f.useful.N() == 0 {
		return nil
	}
	s := &QueueStats{
		Limit: sc.Queue.Limit, Timeout: sc.Queue.Timeout,
		Goodput: f.goodput.Estimate(), Useful: f.useful.Estimate(), Wasted: f.wasted.Estimate(),
		WastedShare: f.share.Estimate(), TimedOut: f.timedOut.Estimate(), Rejected: f.rejected.Estimate(),
		PeakQueue: f.peak.Estimate(),
	}
	dist := func(m *stats.Moments, c *stats.LatencyCDF) *Distribution {
		if m.N() == 0 {
			return nil
		}
		d := &Distribution{Estimate: m.Estimate(), Quantiles: map[string]stats.Quantile{}}
		for _, pc := range stats.Percentiles {
			d.Quantiles[pc.Name] = c.Quantile(pc.P)
		}
		return d
	}
	s.Response = dist(&f.respMean, &f.resp)
	if f.open {
		s.Latency = dist(&f.latMean, &f.lat)
	}
	n := float64(f.useful.N())
	for _, x := range [][]float64{f.queueAt, f.wastedAt} {
		for i := range x {
			x[i] /= n
		}
	}
	s.QueueAt, s.WastedAt = f.queueAt, f.wastedAt
	return s
}
