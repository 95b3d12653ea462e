package service

import (
	"context"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/herdlab/herd/stats"
)

func exponential(mean time.Duration) Law {
	return Law{Exp: true, Mean: mean}
}

// mm1 is an M/M/1 run: Poisson λ, exponential service of mean 1/μ, an
// unbounded room, no timeouts, no network.
func mm1(lambda float64, mean time.Duration, secs int) Run {
	return Run{
		Server:   Server{Workers: 1, Service: exponential(mean), Room: -1},
		Load:     Load{{Rate: lambda}},
		Duration: time.Duration(secs) * time.Second, Attempts: 1,
	}
}

func playService(t *testing.T, run Run, trials, workers int) []Trial {
	t.Helper()
	var out []Trial
	err := RunTrials(context.Background(), run, Options{Trials: trials, Seed: 7, Workers: workers}, func(tr *Trial) error {
		c := *tr
		c.Bins = append([]Bin(nil), tr.Bins...)
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// The M/M/1 queue's time-average number in system is ρ/(1 − ρ); bin ends
// sample it (after a warm-up of 10 s, far beyond the queue's relaxation
// time of about 1/(μ(1 − √ρ)²) ≈ 1.2 s).
func TestServiceMM1NumberInSystem(t *testing.T) {
	trials := playService(t, mm1(5, 100*time.Millisecond, 100), 300, 2)
	var m stats.Moments
	for _, tr := range trials {
		sum := 0.0
		for _, b := range tr.Bins[10:] {
			sum += float64(b.Backlog)
		}
		m.Add(sum / float64(len(tr.Bins)-10))
	}
	e := m.Estimate()
	if want := 1.0; math.Abs(e.Mean-want) > 4*e.SE() {
		t.Errorf("mean in system %.4f ± %.4f (SE), want ρ/(1−ρ) = %g", e.Mean, e.SE(), want)
	}
}

// Two workers and no waiting room lose a share of sends given by Erlang's
// B formula, A²/2 / (1 + A + A²/2) with A = λ·E[S] = 1: 0.2.
func TestServiceErlangLoss(t *testing.T) {
	run := mm1(10, 100*time.Millisecond, 100)
	run.Server.Workers, run.Server.Room = 2, 0
	trials := playService(t, run, 200, 2)
	var m stats.Moments
	for _, tr := range trials {
		w := tr.Window(1, 0, 100)
		m.Add(float64(w.Rejections) / float64(w.Sends))
	}
	e := m.Estimate()
	if want := 0.2; math.Abs(e.Mean-want) > 4*e.SE() {
		t.Errorf("loss %.4f ± %.4f (SE), want Erlang B = %g", e.Mean, e.SE(), want)
	}
}

// Even arrivals bring exactly ⌊Λ(D)⌋ new requests, the k-th when the
// load's integral reaches k, steps and ramps alike.
func TestServiceEvenArrivals(t *testing.T) {
	load, err := ParseLoad("0s:7/s,10s:3/s,~20s:13/s")
	if err != nil {
		t.Fatal(err)
	}
	run := mm1(1, 10*time.Millisecond, 30)
	run.Duration += 500 * time.Millisecond
	run.Load, run.Arrivals, run.Server.Workers = load, Even, 0
	// 70 + a ramp from 3 to 13 over 10 s (80) + 10.5 s at 13 (136.5).
	tr := playService(t, run, 1, 1)[0]
	if got := tr.Window(1, 0, 31).Starts; got != 286 {
		t.Errorf("even arrivals: %d new requests, want ⌊286.5⌋", got)
	}
	// k/7 for k = 1…6 fall in [0, 1); the seventh at 1 s in the next bin.
	if got := tr.Window(1, 0, 1).Starts; got != 6 {
		t.Errorf("first second: %d, want 6", got)
	}
}

// A trial depends on the seed and its index alone, whatever the workers.
func TestServiceSameWhateverWorkers(t *testing.T) {
	run := mm1(8, 100*time.Millisecond, 30)
	run.Server.Timeout, run.Attempts, run.Server.Room = 500*time.Millisecond, 3, 10
	run.Policy.Kind, run.Policy.Base, run.Policy.Cap = "full", 0.1, 1
	run.Server.Network = exponential(10 * time.Millisecond)
	a, b := playService(t, run, 40, 1), playService(t, run, 40, 3)
	if !reflect.DeepEqual(a, b) {
		t.Error("results differ between 1 and 3 workers")
	}
}
