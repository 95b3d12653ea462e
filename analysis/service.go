package analysis

import (
	"context"
	"math"

	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/stats"
)

// ServiceSummary is what a run on the service server gave over its
// trials: the share that recovered from the trigger (Wilson's interval),
// the time it took, and per-run means of its counts; Series holds the
// mean of each bin's counts over the trials.
type ServiceSummary struct {
	Trials    int         `json:"trials"`
	Recovered stats.Share `json:"recovered"`
	// Recovery: seconds from the trigger's end to recovery, over the runs
	// that recovered.
	Recovery stats.Estimate `json:"recovery_s"`
	// Goodput is successes per second over the load's duration;
	// Amplification the attempts per new request, (new + retries)/new.
	Goodput       stats.Estimate `json:"goodput"`
	Amplification stats.Estimate `json:"amplification"`
	// Per-run counts: new requests, successes (late ones among them),
	// timeouts, rejections, final drops, requests given up, sends, and
	// the server's completions (wasted: of abandoned attempts).
	Starts        stats.Estimate `json:"new_requests"`
	Successes     stats.Estimate `json:"successes"`
	LateSuccesses stats.Estimate `json:"late_successes"`
	Timeouts      stats.Estimate `json:"timeouts"`
	Rejections    stats.Estimate `json:"rejections"`
	Drops         stats.Estimate `json:"drops"`
	GiveUps       stats.Estimate `json:"gave_up"`
	Sent          stats.Estimate `json:"sends"`
	Served        stats.Estimate `json:"served"`
	Wasted        stats.Estimate `json:"wasted"`
	Series        ServiceSeries  `json:"series"`
}

// ServiceSeries is the mean count per bin over the trials.
type ServiceSeries struct {
	Bin                                                 float64 `json:"bin_s"`
	Starts, Sends, Successes, Timeouts, Backlog, Wasted []float64
}

// SimulateService plays opt.Trials trials of a run on the service server.
func SimulateService(ctx context.Context, run service.Run, opt service.Options) (ServiceSummary, error) {
	var good, amp, rec, starts, succ, late, tos, rej, drops, gave, served, wasted, sent stats.Moments
	recovered := 0
	nb := run.Bins()
	bin := run.BinLength().Seconds()
	ser := ServiceSeries{Bin: bin}
	for _, s := range []*[]float64{&ser.Starts, &ser.Sends, &ser.Successes, &ser.Timeouts, &ser.Backlog, &ser.Wasted} {
		*s = make([]float64, nb)
	}
	err := service.RunTrials(ctx, run, opt, func(t *service.Trial) error {
		w := t.Window(bin, 0, math.Inf(1))
		load := t.Window(bin, 0, run.Duration.Seconds())
		good.Add(float64(load.Successes) / run.Duration.Seconds())
		if w.Starts > 0 {
			amp.Add(float64(w.Starts+w.Retries) / float64(w.Starts))
		}
		for m, x := range map[*stats.Moments]int{&starts: w.Starts, &succ: w.Successes, &late: w.LateSuccesses, &tos: w.Timeouts,
			&rej: w.Rejections, &drops: w.Drops, &gave: w.GiveUps, &served: w.Served, &wasted: w.Wasted, &sent: w.Sends} {
			m.Add(float64(x))
		}
		if t.Recovered {
			recovered++
			rec.Add(t.RecoveredAt - run.TriggerEnd.Seconds())
		}
		for b, x := range t.Bins {
			ser.Starts[b] += float64(x.Starts)
			ser.Sends[b] += float64(x.Sends)
			ser.Successes[b] += float64(x.Successes)
			ser.Timeouts[b] += float64(x.Timeouts)
			ser.Backlog[b] += float64(x.Backlog)
			ser.Wasted[b] += float64(x.Wasted)
		}
		return nil
	})
	if err != nil {
		return ServiceSummary{}, err
	}
	for _, s := range [][]float64{ser.Starts, ser.Sends, ser.Successes, ser.Timeouts, ser.Backlog, ser.Wasted} {
		for b := range s {
			s[b] /= float64(opt.Trials)
		}
	}
	return ServiceSummary{Trials: opt.Trials, Recovered: stats.Wilson(recovered, opt.Trials), Recovery: rec.Estimate(),
		Goodput: good.Estimate(), Amplification: amp.Estimate(), Starts: starts.Estimate(), Successes: succ.Estimate(),
		LateSuccesses: late.Estimate(), Timeouts: tos.Estimate(), Rejections: rej.Estimate(), Drops: drops.Estimate(),
		GiveUps: gave.Estimate(), Served: served.Estimate(), Wasted: wasted.Estimate(), Sent: sent.Estimate(), Series: ser}, nil
}
