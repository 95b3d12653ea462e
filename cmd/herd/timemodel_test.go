package main

import (
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// The time model's flags are scenario fields: they parse into the
// scenario, and --window alone asks for continuous time.
func TestSimulateTimeParses(t *testing.T) {
	o, errs, code := parse(t, newCmdSimulate, fields("simulate --policy retry-go-v4 -n 200 -k 200/s --window 10ms --latency uniform:2ms,8ms --first-spread 50ms")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	sc := o.Scenario
	if sc.Time != model.ContinuousTime || sc.Window() != 10*time.Millisecond || sc.Capacity != 2 || sc.FirstSpread != 50*time.Millisecond ||
		sc.Latency != (model.RoundTrip{Law: model.UniformTrip, A: 2 * time.Millisecond, B: 8 * time.Millisecond}) {
		t.Errorf("scenario %+v", sc)
	}
	o, _, _ = parse(t, newCmdSimulate, fields("simulate --policy retry-go-v4 --tick 100ms")...)
	if o.Scenario.Time != model.TickTime {
		t.Errorf("--tick alone: %s", o.Scenario.Time)
	}
}

// Continuous time refuses what it cannot mean with exit 2, naming the flag.
func TestContinuousRefusals(t *testing.T) {
	for _, c := range []struct{ args, flag string }{
		{"--time sometimes", "--time"},
		{"--time tick --latency 5ms", "--latency"},
		{"--window 100ms --server collision", "--server"},
		{"--window 100ms --rounding ceil", "--rounding"},
		{"--window 100ms --engine counts", "--engine"},
		{"--window 100ms --rate 5", "--time"},
		{"--latency uniform:9ms,1ms", "--latency"},
		{"--window 100ms --tick 1s", "--window"},
	} {
		out, errs, code := herd(t, append([]string{"simulate", "--trials", "1"}, strings.Fields(c.args)...)...)
		if code != 2 || out != "" || !strings.Contains(errs, c.flag) {
			t.Errorf("herd simulate %s: exit %d, stdout %q, stderr %q", c.args, code, out, errs)
		}
	}
}

// The same seed gives byte-identical
// continuous-time output for any worker count.
func TestContinuousBytesIdenticalAcrossWorkers(t *testing.T) {
	args := fields("simulate -n 300 -k 10 --policy cenkalti-v4 --window 10ms --latency lognormal:5ms,2ms --first-spread 40ms --trials 60 --seed 5 --format json")
	var outs []string
	for _, w := range []string{"1", "2", "7"} {
		out, errs, code := herd(t, append(args, "--workers", w)...)
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		// The provenance line may say the checkout is modified; the rest
		// must be the same bytes.
		outs = append(outs, out[:strings.Index(out, `"provenance"`)])
	}
	if outs[0] != outs[1] || outs[1] != outs[2] {
		t.Errorf("outputs differ between 1, 2 and 7 workers:\n%s\n%s", outs[0], outs[2])
	}
	if !strings.Contains(outs[0], `"time": "continuous"`) || !strings.Contains(outs[0], `"unit": "ms"`) || !strings.Contains(outs[0], `"gave_up"`) {
		t.Errorf("the output does not say continuous time in ms:\n%s", outs[0])
	}
}

// A tick-model run whose policy's jitter is
// within a tick warns (on stderr when the result is JSON).
func TestTickJitterWarns(t *testing.T) {
	_, errs, code := herd(t, fields("simulate --policy retry-go-v4 --tick 100ms --trials 5 --format json")...)
	if code != 0 || !strings.Contains(errs, "jitter is within a tick") || !strings.Contains(errs, "--time continuous") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	_, errs, _ = herd(t, fields("simulate --policy retry-go-v4 --window 100ms --trials 5 --format json")...)
	if strings.Contains(errs, "within a tick") {
		t.Errorf("continuous time warns: %q", errs)
	}
}
