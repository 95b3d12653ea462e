package service

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Law is the law of a time (a service time, one network way): a
// model.RoundTrip law (fixed, uniform, log-normal, quantiles) or the
// exponential of mean Mean.
type Law struct {
	Exp  bool
	Mean time.Duration   // the exponential's mean
	Trip model.RoundTrip // the other laws
}

// ParseTimeout reads a --timeout value: a duration, or exponential:MEAN
// (each attempt's timeout drawn from the exponential of mean MEAN).
func ParseTimeout(text string) (d time.Duration, exp bool, err error) {
	name, arg, ok := strings.Cut(strings.TrimSpace(text), ":")
	if ok && name == "exponential" {
		exp, text = true, arg
	} else if ok {
		return 0, false, fmt.Errorf("want a duration or exponential:MEAN, got %q", text)
	}
	if d, err = time.ParseDuration(strings.TrimSpace(text)); err != nil {
		return 0, false, fmt.Errorf("want a duration or exponential:MEAN, got %q", text)
	}
	return d, exp, nil
}

// ParseLaw reads "exponential:100ms" or any --latency law.
func ParseLaw(text string) (Law, error) {
	name, arg, ok := strings.Cut(strings.TrimSpace(text), ":")
	if ok && name == "exponential" {
		d, err := time.ParseDuration(strings.TrimSpace(arg))
		if err != nil {
			return Law{}, fmt.Errorf("not a duration: %q", arg)
		}
		return Law{Exp: true, Mean: d}, nil
	}
	r, err := model.ParseRoundTrip(text)
	if err != nil {
		return Law{}, fmt.Errorf("%v, or exponential:MEAN", err)
	}
	return Law{Trip: r}, nil
}

func (l Law) String() string {
	if l.Exp {
		return "exponential:" + l.Mean.String()
	}
	return l.Trip.String()
}

// IsZero reports whether every draw is 0.
func (l Law) IsZero() bool { return l == Law{} }

func (l Law) validate(flag string) error {
	if l.Exp {
		if l.Mean <= 0 || l.Mean > model.MaxLatency {
			return &model.FieldError{Flag: flag, Valid: fmt.Sprintf("exponential:MEAN with 0 < MEAN ≤ %s", model.MaxLatency), Got: strconv.Quote(l.String())}
		}
		return nil
	}
	if err := l.Trip.Validate(); err != nil {
		fe := err.(*model.FieldError)
		fe.Flag = flag
		return fe
	}
	return nil
}

// Sampler is the law in seconds, ready to draw.
func (l Law) Sampler() Sampler {
	if l.Exp {
		return Sampler{exp: true, mean: l.Mean.Seconds()}
	}
	return Sampler{trip: l.Trip.In(time.Second)}
}

// Sampler draws a Law in seconds.
type Sampler struct {
	exp  bool
	mean float64
	trip model.TripLaw
}

// Draw maps u uniform on [0, 1) to a time in seconds (by inversion).
func (s Sampler) Draw(u float64) float64 {
	if s.exp {
		return -s.mean * math.Log1p(-u)
	}
	return s.trip.Draw(u)
}

// MeanSeconds is the law's mean in seconds.
func (l Law) MeanSeconds() float64 {
	if l.Exp {
		return l.Mean.Seconds()
	}
	r := l.Trip
	switch r.Law {
	case model.UniformTrip:
		return (r.A + r.B).Seconds() / 2
	case model.LogNormalTrip:
		return r.A.Seconds()
	case model.QuantileTrip:
		m := 0.0
		for i := range r.M {
			m += (r.Q[i] + r.Q[i+1]).Seconds() / 2
		}
		return m / float64(r.M)
	}
	return r.A.Seconds()
}

// Server is the service server's parameters (docs/servers.md says
// the order of its events).
type Server struct {
	// Workers serve in FIFO order; 0: as many as there are requests (no
	// waiting, Brooker's server).
	Workers int
	// Service is the law of a service time; Slope b adds b·(requests in
	// service, this one included) to it, fixed when service starts.
	Service Law
	Slope   time.Duration
	// Room is the most requests waiting for a worker; −1: unbounded. A
	// send that finds it full is rejected: the client learns it one
	// network way later and retries, or, with RejectFinal, the request is
	// dropped for good and the client never hears.
	Room        int
	RejectFinal bool
	// Timeout: a client that has no answer Timeout after its send
	// abandons the attempt (0: never); with TimeoutExp the time is drawn
	// for each attempt from the exponential of mean Timeout (the exact
	// chain's setting). The abandoned request is still served (wasted
	// work) unless Cancel.
	Timeout    time.Duration
	TimeoutExp bool
	Cancel     bool
	// Network is the law of one way (request to server, answer back).
	Network Law
	// LateSuccess: an abandoned attempt's answer serves its request while
	// the client waits on a later attempt of it.
	LateSuccess bool
	// Pauses stop the workers: no service starts during [At, At+Length);
	// services under way finish and the waiting room is kept.
	Pauses []Pause
}

// Pause is one stop of the service server's workers.
type Pause struct{ At, Length time.Duration }

// Arrivals names how new requests arrive at a given rate.
type Arrivals int

const (
	// Poisson: a (non-homogeneous) Poisson process of the load's rate.
	Poisson Arrivals = iota
	// Even: the k-th new request when the load's integral reaches k.
	Even
)

var arrivalNames = []string{"poisson", "even"}

func (a Arrivals) String() string { return arrivalNames[a] }

// ParseArrivals reads poisson or even.
func ParseArrivals(s string) (Arrivals, error) {
	for i, n := range arrivalNames {
		if s == n {
			return Arrivals(i), nil
		}
	}
	return 0, fmt.Errorf("want poisson or even, got %q", s)
}

// LoadPoint is one point of a load shape: from At the rate is Rate new
// requests per second; with Ramp the rate rises or falls linearly from the
// previous point's to Rate over the time between them.
type LoadPoint struct {
	At   time.Duration
	Rate float64
	Ramp bool
}

// Load is a rate of new requests that changes with time: steps and ramps
// between its points, 0 before the first.
type Load []LoadPoint

// ParseLoad reads a --load value: points T:R separated by commas, each a
// duration and a rate per second ("0s:40/s,20s:80/s,25s:40/s" are steps);
// a point written ~T:R is reached by a linear ramp from the previous one
// ("0s:40/s,~25s:80/s,~75s:0/s").
func ParseLoad(text string) (Load, error) {
	var l Load
	for _, p := range strings.Split(text, ",") {
		p = strings.TrimSpace(p)
		ramp := strings.HasPrefix(p, "~")
		at, rate, ok := strings.Cut(strings.TrimPrefix(p, "~"), ":")
		if !ok {
			return nil, fmt.Errorf("want points TIME:RATE/s separated by commas, got %q", p)
		}
		d, err := time.ParseDuration(at)
		if err != nil {
			return nil, fmt.Errorf("not a duration: %q", at)
		}
		r, err := strconv.ParseFloat(strings.TrimSuffix(rate, "/s"), 64)
		if err != nil || !strings.HasSuffix(rate, "/s") {
			return nil, fmt.Errorf("want a rate such as 40/s, got %q", rate)
		}
		l = append(l, LoadPoint{At: d, Rate: r, Ramp: ramp})
	}
	return l, nil
}

func (l Load) String() string {
	ps := make([]string, len(l))
	for i, p := range l {
		r := ""
		if p.Ramp {
			r = "~"
		}
		ps[i] = fmt.Sprintf("%s%s:%s/s", r, p.At, strconv.FormatFloat(p.Rate, 'g', -1, 64))
	}
	return strings.Join(ps, ",")
}

// RateAt is the rate of new requests per second at t seconds.
func (l Load) RateAt(t float64) float64 {
	r := 0.0
	for i, p := range l {
		at := p.At.Seconds()
		if t < at {
			if p.Ramp && i > 0 {
				a := l[i-1].At.Seconds()
				return l[i-1].Rate + (p.Rate-l[i-1].Rate)*(t-a)/(at-a)
			}
			return r
		}
		r = p.Rate
	}
	return r
}

// Segment is the linear piece of the load that holds at t: the rate is
// a + s·(t − from) on [from, to) (to is +Inf after the last point).
func (l Load) Segment(t float64) (from, to, a, s float64) {
	from, to = math.Inf(-1), math.Inf(1)
	for i, p := range l {
		at := p.At.Seconds()
		if t < at {
			to = at
			if p.Ramp && i > 0 {
				prev := l[i-1].At.Seconds()
				return prev, at, l[i-1].Rate, (p.Rate - l[i-1].Rate) / (at - prev)
			}
			break
		}
		from, a = at, p.Rate
	}
	return from, to, a, 0
}

// Integral is the load's integral over [0, t): the new requests expected
// by t.
func (l Load) Integral(t float64) float64 {
	sum := 0.0
	for x := 0.0; x < t; {
		f, end, a, s := l.Segment(x)
		end = math.Min(end, t)
		sum += a * (end - x)
		if s != 0 {
			sum += s / 2 * ((end-f)*(end-f) - (x-f)*(x-f))
		}
		x = end
	}
	return sum
}

// MaxLoadRate bounds a load's rate (new requests per second).
const MaxLoadRate = 1e6

func (l Load) validate() error {
	bad := func(valid string) error {
		return &model.FieldError{Flag: "load", Valid: valid, Got: strconv.Quote(l.String())}
	}
	if len(l) == 0 {
		return bad("at least one point TIME:RATE/s")
	}
	for i, p := range l {
		switch {
		case p.At < 0 || i > 0 && p.At <= l[i-1].At:
			return bad("points at increasing times ≥ 0")
		case !model.Finite(p.Rate) || p.Rate < 0 || p.Rate > MaxLoadRate:
			return bad(fmt.Sprintf("rates in [0, %g]/s", float64(MaxLoadRate)))
		case p.Ramp && i == 0:
			return bad("a first point that is not a ramp (~)")
		}
	}
	return nil
}

// Run is one experiment on the service server: its load, its
// clients' retries, how long it runs and how it is judged.
type Run struct {
	Server   Server
	Load     Load
	Arrivals Arrivals
	// Cohort requests are all sent at time 0, beside the load's.
	Cohort int
	// Duration: new requests arrive in [0, Duration); the run then plays
	// Drain more with none, so that requests still pending finish.
	Duration, Drain time.Duration
	// Attempts is the most attempts per request (1: no retries); a
	// retry's delay is drawn from Policy, in seconds, counted from the
	// failure (the timeout or the rejection's answer).
	Attempts int
	Policy   policy.Policy
	// Trigger is when the trouble (a spike, a pause, an outage) is: the
	// run has recovered at the first bin end at or after TriggerEnd at
	// which at most RecoveredBacklog requests are at the server (waiting
	// or in service) and no attempt timed out during the bin.
	TriggerStart, TriggerEnd time.Duration
	RecoveredBacklog         int
	// Bin is the length of the bins that count the run's events (1 s by
	// default).
	Bin time.Duration
}

// Deterministic reports whether the run draws nothing at random: even
// arrivals, fixed service and network times, and retry delays that are
// not random. Its trials are then all the same run.
func (r Run) Deterministic() bool {
	fixed := func(l Law) bool {
		return !l.Exp && (l.Trip.Law == model.FixedTrip || l.Trip.Law == model.UniformTrip && l.Trip.A == l.Trip.B)
	}
	noJitter := r.Attempts == 1 || r.Policy.Kind == policy.None || r.Policy.Kind == policy.Fixed || r.Policy.Kind == policy.Expo
	return r.Arrivals == Even && fixed(r.Server.Service) && fixed(r.Server.Network) && noJitter
}

// Limits on a service run.
const (
	MaxServiceTime     = 24 * time.Hour
	MaxServiceAttempts = 100
	MaxServiceBins     = 1_000_000
	MaxServiceWorkers  = 1_000_000
)

// Bins is the number of bins of the run.
func (r Run) Bins() int {
	b := r.BinLength()
	return int(math.Ceil(float64(r.Duration+r.Drain) / float64(b)))
}

// BinLength is the bin, 1 s when unset.
func (r Run) BinLength() time.Duration {
	if r.Bin <= 0 {
		return time.Second
	}
	return r.Bin
}

// Validate checks every field and returns the first violation as a
// *model.FieldError naming its flag.
func (r Run) Validate() error {
	bad := func(flag, valid string, got any) error {
		return &model.FieldError{Flag: flag, Valid: valid, Got: fmt.Sprint(got)}
	}
	s := r.Server
	switch {
	case s.Workers < 0 || s.Workers > MaxServiceWorkers:
		return bad("workers", fmt.Sprintf("0 (one per request) or an integer in [1, %d]", MaxServiceWorkers), s.Workers)
	case s.Room < -1 || s.Room > model.MaxQueueLive:
		return bad("room", fmt.Sprintf("-1 (unbounded) or an integer in [0, %d]", model.MaxQueueLive), s.Room)
	case s.Workers == 0 && s.Room != -1 && s.Room != 0:
		return bad("room", "left out with --workers 0 (every request is served at once)", s.Room)
	case s.Slope < 0 || s.Slope > model.MaxLatency:
		return bad("slope", fmt.Sprintf("a duration in [0, %s]", model.MaxLatency), s.Slope)
	case s.Timeout < 0 || s.Timeout > MaxServiceTime:
		return bad("timeout", fmt.Sprintf("0 (never) or a duration in (0, %s]", MaxServiceTime), s.Timeout)
	case s.Cancel && s.Timeout == 0:
		return bad("cancel", "false without --timeout (nothing is abandoned)", s.Cancel)
	case s.TimeoutExp && s.Timeout == 0:
		return bad("timeout", "exponential:MEAN with MEAN > 0", "exponential:0s")
	case s.LateSuccess && s.Timeout == 0:
		return bad("late-success", "false without --timeout (no answer is late)", s.LateSuccess)
	case r.Duration <= 0 || r.Duration > MaxServiceTime:
		return bad("duration", fmt.Sprintf("a duration in (0, %s]", MaxServiceTime), r.Duration)
	case r.Drain < 0 || r.Drain > MaxServiceTime:
		return bad("drain", fmt.Sprintf("a duration in [0, %s]", MaxServiceTime), r.Drain)
	case r.Bin < 0 || r.Bins() > MaxServiceBins:
		return bad("bin", fmt.Sprintf("a duration > 0 with (duration + drain)/bin ≤ %d", MaxServiceBins), r.Bin)
	case r.Attempts < 1 || r.Attempts > MaxServiceAttempts:
		return bad("attempts", fmt.Sprintf("an integer in [1, %d]", MaxServiceAttempts), r.Attempts)
	case r.Cohort < 0 || r.Cohort > model.MaxRequestsLive:
		return bad("cohort", fmt.Sprintf("an integer in [0, %d]", int(model.MaxRequestsLive)), r.Cohort)
	case r.TriggerStart < 0 || r.TriggerEnd < r.TriggerStart || r.TriggerEnd > r.Duration+r.Drain:
		return bad("trigger", "START,END with 0 ≤ START ≤ END ≤ duration + drain", fmt.Sprintf("%s,%s", r.TriggerStart, r.TriggerEnd))
	case r.RecoveredBacklog < 0:
		return bad("recovered-backlog", "an integer ≥ 0", r.RecoveredBacklog)
	}
	if err := s.Service.validate("service-time"); err != nil {
		return err
	}
	if err := s.Network.validate("network"); err != nil {
		return err
	}
	for _, p := range s.Pauses {
		if p.At < 0 || p.Length <= 0 || p.At+p.Length > MaxServiceTime {
			return bad("pause", fmt.Sprintf("AT,LENGTH with AT ≥ 0, LENGTH > 0 and AT + LENGTH ≤ %s", MaxServiceTime), fmt.Sprintf("%s,%s", p.At, p.Length))
		}
	}
	if err := r.Load.validate(); err != nil {
		return err
	}
	if w := r.Load.Integral(r.Duration.Seconds()); w > model.MaxRequestsLive {
		return bad("load", fmt.Sprintf("a load whose new requests per run stay ≤ %d; it brings", int(model.MaxRequestsLive)), w)
	}
	if r.Attempts > 1 {
		p := r.Policy
		if !model.Finite(p.Base) || !model.Finite(p.Cap) || !model.Finite(p.FixedDelay) || p.Base <= 0 || p.Cap < p.Base || p.FixedDelay < 0 || p.Cap > MaxServiceTime.Seconds() || p.FixedDelay > MaxServiceTime.Seconds() {
			return bad("base", fmt.Sprintf("delays in seconds with 0 < base ≤ cap ≤ %g and 0 ≤ fixed-delay ≤ %g", MaxServiceTime.Seconds(), MaxServiceTime.Seconds()), fmt.Sprintf("base %g, cap %g, fixed-delay %g", p.Base, p.Cap, p.FixedDelay))
		}
	}
	return nil
}
