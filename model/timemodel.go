package model

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/policy"
)

// The time model says how a scenario's time passes.
//
// In the tick model (the seed article's, and the analytical models'
// domain) time is whole ticks: every arrival of a tick is handled at once
// and a delay is rounded to a whole number of ticks, at least one.
//
// In continuous time the capacity server is a window server: time is real,
// a window of length τ (the scenario's tick, Policy.TickLength) admits its
// first k arrivals, first come first served, and answers the rest at once
// with a failure. A failed attempt that reached the server at a retries at
// a + its round trip + the policy's unrounded delay; the first sends are
// spread uniformly over [0, FirstSpread). A real delay shorter than what is
// left of a full window lands in that window and fails again, and clients
// that failed together stay bunched unless their delays spread them: the
// two effects by which whole ticks mispredict real clients.
// Outputs are in milliseconds and times are the server's, as in the tick
// model: completion is when the last success reached the server, and a
// client's latency the time from its first arrival to its success.
//
// With a latency per flight P (--latency-per-flight) the round trips grow
// with the load: one machine carries every request's way to the server
// and every answer's way back, one at a time, requests before answers,
// each taking P, as when the clients and the server share a few cores
// (montecarlo/window.go says how); the Latency law is then the client's
// own time between its answer and its next send.
//
// ContinuousTime is real time against the window server.
const ContinuousTime TimeModel = 1

type continuous struct{}

func (continuous) Name() string                            { return "continuous" }
func (continuous) Continuous() bool                        { return true }
func (continuous) horizon(s Scenario) (int, bool)          { return s.continuousHorizon(), true }
func (continuous) validate(s Scenario, bad badField) error { return s.validateContinuous(bad) }

// RoundTrip is the law of one attempt's round trip in continuous time:
// from when a request reaches the server to when the client, having
// learned the result, could send again (the response's way back and the
// next request's way there). The zero value is no latency.
type RoundTrip struct {
	Law RoundTripLaw
	// Fixed: A. Uniform: uniform on [A, B]. LogNormal: mean A and
	// standard deviation B.
	A, B time.Duration
	// Quantiles: the law's quantiles Q[0…M] at p = i/M (measured ones,
	// say), linear between.
	Q [MaxQuantiles]time.Duration
	M int
}

// MaxQuantiles bounds the quantiles of a quantiles: law (every 5%).
const MaxQuantiles = 21

// RoundTripLaw names the shape of a RoundTrip.
type RoundTripLaw int

const (
	FixedTrip RoundTripLaw = iota
	UniformTrip
	LogNormalTrip
	QuantileTrip
)

// ParseRoundTrip reads a --latency value: a duration ("5ms", a fixed round
// trip), "fixed:5ms", "uniform:2ms,8ms", "lognormal:5ms,2ms" (mean and
// standard deviation) or "quantiles:0s,2ms,3ms,9ms" (2 to MaxQuantiles
// quantiles at equally spaced p from 0 to 1, linear between). Ranges are
// checked by Scenario.Validate.
func ParseRoundTrip(text string) (RoundTrip, error) {
	text = strings.TrimSpace(text)
	name, args, ok := strings.Cut(text, ":")
	if !ok {
		name, args = "fixed", text
	}
	var ds []time.Duration
	for _, a := range strings.Split(args, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(a))
		if err != nil {
			return RoundTrip{}, fmt.Errorf("not a duration: %q", a)
		}
		ds = append(ds, d)
	}
	if name == "quantiles" {
		if len(ds) < 2 || len(ds) > MaxQuantiles {
			return RoundTrip{}, fmt.Errorf("want quantiles:Q0,…,QM with 2 to %d durations", MaxQuantiles)
		}
		r := RoundTrip{Law: QuantileTrip, M: len(ds) - 1}
		copy(r.Q[:], ds)
		return r, nil
	}
	want := map[string]int{"fixed": 1, "uniform": 2, "lognormal": 2}[name]
	if want == 0 || len(ds) != want {
		return RoundTrip{}, fmt.Errorf("want a duration, uniform:LO,HI, lognormal:MEAN,SD or quantiles:Q0,…,QM")
	}
	switch name {
	case "uniform":
		return RoundTrip{Law: UniformTrip, A: ds[0], B: ds[1]}, nil
	case "lognormal":
		return RoundTrip{Law: LogNormalTrip, A: ds[0], B: ds[1]}, nil
	}
	return RoundTrip{A: ds[0]}, nil
}

// String is the round trip as --latency spells it.
func (r RoundTrip) String() string {
	switch r.Law {
	case UniformTrip:
		return fmt.Sprintf("uniform:%s,%s", r.A, r.B)
	case LogNormalTrip:
		return fmt.Sprintf("lognormal:%s,%s", r.A, r.B)
	case QuantileTrip:
		qs := make([]string, 0, r.M+1)
		for _, q := range r.Q[:min(max(r.M, 0), MaxQuantiles-1)+1] {
			qs = append(qs, q.String())
		}
		return "quantiles:" + strings.Join(qs, ",")
	}
	return r.A.String()
}

// IsZero reports whether the round trip is no latency at all.
func (r RoundTrip) IsZero() bool { return r == RoundTrip{} }

// MaxLatency bounds a round trip's parameters.
const MaxLatency = time.Hour

// Validate is validate for the laws other packages read (the service
// server's): a *FieldError without its flag.
func (r RoundTrip) Validate() error { return r.validate() }

func (r RoundTrip) validate() error {
	bad := func(valid string) error {
		return &FieldError{Flag: "latency", Valid: valid, Got: strconv.Quote(r.String())}
	}
	ok := func(d time.Duration) bool { return d >= 0 && d <= MaxLatency }
	switch r.Law {
	case FixedTrip:
		if !ok(r.A) {
			return bad(fmt.Sprintf("a duration in [0, %s]", MaxLatency))
		}
	case UniformTrip:
		if !ok(r.A) || !ok(r.B) || r.B < r.A {
			return bad(fmt.Sprintf("uniform:LO,HI with 0 ≤ LO ≤ HI ≤ %s", MaxLatency))
		}
	case LogNormalTrip:
		if r.A <= 0 || !ok(r.A) || !ok(r.B) {
			return bad(fmt.Sprintf("lognormal:MEAN,SD with 0 < MEAN ≤ %s and 0 ≤ SD ≤ %s", MaxLatency, MaxLatency))
		}
	case QuantileTrip:
		valid := fmt.Sprintf("quantiles:Q0,…,QM with 2 to %d durations, 0 ≤ Q0 ≤ … ≤ QM ≤ %s", MaxQuantiles, MaxLatency)
		if r.M < 1 || r.M >= MaxQuantiles {
			return bad(valid)
		}
		for i, q := range r.Q[:r.M+1] {
			if !ok(q) || i > 0 && q < r.Q[i-1] {
				return bad(valid)
			}
		}
	default:
		return bad("fixed, uniform or lognormal")
	}
	return nil
}

// Stalls are the stops of the machine of a latency per flight: it carries
// ways for exponential times of mean Every, between stops of exponential
// length of mean Length, during which nothing moves (a host whose other
// work takes its cores away for a time slice, a collector's pause). The
// zero value is a machine that never stops.
type Stalls struct{ Every, Length time.Duration }

// ParseStalls reads a --stalls value, "EVERY,LENGTH" such as "40ms,8ms".
func ParseStalls(text string) (Stalls, error) {
	a, b, ok := strings.Cut(text, ",")
	if !ok {
		return Stalls{}, fmt.Errorf("want EVERY,LENGTH")
	}
	e, err1 := time.ParseDuration(strings.TrimSpace(a))
	l, err2 := time.ParseDuration(strings.TrimSpace(b))
	if err1 != nil || err2 != nil {
		return Stalls{}, fmt.Errorf("want EVERY,LENGTH, two durations")
	}
	return Stalls{e, l}, nil
}

func (s Stalls) String() string { return fmt.Sprintf("%s,%s", s.Every, s.Length) }

// IsZero reports whether the machine never stops.
func (s Stalls) IsZero() bool { return s == Stalls{} }

// TripLaw is a RoundTrip in a unit of time, ready to draw.
type TripLaw struct {
	law RoundTripLaw
	// lo + u·width for fixed and uniform; exp(mu + sigma·Φ⁻¹(u)) for
	// log-normal; q[0…m] linear between for quantiles.
	lo, width, mu, sigma float64
	q                    [MaxQuantiles]float64
	m                    int
}

// In expresses the round trip in units of unit (a window, say).
func (r RoundTrip) In(unit time.Duration) TripLaw {
	u := float64(unit)
	a, b := float64(r.A)/u, float64(r.B)/u
	switch r.Law {
	case UniformTrip:
		return TripLaw{law: UniformTrip, lo: a, width: b - a}
	case LogNormalTrip:
		// The log-normal with mean a and standard deviation b.
		s2 := math.Log1p((b / a) * (b / a))
		return TripLaw{law: LogNormalTrip, mu: math.Log(a) - s2/2, sigma: math.Sqrt(s2)}
	case QuantileTrip:
		t := TripLaw{law: QuantileTrip, m: r.M}
		for i := range r.M + 1 {
			t.q[i] = float64(r.Q[i]) / u
		}
		return t
	}
	return TripLaw{lo: a}
}

// Draw maps a uniform u in [0, 1) to a round trip: the one place where a
// round trip is drawn.
func (t TripLaw) Draw(u float64) float64 {
	switch t.law {
	case LogNormalTrip:
		return math.Exp(t.mu + t.sigma*math.Sqrt2*math.Erfinv(2*u-1))
	case QuantileTrip:
		x := u * float64(t.m)
		i := min(int(x), t.m-1)
		return t.q[i] + (x-float64(i))*(t.q[i+1]-t.q[i])
	}
	return t.lo + u*t.width
}

// Bound is a round trip no draw exceeds, or for the log-normal one that a
// draw exceeds with probability below 10⁻¹⁵ (8 standard deviations of its
// logarithm): what a horizon needs.
func (t TripLaw) Bound() float64 {
	switch t.law {
	case LogNormalTrip:
		return math.Exp(t.mu + 8*t.sigma)
	case QuantileTrip:
		return t.q[t.m]
	}
	return t.lo + t.width
}

// Window is the length of the window server's windows in continuous time
// (the scenario's tick: a textbook policy's delays are in windows), 0 in
// the tick model.
func (s Scenario) Window() time.Duration {
	if !s.InContinuousTime() {
		return 0
	}
	return s.Policy.TickLength()
}

// validateTick refuses the fields of continuous time in the tick model.
func (s Scenario) validateTick(bad badField) error {
	switch {
	case !s.Latency.IsZero():
		return bad("latency", "left out in the tick model (a round trip needs --time continuous)", strconv.Quote(s.Latency.String()))
	case s.FirstSpread != 0:
		return bad("first-spread", "left out in the tick model (use --first-window, or --time continuous)", s.FirstSpread)
	case !s.FirstArrivals.IsZero():
		return bad("first-arrivals", "left out in the tick model (use --first-window, or --time continuous)", strconv.Quote(s.FirstArrivals.String()))
	case !s.FirstAnswers.IsZero():
		return bad("first-answers", "left out in the tick model (a round trip needs --time continuous)", strconv.Quote(s.FirstAnswers.String()))
	case s.LatencyPerFlight != 0:
		return bad("latency-per-flight", "left out in the tick model (a round trip needs --time continuous)", s.LatencyPerFlight)
	case !s.Stalls.IsZero():
		return bad("stalls", "left out in the tick model (it stops the machine of --latency-per-flight)", strconv.Quote(s.Stalls.String()))
	}
	return nil
}

// validateContinuous checks the fields of continuous time: a window server
// with a real window, no rounding and no first-send window in ticks.
func (s Scenario) validateContinuous(bad badField) error {
	w := s.Policy.TickLength()
	switch {
	case !s.Plays().ContinuousTime:
		return bad("server", "capacity, token-bucket or gcra with --time continuous (the window server admits the first k arrivals of each window)", s.Server)
	case w == 0:
		return bad("window", fmt.Sprintf("a duration in [%s, %s] with --time continuous", MinTick, MaxTick), w)
	case s.FirstWindow != 1:
		return bad("first-window", "1 with --time continuous (spread the first sends with --first-spread)", s.FirstWindow)
	case s.FirstSpread < 0 || s.FirstSpread > MaxTick || float64(s.FirstSpread)/float64(w) > MaxWindow:
		return bad("first-spread", fmt.Sprintf("a duration in [0, %s] and at most %g windows", MaxTick, float64(MaxWindow)), s.FirstSpread)
	}
	if err := s.Latency.validate(); err != nil {
		return err
	}
	// timeLaw checks a law of times at the server (first arrivals or
	// answers) under its flag: valid, and at most MaxWindow windows.
	timeLaw := func(flag string, r RoundTrip) error {
		if err := r.validate(); err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.Flag = flag
			}
			return err
		}
		if b := r.In(w).Bound(); b > MaxWindow {
			return bad(flag, fmt.Sprintf("at most %g windows of %s", float64(MaxWindow), w), strconv.Quote(r.String()))
		}
		return nil
	}
	if !s.FirstArrivals.IsZero() {
		if s.FirstSpread != 0 {
			return bad("first-arrivals", "left out with --first-spread (one law of the first arrivals)", strconv.Quote(s.FirstArrivals.String()))
		}
		if err := timeLaw("first-arrivals", s.FirstArrivals); err != nil {
			return err
		}
	}
	if !s.FirstAnswers.IsZero() {
		if s.FirstArrivals.IsZero() {
			return bad("first-answers", "given with --first-arrivals (the k-th first arrival gets the k-th answer back)", strconv.Quote(s.FirstAnswers.String()))
		}
		if err := timeLaw("first-answers", s.FirstAnswers); err != nil {
			return err
		}
	}
	if p := s.LatencyPerFlight; p < 0 || p > MaxLatency || float64(p)/float64(w) > MaxDelay/float64(max(1, s.Clients)) {
		return bad("latency-per-flight", fmt.Sprintf("a duration in [0, %s] with --clients × it at most %g windows of %s", MaxLatency, float64(MaxDelay), w), s.LatencyPerFlight)
	}
	if st := s.Stalls; !st.IsZero() {
		valid := fmt.Sprintf("EVERY,LENGTH with 0 < EVERY ≤ %s, 0 < LENGTH ≤ %s and LENGTH/EVERY ≤ 100, and --latency-per-flight > 0 (the machine that stops)", MaxLatency, MaxLatency)
		if st.Every <= 0 || st.Length <= 0 || st.Every > MaxLatency || st.Length > MaxLatency || float64(st.Length) > 100*float64(st.Every) || s.LatencyPerFlight == 0 {
			return bad("stalls", valid, strconv.Quote(st.String()))
		}
	}
	b := s.Latency.In(w).Bound()
	if b > MaxDelay {
		return bad("latency", fmt.Sprintf("at most %g windows of %s", float64(MaxDelay), w), strconv.Quote(s.Latency.String()))
	}
	if n := s.Policy.InstantRetry(); s.RetriesAtOnce() {
		return bad("latency", fmt.Sprintf("a round trip > 0 with policy %s, whose retry %d has no delay (without one it would reach the full window again at the same instant, for ever)", s.Policy.Kind, n), strconv.Quote(s.Latency.String()))
	}
	return nil
}

// continuousHorizon is DefaultHorizon in continuous time, in windows: a
// bound no trial reaches. After the first sends, between two successes
// there are at most 1 + L + D windows (L the largest round trip, D the
// largest delay): the window of the last success ends within one window,
// every pending client arrives again within L + D of its last failure, and
// the first arrival in a fresh window succeeds. So the last success comes
// by S + N·(1 + L + D), S the first-send spread; with a retry limit R every
// client is done by S + R·(L + D). With a latency per flight P each way
// waits at most for the N clients' ways ahead of it, so L grows by 2·N·P
// and S by N·P; with the first answers' law S is at least its bound (a
// first answer is back by then).
func (s Scenario) continuousHorizon() int {
	w := s.Policy.TickLength()
	queue := float64(s.Clients) * float64(s.LatencyPerFlight) / float64(w)
	lat := s.Latency.In(w).Bound() + 2*queue
	gap := lat + s.Policy.MaxDelay()
	spread := max(float64(s.FirstSpread)/float64(w), s.FirstArrivals.In(w).Bound(), s.FirstAnswers.In(w).Bound()) + queue
	h := spread + float64(s.Clients)*(s.admitGap()+gap)
	if r := s.Policy.Retries; r > 0 {
		h = math.Min(h, spread+float64(r)*gap+lat+1)
	}
	if st := s.Stalls; !st.IsZero() {
		// The machine runs a fraction Every/(Every + Length) of the time:
		// twice the stretch that gives is a bound that trials reach with
		// a negligible probability (and are then counted censored).
		h *= 2 * (1 + float64(st.Length)/float64(st.Every))
	}
	return int(math.Min(math.Ceil(h)+1, MaxHorizon))
}

// JitterWithinTick says, for a tick-model scenario with real time units,
// when its policy's jitter is within one tick: some retry the policy makes
// draws its delay from a range at most one tick wide, so that rounding,
// not the jitter, decides in which tick the retries land (real clients are
// then predicted in continuous time). It returns "" otherwise, and for
// abstract ticks, where the tick model is the scenario itself.
func (s Scenario) JitterWithinTick() string {
	p := s.Policy
	if s.Continuous() || p.TickLength() == 0 || !p.Random() {
		return ""
	}
	last := p.Classes()
	if last == 0 { // stateful: look at the retries its limit allows
		last = policy.MaxScan
	}
	if p.Retries > 0 {
		last = min(last, p.Retries)
	}
	prev := p.Start()
	for n := 1; n <= last; n++ {
		l := p.Law(n, prev)
		lo, hi := l.Draw(0), l.Sup()
		if !l.Deterministic() && hi-lo <= 1 {
			return fmt.Sprintf("policy %s's jitter is within a tick of %s (retry %d draws from [%.4g, %.4g] ticks): in the tick model rounding decides where its retries land; real clients are predicted in continuous time (--time continuous --window %s)",
				p.Kind, p.TickLength(), n, lo, hi, p.TickLength())
		}
		if p.Stateful() {
			_, prev = l.Sample(0.5)
		}
	}
	return ""
}

// setTime reads the time model's fields for Spec.Set.
func (s *Spec) setTime(field, text string) error {
	bad := func(valid string) error { return &FieldError{Flag: field, Valid: valid, Got: strconv.Quote(text)} }
	switch field {
	case "time":
		m, err := ParseTime(text)
		if err != nil {
			return bad("one of " + strings.Join(TimeNames(), ", "))
		}
		s.timeModel = m
	case "stalls":
		st, err := ParseStalls(text)
		if err != nil {
			return bad("EVERY,LENGTH, two durations such as 40ms,8ms")
		}
		s.stalls = st
	case "latency", "first-arrivals", "first-answers":
		r, err := ParseRoundTrip(text)
		if err != nil {
			return bad("a law: a duration (5ms), uniform:LO,HI, lognormal:MEAN,SD or quantiles:Q0,…,QM")
		}
		*map[string]*RoundTrip{"latency": &s.latency, "first-arrivals": &s.firstArrivals, "first-answers": &s.firstAnswers}[field] = r
	default:
		d, err := time.ParseDuration(text)
		if err != nil {
			return bad("a duration such as 100ms or 1s")
		}
		*map[string]*time.Duration{"window": &s.window, "first-spread": &s.firstSpread, "latency-per-flight": &s.latencyPerFlight}[field] = d
	}
	if s.given == nil {
		s.given = map[string]bool{}
	}
	s.given[field] = true
	return nil
}

// RetriesAtOnce reports whether, in continuous time with no round trip,
// a retry of the policy has no delay: it would reach the full window again
// at the same instant, for ever, so the scenario is refused.
func (s Scenario) RetriesAtOnce() bool {
	return s.InContinuousTime() && s.Latency.In(s.Window()).Bound() == 0 && s.LatencyPerFlight == 0 && s.Policy.InstantRetry() > 0
}

// continuousFields are the spec fields that only continuous time has.
var continuousFields = []string{"window", "latency", "first-spread", "first-arrivals", "first-answers", "latency-per-flight", "stalls"}

// applyTime sets the time model of sc, whose other fields the spec has
// set (before a capacity rate is converted, since in continuous time the
// window is the tick). Continuous time is chosen by --time continuous, or
// by any of continuousFields when --time is left out: real units of the
// window server ask for real time, while --tick alone keeps the tick model
// (where a warning says when a policy's jitter is within a tick).
func (s Spec) applyTime(sc *Scenario) error {
	cont := false
	for _, f := range continuousFields {
		if s.Given(f) {
			if s.Given("time") && s.timeModel == TickTime {
				return &FieldError{Flag: f, Valid: "left out with --time tick (it belongs to continuous time; the tick model's length is --tick)", Got: strconv.Quote(s.timeText(f))}
			}
			cont = true
		}
	}
	// A capacity per window (500/s, 50/100ms) describes a limiter in real
	// time: on a server with a window in continuous time, it runs there
	// unless --tick asks for ticks.
	byRate := s.rateAsksRealTime() && sc.Plays().ContinuousTime
	if byRate {
		cont = true
	}
	if s.Given("time") {
		cont = s.timeModel == ContinuousTime
	}
	if !cont {
		return nil
	}
	for _, f := range []string{"rounding", "first-window"} {
		if s.Given(f) {
			return &FieldError{Flag: f, Valid: "left out with --time continuous (delays are not rounded; spread the first sends with --first-spread)", Got: strconv.Quote(s.timeText(f))}
		}
	}
	sc.Time, sc.Latency, sc.FirstSpread, sc.LatencyPerFlight = ContinuousTime, s.latency, s.firstSpread, s.latencyPerFlight
	sc.FirstArrivals, sc.FirstAnswers, sc.Stalls = s.firstArrivals, s.firstAnswers, s.stalls
	if s.Given("window") {
		if s.window < MinTick || s.window > MaxTick {
			return &FieldError{Flag: "window", Valid: fmt.Sprintf("a duration in [%s, %s]", MinTick, MaxTick), Got: s.window.String()}
		}
		if s.Given("tick") && s.tick != s.window {
			return &FieldError{Flag: "window", Valid: fmt.Sprintf("equal to --tick %s, or left out (in continuous time the tick is the window)", s.tick), Got: s.window.String()}
		}
		sc.Policy.Tick = s.window
	}
	if !s.Given("window") && !s.Given("tick") && s.rateWindow > 0 {
		if s.rateWindow < MinTick || s.rateWindow > MaxTick {
			return &FieldError{Flag: "capacity", Valid: fmt.Sprintf("requests per window of a duration in [%s, %s]", MinTick, MaxTick), Got: strconv.Quote(s.rateText)}
		}
		sc.Policy.Tick = s.rateWindow
	}
	if sc.Policy.Tick == 0 {
		sc.Policy.Tick = policy.DefaultTick
	}
	return nil
}

// timeText is a given field's text for messages.
func (s Spec) timeText(f string) string {
	switch f {
	case "window":
		return s.window.String()
	case "latency":
		return s.latency.String()
	case "first-spread":
		return s.firstSpread.String()
	case "latency-per-flight":
		return s.latencyPerFlight.String()
	case "first-arrivals":
		return s.firstArrivals.String()
	case "first-answers":
		return s.firstAnswers.String()
	case "stalls":
		return s.stalls.String()
	case "rounding":
		return s.rounding.String()
	case "first-window":
		return strconv.Itoa(s.firstWindow)
	}
	return ""
}

// timeOf fills in SpecOf's time fields: continuous time gives the window
// (the tick), the round trip and the spread, and not the rounding or the
// first window, which it refuses.
func (s *Spec) timeOf(sc Scenario) {
	s.timeModel, s.latency, s.firstSpread, s.window, s.latencyPerFlight = sc.Time, sc.Latency, sc.FirstSpread, sc.Policy.Tick, sc.LatencyPerFlight
	s.firstArrivals, s.firstAnswers, s.stalls = sc.FirstArrivals, sc.FirstAnswers, sc.Stalls
	if sc.InContinuousTime() {
		delete(s.given, "rounding")
		delete(s.given, "first-window")
		return
	}
	for _, f := range continuousFields {
		delete(s.given, f)
	}
}
