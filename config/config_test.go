package config

import (
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

func readOne(t *testing.T, name string) Reading {
	t.Helper()
	rs, err := Read(filepath.Join("testdata", name), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 {
		t.Fatalf("%s: %d readings, want 1", name, len(rs))
	}
	return rs[0]
}

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Each format maps to the rule, limit and parameters its source's
// semantics give (the values worked out by hand in the comments).
func TestReadsEachFormat(t *testing.T) {
	cases := []struct {
		file    string
		kind    policy.Kind
		retries int
		cfg     policy.Config
	}{
		// maxAttempts 4 includes the first attempt.
		{"grpc.json", policy.GRPC, 3, policy.Config{Initial: 0.1, Multiplier: 2, Max: 1}},
		// Envoy's max_interval defaults to 10 × base_interval.
		{"envoy.yaml", policy.Envoy, 3, policy.Config{Initial: 0.025, Max: 0.25}},
		// retry_mode adaptive plays as standard; max_attempts 4: 3 retries.
		{"aws.config", "aws-go-v2-2026", 3, policy.Config{}},
		// max-attempts 5 from the base config; the max wait applies since
		// the multiplier and the factor are given.
		{"resilience4j.yaml", policy.Resilience4j, 4, policy.Config{Initial: 0.5, Multiplier: 2, Max: 2, Jitter: 0.5}},
		// Exponential with UseJitter is the decorrelated V2 rule.
		{"polly.json", policy.PollyDecorrelated, 6, policy.Config{Initial: 1, Max: 10, Shape: policy.Exponential, Jittered: true}},
		// d = 10, 20, 40, 80 ms: the step after retry 2 computes 80 ms >
		// Cap 50 ms and ends the loop, so 2 retries although Steps is 10.
		{"client-go.yaml", policy.ClientGo, 2, policy.Config{Initial: 0.01, Multiplier: 2, Jitter: 0.1}},
	}
	for _, c := range cases {
		r := readOne(t, c.file)
		p := r.Policy
		if p.Kind != c.kind || p.Retries != c.retries || p.Config != c.cfg {
			t.Errorf("%s: got %s, %d retries, %+v; want %s, %d, %+v", c.file, p.Kind, p.Retries, p.Config, c.kind, c.retries, c.cfg)
		}
		if len(r.Rows) == 0 {
			t.Errorf("%s: no rows", c.file)
		}
	}
	if r := readOne(t, "grpc.json"); r.Throttling != (control.RetryThrottling{MaxTokens: 10, TokenRatio: 0.1}) {
		t.Errorf("grpc throttling %+v", r.Throttling)
	}
	if r := readOne(t, "envoy.yaml"); r.Budget == nil || *r.Budget != (control.EnvoyBudget{BudgetPercent: 20, MinRetryConcurrency: 3}) {
		t.Errorf("envoy budget %+v", r.Budget)
	}
	if r := readOne(t, "aws.config"); r.Bucket != control.AWS2026Bucket {
		t.Errorf("aws bucket %q", r.Bucket)
	}
}

// gRPC: retry n waits U(0, min(0.1·2ⁿ⁻¹, 1)): means 0.05, 0.1, 0.2, 0.4,
// and the cap holds retry 5's ceiling at 1 s.
func TestGRPCLaw(t *testing.T) {
	p := readOne(t, "grpc.json").Policy
	p.Retries = 4
	for n, want := range []float64{0.1, 0.2, 0.4, 0.8} {
		l := p.Law(n+1, 0)
		if l.Lo != 0 || math.Abs(l.Hi-want) > 1e-12 {
			t.Errorf("retry %d: U(%g, %g), want U(0, %g)", n+1, l.Lo, l.Hi, want)
		}
	}
	p.Config.Multiplier = 3 // 0.1, 0.3, 0.9, then 1
	if got := p.Law(4, 0).Sup(); got != 1 {
		t.Errorf("retry 4 with multiplier 3 reaches %g, want the cap 1", got)
	}
	big := writeFile(t, "g.json", `{"methodConfig":[{"retryPolicy":{"maxAttempts":9,"initialBackoff":"1s","maxBackoff":"2s","backoffMultiplier":2,"retryableStatusCodes":["RESOURCE_EXHAUSTED"]}}]}`)
	rs, err := Read(big, Options{})
	if err != nil || rs[0].Policy.Retries != 4 {
		t.Errorf("maxAttempts 9: %v, %+v; want gRPC's cap of 5 attempts (4 retries)", err, rs)
	}
}

// Envoy (≥ 1.14): intervals 25, 50, 100, 200 ms, then 250 (200 is past
// ⌊250/2⌋); retry n waits k ms with k uniform on 0…Iₙ−1.
func TestEnvoyLaw(t *testing.T) {
	p := readOne(t, "envoy.yaml").Policy
	p.Retries = 6
	for n, top := range []float64{24, 49, 99, 199, 249, 249} {
		l := p.Law(n+1, 0)
		if got := l.Sup() * 1000; math.Abs(got-top) > 1e-9 || l.Draw(0) != 0 {
			t.Errorf("retry %d: 0…%g ms, want 0…%g", n+1, got, top)
		}
		// Each of the Iₙ whole milliseconds is equally likely.
		if got, want := l.CDF(0), 1/(top+1); math.Abs(got-want) > 1e-12 {
			t.Errorf("retry %d: P(0 ms) = %g, want %g", n+1, got, want)
		}
	}
	// The docs' reading (2ⁿ−1)·base would put retry 3 up to 174 ms.
	if got := p.Law(3, 0).Sup() * 1000; got > 100 {
		t.Errorf("retry 3 reaches %g ms", got)
	}
}

// Envoy's docs' reading, as its code drew it before 1.14: moduli 25, 75,
// 175, then 375 (the first past max_interval 250), held; a draw of 250 ms
// or more is clamped to 250, so retry 4 waits 250 ms with probability
// 125/375.
func TestEnvoyDocsLaw(t *testing.T) {
	rs, err := Read(filepath.Join("testdata", "envoy.yaml"), Options{Envoy: EnvoyDocs})
	if err != nil {
		t.Fatal(err)
	}
	p := rs[0].Policy
	if p.Kind != policy.EnvoyDocs {
		t.Fatalf("kind %s, want %s", p.Kind, policy.EnvoyDocs)
	}
	p.Retries = 6
	for n, m := range []float64{25, 75, 175, 375, 375, 375} {
		l := p.Law(n+1, 0)
		if got, want := l.Sup()*1000, math.Min(m-1, 250); math.Abs(got-want) > 1e-9 || l.Draw(0) != 0 {
			t.Errorf("retry %d: 0…%g ms, want 0…%g", n+1, got, want)
		}
		if got, want := l.CDF(0), 1/m; math.Abs(got-want) > 1e-12 {
			t.Errorf("retry %d: P(0 ms) = %g, want %g", n+1, got, want)
		}
	}
	if got := 1 - p.Law(4, 0).CDF(0.2495); math.Abs(got-125.0/375) > 1e-12 {
		t.Errorf("retry 4: P(250 ms) = %g, want 1/3", got)
	}
}

// Envoy's budget on 1,000 failures at once: the j-th decision is granted
// while j − 1 < max(⌊0.2·(1000 − j)⌋, 3), true up to j = 166
// (165 < ⌊166.8⌋) and false from j = 167 (166 < ⌊166.6⌋ fails); not
// counting retries in back-off, every one of the 1,000 is granted.
func TestEnvoyBudgetFirstWave(t *testing.T) {
	b := control.DefaultEnvoyBudget()
	if got := b.FirstWave(1000, true); got != 166 {
		t.Errorf("counted: %d of 1000, want 166", got)
	}
	if got := b.FirstWave(1000, false); got != 1000 {
		t.Errorf("not counted: %d of 1000, want 1000", got)
	}
	// Below the minimum concurrency's reach: 10 failures, ⌊0.2·(10−j)⌋ ≤ 1,
	// so the 3 of min_retry_concurrency decide.
	if got := b.FirstWave(10, true); got != 3 {
		t.Errorf("10 failures: %d, want 3", got)
	}
}

// gRPC throttling in an outage, traced by hand from 10 tokens: each
// failure takes one, a retry needs more than 5 left.
func TestOutageRetries(t *testing.T) {
	r := control.RetryThrottling{MaxTokens: 10, TokenRatio: 0.1}
	for _, c := range []struct{ attempts, want int }{
		{0, 4}, // 9, 8, 7, 6 retry; 5 does not
		{5, 4},
		{3, 3}, // request 1: 9 r, 8 r, 7 (3rd attempt); request 2: 6 r, 5; request 3: 4
		{2, 2}, // 9 r, 8; 7 r, 6; 5
	} {
		if got := r.OutageRetries(100, c.attempts); got != c.want {
			t.Errorf("%d attempts: %d retries, want %d", c.attempts, got, c.want)
		}
	}
	if got := (control.RetryThrottling{MaxTokens: 11, TokenRatio: 1}).OutageRetries(100, 0); got != 5 {
		t.Errorf("11 tokens: %d retries, want ⌈11/2⌉ − 1 = 5", got)
	}
}

// resilience4j applies exponentialMaxWaitDuration only with the
// multiplier and the factor given; the interval is ⌊·⌋ in ms.
func TestResilience4jRules(t *testing.T) {
	p := writeFile(t, "r.yaml", "resilience4j:\n  retry:\n    instances:\n      a:\n        waitDuration: 100ms\n        enableExponentialBackoff: true\n        enableRandomizedWait: true\n        exponentialMaxWaitDuration: 1s\n")
	rs, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := rs[0].Policy.Config
	if c.Max != 0 || c.Multiplier != 1.5 || c.Jitter != 0.5 {
		t.Errorf("defaults: %+v, want multiplier 1.5, factor 0.5 and the max ignored", c)
	}
	if !strings.Contains(rowsText(rs[0]), "ignored") {
		t.Errorf("the ignored max wait is not said: %s", rowsText(rs[0]))
	}
	// 100, 150, 225, 337 ms (⌊337.5⌋).
	pol := rs[0].Policy
	if l := pol.Law(4, 0); math.Abs(l.Lo-0.337*0.5) > 1e-12 || math.Abs(l.Hi-0.337*1.5) > 1e-12 {
		t.Errorf("retry 4: U(%g, %g), want 0.337·U(0.5, 1.5)", l.Lo, l.Hi)
	}
}

func rowsText(r Reading) string {
	var b strings.Builder
	for _, row := range r.Rows {
		b.WriteString(row.Field + " " + row.Value + " " + row.Herd + "\n")
	}
	return b.String()
}

// Polly: the constant and linear shapes jitter U(0.75d, 1.25d); MaxDelay
// clamps after.
func TestPollyShapes(t *testing.T) {
	p := writeFile(t, "p.json", `{"MaxRetryAttempts": 4, "Delay": "00:00:00.200", "BackoffType": "Linear", "UseJitter": true, "MaxDelay": "00:00:00.500"}`)
	rs, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol := rs[0].Policy
	if pol.Kind != policy.Polly || pol.Retries != 4 {
		t.Fatalf("%+v", pol)
	}
	l := pol.Law(2, 0) // 0.4·U(0.75, 1.25) = U(0.3, 0.5)
	if math.Abs(l.Lo-0.3) > 1e-12 || math.Abs(l.Hi-0.5) > 1e-12 {
		t.Errorf("retry 2: U(%g, %g)", l.Lo, l.Hi)
	}
	if got := pol.Law(3, 0); got.Draw(0.99) != 0.5 { // 0.6·U(0.75, 1.25) clamped at 0.5
		t.Errorf("retry 3 draws %g at u = 0.99, want the MaxDelay 0.5", got.Draw(0.99))
	}
}

// An unknown field, a field herd cannot play, a field given twice and a
// file of no known format exit 2 naming the file, the line and the field.
func TestRefusals(t *testing.T) {
	cases := []struct{ file, text, want string }{
		{"typo.json", "", "line 6: methodConfig[0].retryPolicy.initialBackof: unknown field"},
		{"t.json", `{"methodConfig":[{"timeout":"1s","retryPolicy":{}}]}`, "methodConfig[0].timeout: not supported"},
		{"e.yaml", "retry_policy:\n  retry_on: 5xx\n  num_retries: 2\n  num_retries: 3\n", "line 4: retry_policy.num_retries: given twice"},
		{"e2.yaml", "retry_policy:\n  retry_on: connect-failure\n", "does not retry a 503"},
		{"c.yaml", "circuit_breakers:\n  thresholds:\n  - max_requests: 10\n", "max_requests: not supported"},
		{"x.yaml", "retries: 3\n", "line 1: retries: not a field of any configuration herd reads"},
		{"a.config", "[default]\naws_secret_access_key = hunter2\n", "line 2: [default].aws_secret_access_key: unknown field"},
		{"p.json", `{"MaxRetryAttempts": 3, "Delay": "2s"}`, "Delay: must be a TimeSpan"},
		{"k.yaml", "Duration: 1s\nFactor: 2\n", "Steps: missing"},
		{"r.yaml", "resilience4j:\n  retry:\n    instances:\n      a:\n        intervalFunction: com.Foo\n", "intervalFunction: not supported"},
	}
	for _, c := range cases {
		path := filepath.Join("testdata", "grpc-typo.json")
		if c.text != "" {
			path = writeFile(t, c.file, c.text)
		}
		_, err := Read(path, Options{})
		var ue *model.UsageError
		if err == nil || !errors.As(err, &ue) {
			t.Errorf("%s: %v, want a usage error", c.file, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %q, want it to name %s and say %q", c.file, err, path, c.want)
		}
		if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: the message repeats an unknown key's value: %q", c.file, err)
		}
	}
}

// CapAtom finds where a cap after the jitter puts the cohort back in step:
// resilience4j's 5 s max wait clamps 8 s·U(0.5, 1.5) at retry 5 with
// probability (12 − 5)/8 = 87.5%; a cap before the jitter (gRPC) never.
func TestCapAtom(t *testing.T) {
	p := writeFile(t, "r.yaml", "resilience4j:\n  retry:\n    instances:\n      a:\n        maxAttempts: 8\n        waitDuration: 500ms\n        enableExponentialBackoff: true\n        exponentialBackoffMultiplier: 2\n        enableRandomizedWait: true\n        randomizedWaitFactor: 0.5\n        exponentialMaxWaitDuration: 5s\n")
	rs, err := Read(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := rs[0].Policy.CapAtom(7); !strings.Contains(got, "at retry 5, 87.5% of clients wait exactly the cap 5 s") {
		t.Errorf("resilience4j: %q", got)
	}
	g := readOne(t, "grpc.json").Policy
	g.Retries, g.Config.Max = 4, 0.3 // ceilings 0.1, 0.2, 0.3, 0.3
	if got := g.CapAtom(4); got != "" {
		t.Errorf("gRPC caps before its jitter, yet %q", got)
	}
}
