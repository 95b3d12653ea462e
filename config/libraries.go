package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/policy"
	"gopkg.in/yaml.v3"
)

// resilience4j: Spring configuration resilience4j.retry.instances.NAME and
// .configs.NAME (camelCase or kebab-case), read as
// CommonRetryConfigurationProperties builds the IntervalFunction.

const r4jFormat = "resilience4j"

// resilience4j's defaults: RetryConfig's 3 attempts and 500 ms,
// IntervalFunction's multiplier 1.5 and randomization factor 0.5.
const (
	r4jAttempts   = 3
	r4jWait       = 0.5
	r4jMultiplier = 1.5
	r4jFactor     = 0.5
)

func readR4j(d doc, top *yaml.Node) ([]Reading, error) {
	ms, err := d.members(top, "", camel)
	if err != nil {
		return nil, err
	}
	var out []Reading
	for _, m := range ms {
		if m.key != "resilience4j" {
			return nil, d.unknown(m.k, m.path, "resilience4j.retry")
		}
		rs, err := d.members(m.v, m.path, camel)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if r.key != "retry" {
				return nil, d.unsupported(r.k, r.path, "herd reads resilience4j's retry instances")
			}
			groups, err := d.members(r.v, r.path, camel)
			if err != nil {
				return nil, err
			}
			configs := map[string]member{}
			for _, g := range groups {
				if g.key != "configs" && g.key != "instances" {
					return nil, d.unknown(g.k, g.path, "instances, configs")
				}
				named, err := d.members(g.v, g.path, same)
				if err != nil {
					return nil, err
				}
				for _, n := range named {
					if g.key == "configs" {
						configs[n.key] = n
						continue
					}
					reading, err := readR4jInstance(d, n, configs)
					if err != nil {
						return nil, err
					}
					out = append(out, reading)
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, d.fail(top, "resilience4j.retry.instances", "no retry instance")
	}
	if len(out) == 1 {
		out[0].Name = ""
	}
	return out, nil
}

func readR4jInstance(d doc, inst member, configs map[string]member) (Reading, error) {
	r := Reading{File: d.file, Format: r4jFormat, Name: inst.key}
	fields, err := d.members(inst.v, inst.path, camel)
	if err != nil {
		return r, err
	}
	// A baseConfig's fields come first; the instance's own override them.
	for _, f := range fields {
		if f.key == "baseConfig" {
			base, ok := configs[f.v.Value]
			if !ok {
				return r, d.fail(f.v, f.path, "no configs.%s above it", f.v.Value)
			}
			bf, err := d.members(base.v, base.path, camel)
			if err != nil {
				return r, err
			}
			fields = append(bf, fields...)
		}
	}
	attempts := r4jAttempts
	wait := r4jWait
	var expo, random bool
	var mult, factor, maxWait *float64
	set := map[string]member{}
	for _, f := range fields {
		set[f.key] = f
		switch f.key {
		case "baseConfig":
		case "maxAttempts":
			if attempts, err = d.integer(f, 2, policy.MaxScan+1); err != nil {
				return r, err
			}
		case "waitDuration", "exponentialMaxWaitDuration":
			x, err := springSeconds(d, f)
			if err != nil {
				return r, err
			}
			if f.key == "waitDuration" {
				if x < 0.001 {
					return r, d.fail(f.v, f.path, "must be at least 1ms (resilience4j counts whole milliseconds), got %q", f.v.Value)
				}
				wait = x
			} else {
				maxWait = &x
			}
		case "enableExponentialBackoff", "enableRandomizedWait":
			b, err := d.boolean(f)
			if err != nil {
				return r, err
			}
			if f.key == "enableExponentialBackoff" {
				expo = b
			} else {
				random = b
			}
		case "exponentialBackoffMultiplier":
			x, err := d.number(f, "a number > 0", func(x float64) bool { return x > 0 })
			if err != nil {
				return r, err
			}
			mult = &x
		case "randomizedWaitFactor":
			x, err := d.number(f, "a number in [0, 1)", func(x float64) bool { return x >= 0 && x < 1 })
			if err != nil {
				return r, err
			}
			factor = &x
		case "retryExceptions", "ignoreExceptions", "retryExceptionPredicate", "resultPredicate":
			r.Rows = append(r.Rows, Row{f.path, "…", "herd's failed calls are taken as the exceptions retried"})
		case "failAfterMaxAttempts", "eventConsumerBufferSize", "registerHealthIndicator", "writableStackTraceEnabled":
			r.Rows = append(r.Rows, Row{f.path, f.v.Value, "not about timing: no effect"})
		case "intervalFunction", "intervalBiFunction":
			return r, d.unsupported(f.k, f.path, "a class of the application's own, which herd cannot read")
		default:
			return r, d.unknown(f.k, f.path, "maxAttempts, waitDuration, enableExponentialBackoff, exponentialBackoffMultiplier, exponentialMaxWaitDuration, enableRandomizedWait, randomizedWaitFactor, baseConfig")
		}
	}
	c := policy.Config{Initial: wait, Multiplier: 1}
	// CommonRetryConfigurationProperties: the max wait counts only with a
	// multiplier (and, with a randomized wait, a factor) given as well.
	ignored := ""
	switch {
	case expo && random:
		c.Multiplier, c.Jitter = r4jMultiplier, r4jFactor
		if mult != nil {
			c.Multiplier = *mult
		}
		if factor != nil && mult != nil {
			c.Jitter = *factor
		}
		if maxWait != nil && factor != nil && mult != nil {
			c.Max = *maxWait
		} else if maxWait != nil {
			ignored = "ignored: resilience4j applies it only with exponentialBackoffMultiplier and randomizedWaitFactor given"
		}
	case expo:
		if mult != nil {
			c.Multiplier = *mult
		} else {
			c.Multiplier = r4jMultiplier
		}
		if maxWait != nil && mult != nil {
			c.Max = *maxWait
		} else if maxWait != nil {
			ignored = "ignored: resilience4j applies it only with exponentialBackoffMultiplier given"
		}
	case random:
		c.Jitter = r4jFactor
		if factor != nil {
			c.Jitter = *factor
		}
	}
	note := func(key, herd string) {
		if f, ok := set[key]; ok {
			r.Rows = append(r.Rows, Row{f.path, f.v.Value, herd})
		} else {
			r.Rows = append(r.Rows, Row{inst.path + "." + key, "(default)", herd})
		}
	}
	note("maxAttempts", fmt.Sprintf("%d retries (--retries %d)", attempts-1, attempts-1))
	note("waitDuration", fmt.Sprintf("I₁ = %g ms", wait*1000))
	if expo {
		note("exponentialBackoffMultiplier", fmt.Sprintf("Iₙ₊₁ = ⌊Iₙ·%g⌋ ms", c.Multiplier))
	}
	if random {
		note("randomizedWaitFactor", fmt.Sprintf("retry n waits Iₙ·U(%g, %g), truncated to whole ms by resilience4j (herd keeps the uniform: under 1 ms apart)", 1-c.Jitter, 1+c.Jitter))
	}
	if f, ok := set["exponentialMaxWaitDuration"]; ok {
		herd := ignored
		if herd == "" {
			herd = fmt.Sprintf("clamps each delay at %s", seconds(c.Max))
			if random {
				herd += ", after the jitter"
			}
		}
		r.Rows = append(r.Rows, Row{f.path, f.v.Value, herd})
	}
	r.Policy = policy.Policy{Kind: policy.Resilience4j, Retries: attempts - 1, Config: c}
	return r, checked(d, inst.v, inst.path, r.Policy)
}

var springDuration = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)(ns|us|ms|s|m|h|d)?$`)

// springSeconds reads a Spring Boot duration: 500ms, 10s, 2m, a plain
// number of milliseconds, or ISO-8601 (PT0.5S).
func springSeconds(d doc, m member) (float64, error) {
	s, err := d.scalar(m)
	if err != nil {
		return 0, err
	}
	t := strings.TrimSpace(s)
	if strings.HasPrefix(strings.ToUpper(t), "PT") {
		if dur, err := time.ParseDuration(strings.ToLower(t[2:])); err == nil && dur >= 0 {
			return dur.Seconds(), nil
		}
	} else if g := springDuration.FindStringSubmatch(t); g != nil {
		x, _ := strconv.ParseFloat(g[1], 64)
		unit := map[string]float64{"ns": 1e-9, "us": 1e-6, "": 1e-3, "ms": 1e-3, "s": 1, "m": 60, "h": 3600, "d": 86400}[g[2]]
		if x*unit <= 1e6 {
			return x * unit, nil
		}
	}
	return 0, d.fail(m.v, m.path, "must be a duration such as 500ms, 10s or PT0.5S, got %q", s)
}

// Polly v8 RetryStrategyOptions as JSON (the options a configuration
// section binds): MaxRetryAttempts, Delay, BackoffType, UseJitter, MaxDelay.

const pollyFormat = "Polly v8 RetryStrategyOptions"

var timeSpan = regexp.MustCompile(`^(?:(\d+)\.)?(\d+):(\d+):(\d+(?:\.\d+)?)$`)

func readPolly(d doc, top *yaml.Node) ([]Reading, error) {
	ms, err := d.members(top, "", same)
	if err != nil {
		return nil, err
	}
	r := Reading{File: d.file, Format: pollyFormat}
	attempts, c := 3, policy.Config{Initial: 2, Shape: policy.Constant}
	given := map[string]bool{}
	for _, m := range ms {
		given[m.key] = true
		switch m.key {
		case "MaxRetryAttempts":
			if attempts, err = d.integer(m, 1, policy.MaxScan); err != nil {
				return nil, err
			}
		case "Delay", "MaxDelay":
			s, err := d.scalar(m)
			if err != nil {
				return nil, err
			}
			g := timeSpan.FindStringSubmatch(strings.TrimSpace(s))
			if g == nil {
				return nil, d.fail(m.v, m.path, "must be a TimeSpan such as \"00:00:02\" or \"00:00:00.500\", got %q", s)
			}
			days, _ := strconv.ParseFloat("0"+g[1], 64)
			h, _ := strconv.ParseFloat(g[2], 64)
			mi, _ := strconv.ParseFloat(g[3], 64)
			sec, _ := strconv.ParseFloat(g[4], 64)
			x := days*86400 + h*3600 + mi*60 + sec
			if m.key == "Delay" {
				c.Initial = x
			} else {
				c.Max = x
			}
		case "BackoffType":
			s, err := d.scalar(m)
			if err != nil {
				return nil, err
			}
			switch strings.ToLower(strings.TrimSpace(s)) {
			case "constant", "0":
				c.Shape = policy.Constant
			case "linear", "1":
				c.Shape = policy.Linear
			case "exponential", "2":
				c.Shape = policy.Exponential
			default:
				return nil, d.fail(m.v, m.path, "must be Constant, Linear or Exponential, got %q", s)
			}
		case "UseJitter":
			if c.Jittered, err = d.boolean(m); err != nil {
				return nil, err
			}
		case "Name":
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, "names the strategy: no effect"})
		default:
			return nil, d.unknown(m.k, m.path, "MaxRetryAttempts, Delay, BackoffType, UseJitter, MaxDelay")
		}
	}
	if c.Max > 0 && c.Max < c.Initial {
		return nil, d.fail(top, "MaxDelay", "must be at least Delay (Polly refuses it)")
	}
	row := func(key, value, herd string) {
		if !given[key] {
			value = "(default)"
		}
		r.Rows = append(r.Rows, Row{key, value, herd})
	}
	row("MaxRetryAttempts", strconv.Itoa(attempts), fmt.Sprintf("%d retries (--retries %d)", attempts, attempts))
	row("Delay", seconds(c.Initial), "d")
	kind := policy.Polly
	switch {
	case c.Shape == policy.Exponential && c.Jittered:
		kind = policy.PollyDecorrelated
		row("BackoffType", "Exponential", "with UseJitter: DecorrelatedJitterBackoffV2, (d/1.4)·(w(t) − w(t_prev)), t = n − 1 + U(0, 1)")
	case c.Shape == policy.Exponential:
		row("BackoffType", "Exponential", "retry n waits 2ⁿ⁻¹·d")
	case c.Shape == policy.Linear:
		row("BackoffType", "Linear", "retry n waits n·d")
	default:
		row("BackoffType", "Constant", "retry n waits d")
	}
	if c.Shape != policy.Exponential {
		if c.Jittered {
			row("UseJitter", "true", "times U(0.75, 1.25)")
		} else {
			row("UseJitter", "false", "no jitter")
		}
	}
	if c.Max > 0 {
		row("MaxDelay", seconds(c.Max), "clamps each delay at "+seconds(c.Max)+", after the jitter")
	}
	r.Policy = policy.Policy{Kind: kind, Retries: attempts, Config: c}
	return []Reading{r}, checked(d, top, "RetryStrategyOptions", r.Policy)
}

// client-go wait.Backoff as JSON or YAML with its Go field names;
// durations are Go durations ("10ms") or integer nanoseconds, as
// encoding/json writes a time.Duration.

const clientGoFormat = "client-go wait.Backoff"

func readClientGo(d doc, top *yaml.Node) ([]Reading, error) {
	ms, err := d.members(top, "", same)
	if err != nil {
		return nil, err
	}
	r := Reading{File: d.file, Format: clientGoFormat}
	var c policy.Config
	steps := 0
	var capS float64
	for _, m := range ms {
		switch m.key {
		case "Duration", "Cap":
			s, err := d.scalar(m)
			if err != nil {
				return nil, err
			}
			dur, perr := time.ParseDuration(strings.TrimSpace(s))
			if perr != nil {
				ns, ierr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
				if ierr != nil {
					return nil, d.fail(m.v, m.path, "must be a Go duration such as \"10ms\" or a number of nanoseconds, got %q", s)
				}
				dur = time.Duration(ns)
			}
			if dur < 0 || dur > 1e6*time.Second {
				return nil, d.fail(m.v, m.path, "must be a duration in [0, 1e6 s], got %q", s)
			}
			if m.key == "Duration" {
				c.Initial = dur.Seconds()
				r.Rows = append(r.Rows, Row{m.path, m.v.Value, "d₁ = " + seconds(c.Initial)})
			} else {
				capS = dur.Seconds()
			}
		case "Factor":
			if c.Multiplier, err = d.number(m, "a number ≥ 0", func(x float64) bool { return x >= 0 && x <= 1e3 }); err != nil {
				return nil, err
			}
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, "dₙ₊₁ = dₙ·" + m.v.Value + " (whole ns)"})
		case "Jitter":
			if c.Jitter, err = d.number(m, "a number ≥ 0", func(x float64) bool { return x >= 0 && x <= 1e3 }); err != nil {
				return nil, err
			}
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, fmt.Sprintf("retry n waits dₙ·U(1, %g)", 1+c.Jitter)})
		case "Steps":
			if steps, err = d.integer(m, 2, policy.MaxScan+1); err != nil {
				return nil, d.fail(m.v, m.path, "must be an integer in [2, %d] (wait.ExponentialBackoff makes Steps attempts), got %q", policy.MaxScan+1, m.v.Value)
			}
		default:
			return nil, d.unknown(m.k, m.path, "Duration, Factor, Jitter, Steps, Cap")
		}
	}
	if steps == 0 {
		return nil, d.fail(top, "Steps", "missing: wait.ExponentialBackoff makes Steps attempts and none without it")
	}
	retries := steps - 1
	r.Rows = append(r.Rows, Row{"Steps", strconv.Itoa(steps), fmt.Sprintf("%d retries", retries)})
	if capS > 0 {
		// Step() zeroes Steps once the next duration would pass Cap, and
		// ExponentialBackoff stops after that sleep: retry n is made only
		// while dₙ₊₁ ≤ Cap.
		p := policy.Policy{Kind: policy.ClientGo, Retries: 1, Config: c}
		n := 1
		for n <= retries && !(c.Multiplier != 0 && clientGoNext(p, n) > capS) {
			n++
		}
		if retries = n - 1; retries == 0 {
			return nil, d.fail(top, "Cap", "ends the loop before the first retry (Duration·Factor passes it): nothing retries")
		}
		r.Rows = append(r.Rows, Row{"Cap", seconds(capS), fmt.Sprintf("a retry limit, not a delay clamp: the step whose next duration passes Cap ends the loop after its sleep, so %d retries (client-go sleeps once more before giving up, which herd's time to give up leaves out)", retries)})
	}
	r.Policy = policy.Policy{Kind: policy.ClientGo, Retries: retries, Config: c}
	return []Reading{r}, checked(d, top, "wait.Backoff", r.Policy)
}

// clientGoNext is the duration Step computes after retry n's sleep: the
// base of retry n + 1.
func clientGoNext(p policy.Policy, n int) float64 { return p.Law(n+1, 0).Lo }
