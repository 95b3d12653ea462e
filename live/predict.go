package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// network is what the live runs measured of the network, which herd's
// continuous-time model takes as parameters.
type network struct {
	spread time.Duration   // first sends uniform over [0, spread)
	trip   model.RoundTrip // the uniform law with the measured quartiles
	// The measured round trips' quartiles, mean and standard deviation.
	q25, q50, q75, mean, sd time.Duration
}

// measuredNetwork estimates the first-send spread S from the latest first
// arrival of each repetition (E[max] = S·N/(N+1) for N uniform first
// sends) and the round trip from every retry's: the uniform law with the
// measured quartiles, on [q25 − IQR/2, q75 + IQR/2] (IQR = q75 − q25,
// clamped at 0). Quartiles, not the whole sample: on a busy machine the
// scheduler stalls the whole process now and then, and a stall delays
// every request in flight together — it shifts a wave of retries without
// spreading it — while the round trips herd draws are independent per
// attempt and would spread the wave by the stalls' long tail; and the
// uniform law, because the mixture of loopback fast paths and stalled
// requests is no log-normal (its quartiles can be 100 µs and 50 ms).
func measuredNetwork(reps []repetition, clients int) network {
	var first float64
	var trips []float64
	for _, r := range reps {
		first += float64(r.firstMax) / float64(len(reps))
		for _, t := range r.trips {
			trips = append(trips, float64(t))
		}
	}
	n := network{spread: time.Duration(first * float64(clients+1) / float64(clients))}
	if len(trips) < 4 {
		return n
	}
	slices.Sort(trips)
	q := func(p float64) float64 { return math.Max(0, stat.Quantile(p, stat.Empirical, trips, nil)) }
	n.q25, n.q50, n.q75 = time.Duration(q(0.25)), time.Duration(q(0.5)), time.Duration(q(0.75))
	m, sd := stat.MeanStdDev(trips, nil)
	n.mean, n.sd = time.Duration(m), time.Duration(sd)
	iqr := q(0.75) - q(0.25)
	lo := math.Max(0, q(0.25)-iqr/2)
	n.trip = model.RoundTrip{Law: model.UniformTrip, A: time.Duration(lo), B: time.Duration(lo + 2*iqr)}
	return n
}

// scenario is herd's scenario of a case: continuous time with the measured
// network, or the tick model with a tick of one window.
func scenario(cs caseSpec, net network, continuous bool) (model.Scenario, error) {
	var s model.Spec
	set := func(f, v string) {
		if err := s.Set(f, v); err != nil {
			panic(err) // the grid is the harness's own
		}
	}
	set("policy", cs.lib.policy)
	set("clients", strconv.Itoa(cs.clients))
	set("capacity", strconv.Itoa(cs.k))
	if continuous {
		set("window", cs.window.String())
		set("first-spread", net.spread.String())
		set("latency", net.trip.String())
	} else {
		set("tick", cs.window.String())
	}
	return s.Scenario()
}

// predict is herd's Monte Carlo of a case.
func predict(ctx context.Context, cs caseSpec, net network, continuous bool, trials int) (analysis.Summary, error) {
	sc, err := scenario(cs, net, continuous)
	if err != nil {
		return analysis.Summary{}, fmt.Errorf("%s: %w", cs, err)
	}
	return analysis.Simulate(ctx, sc, montecarlo.Options{Trials: trials, Seed: 1})
}
