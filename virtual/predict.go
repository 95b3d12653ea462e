package virtual

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// Case is one library's defaults against one window server.
type Case struct {
	Lib Library
	N   int           // clients
	K   int           // calls admitted per window
	Tau time.Duration // the window's length
}

// Trip is the case's round trip (Library.Trip windows).
func (c Case) Trip() time.Duration { return time.Duration(c.Lib.Trip * float64(c.Tau)) }

func (c Case) String() string {
	return fmt.Sprintf("%s N=%d k=%d/%s", c.Lib.Preset, c.N, c.K, c.Tau)
}

// Sample is per-trial measures of one side: calls, completion (ms) and
// give-ups.
type Sample struct {
	Calls, Completion, GaveUp []float64
	Censored                  int
}

func (s *Sample) add(calls, gaveUp int64, completion float64) {
	s.Calls = append(s.Calls, float64(calls))
	s.GaveUp = append(s.GaveUp, float64(gaveUp))
	s.Completion = append(s.Completion, completion)
}

// addTrial adds a virtual trial.
func (s *Sample) addTrial(t Trial) { s.add(t.Calls, t.GaveUp, ms(t.Completion)) }

func ms(d time.Duration) float64 { return float64(d) / 1e6 }

// Scenario is herd's scenario of a case: continuous time (a capacity per
// window), the preset with its default limits, every client's first call
// at 0 and the case's round trip.
func (c Case) Scenario() (model.Scenario, error) {
	kv := []string{"clients", strconv.Itoa(c.N), "capacity", fmt.Sprintf("%d/%s", c.K, c.Tau), "policy", c.Lib.Preset}
	if c.Trip() > 0 {
		kv = append(kv, "latency", c.Trip().String())
	}
	sc, err := model.ScenarioOf(kv...)
	if err != nil {
		return sc, err
	}
	if !sc.InContinuousTime() || sc.Policy.Tick != c.Tau || sc.Capacity != c.K || sc.FirstSpread != 0 || sc.Latency != (model.RoundTrip{A: c.Trip()}) {
		return sc, fmt.Errorf("%s: herd's scenario is not the window server of the case (continuous %v, window %s, k %d, first spread %s, latency %s)",
			c, sc.InContinuousTime(), sc.Policy.Tick, sc.Capacity, sc.FirstSpread, sc.Latency)
	}
	return sc, nil
}

// Predict is herd's continuous-time Monte Carlo of the case, trial by
// trial (censored trials counted, not kept).
func Predict(ctx context.Context, c Case, trials int, seed uint64) (Sample, error) {
	sc, err := c.Scenario()
	if err != nil {
		return Sample{}, err
	}
	var s Sample
	_, err = analysis.SimulateTrials(ctx, sc, montecarlo.Options{Trials: trials, Seed: seed}, func(t *montecarlo.Trial) {
		if t.Censored {
			s.Censored++
			return
		}
		s.add(t.Calls, t.GaveUp, t.Time)
	})
	return s, err
}
