package main

import (
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// delayRows reads the delays of herd delays' JSON.
func delayRows(t *testing.T, out string) []struct {
	N     int
	Delay map[string]struct{ Value, Lo, Hi float64 }
} {
	t.Helper()
	var r struct {
		Retries []struct {
			N     int
			Delay map[string]struct{ Value, Lo, Hi float64 }
		}
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, out)
	}
	return r.Retries
}

// The gRPC retry example (maxAttempts 4, initialBackoff 0.1s, maxBackoff
// 1s, multiplier 2): retry n waits U(0, 0.1·2ⁿ⁻¹), means 0.05, 0.1, 0.2 s,
// and herd says what it read on standard error, keeping stdout JSON.
func TestDelaysConfigGRPC(t *testing.T) {
	out, errs, code := herd(t, "delays", "--config", filepath.Join("testdata", "config", "grpc.json"), "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	rows := delayRows(t, out)
	if len(rows) != 3 {
		t.Fatalf("%d retries, want the 3 of maxAttempts 4", len(rows))
	}
	for i, want := range []float64{0.05, 0.1, 0.2} {
		m := rows[i].Delay["mean"]
		if m.Lo > want || m.Hi < want || math.Abs(m.Value-want) > 1e-5*want {
			t.Errorf("retry %d: mean %+v, want %g", i+1, m, want)
		}
	}
	for _, s := range []string{"methodConfig[0].retryPolicy.maxAttempts", "3 retries", "initialBackoff", "U(0, 0.1 s)"} {
		if !strings.Contains(errs, s) {
			t.Errorf("stderr does not say %q:\n%s", s, errs)
		}
	}
}

// Envoy's retry_policy with num_retries 3 and base_interval 25 ms: three
// delays of whole milliseconds from 0 to 24, 49 and 99 ms as Envoy's code
// (≥ 1.14) draws them, or to 24, 74 and 174 ms, [0, (2ⁿ−1)·25 ms), as
// its router docs say, with --envoy-backoff docs. Either way the table
// names the other reading and the change that parted them.
func TestDelaysConfigEnvoy(t *testing.T) {
	for _, c := range []struct {
		flags []string
		tops  []float64
		other string
	}{
		{nil, []float64{0.024, 0.049, 0.099}, "0…24, 0…74, 0…174 ms"},
		{[]string{"--envoy-backoff", "code"}, []float64{0.024, 0.049, 0.099}, "0…24, 0…74, 0…174 ms"},
		{[]string{"--envoy-backoff", "docs"}, []float64{0.024, 0.074, 0.174}, "0…24, 0…49, 0…99 ms"},
	} {
		args := append([]string{"delays", "--config", filepath.Join("testdata", "config", "envoy.yaml"), "--format", "json"}, c.flags...)
		out, errs, code := herd(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.flags, code, errs)
		}
		rows := delayRows(t, out)
		if len(rows) != 3 {
			t.Fatalf("%v: %d retries, want 3", c.flags, len(rows))
		}
		for i, top := range c.tops {
			lo, hi := rows[i].Delay["min"].Value, rows[i].Delay["max"].Value
			if lo != 0 || math.Abs(hi-top) > 1e-12 {
				t.Errorf("%v: retry %d: %g…%g s, want 0…%g", c.flags, i+1, lo, hi, top)
			}
		}
		if !strings.Contains(errs, c.other) || !strings.Contains(errs, "envoyproxy/envoy#10417") {
			t.Errorf("%v: the table does not name the other reading %q and the change:\n%s", c.flags, c.other, errs)
		}
	}
}

// An unknown field exits 2 naming the file, its line and the field, and
// prints no result.
func TestConfigUnknownFieldExitsTwo(t *testing.T) {
	bad := filepath.Join("..", "..", "config", "testdata", "grpc-typo.json")
	for _, cmd := range [][]string{
		{"delays", "--config", bad},
		{"simulate", "--config", bad},
		{"audit", "--config", bad},
		{"compare", "--config", bad + "," + bad, "--out", t.TempDir()},
	} {
		out, errs, code := herd(t, cmd...)
		if code != 2 || out != "" || !strings.Contains(errs, bad) || !strings.Contains(errs, "line 6: methodConfig[0].retryPolicy.initialBackof: unknown field") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", cmd, code, out, errs)
		}
	}
}

// gRPC retry throttling read from the file plays in herd's engine as the
// table says: in an outage each client of a closed loop (one request at a
// time, 4 attempts each) retries 3 times in all, so calls exceed new
// requests by 10 clients × 3 in every trial.
func TestSimulateConfigThrottling(t *testing.T) {
	out, errs, code := herd(t, "simulate", "--config", filepath.Join("..", "..", "config", "testdata", "grpc.json"),
		"--server", "flaky", "--failure-rate", "1", "--loop", "closed", "--think-time", "1", "-n", "10", "-k", "1000000", "--outage", "0", "--trials", "5", "--format", "json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(errs, "retries at most 4 times in all (3 times when its requests run one after another") {
		t.Errorf("the table does not give the outage's retries:\n%s", errs)
	}
	var r struct {
		Scenario struct {
			Policy string
		}
		Calls       struct{ Mean float64 }
		NewRequests struct{ Mean float64 } `json:"new_requests"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if r.Scenario.Policy != "grpc-a6" || r.Calls.Mean-r.NewRequests.Mean != 30 {
		t.Errorf("policy %s, calls %g, new requests %g: want 10 × 3 retries more calls than requests", r.Scenario.Policy, r.Calls.Mean, r.NewRequests.Mean)
	}
}

// What herd cannot play is refused: Envoy's budget in a simulation, a
// control in a cohort comparison, --policy beside --config, a file of
// several policies where one is played.
func TestConfigRefusals(t *testing.T) {
	data := filepath.Join("..", "..", "config", "testdata")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--config", filepath.Join(data, "envoy.yaml"), "--rate", "1"}, "retry_budget"},
		{[]string{"compare", "--config", filepath.Join(data, "grpc.json") + "," + filepath.Join(data, "polly.json"), "--out", t.TempDir()}, "retryThrottling"},
		{[]string{"delays", "--config", filepath.Join(data, "polly.json"), "--policy", "full"}, "--policy and --config"},
		{[]string{"delays", "--config", filepath.Join(data, "polly.json"), "--base", "2"}, "--base and --config"},
		{[]string{"delays", "--policy", "grpc-a6"}, "read from a retry configuration"},
		{[]string{"delays", "--policy", "envoy-docs"}, "read from a retry configuration"},
		{[]string{"delays", "--envoy-backoff", "docs"}, "give --config with an Envoy retry_policy"},
		{[]string{"simulate", "--envoy-backoff", "code"}, "give --config with an Envoy retry_policy"},
		{[]string{"delays", "--config", filepath.Join(data, "grpc.json"), "--envoy-backoff", "docs"}, "grpc.json holds none"},
		{[]string{"delays", "--config", filepath.Join(data, "envoy.yaml"), "--envoy-backoff", "doc"}, "--envoy-backoff must be one of [code docs], got \"doc\""},
	} {
		out, errs, code := herd(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errs, c.want) {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %q", c.args, code, out, errs, c.want)
		}
	}
}

// compare --config a,b plays each file's policy side by side.
func TestCompareConfigs(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join("testdata", "config", "grpc.json"), filepath.Join("testdata", "config", "envoy.yaml")
	out, errs, code := herd(t, "compare", "-n", "200", "-k", "20/100ms", "--config", a+","+b, "--trials", "50", "--out", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if !strings.Contains(out, a+" vs "+b) {
		t.Errorf("no verdict between the two files:\n%s", out)
	}
}
