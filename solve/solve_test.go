package solve_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/solve"
)

// Solve gives each method's own answer: the closed form's certain values,
// the chain's exact moments, the mean field's means without an sd.
func TestSolveDispatches(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 8, 2, policy.Expo
	opt := solve.DefaultSolveOptions()

	closed, err := solve.ClosedForm(sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := solve.Solve(solve.MethodClosed, sc, opt)
	if err != nil || s.Method != solve.MethodClosed || s.Closed == nil || !s.KnowsSD ||
		s.Calls != (solve.Moment{Mean: float64(closed.Calls)}) || s.Completion != (solve.Moment{Mean: float64(closed.Completion)}) {
		t.Errorf("closed: %+v, %v", s, err)
	}

	sc.Policy.Kind = policy.Full
	chain, err := solve.MarkovChain(sc, solve.MarkovOptions{MaxStates: opt.MaxStates})
	if err != nil {
		t.Fatal(err)
	}
	s, err = solve.Solve(solve.MethodMarkov, sc, opt)
	if err != nil || s.Markov == nil || !s.KnowsSD || s.Calls != chain.Calls || s.Completion != chain.Completion {
		t.Errorf("markov: %+v, %v", s, err)
	}

	mf, err := solve.MeanFieldModel(sc, solve.MeanFieldOptions{Grid: opt.Grid})
	if err != nil {
		t.Fatal(err)
	}
	s, err = solve.Solve(solve.MethodMeanField, sc, opt)
	if err != nil || s.MeanField == nil || s.KnowsSD || s.Calls.Mean != mf.Calls || s.Completion.Mean != mf.Completion {
		t.Errorf("meanfield: %+v, %v", s, err)
	}

	// A scenario a model cannot answer is the model's own refusal.
	if _, err := solve.Solve(solve.MethodClosed, sc, opt); err == nil || !strings.Contains(err.Error(), "random") {
		t.Errorf("closed form of full jitter: %v", err)
	}
}

// Bad options and unknown methods are field errors naming the flag.
func TestCheckMethod(t *testing.T) {
	ok := solve.DefaultSolveOptions()
	for _, c := range []struct {
		method string
		opt    solve.Options
		flag   string
	}{
		{"exact", ok, "method"},
		{"", ok, "method"},
		{solve.MethodMarkov, solve.Options{MaxStates: 0, Grid: 1}, "max-states"},
		{solve.MethodMeanField, solve.Options{MaxStates: 1, Grid: -1}, "grid"},
		{solve.MethodMeanField, solve.Options{MaxStates: 1, Grid: solve.MaxGrid + 1}, "grid"},
	} {
		var fe *model.FieldError
		if err := solve.CheckMethod(c.method, c.opt); !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("CheckMethod(%q, %+v) = %v, want a field error for --%s", c.method, c.opt, err, c.flag)
		}
		if _, err := solve.Solve(c.method, model.Default(), c.opt); !errors.As(err, &fe) {
			t.Errorf("Solve(%q, %+v) = %v, want the field error", c.method, c.opt, err)
		}
	}
	for _, m := range solve.Methods() {
		if err := solve.CheckMethod(m, ok); err != nil {
			t.Errorf("%s: %v", m, err)
		}
	}
}

// In the cohort an attempt limit A is the retry limit A − 1, the smaller of
// it and the policy's own; open-loop controls are refused.
func TestControlsInCohort(t *testing.T) {
	sc := model.Default()
	for _, c := range []struct{ attempts, retries, want int }{
		{0, 0, 0}, {0, 4, 4}, {3, 0, 2}, {3, 5, 2}, {3, 1, 1}, {2, 0, 1},
	} {
		sc.Policy.Retries = c.retries
		got, err := control.Controls{MaxAttempts: c.attempts}.InCohort(sc)
		if err != nil || got.Policy.Retries != c.want {
			t.Errorf("--max-attempts %d --retries %d: retries %d (%v), want %d", c.attempts, c.retries, got.Policy.Retries, err, c.want)
		}
	}
	for _, ctl := range []control.Controls{
		{MaxAttempts: 1},
		{Bucket: control.DefaultBucket(control.AWSBucket)},
		{Breaker: control.DefaultBreaker()},
	} {
		if _, err := ctl.InCohort(model.Default()); err == nil || !strings.Contains(err.Error(), "open-loop mode (--rate)") {
			t.Errorf("%s in the cohort: %v, want a refusal naming --rate", ctl, err)
		}
	}
}

// Solve answers one scenario by the method a user names. Without jitter the
// cohort's waits are certain, and the three models agree on the seed
// article's row N = 100, expo: 550 calls, completion 191.
func ExampleSolve() {
	sc := model.Default() // N = 100, k = 10, base 1, cap 32
	sc.Policy.Kind = policy.Expo
	for _, method := range solve.Methods() {
		s, err := solve.Solve(method, sc, solve.DefaultSolveOptions())
		if err != nil {
			fmt.Printf("%s: %v\n", method, err)
			continue
		}
		fmt.Printf("%s: calls %.0f, completion %.0f\n", method, s.Calls.Mean, s.Completion.Mean)
	}
	// Output:
	// closed: calls 550, completion 191
	// markov: calls 550, completion 191
	// meanfield: calls 550, completion 191
	// chain: chain: the chain follows the queue server (--server queue); for the capacity server use markov
}
