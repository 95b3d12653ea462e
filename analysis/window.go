package analysis

import (
	"math"

	"github.com/herdlab/herd/montecarlo"
)

// foldWindowTrial folds what a continuous-time trial of the window server
// records besides its calls and completion: give-ups, and per-client
// latency in ms (its mean exact, its histogram in montecarlo's geometric
// bins).
func foldWindowTrial(t *montecarlo.Trial, gaveUp, latency *Moments, lat *LatencyCDF) {
	gaveUp.Add(float64(t.GaveUp))
	if t.Served > 0 {
		latency.Add(t.LatencySum / float64(t.Served))
	}
	lat.Add(t.Latency)
}

// windowLatency is the latency distribution of continuous-time trials: the
// mean of per-trial means, and quantiles read off the pooled histogram,
// each reported as the upper end of its bin (within 0.1% above the exact
// quantile), with an interval from the lower end of its low bin to the
// upper end of its high bin.
func windowLatency(latency Moments, lat *LatencyCDF) *Distribution {
	d := &Distribution{Estimate: latency.Estimate(), Quantiles: map[string]Quantile{}}
	edge := func(x float64, below int) float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return x
		}
		return montecarlo.LatencyBinEdge(int(x) - below)
	}
	for _, pc := range Percentiles {
		q := lat.Quantile(pc.P)
		q.Value, q.CI95[0], q.CI95[1] = edge(q.Value, 0), edge(q.CI95[0], 1), edge(q.CI95[1], 0)
		d.Quantiles[pc.Name] = q
	}
	return d
}
