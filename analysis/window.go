package analysis

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// foldWindowTrial folds what a continuous-time trial of the window server
// records besides its calls and completion: give-ups, and per-client
// latency in ms (its mean exact, its histogram in montecarlo's geometric
// bins).
func foldWindowTrial(t *montecarlo.Trial, gaveUp, latency *stats.Moments, lat *stats.LatencyCDF) {
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
func windowLatency(latency stats.Moments, lat *stats.LatencyCDF) *Distribution {
	d := &Distribution{Estimate: latency.Estimate(), Quantiles: map[string]stats.Quantile{}}
	edge := func(x float64, below int) float64 {
		if math.IsInf(x, 0) || math.IsNaN(x) {
			return x
		}
		return montecarlo.LatencyBinEdge(int(x) - below)
	}
	for _, pc := range stats.Percentiles {
		q := lat.Quantile(pc.P)
		q.Value, q.CI95[0], q.CI95[1] = edge(q.Value, 0), edge(q.CI95[0], 1), edge(q.CI95[1], 0)
		d.Quantiles[pc.Name] = q
	}
	return d
}

// windowClosedScenarios are herd validate's continuous-time cases of the
// closed form: the seed's expo cohort in windows of 100 ms, with a round
// trip, with retries that land in their own full window (base 0.25), and
// retryablehttp's default, whose clients give up.
func windowClosedScenarios() []model.Scenario {
	var out []model.Scenario
	for _, kv := range [][]string{
		{"policy", "expo", "window", "100ms"},
		{"policy", "expo", "window", "100ms", "latency", "30ms", "clients", "1000", "capacity", "7"},
		{"policy", "expo", "window", "100ms", "base", "0.25", "clients", "30"},
		{"policy", "retryablehttp-default", "window", "10ms", "clients", "1000", "capacity", "50", "latency", "5ms"},
		{"server", "token-bucket", "capacity", "10/100ms", "burst", "25", "policy", "fixed", "fixed-delay", "0.3"},
		{"server", "gcra", "capacity", "100/s", "burst", "9", "policy", "expo", "base", "0.02", "latency", "1ms", "clients", "300"},
		{"server", "gcra", "capacity", "100/s", "burst", "9", "nodelay", "true", "policy", "retryablehttp-default", "latency", "1ms", "clients", "300"},
	} {
		sc, err := model.ScenarioOf(kv...)
		if err != nil {
			panic(err) // the grid is herd's own
		}
		out = append(out, sc)
	}
	return out
}

// validateWindowClosed compares the continuous-time closed form with every
// trial: calls, give-ups and completion (in ms, equal to within 10⁻⁹ of
// it: the engine adds the same terms in the same order, so only the last
// bits could differ) must be the closed form's, trial by trial.
func validateWindowClosed(ctx context.Context, sc, msc model.Scenario, opt montecarlo.Options) ([]Check, error) {
	c, err := solve.WindowClosedForm(msc)
	if err != nil {
		return []Check{notApplicable(MethodClosed, sc, err)}, nil
	}
	var calls, completion, gaveUp stats.Moments
	censored := 0
	err = montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		if t.Censored {
			censored++
			return nil
		}
		calls.Add(float64(t.Calls))
		completion.Add(t.Time)
		gaveUp.Add(float64(t.GaveUp))
		return nil
	})
	if err != nil {
		return nil, err
	}
	exact := func(q string, want float64, m *stats.Moments) Check {
		e := m.Estimate()
		ch := Check{Method: MethodClosed, Scenario: sc, Quantity: q, Model: Number(want), MonteCarlo: &e, Verdict: Pass,
			Detail: fmt.Sprintf("all %d trials equal (continuous time)", e.N)}
		if e.N != opt.Trials || e.SD > 1e-9*math.Abs(want) || math.Abs(e.Mean-want) > 1e-9*math.Abs(want) {
			ch.Verdict = Fail
			ch.Detail = fmt.Sprintf("trials differ from the exact value (sd %g, %d censored)", e.SD, censored)
		}
		return ch
	}
	return []Check{exact("calls", float64(c.Calls), &calls), exact("completion (ms)", c.Completion, &completion),
		exact("gave up", float64(c.GaveUp), &gaveUp)}, nil
}
