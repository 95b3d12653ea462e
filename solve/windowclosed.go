package solve

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
)

// WindowWave is one instant at which a synchronized cohort reaches the
// window server in continuous time: Size clients arrive together at Time
// (ms) and Served of them are admitted.
type WindowWave struct {
	Time   float64 `json:"time_ms"`
	Size   int64   `json:"size"`
	Served int64   `json:"served"`
}

// WindowClosed is the exact outcome of a continuous-time scenario in which
// nothing is random.
type WindowClosed struct {
	Scenario model.Scenario `json:"scenario"`
	Calls    int64          `json:"calls"`
	Served   int64          `json:"served"`
	GaveUp   int64          `json:"gave_up"`
	// Completion is when the last success reached the server, in ms.
	Completion float64 `json:"completion_ms"`
	Rounds     int64   `json:"rounds"` // the number of waves
	// Waves lists the first MaxListedWaves waves.
	Waves []WindowWave `json:"waves,omitempty"`
}

// MaxWindowWaves bounds the waves WindowClosedForm follows.
const MaxWindowWaves = 10_000_000

// WindowClosedForm is the outcome of a synchronized cohort in continuous
// time (no first-send spread) whose round trip L and delays are certain:
// every client then follows the same schedule t₀ = 0, tₘ = tₘ₋₁ + L + dₘ
// (dₘ the delay before retry m, in real time), so the cohort moves as one
// wave. Wave m's clients all reach the server at tₘ; its window (of index
// ⌊tₘ/τ⌋) admits k minus what an earlier wave took of it, so a wave that
// follows the previous one within the same window may be served nothing
// (a delay shorter than the rest of a full window). A wave past the retry
// limit, or whose elapsed time tₘ + L + dₘ₊₁ would pass MaxElapsed, gives up.
// Calls are the sum of the wave sizes and completion is t of the last wave
// with a success. On a limiter server a wave takes what the limiter admits
// instead (limiterclosed.go; for gcra only at whole milliseconds), and
// completion is when the last admitted request is answered (nginx paces a
// burst without nodelay).
func WindowClosedForm(sc model.Scenario) (WindowClosed, error) {
	if err := sc.Validate(); err != nil {
		return WindowClosed{}, err
	}
	no := func(format string, a ...any) (WindowClosed, error) {
		return WindowClosed{}, &Unsupported{Method: MethodClosed, Reason: fmt.Sprintf(format, a...)}
	}
	p := sc.Policy
	switch {
	case !sc.InContinuousTime():
		return no("the scenario is in the tick model; ClosedForm answers it")
	case sc.FirstSpread > 0 || !sc.FirstArrivals.IsZero():
		return no("the first sends are spread at random (--first-spread, --first-arrivals), so the cohort is not synchronized; use simulate")
	case sc.Latency.Law != model.FixedTrip:
		return no("the round trip %s is random; use simulate", sc.Latency)
	case sc.LatencyPerFlight > 0 || !sc.Stalls.IsZero():
		return no("the round trips grow with the load (--latency-per-flight %s); use simulate", sc.LatencyPerFlight)
	}
	w := p.TickLength()
	ms := float64(w) / 1e6 // one window in ms
	lat := sc.Latency.In(w).Draw(0)
	maxElapsed := math.Inf(1)
	if p.MaxElapsed > 0 {
		maxElapsed = float64(p.MaxElapsed) / float64(w)
	}
	k := int64(sc.Capacity)
	gate := newWaveGate(sc) // a limiter's, or nil: the windows
	r := WindowClosed{Scenario: sc}
	size, t, prev := int64(sc.Clients), 0.0, p.Start()
	window, used := math.Inf(-1), int64(0)
	for m := 0; ; m++ {
		if r.Rounds >= MaxWindowWaves {
			return no("the cohort takes more than %d waves; use simulate", MaxWindowWaves)
		}
		var served int64
		answered := t
		if gate != nil {
			var err error
			if served, answered, err = gate.admit(t, size); err != nil {
				return no("%v", err)
			}
		} else {
			if f := math.Floor(t); f != window {
				window, used = f, 0
			}
			served = min(size, k-used)
			used += served
		}
		if r.Rounds++; r.Rounds <= MaxListedWaves {
			r.Waves = append(r.Waves, WindowWave{Time: t * ms, Size: size, Served: served})
		}
		r.Calls += size
		r.Served += served
		size -= served
		if served > 0 {
			r.Completion = answered * ms
		}
		if size == 0 {
			break
		}
		if p.Retries > 0 && m+1 > p.Retries {
			r.GaveUp = size
			break
		}
		l := p.Law(m+1, prev)
		if !l.Deterministic() {
			return no("retry %d's delay is random (policy %s); use simulate", m+1, p.Kind)
		}
		d := l.Draw(0)
		if p.Stateful() {
			_, prev = l.Sample(0)
		}
		if t+lat+d > maxElapsed {
			r.GaveUp = size
			break
		}
		t = t + lat + d // in the engine's order, for the same rounding
	}
	return r, nil
}
