package model

import (
	"encoding/json"
	"fmt"
	"github.com/herdlab/herd/policy"
	"time"
)

// scenarioJSON is the flat shape of DESIGN.md's "scenario" object.
type scenarioJSON struct {
	Clients     int     `json:"clients"`
	Capacity    int     `json:"capacity"`
	Server      string  `json:"server"`
	Policy      string  `json:"policy"`
	Base        float64 `json:"base"`
	Cap         float64 `json:"cap"`
	FixedDelay  float64 `json:"fixed_delay"`
	Rounding    string  `json:"rounding"`
	FirstWindow int     `json:"first_window"`
	Horizon     int     `json:"horizon"`
	// Tick is the real length of a tick ("100ms"), absent when ticks are
	// abstract; Retries and MaxElapsed are the limits after which a client
	// gives up, absent when there are none.
	Tick       string `json:"tick,omitempty"`
	Retries    int    `json:"retries,omitempty"`
	MaxElapsed string `json:"max_elapsed,omitempty"`
	// Time is the time model; Window (the tick, in continuous time),
	// Latency and FirstSpread are continuous time's, absent in the tick
	// model.
	Time        string `json:"time"`
	Window      string `json:"window,omitempty"`
	Latency     string `json:"latency,omitempty"`
	FirstSpread string `json:"first_spread,omitempty"`
	// FirstArrivals, FirstAnswers, Stalls and LatencyPerFlight are
	// continuous time's, absent
	// when not given.
	FirstArrivals    string `json:"first_arrivals,omitempty"`
	FirstAnswers     string `json:"first_answers,omitempty"`
	Stalls           string `json:"stalls,omitempty"`
	LatencyPerFlight string `json:"latency_per_flight,omitempty"`
	// FailureRate is the flaky server's p, absent on other servers.
	FailureRate float64 `json:"failure_rate,omitempty"`
	// QueueLimit and Timeout are the queue server's, absent elsewhere.
	QueueLimit int `json:"queue_limit,omitempty"`
	Timeout    int `json:"timeout,omitempty"`
	// Exponent is the poly policy's r, absent when 0 (its default, 2).
	Exponent float64 `json:"exponent,omitempty"`
	// Config is a configured policy's parameters (policy.ConfiguredKinds),
	// absent for every other policy.
	Config *policy.Config `json:"config,omitempty"`
	// Burst and Nodelay are the limiter servers', absent elsewhere.
	Burst   int  `json:"burst,omitempty"`
	Nodelay bool `json:"nodelay,omitempty"`
}

// MarshalJSON writes the scenario in DESIGN.md's shape, with the horizon
// actually in force.
func (s Scenario) MarshalJSON() ([]byte, error) {
	var cfg *policy.Config
	if s.Policy.Kind.IsConfigured() {
		cfg = &s.Policy.Config
	}
	return json.Marshal(scenarioJSON{
		Clients: s.Clients, Capacity: s.Capacity, Server: s.Server.String(),
		Policy: string(s.Policy.Kind), Base: s.Policy.Base, Cap: s.Policy.Cap,
		FixedDelay: s.Policy.FixedDelay, Rounding: s.Rounding.String(),
		FirstWindow: s.FirstWindow, Horizon: s.EffectiveHorizon(),
		Tick: durationString(s.Policy.TickLength()), Retries: s.Policy.Retries,
		MaxElapsed: durationString(s.Policy.MaxElapsed), FailureRate: s.FailureRate,
		Time: s.Time.String(), Window: durationString(s.Window()),
		Latency: s.latencyJSON(), FirstSpread: durationString(s.FirstSpread),
		LatencyPerFlight: durationString(s.LatencyPerFlight), FirstArrivals: s.firstArrivalsJSON(), FirstAnswers: s.firstAnswersJSON(), Stalls: s.stallsJSON(),
		QueueLimit: s.Queue.Limit, Timeout: s.Queue.Timeout,
		Exponent: s.Policy.Exponent, Config: cfg,
		Burst: s.Limiter.Burst, Nodelay: s.Limiter.Nodelay,
	})
}

func (s Scenario) stallsJSON() string {
	if s.Stalls.IsZero() {
		return ""
	}
	return s.Stalls.String()
}

func (s Scenario) firstArrivalsJSON() string {
	if s.FirstArrivals.IsZero() {
		return ""
	}
	return s.FirstArrivals.String()
}

func (s Scenario) firstAnswersJSON() string {
	if s.FirstAnswers.IsZero() {
		return ""
	}
	return s.FirstAnswers.String()
}

func (s Scenario) latencyJSON() string {
	if !s.InContinuousTime() {
		return ""
	}
	return s.Latency.String()
}

// UnmarshalJSON reads what MarshalJSON writes; fields left out keep the
// values of Default.
func (s *Scenario) UnmarshalJSON(b []byte) error {
	d := Default()
	j := scenarioJSON{
		Clients: d.Clients, Capacity: d.Capacity, Server: d.Server.String(),
		Policy: string(d.Policy.Kind), Base: d.Policy.Base, Cap: d.Policy.Cap,
		FixedDelay: d.Policy.FixedDelay, Rounding: d.Rounding.String(),
		FirstWindow: d.FirstWindow, Time: d.Time.String(),
	}
	if err := json.Unmarshal(b, &j); err != nil {
		return fmt.Errorf("scenario: %w", err)
	}
	server, err := ParseServer(j.Server)
	if err != nil {
		return err
	}
	kind, err := policy.ParseKind(j.Policy)
	if err != nil {
		return err
	}
	rounding, err := policy.ParseRounding(j.Rounding)
	if err != nil {
		return err
	}
	var tick, elapsed time.Duration
	if j.Tick != "" {
		if tick, err = time.ParseDuration(j.Tick); err != nil {
			return fmt.Errorf("scenario: tick: %w", err)
		}
	}
	if j.MaxElapsed != "" {
		if elapsed, err = time.ParseDuration(j.MaxElapsed); err != nil {
			return fmt.Errorf("scenario: max_elapsed: %w", err)
		}
	}
	tm, err := ParseTime(j.Time)
	if err != nil {
		return err
	}
	if tick == 0 && j.Window != "" {
		if tick, err = time.ParseDuration(j.Window); err != nil {
			return fmt.Errorf("scenario: window: %w", err)
		}
	}
	var trip RoundTrip
	if j.Latency != "" {
		if trip, err = ParseRoundTrip(j.Latency); err != nil {
			return fmt.Errorf("scenario: latency: %w", err)
		}
	}
	var spread time.Duration
	if j.FirstSpread != "" {
		if spread, err = time.ParseDuration(j.FirstSpread); err != nil {
			return fmt.Errorf("scenario: first_spread: %w", err)
		}
	}
	var first RoundTrip
	if j.FirstArrivals != "" {
		if first, err = ParseRoundTrip(j.FirstArrivals); err != nil {
			return fmt.Errorf("scenario: first_arrivals: %w", err)
		}
	}
	var answers RoundTrip
	if j.FirstAnswers != "" {
		if answers, err = ParseRoundTrip(j.FirstAnswers); err != nil {
			return fmt.Errorf("scenario: first_answers: %w", err)
		}
	}
	var stalls Stalls
	if j.Stalls != "" {
		if stalls, err = ParseStalls(j.Stalls); err != nil {
			return fmt.Errorf("scenario: stalls: %w", err)
		}
	}
	var perFlight time.Duration
	if j.LatencyPerFlight != "" {
		if perFlight, err = time.ParseDuration(j.LatencyPerFlight); err != nil {
			return fmt.Errorf("scenario: latency_per_flight: %w", err)
		}
	}
	*s = Scenario{
		Clients: j.Clients, Server: server, Capacity: j.Capacity,
		Policy: policy.Policy{Kind: kind, Base: j.Base, Cap: j.Cap, FixedDelay: j.FixedDelay,
			Retries: j.Retries, MaxElapsed: elapsed, Tick: tick, Exponent: j.Exponent, Config: configOf(j.Config)},
		Rounding: rounding, FirstWindow: j.FirstWindow, Horizon: j.Horizon,
		Time: tm, Latency: trip, FirstSpread: spread, LatencyPerFlight: perFlight, FirstArrivals: first, FirstAnswers: answers, Stalls: stalls,
		FailureRate: j.FailureRate,
		Queue:       Queueing{Limit: j.QueueLimit, Timeout: j.Timeout},
		Limiter:     Limiting{Burst: j.Burst, Nodelay: j.Nodelay},
	}
	return nil
}

func durationString(d time.Duration) string {
	if d == 0 {
		return ""
	}
	return d.String()
}

func configOf(c *policy.Config) policy.Config {
	if c == nil {
		return policy.Config{}
	}
	return *c
}
