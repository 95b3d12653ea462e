package model_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
)

// Issue 14, item 3: a large cohort is refused at its first retries, within
// a second and before its states fill memory (it ran past 120 s and 11 GB).
func TestMarkovLargeCohortRefusedEarly(t *testing.T) {
	for _, n := range []int{3000, 10000} {
		sc := model.Default()
		sc.Clients, sc.Capacity = n, 2
		start := time.Now()
		_, err := model.MarkovChain(sc, model.MarkovOptions{})
		if err == nil || !strings.Contains(err.Error(), "successors") || time.Since(start) > 20*time.Second {
			// 0.65 s measured at load 12; the old code ran 685 s. The bound
			// leaves room for a machine running other suites at once.
			t.Errorf("N=%d: %v after %v, want a refusal within seconds", n, err, time.Since(start))
		}
	}
}

// Issue 14, item 3: meanfield estimates its per-tick series before the
// recursion and refuses beyond its budget, naming --clients.
func TestMeanFieldRefusedBeforeAllocating(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 10_000_000, 1
	_, err := model.MeanFieldModel(sc, model.MeanFieldOptions{})
	var fe *model.FieldError
	if !errors.As(err, &fe) || fe.Flag != "clients" {
		t.Errorf("%v, want a FieldError naming --clients", err)
	}
}
