package config

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/policy"
	"gopkg.in/yaml.v3"
)

// gRPC service config (gRFC A6 "gRPC Retry Design"; the JSON form of
// grpc.service_config.ServiceConfig, whose fields protobuf JSON also
// accepts in snake_case).

// grpcMaxAttempts is A6's cap: values above 5 are treated as 5.
const grpcMaxAttempts = 5

// grpcCodes are the status codes by name, as the service config spells
// them.
var grpcCodes = []string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND", "ALREADY_EXISTS",
	"PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL",
	"UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

const grpcFormat = "gRPC service config"

func readGRPC(d doc, top *yaml.Node) ([]Reading, error) {
	ms, err := d.members(top, "", camel)
	if err != nil {
		return nil, err
	}
	var (
		out    []Reading
		common []Row
		thr    control.RetryThrottling
	)
	for _, m := range ms {
		switch m.key {
		case "methodConfig":
			if m.v.Kind != yaml.SequenceNode {
				return nil, d.fail(m.v, m.path, "want a list of method configs")
			}
			for i, mc := range m.v.Content {
				r, ok, err := readMethodConfig(d, mc, fmt.Sprintf("methodConfig[%d]", i))
				if err != nil {
					return nil, err
				}
				if ok {
					out = append(out, r)
				}
			}
		case "retryThrottling":
			var rows []Row
			if thr, rows, err = readThrottling(d, m); err != nil {
				return nil, err
			}
			common = append(common, rows...)
		case "loadBalancingPolicy", "loadBalancingConfig", "healthCheckConfig":
			common = append(common, Row{m.path, "…", "not about retries: no effect on herd's model"})
		default:
			return nil, d.unknown(m.k, m.path, "methodConfig, retryThrottling, and loadBalancingPolicy, loadBalancingConfig, healthCheckConfig as no effect")
		}
	}
	if len(out) == 0 {
		return nil, d.fail(top, "methodConfig", "no method config with a retryPolicy: nothing retries")
	}
	for i := range out {
		out[i].Throttling = thr
		out[i].Rows = append(out[i].Rows, common...)
		if thr.MaxTokens != 0 {
			attempts := out[i].Policy.Retries + 1
			out[i].Rows = append(out[i].Rows, Row{"retryThrottling", "", fmt.Sprintf("--retry-throttling, one count per client: a client whose calls all fail retries at most %d times in all (%d times when its requests run one after another with %d attempts each), and one with S successful calls at most ⌈%g/2 + %g·S⌉ − 1 times; so its calls per request stay below 1 + %g + %g/(2·requests)",
				thr.OutageRetries(math.MaxInt32, 0), thr.OutageRetries(math.MaxInt32, attempts), attempts, thr.MaxTokens, thr.TokenRatio, thr.TokenRatio, thr.MaxTokens)})
		}
		if len(out) == 1 {
			out[0].Name = ""
		}
	}
	return out, nil
}

// readMethodConfig reads one method config; ok is false when it has no
// retry policy.
func readMethodConfig(d doc, n *yaml.Node, path string) (Reading, bool, error) {
	r := Reading{File: d.file, Format: grpcFormat}
	ms, err := d.members(n, path, camel)
	if err != nil {
		return r, false, err
	}
	var policyNode *member
	for i, m := range ms {
		switch m.key {
		case "name":
			r.Name = grpcName(m.v)
			r.Rows = append(r.Rows, Row{m.path, r.Name, "names the policy in outputs"})
		case "retryPolicy":
			policyNode = &ms[i]
		case "waitForReady", "maxRequestMessageBytes", "maxResponseMessageBytes":
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, "not about retries: no effect on herd's model"})
		case "timeout":
			return r, false, d.unsupported(m.k, m.path, "an RPC's deadline across all its attempts, which herd does not model; remove it to play the retry policy alone")
		case "hedgingPolicy":
			return r, false, d.unsupported(m.k, m.path, "herd models retries, not hedged requests")
		default:
			return r, false, d.unknown(m.k, m.path, "name, retryPolicy, and waitForReady, maxRequestMessageBytes, maxResponseMessageBytes as no effect")
		}
	}
	if policyNode == nil {
		return r, false, nil
	}
	if err := readRetryPolicy(d, *policyNode, &r); err != nil {
		return r, false, err
	}
	return r, true, nil
}

func grpcName(n *yaml.Node) string {
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return "(all methods)"
	}
	var s []string
	for _, e := range n.Content {
		var svc, meth string
		for i := 0; i+1 < len(e.Content); i += 2 {
			switch e.Content[i].Value {
			case "service":
				svc = e.Content[i+1].Value
			case "method":
				meth = e.Content[i+1].Value
			}
		}
		if meth != "" {
			svc += "/" + meth
		}
		if svc == "" {
			svc = "(all methods)"
		}
		s = append(s, svc)
	}
	return strings.Join(s, " ")
}

func readRetryPolicy(d doc, pm member, r *Reading) error {
	ms, err := d.members(pm.v, pm.path, camel)
	if err != nil {
		return err
	}
	p := policy.Policy{Kind: policy.GRPC}
	got := map[string]bool{}
	for _, m := range ms {
		got[m.key] = true
		switch m.key {
		case "maxAttempts":
			a, err := d.integer(m, 2, math.MaxInt32)
			if err != nil {
				return d.fail(m.v, m.path, "must be an integer ≥ 2 (gRFC A6: the first attempt included), got %q", m.v.Value)
			}
			herd := fmt.Sprintf("%d retries (--retries %d)", min(a, grpcMaxAttempts)-1, min(a, grpcMaxAttempts)-1)
			if a > grpcMaxAttempts {
				herd += "; gRPC treats values above 5 as 5 (gRFC A6)"
			}
			p.Retries = min(a, grpcMaxAttempts) - 1
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, herd})
		case "initialBackoff", "maxBackoff":
			x, err := protoSeconds(d, m)
			if err != nil {
				return err
			}
			if m.key == "initialBackoff" {
				p.Config.Initial = x
				r.Rows = append(r.Rows, Row{m.path, m.v.Value, "retry 1 waits U(0, " + seconds(x) + ")"})
			} else {
				p.Config.Max = x
				r.Rows = append(r.Rows, Row{m.path, m.v.Value, "the ceiling stops growing at " + seconds(x) + " (before the jitter)"})
			}
		case "backoffMultiplier":
			x, err := d.number(m, "a number > 0", func(x float64) bool { return x > 0 })
			if err != nil {
				return err
			}
			p.Config.Multiplier = x
			r.Rows = append(r.Rows, Row{m.path, m.v.Value, "retry n waits U(0, min(initialBackoff·" + m.v.Value + "^(n−1), maxBackoff))"})
		case "retryableStatusCodes":
			herd, err := grpcCodesRow(d, m)
			if err != nil {
				return err
			}
			r.Rows = append(r.Rows, Row{m.path, codesText(m.v), herd})
		case "perAttemptRecvTimeout":
			return d.unsupported(m.k, m.path, "herd's servers answer every attempt at once; a per-attempt timeout never fires there")
		default:
			return d.unknown(m.k, m.path, "maxAttempts, initialBackoff, maxBackoff, backoffMultiplier, retryableStatusCodes")
		}
	}
	for _, f := range []string{"maxAttempts", "initialBackoff", "maxBackoff", "backoffMultiplier", "retryableStatusCodes"} {
		if !got[f] {
			return d.fail(pm.v, pm.path+"."+f, "missing: gRFC A6 requires it (gRPC ignores a retryPolicy without it)")
		}
	}
	r.Policy = p
	return checked(d, pm.v, pm.path, p)
}

// protoSeconds reads a protobuf JSON duration ("0.1s") greater than 0.
func protoSeconds(d doc, m member) (float64, error) {
	s, err := d.scalar(m)
	if err != nil {
		return 0, err
	}
	x, perr := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(s), "s"), 64)
	if !strings.HasSuffix(s, "s") || perr != nil || !(x > 0) || x > 1e6 {
		return 0, d.fail(m.v, m.path, "must be a duration in seconds greater than 0 such as \"0.1s\" (protobuf JSON), got %q", s)
	}
	return x, nil
}

// grpcCodesRow checks the retryable codes: herd's failed calls are the
// answers of an overloaded server, UNAVAILABLE or RESOURCE_EXHAUSTED, so
// one of them must be retried.
func grpcCodesRow(d doc, m member) (string, error) {
	if m.v.Kind != yaml.SequenceNode || len(m.v.Content) == 0 {
		return "", d.fail(m.v, m.path, "must be a non-empty list of status codes (gRFC A6)")
	}
	overload := false
	for _, c := range m.v.Content {
		name := strings.ToUpper(c.Value)
		if n, err := strconv.Atoi(c.Value); err == nil && n >= 0 && n < len(grpcCodes) {
			name = grpcCodes[n]
		}
		if !in(name, grpcCodes...) {
			return "", d.fail(c, m.path, "%q is not a gRPC status code", c.Value)
		}
		overload = overload || name == "UNAVAILABLE" || name == "RESOURCE_EXHAUSTED"
	}
	if !overload {
		return "", d.fail(m.v, m.path, "retries neither UNAVAILABLE nor RESOURCE_EXHAUSTED, the codes an overloaded server answers: herd's failed calls would not be retried")
	}
	return "herd's failed calls (an overloaded server's UNAVAILABLE or RESOURCE_EXHAUSTED) are retried", nil
}

func codesText(n *yaml.Node) string {
	var s []string
	for _, c := range n.Content {
		s = append(s, c.Value)
	}
	return strings.Join(s, ",")
}

func readThrottling(d doc, tm member) (control.RetryThrottling, []Row, error) {
	ms, err := d.members(tm.v, tm.path, camel)
	if err != nil {
		return control.RetryThrottling{}, nil, err
	}
	var t control.RetryThrottling
	var rows []Row
	for _, m := range ms {
		switch m.key {
		case "maxTokens":
			n, err := d.integer(m, 1, 1000)
			if err != nil {
				return t, nil, d.fail(m.v, m.path, "must be an integer in [1, 1000] (gRFC A6), got %q", m.v.Value)
			}
			t.MaxTokens = float64(n)
			rows = append(rows, Row{m.path, m.v.Value, "--throttling-max-tokens " + m.v.Value})
		case "tokenRatio":
			x, err := d.number(m, "a number > 0 (gRFC A6)", func(x float64) bool { return x > 0 })
			if err != nil {
				return t, nil, err
			}
			t.TokenRatio = x
			rows = append(rows, Row{m.path, m.v.Value, "--throttling-token-ratio " + m.v.Value})
		default:
			return t, nil, d.unknown(m.k, m.path, "maxTokens, tokenRatio")
		}
	}
	if t.MaxTokens == 0 || t.TokenRatio == 0 {
		return t, nil, d.fail(tm.v, tm.path, "needs both maxTokens and tokenRatio (gRFC A6)")
	}
	return t, rows, nil
}
