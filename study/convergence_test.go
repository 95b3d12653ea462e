package study

import (
	"context"
	"slices"
	"testing"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

func TestLogSpaced(t *testing.T) {
	got := LogSpaced(10, 100000, 10)
	if got[0] != 10 || got[len(got)-1] != 100000 || len(got) != 41 {
		t.Errorf("LogSpaced(10, 100000, 10) = %v…%v (%d values), want 10…100000, 41 values", got[:3], got[len(got)-3:], len(got))
	}
	if !slices.IsSorted(got) || len(slices.Compact(slices.Clone(got))) != len(got) {
		t.Errorf("not strictly increasing: %v", got)
	}
	if got := LogSpaced(10, 20, 10); !slices.Equal(got, []int{10, 13, 16, 20}) {
		t.Errorf("LogSpaced(10, 20, 10) = %v, want [10 13 16 20]", got)
	}
	if got := LogSpaced(1, 3, 1); !slices.Equal(got, []int{1, 3}) {
		t.Errorf("LogSpaced(1, 3, 1) = %v, want [1 3]", got)
	}
	if got := LogSpaced(0, 3, 1); got != nil {
		t.Errorf("LogSpaced(0, 3, 1) = %v, want nil", got)
	}
}

// The running quantiles at the last checkpoint are those Simulate reports
// for the same trials, and each checkpoint sees a prefix of one sequence of
// trials: a study stopped at n gives the path's value at n.
func TestRunningQuantiles(t *testing.T) {
	sc := model.Default()
	sc.Clients = 30
	opt := montecarlo.Options{Seed: 7, Workers: 2}
	conv, err := RunningQuantiles(context.Background(), sc, opt, []float64{0.5, 0.99}, []int{500, 20, 100, 20})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(conv.Paths[0].Trials, []int{20, 100, 500}) {
		t.Fatalf("checkpoints %v, want sorted without repeats [20 100 500]", conv.Paths[0].Trials)
	}
	opt.Trials = 500
	s, err := analysis.Simulate(context.Background(), sc, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, name := range []string{"p50", "p99"} {
		got, want := conv.Paths[i].At[2], s.Completion.Quantiles[name]
		if got.Value != want.Value || got.CI95 != want.CI95 {
			t.Errorf("%s after 500 trials = %v %v, Simulate says %v %v", name, got.Value, got.CI95, want.Value, want.CI95)
		}
	}
	short, err := RunningQuantiles(context.Background(), sc, montecarlo.Options{Seed: 7, Workers: 1}, []float64{0.5, 0.99}, []int{100})
	if err != nil {
		t.Fatal(err)
	}
	for i := range short.Paths {
		if got, want := short.Paths[i].At[0], conv.Paths[i].At[1]; got.Value != want.Value || got.CI95 != want.CI95 {
			t.Errorf("p%g: a 100-trial study gives %v, the path at 100 says %v", short.Paths[i].P, got, want)
		}
	}
	// The p99 of 20 trials cannot be bounded above; of 500 it can.
	if h := conv.Paths[1].HalfWidth(0); h < 1e308 {
		t.Errorf("p99 half-width after 20 trials = %g, want +Inf", h)
	}
	if h := conv.Paths[1].HalfWidth(2); h < 0 || h > 1e308 {
		t.Errorf("p99 half-width after 500 trials = %g, want finite", h)
	}
}

func TestRunningQuantilesRejects(t *testing.T) {
	sc := model.Default()
	for _, c := range []struct {
		ps []float64
		at []int
	}{
		{[]float64{0.5}, nil},
		{[]float64{0.5}, []int{0, 10}},
		{[]float64{1}, []int{10}},
		{[]float64{0}, []int{10}},
	} {
		if _, err := RunningQuantiles(context.Background(), sc, montecarlo.Options{Seed: 1}, c.ps, c.at); err == nil {
			t.Errorf("RunningQuantiles(ps %v, checkpoints %v) accepted", c.ps, c.at)
		}
	}
}

func TestSimulateEach(t *testing.T) {
	var scs []model.Scenario
	for _, n := range []int{10, 20} {
		sc := model.Default()
		sc.Clients = n
		scs = append(scs, sc)
	}
	var calls []int
	opt := montecarlo.Options{Trials: 50, Seed: 3}
	sums, err := analysis.SimulateEach(context.Background(), scs, opt, func(done, total int) { calls = append(calls, done*10+total) })
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(calls, []int{12, 22}) {
		t.Errorf("progress calls %v, want (1 of 2), (2 of 2)", calls)
	}
	for i, sc := range scs {
		one, err := analysis.Simulate(context.Background(), sc, opt)
		if err != nil {
			t.Fatal(err)
		}
		if sums[i].Calls.Mean != one.Calls.Mean || sums[i].Scenario != sc {
			t.Errorf("scenario %d: SimulateEach mean %g, Simulate %g", i, sums[i].Calls.Mean, one.Calls.Mean)
		}
	}
	bad := scs[0]
	bad.Capacity = 0
	if _, err := analysis.SimulateEach(context.Background(), []model.Scenario{scs[0], bad}, opt, nil); err == nil {
		t.Error("an invalid scenario was accepted")
	}
}
