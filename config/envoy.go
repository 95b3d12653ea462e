package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/policy"
	"gopkg.in/yaml.v3"
)

// Envoy: a route's retry_policy (envoy.config.route.v3.RetryPolicy) and a
// cluster's circuit_breakers (envoy.config.cluster.v3.CircuitBreakers), side
// by side at the top of the file, in YAML or JSON (either spelling of the
// field names).

const envoyFormat = "Envoy"

// Envoy's defaults: one retry, a 25 ms base interval and a largest
// interval of ten times the base.
const (
	envoyRetries  = 1
	envoyBase     = 0.025
	envoyMaxTimes = 10
)

func readEnvoy(d doc, top *yaml.Node) ([]Reading, error) {
	ms, err := d.members(top, "", snake)
	if err != nil {
		return nil, err
	}
	r := Reading{File: d.file, Format: envoyFormat}
	hasPolicy := false
	for _, m := range ms {
		switch m.key {
		case "retry_policy":
			hasPolicy = true
			if err := readEnvoyPolicy(d, m, &r); err != nil {
				return nil, err
			}
		case "circuit_breakers":
			if err := readCircuitBreakers(d, m, &r); err != nil {
				return nil, err
			}
		default:
			return nil, d.unknown(m.k, m.path, "retry_policy, circuit_breakers")
		}
	}
	if !hasPolicy {
		return nil, d.fail(top, "retry_policy", "missing: herd needs the route's retry policy beside the cluster's circuit breakers")
	}
	return []Reading{r}, nil
}

func readEnvoyPolicy(d doc, pm member, r *Reading) error {
	ms, err := d.members(pm.v, pm.path, snake)
	if err != nil {
		return err
	}
	docs := d.opts.Envoy == EnvoyDocs
	p := policy.Policy{Kind: policy.Envoy, Retries: envoyRetries, Config: policy.Config{Initial: envoyBase}}
	if docs {
		p.Kind = policy.EnvoyDocs
	}
	maxGiven := false
	var retryOn string
	var codes []string
	for _, m := range ms {
		switch m.key {
		case "retry_on":
			retryOn, _ = d.scalar(m)
		case "num_retries":
			n, err := d.integer(m, 1, policy.MaxScan)
			if err != nil {
				return err
			}
			p.Retries = n
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, fmt.Sprintf("%d retries (--retries %d)", n, n)})
		case "per_try_timeout":
			t, err := envoySeconds(d, m)
			if err != nil {
				return err
			}
			r.PerTryTimeout = time.Duration(t * float64(time.Second))
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, "never fires: herd's servers answer every attempt at once (refused with --server queue)"})
		case "retry_back_off":
			bs, err := d.members(m.v, m.path, snake)
			if err != nil {
				return err
			}
			for _, b := range bs {
				x, err := envoySeconds(d, b)
				if err != nil {
					return err
				}
				ms := math.Floor(x * 1000) // Envoy reads whole milliseconds
				switch b.key {
				case "base_interval":
					if ms < 1 {
						ms = 1 // Envoy rounds a shorter base up to 1 ms
					}
					p.Config.Initial = ms / 1000
					r.Rows = append(r.Rows, Row{b.path, b.v.Value, fmt.Sprintf("%g ms: retry 1 waits 0…%g ms", ms, ms-1)})
				case "max_interval":
					maxGiven = true
					p.Config.Max = math.Max(ms, 1) / 1000
					r.Rows = append(r.Rows, Row{b.path, b.v.Value, envoyMaxRow(docs, math.Max(ms, 1))})
				default:
					return d.unknown(b.k, b.path, "base_interval, max_interval")
				}
			}
		case "retriable_status_codes":
			for _, c := range m.v.Content {
				codes = append(codes, c.Value)
			}
			r.Rows = append(r.Rows, Row{m.path, strings.Join(codes, ","), "checked for 503"})
		case "retry_host_predicate", "host_selection_retry_max_attempts", "retry_priority":
			r.Rows = append(r.Rows, Row{m.path, "…", "host selection: herd plays one server, no effect"})
		default:
			return d.unknown(m.k, m.path, "retry_on, num_retries, per_try_timeout, retry_back_off, retriable_status_codes, and retry_host_predicate, host_selection_retry_max_attempts, retry_priority as no effect")
		}
	}
	if !retriesOverload(retryOn, codes) {
		return d.fail(pm.v, pm.path+".retry_on", "%q does not retry a 503, the answer of an overloaded server: herd's failed calls would not be retried (give 5xx, gateway-error, or retriable-status-codes with 503)", retryOn)
	}
	r.Rows = append([]Row{{pm.path + ".retry_on", retryOn, "herd's failed calls (503s) are retried"}}, r.Rows...)
	if !maxGiven {
		p.Config.Max = envoyMaxTimes * p.Config.Initial
		r.Rows = append(r.Rows, Row{pm.path + ".retry_back_off.max_interval", "(default)", "10 × base_interval: " + envoyMaxRow(docs, p.Config.Max*1000)})
	}
	if p.Config.Max < p.Config.Initial {
		return d.fail(pm.v, pm.path+".retry_back_off.max_interval", "must be at least base_interval (Envoy refuses it)")
	}
	code, doc := p, p
	code.Kind, doc.Kind = policy.Envoy, policy.EnvoyDocs
	if docs {
		r.Rows = append(r.Rows, Row{pm.path, "", "retry n waits " + envoyRanges(doc) + " ms: [0, (2ⁿ−1)·base_interval), the router docs' reading (--envoy-backoff docs), which Envoy's code drew before 1.14 (envoyproxy/envoy#10417); Envoy ≥ 1.14 waits " + envoyRanges(code) + " ms (--envoy-backoff code, the default)"})
	} else {
		r.Rows = append(r.Rows, Row{pm.path, "", "retry n waits " + envoyRanges(code) + " ms, as Envoy ≥ 1.14's code draws it (backoff_strategy.cc: random() % an interval that doubles from base_interval); the router docs' [0, (2ⁿ−1)·base_interval), " + envoyRanges(doc) + " ms, was the code before envoyproxy/envoy#10417 (--envoy-backoff docs plays it)"})
	}
	r.Policy = p
	return checked(d, pm.v, pm.path, p)
}

// envoyMaxRow says what max_interval, in ms, does in each drawing.
func envoyMaxRow(docs bool, ms float64) string {
	if docs {
		return fmt.Sprintf("delays are clamped to %g ms", ms)
	}
	return fmt.Sprintf("the interval stops doubling at %g ms", ms)
}

// envoyRanges lists the ranges of the first delays of p, in whole ms.
func envoyRanges(p policy.Policy) string {
	var ranges []string
	for n := 1; n <= min(p.Retries, 6); n++ {
		ranges = append(ranges, fmt.Sprintf("0…%g", math.Round(p.Law(n, 0).Sup()*1000)))
	}
	return strings.Join(ranges, ", ")
}

// retriesOverload reports whether retry_on retries a 503.
func retriesOverload(on string, codes []string) bool {
	for _, c := range strings.Split(on, ",") {
		switch strings.TrimSpace(c) {
		case "5xx", "gateway-error":
			return true
		case "retriable-status-codes":
			if in("503", codes...) {
				return true
			}
		}
	}
	return false
}

// envoySeconds reads a protobuf duration: "0.025s" in YAML or JSON.
func envoySeconds(d doc, m member) (float64, error) {
	s, err := d.scalar(m)
	if err != nil {
		return 0, err
	}
	x, perr := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "s"), 64)
	if !strings.HasSuffix(s, "s") || perr != nil || !(x > 0) || x > 1e6 {
		return 0, d.fail(m.v, m.path, "must be a duration greater than 0 such as \"0.025s\", got %q", s)
	}
	return x, nil
}

func readCircuitBreakers(d doc, cm member, r *Reading) error {
	ms, err := d.members(cm.v, cm.path, snake)
	if err != nil {
		return err
	}
	for _, m := range ms {
		if m.key != "thresholds" {
			return d.unknown(m.k, m.path, "thresholds")
		}
		if m.v.Kind != yaml.SequenceNode {
			return d.fail(m.v, m.path, "want a list of thresholds")
		}
		for i, t := range m.v.Content {
			path := fmt.Sprintf("%s[%d]", m.path, i)
			ts, err := d.members(t, path, snake)
			if err != nil {
				return err
			}
			for _, f := range ts {
				switch f.key {
				case "priority":
					if v := strings.ToUpper(f.v.Value); v != "DEFAULT" {
						return d.unsupported(f.k, f.path, "herd's requests are all of the DEFAULT priority")
					}
				case "retry_budget":
					if r.Budget != nil {
						return d.fail(f.k, f.path, "given twice")
					}
					b, rows, err := readBudget(d, f)
					if err != nil {
						return err
					}
					r.Budget = &b
					r.Rows = append(r.Rows, rows...)
				case "track_remaining":
					r.Rows = append(r.Rows, Row{f.path, f.v.Value, "statistics only: no effect"})
				case "max_connections", "max_pending_requests", "max_requests", "max_retries", "max_connection_pools":
					return d.unsupported(f.k, f.path, "herd does not model Envoy's concurrency limits; leave them out to play the retry policy and budget")
				default:
					return d.unknown(f.k, f.path, "priority, retry_budget, track_remaining")
				}
			}
		}
	}
	return nil
}

func readBudget(d doc, bm member) (control.EnvoyBudget, []Row, error) {
	b := control.DefaultEnvoyBudget()
	var rows []Row
	if bm.v.Kind == yaml.MappingNode {
		ms, err := d.members(bm.v, bm.path, snake)
		if err != nil {
			return b, nil, err
		}
		for _, m := range ms {
			switch m.key {
			case "budget_percent":
				v := m
				if m.v.Kind == yaml.MappingNode { // a Percent message: {value: 20}
					ps, err := d.members(m.v, m.path, snake)
					if err != nil {
						return b, nil, err
					}
					if len(ps) != 1 || ps[0].key != "value" {
						return b, nil, d.fail(m.v, m.path, "want {value: PERCENT}")
					}
					v = ps[0]
				}
				x, err := d.number(v, "a percentage in [0, 100]", func(x float64) bool { return x >= 0 && x <= 100 })
				if err != nil {
					return b, nil, err
				}
				b.BudgetPercent = x
				rows = append(rows, Row{m.path, v.v.Value, "retries outstanding < ⌊" + v.v.Value + "% of active and pending requests⌋"})
			case "min_retry_concurrency":
				n, err := d.integer(m, 0, math.MaxInt32)
				if err != nil {
					return b, nil, err
				}
				b.MinRetryConcurrency = n
				rows = append(rows, Row{m.path, m.v.Value, "or fewer than " + m.v.Value})
			default:
				return b, nil, d.unknown(m.k, m.path, "budget_percent, min_retry_concurrency")
			}
		}
	}
	var waves []string
	for _, n := range []int{10, 100, 1000, 10000} {
		waves = append(waves, fmt.Sprintf("%d of %d", b.FirstWave(n, true), n))
	}
	rows = append(rows, Row{bm.path, fmt.Sprintf("%g%%, %d", b.BudgetPercent, b.MinRetryConcurrency),
		"of requests failing together, Envoy retries " + strings.Join(waves, ", ") +
			fmt.Sprintf(" (retries in back-off counted as outstanding); were they not counted, %d of 1000 (envoyproxy/envoy#30205). Shared by every request through one Envoy: herd computes it here and does not simulate it", b.FirstWave(1000, false))})
	return b, rows, nil
}
