package analysis

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
)

// Distribution is an estimate of a mean with named quantiles.
type Distribution struct {
	stats.Estimate
	Quantiles map[string]stats.Quantile `json:"quantiles"`
}

// Scaled is the distribution of f times the quantity (f > 0): a change of
// unit; nil stays nil.
func (d *Distribution) Scaled(f float64) *Distribution {
	if d == nil {
		return nil
	}
	out := &Distribution{Estimate: d.Estimate.Scaled(f), Quantiles: map[string]stats.Quantile{}}
	for k, q := range d.Quantiles {
		out.Quantiles[k] = q.Scaled(f)
	}
	return out
}

// Summary is what a Monte Carlo run of one scenario says, with uncertainty.
// Statistics are over the trials that finished; censored trials are counted
// and warned about, never folded in as if they had finished.
type Summary struct {
	Scenario model.Scenario `json:"scenario"`
	Trials   int            `json:"trials"`
	Seed     uint64         `json:"seed"`
	// Unit is the unit of completion and latency: "ticks", or "ms" for the
	// continuous-time OCC server.
	Unit     string `json:"unit"`
	Censored int    `json:"censored"`
	// Engine is the engine that played the trials and why it was chosen.
	Engine     montecarlo.Choice `json:"engine"`
	Calls      *stats.Estimate   `json:"calls"`
	Completion *Distribution     `json:"completion"`
	// Latency is per-client latency: the mean of per-trial mean latencies
	// and the quantiles of the pooled distribution.
	Latency *Distribution   `json:"latency"`
	Peak    *stats.Estimate `json:"peak_arrivals"`
	// GaveUp is the mean number of clients per trial that gave up at their
	// policy's retry limit. Completion still ends at the last success.
	GaveUp *stats.Estimate `json:"gave_up"`
	// Arrivals[t] is the mean number of arrivals at tick t over finished
	// trials (a trial adds 0 after it finished), when requested.
	Arrivals []stats.Estimate `json:"arrivals,omitempty"`
	// Queue is the queue server's goodput, wasted work and response
	// times over the finished trials (queue.go); absent on other servers.
	Queue    *QueueStats `json:"queue,omitempty"`
	Warnings []string    `json:"warnings,omitempty"`
}

// Simulate runs opt.Trials trials of sc and summarizes them; under a
// Cache (WithCache) a run already summarized is not played again.
func Simulate(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (Summary, error) {
	return Cached(ctx, "summary", sc, opt, func() (Summary, error) { return simulate(ctx, sc, opt, nil) })
}

// SimulateTrials is Simulate showing every trial, in trial order, to each
// before folding it (censored trials too): a study that pairs trials
// keeps what it needs. It is never cached.
func SimulateTrials(ctx context.Context, sc model.Scenario, opt montecarlo.Options, each func(*montecarlo.Trial)) (Summary, error) {
	return simulate(ctx, sc, opt, each)
}

// simulate is SimulateTrials with each optional.
func simulate(ctx context.Context, sc model.Scenario, opt montecarlo.Options, each func(*montecarlo.Trial)) (Summary, error) {
	plan, err := montecarlo.NewPlan(sc, montecarlo.CohortOf(sc), opt)
	if err != nil {
		return Summary{}, err
	}
	choice := plan.Choice
	var calls, completion, latency, peak, gaveUp stats.Moments
	var compHist stats.Histogram // completions in ticks, one run per distinct value
	var compTimes []float64      // continuous time: the completions, for exact quantiles
	var lat stats.LatencyCDF
	var arrivals []stats.Moments
	var queue queueFold
	censored := 0
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		if each != nil {
			each(t)
		}
		if t.Censored {
			censored++
			return nil
		}
		calls.Add(float64(t.Calls))
		completion.Add(t.CompletionTime())
		if t.Continuous {
			// No ticks: no per-tick peak or arrivals; the window server's
			// clients have latencies in ms and may give up.
			compTimes = append(compTimes, t.Time)
			if sc.InContinuousTime() {
				foldWindowTrial(t, &gaveUp, &latency, &lat)
				if opt.Arrivals {
					arrivals = foldArrivals(arrivals, PerWindow(t.CallTimes, sc.Window()), calls.N())
				}
			}
			return nil
		}
		queue.add(t)
		peak.Add(float64(t.Peak))
		gaveUp.Add(float64(t.GaveUp))
		compHist.Add(t.Completion, 1)
		var sum int64
		for _, r := range t.Latency.Runs() {
			sum += r.Value * r.Count
		}
		if t.Served > 0 { // a trial where every client gave up has no latency
			latency.Add(float64(sum) / float64(t.Served))
		}
		lat.Add(t.Latency)
		if opt.Arrivals {
			arrivals = foldArrivals(arrivals, t.Arrivals, calls.N())
		}
		return nil
	})
	if err != nil {
		return Summary{}, err
	}
	s := Summary{Scenario: sc, Trials: opt.Trials, Seed: opt.Seed, Unit: sc.TimeUnit(), Censored: censored, Engine: choice}
	if censored > 0 {
		w := fmt.Sprintf("%d of %d trials were censored: clients were still retrying at the horizon (%d %s); statistics cover only the %d trials that finished; raise --horizon to wait longer",
			censored, opt.Trials, sc.EffectiveHorizon(), sc.TimeUnit(), opt.Trials-censored)
		if sc.Server == model.Collision {
			w += " (on the collision server a synchronized cohort larger than the capacity never finishes)"
		}
		s.Warnings = append(s.Warnings, w)
	}
	if w := sc.JitterWithinTick(); w != "" {
		s.Warnings = append(s.Warnings, w)
	}
	if calls.N() == 0 {
		s.Warnings = append(s.Warnings, "no trial finished, so there is no estimate of calls or completion")
		return s, nil
	}
	c, g := calls.Estimate(), gaveUp.Estimate()
	s.Calls, s.GaveUp = &c, &g
	s.Completion = &Distribution{Estimate: completion.Estimate(), Quantiles: map[string]stats.Quantile{}}
	if sc.Continuous() {
		slices.Sort(compTimes)
		for _, pc := range stats.Percentiles {
			s.Completion.Quantiles[pc.Name] = stats.QuantileOfSorted(compTimes, pc.P)
		}
		if sc.InContinuousTime() {
			s.Latency = windowLatency(latency, &lat)
			for i := range arrivals {
				s.Arrivals = append(s.Arrivals, arrivals[i].Estimate())
			}
		} else {
			s.GaveUp = nil // OCC clients retry until they win
			if opt.Arrivals {
				s.Warnings = append(s.Warnings, "no arrivals per tick: the OCC server's calls are at continuous times with no ticks or windows")
			}
		}
		return s, nil
	}
	p := peak.Estimate()
	s.Peak = &p
	s.Latency = &Distribution{Estimate: latency.Estimate(), Quantiles: map[string]stats.Quantile{}}
	for _, pc := range stats.Percentiles {
		s.Completion.Quantiles[pc.Name] = compHist.Quantile(pc.P)
		s.Latency.Quantiles[pc.Name] = lat.Quantile(pc.P)
	}
	for i := range arrivals {
		s.Arrivals = append(s.Arrivals, arrivals[i].Estimate())
	}
	s.Queue = queue.stats(sc)
	return s, nil
}

// PerWindow counts the calls at times ms (in order, in milliseconds from
// the first send) in each window of length w: the window server's arrivals
// of every window, its ticks.
func PerWindow(ms []float64, w time.Duration) []int64 {
	var out []int64
	wms := float64(w) / float64(time.Millisecond)
	for _, t := range ms {
		i := int(t / wms)
		for len(out) <= i {
			out = append(out, 0)
		}
		out[i]++
	}
	return out
}

// foldArrivals adds one finished trial's arrivals per tick; the trial is the
// n-th folded, and earlier trials that ended sooner count 0 at later ticks.
func foldArrivals(acc []stats.Moments, a []int64, n int) []stats.Moments {
	for len(acc) < len(a) {
		var m stats.Moments
		for range n - 1 {
			m.Add(0)
		}
		acc = append(acc, m)
	}
	for t := range acc {
		x := 0.0
		if t < len(a) {
			x = float64(a[t])
		}
		acc[t].Add(x)
	}
	return acc
}

// SimulateEach simulates every scenario with the same options, several at
// once (EachPoint), the summaries in the scenarios' order; progress, if
// set, is called after each scenario. Scenarios that differ only in their
// policy draw from the same streams (common random numbers).
func SimulateEach(ctx context.Context, scs []model.Scenario, opt montecarlo.Options, progress func(done, total int)) ([]Summary, error) {
	out := make([]Summary, len(scs))
	err := EachPoint(ctx, len(scs), opt.Workers, func(ctx context.Context, i int) error {
		var err error
		out[i], err = Simulate(ctx, scs[i], opt)
		return err
	}, func(done int) {
		if progress != nil {
			progress(done, len(scs))
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}
