package model

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/policy"
)

// SpecFields are the scenario fields a user can give, spelled as their
// command-line flags, in the order a sweep grid expands them (the last
// varies fastest).
var SpecFields = []string{"clients", "capacity", "server", "policy", "base", "cap", "fixed-delay", "rounding", "first-window", "horizon", "retries", "tick", "max-elapsed",
	"failure-rate", "time", "window", "latency", "first-spread", "first-arrivals", "first-answers", "latency-per-flight", "stalls",
	"queue-limit", "timeout",
	"exponent",
	"burst", "nodelay",
}

// IsSpecField reports whether name is one of SpecFields.
func IsSpecField(name string) bool {
	for _, f := range SpecFields {
		if f == name {
			return true
		}
	}
	return false
}

// Spec is what a user said about a scenario: a value for each field given
// (by a flag, a sweep grid's point, a spec file), and nothing for the
// others. Scenario turns it into a valid Scenario; it is the one place
// where the defaults that depend on the server and the policy are applied,
// so that every command builds the same scenario from the same words.
//
// The zero Spec gives nothing and builds Default().
type Spec struct {
	given                                          map[string]bool
	clients, capacity, firstWindow, horizon, tries int
	server                                         Server
	kind                                           policy.Kind
	rounding                                       policy.Rounding
	base, cap, fixedDelay                          float64
	tick, maxElapsed                               time.Duration
	failureRate                                    float64
	exponent                                       float64 // Poly's r (contention.go)
	// rate is the capacity given as a rate, in requests per second (0:
	// given per tick, or not given); Scenario converts it with the tick.
	rate     float64
	rateText string
	// rateWindow is the window a rate was given per (500/s: 1 s, 50/100ms:
	// 100 ms): the limiter's window, which continuous time takes when
	// neither --tick nor --window is given.
	rateWindow time.Duration
	// delays holds the delays given as durations (base 100ms), converted
	// to ticks once the tick is known; delayText says them for messages.
	delays    map[string]time.Duration
	delayText map[string]string
	// inline are the fields given inside --policy NAME:FIELD=VALUE,….
	inline map[string]bool
	// The time model's fields (timemodel.go).
	timeModel           TimeModel
	window, firstSpread time.Duration
	latency             RoundTrip
	firstArrivals       RoundTrip
	firstAnswers        RoundTrip
	latencyPerFlight    time.Duration
	stalls              Stalls
	// The queue server's fields (queue.go).
	queueLimit, timeout int
	// configured is the policy read from a retry configuration
	// (WithConfigured), whose Kind is empty when there is none.
	configured policy.Policy
	// The limiter servers' fields (limiter.go).
	burst   int
	nodelay bool
}

// WithConfigured is the spec with the policy read from a retry
// configuration (package config) in place of --policy: its kind, its
// parameters in seconds and its retry limit, which --retries overrides.
func (s Spec) WithConfigured(p policy.Policy) Spec {
	t := s
	t.given, t.inline = maps.Clone(s.given), maps.Clone(s.inline)
	t.delays, t.delayText = maps.Clone(s.delays), maps.Clone(s.delayText)
	t.configured = p
	return t
}

// Set records that field was given as text, in the syntax of its flag: an
// integer, a number, a name, or a Go duration. It returns a *FieldError
// naming the flag when the text cannot be read; ranges are checked by
// Scenario.
func (s *Spec) Set(field, text string) error {
	text = strings.TrimSpace(text)
	bad := func(valid string) error { return &FieldError{Flag: field, Valid: valid, Got: strconv.Quote(text)} }
	if s.inline[field] {
		return bad("given once: --policy already sets it (NAME:" + field + "=…)")
	}
	var err error
	switch field {
	case "capacity":
		s.rate, s.rateText, s.rateWindow = 0, "", 0
		if num, unit, ok := strings.Cut(text, "/"); ok {
			per, okUnit := rateWindow(strings.TrimSpace(unit))
			x, e := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if !okUnit || e != nil || !(x > 0) || math.IsInf(x, 0) {
				return bad(capacityValid)
			}
			s.rate, s.rateText, s.rateWindow = x/per.Seconds(), text, per
			break
		}
		n, e := readInt(text)
		if e != nil {
			return bad(capacityValid)
		}
		s.capacity = n
	case "clients", "first-window", "horizon", "retries":
		n, e := readInt(text)
		if e != nil {
			return bad("an integer")
		}
		*map[string]*int{"clients": &s.clients, "first-window": &s.firstWindow, "horizon": &s.horizon, "retries": &s.tries}[field] = n
	case "base", "cap", "fixed-delay":
		delete(s.delays, field)
		x, e := strconv.ParseFloat(text, 64)
		if e != nil {
			d, de := time.ParseDuration(text)
			if de != nil || d <= 0 {
				return bad("a number of ticks, or a duration such as 100ms")
			}
			if s.delays == nil {
				s.delays, s.delayText = map[string]time.Duration{}, map[string]string{}
			}
			s.delays[field], s.delayText[field] = d, text
			break
		}
		*map[string]*float64{"base": &s.base, "cap": &s.cap, "fixed-delay": &s.fixedDelay}[field] = x
	case "failure-rate", "exponent":
		x, e := strconv.ParseFloat(text, 64)
		if e != nil {
			return bad("a number")
		}
		*map[string]*float64{"failure-rate": &s.failureRate, "exponent": &s.exponent}[field] = x
	case "tick", "max-elapsed":
		d, e := time.ParseDuration(text)
		if e != nil {
			return bad("a duration such as 100ms or 1s")
		}
		*map[string]*time.Duration{"tick": &s.tick, "max-elapsed": &s.maxElapsed}[field] = d
	case "time", "window", "latency", "first-spread", "first-arrivals", "first-answers", "latency-per-flight", "stalls":
		if e := s.setTime(field, text); e != nil {
			return e
		}
	case "queue-limit", "timeout":
		n, e := readInt(text)
		if e != nil {
			return bad("an integer")
		}
		*map[string]*int{"queue-limit": &s.queueLimit, "timeout": &s.timeout}[field] = n
	case "burst", "nodelay":
		if e := s.setLimiter(field, text); e != nil {
			return e
		}
	case "server":
		s.server, err = ParseServer(text)
	case "policy":
		name, params, inline := strings.Cut(text, ":")
		if s.kind, err = policy.ParseKind(strings.TrimSpace(name)); err == nil {
			for f := range s.inline {
				delete(s.given, f)
			}
			s.inline = nil
			if inline {
				if e := s.setInline(text, params); e != nil {
					return e
				}
			}
		}
	case "rounding":
		s.rounding, err = policy.ParseRounding(text)
	default:
		return fmt.Errorf("%q is not a scenario field (fields: %s)", field, strings.Join(SpecFields, ", "))
	}
	if err != nil {
		msg, hint, _ := strings.Cut(err.Error(), " (did you mean ")
		return &FieldError{Flag: field, Valid: strings.TrimPrefix(strings.SplitN(msg, ", got", 2)[0], field+" must be "), Got: strconv.Quote(text),
			Hint: strings.TrimSuffix(hint, "?)")}
	}
	if s.given == nil {
		s.given = map[string]bool{}
	}
	s.given[field] = true
	return nil
}

// Warnings say what in the spec changes the service the user may have
// meant: a capacity per window played in ticks of another length is
// another limiter.
func (s Spec) Warnings(sc Scenario) []string {
	t := sc.Policy.TickLength()
	if s.rateWindow == 0 || sc.InContinuousTime() || t == 0 || t == s.rateWindow {
		return nil
	}
	return []string{fmt.Sprintf("-k %s names a limiter of %g requests per %s window; with --tick %s herd plays %d per tick of %s, another limiter (a burst is judged per tick); leave out --tick to play the limiter in continuous time with its own window",
		s.rateText, s.rate*s.rateWindow.Seconds(), s.rateWindow, t, sc.Capacity, t)}
}

// capacityValid says what --capacity takes.
const capacityValid = "an integer per tick, or requests per window such as 500/s, 50/100ms or 600/min"

// rateWindow reads the window of a rate: a unit (s, sec, ms, min, h, …)
// or a duration (100ms).
func rateWindow(unit string) (time.Duration, bool) {
	units := map[string]time.Duration{
		"s": time.Second, "sec": time.Second, "second": time.Second, "seconds": time.Second,
		"ms": time.Millisecond, "msec": time.Millisecond, "us": time.Microsecond, "µs": time.Microsecond,
		"min": time.Minute, "minute": time.Minute, "minutes": time.Minute,
		"h": time.Hour, "hr": time.Hour, "hour": time.Hour, "hours": time.Hour,
	}
	if d, ok := units[unit]; ok {
		return d, true
	}
	d, err := time.ParseDuration(unit)
	return d, err == nil && d > 0
}

// InlinePolicyFields are the fields --policy NAME:FIELD=VALUE,… may set.
var InlinePolicyFields = []string{"base", "cap", "fixed-delay", "retries", "max-elapsed", "exponent"}

// setInline sets the fields of --policy NAME:FIELD=VALUE,…; a field given
// by its own flag as well is refused.
func (s *Spec) setInline(text, params string) error {
	bad := &FieldError{Flag: "policy", Valid: "NAME or NAME:FIELD=VALUE,… with fields " + strings.Join(InlinePolicyFields, ", "), Got: strconv.Quote(text)}
	set := map[string]string{}
	for _, kv := range strings.Split(params, ",") {
		f, v, ok := strings.Cut(kv, "=")
		f = strings.TrimSpace(f)
		if _, twice := set[f]; !ok || twice || !slices.Contains(InlinePolicyFields, f) {
			return bad
		}
		set[f] = v
	}
	for _, f := range InlinePolicyFields {
		v, ok := set[f]
		if !ok {
			continue
		}
		if s.given[f] {
			return &FieldError{Flag: f, Valid: "given once: --policy " + text + " sets it too", Got: strconv.Quote(strings.TrimSpace(v))}
		}
		if err := s.Set(f, v); err != nil {
			return err
		}
		if s.inline == nil {
			s.inline = map[string]bool{}
		}
		s.inline[f] = true
	}
	return nil
}

// SplitPolicies splits a comma-separated list of policies, keeping the
// fields of NAME:FIELD=VALUE,… with their policy.
func SplitPolicies(text string) []string {
	var out []string
	for _, p := range strings.Split(text, ",") {
		if k, _, ok := strings.Cut(p, "="); ok && !strings.Contains(k, ":") && len(out) > 0 && strings.Contains(out[len(out)-1], ":") {
			out[len(out)-1] += "," + p
			continue
		}
		out = append(out, p)
	}
	return out
}

// readInt reads an integer, also when written as a float without a
// fraction (1e6), as sweep ranges produce them.
func readInt(text string) (int, error) {
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return int(n), nil
	}
	x, err := strconv.ParseFloat(text, 64)
	if err != nil || x != math.Trunc(x) || math.Abs(x) > 1<<62 {
		return 0, fmt.Errorf("not an integer")
	}
	return int(x), nil
}

// Given reports whether field was set.
func (s Spec) Given(field string) bool { return s.given[field] }

// rateAsksRealTime reports whether the capacity, given per window (500/s,
// 50/100ms) and without --tick, asks for continuous time on a server that
// has a window in it.
func (s Spec) rateAsksRealTime() bool { return s.rateWindow > 0 && !s.Given("tick") }

// Sources returns the flags given that decide a scenario field, for a
// refusal to name: for "time", the flags that chose the time model (--time,
// or the continuous-time fields, or a capacity per window such as 500/s);
// for "retries" and "max-elapsed", the flag, or --policy when the limit is
// the preset's own;
// otherwise the field itself when it was given.
func (s Spec) Sources(field string) []string {
	var given []string
	switch field {
	case "time":
		if s.Given("time") {
			return []string{"time"}
		}
		for _, f := range continuousFields {
			if s.Given(f) {
				given = append(given, f)
			}
		}
		if s.rateAsksRealTime() {
			given = append(given, "capacity")
		}
		return given
	case "retries", "max-elapsed":
		if !s.Given(field) && s.Given("policy") {
			return []string{"policy"}
		}
	}
	if s.Given(field) {
		given = append(given, field)
	}
	return given
}

// With returns a copy of s with field set to text (see Set).
func (s Spec) With(field, text string) (Spec, error) {
	t := s
	t.given, t.inline = maps.Clone(s.given), maps.Clone(s.inline)
	if t.given == nil {
		t.given = map[string]bool{}
	}
	t.delays, t.delayText = maps.Clone(s.delays), maps.Clone(s.delayText)
	return t, t.Set(field, text)
}

// ScenarioOf is the scenario of the field and value pairs kv (field,
// value, field, value, …), each Set in order as herd's commands set their
// flags: what tests, validation grids and harnesses that name scenarios by
// their flags call.
func ScenarioOf(kv ...string) (Scenario, error) {
	if len(kv)%2 != 0 {
		return Scenario{}, fmt.Errorf("ScenarioOf: %d strings, want field and value pairs", len(kv))
	}
	var s Spec
	for i := 0; i < len(kv); i += 2 {
		if err := s.Set(kv[i], kv[i+1]); err != nil {
			return Scenario{}, err
		}
	}
	return s.Scenario()
}

// Scenario builds and validates the scenario the spec describes:
//
//   - fields not given keep Default()'s values (the seed article's section
//     5.1 scenario with N = 100);
//   - a library preset brings its own delays and its library's limits
//     (retries, max-elapsed), which --retries and --max-elapsed override;
//     --base, --cap and --fixed-delay do not apply to it and are refused;
//   - on the OCC server a textbook policy's delays are in milliseconds and,
//     unless given, the AWS blog's (base 5, cap 2000, fixed delay 10);
//   - the time model is continuous when --time says so, or when it is not
//     given and --window, --latency or --first-spread is: then the window
//     is the tick (1 s unless given) and a textbook delay is in windows
//     (see Spec.applyTime).
//
// The error is a *FieldError naming the flag.
func (s Spec) Scenario() (Scenario, error) {
	sc := Default()
	if s.Given("server") {
		sc.Server = s.server
	}
	if s.Given("policy") {
		if p, ok := policy.LookupPreset(s.kind); ok {
			sc.Policy = p.Policy(0)
		} else {
			sc.Policy.Kind = s.kind
		}
	}
	if s.Given("policy") && s.kind.IsConfigured() {
		return sc, &FieldError{Flag: "policy", Valid: "a textbook policy or a library preset (" + string(s.kind) + " is read from a retry configuration: --config FILE)", Got: strconv.Quote(string(s.kind))}
	}
	if s.configured.Kind != "" {
		if s.Given("policy") {
			return sc, &FieldError{Flag: "policy", Valid: "left out with --config, which gives the policy", Got: strconv.Quote(string(s.kind))}
		}
		sc.Policy = s.configured
	}
	preset := sc.Policy.Kind.IsPreset() || sc.Policy.Kind.IsConfigured()
	if d, ok := sc.Server.Variant().(policyDefaults); ok && !preset {
		d.policyDefaults(&sc.Policy)
	}
	for _, f := range []string{"base", "cap", "fixed-delay"} {
		if preset && s.Given(f) {
			if sc.Policy.Kind.IsConfigured() {
				return sc, &FieldError{Flag: f, Valid: "left out with --config, whose delays are the configuration's own", Got: s.text(f)}
			}
			return sc, &FieldError{Flag: f, Valid: fmt.Sprintf("left out with library preset %s, whose delays are the library's own (herd presets lists them)", sc.Policy.Kind), Got: s.text(f)}
		}
	}
	set := func(f string, dst *int, v int) {
		if s.Given(f) {
			*dst = v
		}
	}
	set("clients", &sc.Clients, s.clients)
	set("capacity", &sc.Capacity, s.capacity)
	set("first-window", &sc.FirstWindow, s.firstWindow)
	set("horizon", &sc.Horizon, s.horizon)
	set("retries", &sc.Policy.Retries, s.tries)
	for f, dst := range map[string]*float64{"base": &sc.Policy.Base, "cap": &sc.Policy.Cap, "fixed-delay": &sc.Policy.FixedDelay} {
		if _, asDuration := s.delays[f]; s.Given(f) && !asDuration {
			*dst = map[string]float64{"base": s.base, "cap": s.cap, "fixed-delay": s.fixedDelay}[f]
		}
	}
	if s.Given("rounding") {
		sc.Rounding = s.rounding
	}
	if s.Given("tick") {
		sc.Policy.Tick = s.tick
	}
	if s.Given("max-elapsed") {
		sc.Policy.MaxElapsed = s.maxElapsed
	}
	if s.Given("failure-rate") {
		sc.FailureRate = s.failureRate
	}
	if s.Given("exponent") {
		sc.Policy.Exponent = s.exponent
	}
	if err := s.applyTime(&sc); err != nil {
		return sc, err
	}
	if err := s.applyDelays(&sc); err != nil {
		return sc, err
	}
	set("queue-limit", &sc.Queue.Limit, s.queueLimit)
	set("timeout", &sc.Queue.Timeout, s.timeout)
	if s.rate > 0 {
		k, err := s.perTick(sc.Policy.TickLength())
		if err != nil {
			return sc, err
		}
		sc.Capacity = k
	}
	s.applyLimiter(&sc)
	return sc, sc.Validate()
}

// perTick converts a capacity rate to whole requests per tick: a rate
// means the same server whatever the tick, so a tick too short for one
// request, or one that splits a request, is refused rather than rounded.
func (s Spec) perTick(tick time.Duration) (int, error) {
	bad := func(valid string) error {
		return &FieldError{Flag: "capacity", Valid: valid, Got: strconv.Quote(s.rateText)}
	}
	if tick == 0 {
		return 0, bad("an integer per tick unless the scenario has a real --tick (textbook policies keep abstract ticks)")
	}
	k := s.rate * tick.Seconds()
	r := math.Round(k)
	if r < 1 || math.Abs(k-r) > 1e-9*math.Max(1, k) {
		hint := "choose a --tick that holds a whole number of requests"
		// The same rate per a window that holds whole requests: 0.5/s is 1/2s.
		for n := 1.0; n <= 1000; n++ {
			w := n / s.rate * 1000 // ms
			if math.Abs(w-math.Round(w)) < 1e-6*w {
				hint = fmt.Sprintf("write the rate per a window that holds whole requests (%g/%s), or %s", n, time.Duration(math.Round(w))*time.Millisecond, hint)
				break
			}
		}
		return 0, bad(fmt.Sprintf("a whole number ≥ 1 of requests per tick of %s (it is %.6g); %s", tick, k, hint))
	}
	if r > MaxClients {
		return 0, bad(fmt.Sprintf("at most %d requests per tick of %s", int64(MaxClients), tick))
	}
	return int(r), nil
}

// applyDelays converts the delays given as durations to the scenario's
// unit: milliseconds on a server that counts them, else its ticks.
func (s Spec) applyDelays(sc *Scenario) error {
	for _, f := range []string{"base", "cap", "fixed-delay"} {
		d, ok := s.delays[f]
		if !ok {
			continue
		}
		unit := sc.Policy.TickLength()
		if sc.Plays().Milliseconds {
			unit = time.Millisecond
		}
		if unit == 0 {
			return &FieldError{Flag: f, Valid: "a number of ticks, or a duration once the scenario has a real --tick or --window, or a capacity per window such as 500/s (textbook policies keep abstract ticks)", Got: strconv.Quote(s.delayText[f])}
		}
		*map[string]*float64{"base": &sc.Policy.Base, "cap": &sc.Policy.Cap, "fixed-delay": &sc.Policy.FixedDelay}[f] = float64(d) / float64(unit)
	}
	return nil
}

// text is a given field's value, as Set read it.
func (s Spec) text(f string) string {
	if t, ok := s.delayText[f]; ok {
		return t
	}
	switch f {
	case "base":
		return strconv.FormatFloat(s.base, 'g', -1, 64)
	case "cap":
		return strconv.FormatFloat(s.cap, 'g', -1, 64)
	case "fixed-delay":
		return strconv.FormatFloat(s.fixedDelay, 'g', -1, 64)
	}
	return ""
}

// SpecOf is the spec that gives every field of sc, so that
// SpecOf(sc).Scenario() rebuilds sc (for a valid sc whose preset fields
// are its preset's own).
func SpecOf(sc Scenario) Spec {
	s := Spec{given: map[string]bool{}}
	for _, f := range SpecFields {
		s.given[f] = true
	}
	s.clients, s.capacity, s.firstWindow, s.horizon, s.tries = sc.Clients, sc.Capacity, sc.FirstWindow, sc.Horizon, sc.Policy.Retries
	s.server, s.kind, s.rounding = sc.Server, sc.Policy.Kind, sc.Rounding
	s.base, s.cap, s.fixedDelay = sc.Policy.Base, sc.Policy.Cap, sc.Policy.FixedDelay
	s.tick, s.maxElapsed = sc.Policy.Tick, sc.Policy.MaxElapsed
	s.failureRate, s.exponent = sc.FailureRate, sc.Policy.Exponent
	s.queueLimit, s.timeout = sc.Queue.Limit, sc.Queue.Timeout
	s.burst, s.nodelay = sc.Limiter.Burst, sc.Limiter.Nodelay
	if sc.Policy.Kind.IsConfigured() {
		s.configured = sc.Policy
		delete(s.given, "policy")
	}
	if sc.Policy.Kind.IsPreset() || sc.Policy.Kind.IsConfigured() {
		delete(s.given, "base")
		delete(s.given, "cap")
		delete(s.given, "fixed-delay")
	}
	s.timeOf(sc)
	return s
}
