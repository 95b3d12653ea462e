package model_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
)

// A large cohort is refused at its first retries, within
// a second and before its states fill memory (it ran past 120 s and 11 GB).
func TestMarkovLargeCohortRefusedEarly(t *testing.T) {
	for _, n := range []int{3000, 10000} {
		sc := model.Default()
		sc.Clients, sc.Capacity = n, 2
		start := time.Now()
		_, err := solve.MarkovChain(sc, solve.MarkovOptions{})
		var u *solve.Unsupported
		if !errors.As(err, &u) || !u.Limit || !strings.Contains(err.Error(), "--max-states") || !strings.Contains(err.Error(), "meanfield") || time.Since(start) > 2*time.Second {
			// Refused before tick 1 is built: microseconds (N = 10⁴ took
			// 3.5 s building tick 1 before, the first version 685 s).
			t.Errorf("N=%d: %v after %v, want a limit naming --max-states and meanfield within a second", n, err, time.Since(start))
		}
	}
}

// Meanfield estimates its per-tick series before the
// recursion and refuses beyond its budget, naming --clients.
func TestMeanFieldRefusedBeforeAllocating(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 10_000_000, 1
	_, err := solve.MeanFieldModel(sc, solve.MeanFieldOptions{})
	var fe *model.FieldError
	if !errors.As(err, &fe) || fe.Flag != "clients" {
		t.Errorf("%v, want a FieldError naming --clients", err)
	}
}

// A cancelled context ends a long chain between two of
// its states (N = 14, k = 2 propagates for over ten seconds before its
// state limit refuses it).
func TestMarkovHonoursContext(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 14, 2
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := solve.MarkovChain(sc, solve.MarkovOptions{Context: ctx})
	if !errors.Is(err, context.DeadlineExceeded) || time.Since(start) > 2*time.Second {
		t.Errorf("%v after %v; want the context's error within a second of the cancel", err, time.Since(start))
	}
}
