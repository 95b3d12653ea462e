package model_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

// Solve gives each method's own answer: the closed form's certain values,
// the chain's exact moments, the mean field's means without an sd.
func TestSolveDispatches(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Policy.Kind = 8, 2, model.Expo
	opt := model.DefaultSolveOptions()

	closed, err := model.ClosedForm(sc)
	if err != nil {
		t.Fatal(err)
	}
	s, err := model.Solve(model.MethodClosed, sc, opt)
	if err != nil || s.Method != model.MethodClosed || s.Closed == nil || !s.KnowsSD ||
		s.Calls != (model.Moment{Mean: float64(closed.Calls)}) || s.Completion != (model.Moment{Mean: float64(closed.Completion)}) {
		t.Errorf("closed: %+v, %v", s, err)
	}

	sc.Policy.Kind = model.Full
	chain, err := model.MarkovChain(sc, model.MarkovOptions{MaxStates: opt.MaxStates})
	if err != nil {
		t.Fatal(err)
	}
	s, err = model.Solve(model.MethodMarkov, sc, opt)
	if err != nil || s.Markov == nil || !s.KnowsSD || s.Calls != chain.Calls || s.Completion != chain.Completion {
		t.Errorf("markov: %+v, %v", s, err)
	}

	mf, err := model.MeanFieldModel(sc, model.MeanFieldOptions{Grid: opt.Grid})
	if err != nil {
		t.Fatal(err)
	}
	s, err = model.Solve(model.MethodMeanField, sc, opt)
	if err != nil || s.MeanField == nil || s.KnowsSD || s.Calls.Mean != mf.Calls || s.Completion.Mean != mf.Completion {
		t.Errorf("meanfield: %+v, %v", s, err)
	}

	// A scenario a model cannot answer is the model's own refusal.
	if _, err := model.Solve(model.MethodClosed, sc, opt); err == nil || !strings.Contains(err.Error(), "random") {
		t.Errorf("closed form of full jitter: %v", err)
	}
}

// Bad options and unknown methods are field errors naming the flag.
func TestCheckMethod(t *testing.T) {
	ok := model.DefaultSolveOptions()
	for _, c := range []struct {
		method string
		opt    model.SolveOptions
		flag   string
	}{
		{"exact", ok, "method"},
		{"", ok, "method"},
		{model.MethodMarkov, model.SolveOptions{MaxStates: 0, Grid: 1}, "max-states"},
		{model.MethodMeanField, model.SolveOptions{MaxStates: 1, Grid: -1}, "grid"},
		{model.MethodMeanField, model.SolveOptions{MaxStates: 1, Grid: model.MaxGrid + 1}, "grid"},
	} {
		var fe *model.FieldError
		if err := model.CheckMethod(c.method, c.opt); !errors.As(err, &fe) || fe.Flag != c.flag {
			t.Errorf("CheckMethod(%q, %+v) = %v, want a field error for --%s", c.method, c.opt, err, c.flag)
		}
		if _, err := model.Solve(c.method, model.Default(), c.opt); !errors.As(err, &fe) {
			t.Errorf("Solve(%q, %+v) = %v, want the field error", c.method, c.opt, err)
		}
	}
	for _, m := range model.Methods() {
		if err := model.CheckMethod(m, ok); err != nil {
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
		got, err := model.Controls{MaxAttempts: c.attempts}.InCohort(sc)
		if err != nil || got.Policy.Retries != c.want {
			t.Errorf("--max-attempts %d --retries %d: retries %d (%v), want %d", c.attempts, c.retries, got.Policy.Retries, err, c.want)
		}
	}
	for _, ctl := range []model.Controls{
		{MaxAttempts: 1},
		{Bucket: model.DefaultBucket(model.AWSBucket)},
		{Breaker: model.DefaultBreaker()},
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
	sc.Policy.Kind = model.Expo
	for _, method := range model.Methods() {
		s, err := model.Solve(method, sc, model.DefaultSolveOptions())
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
}
