package montecarlo_test

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// A plan validates the run, chooses its engine once and sizes it within the
// memory budget before anything is allocated; its Run folds the trials in
// index order, so the result is the same for any number of workers.
func ExampleNewPlan() {
	sc := model.Default() // 100 clients, capacity 10 per tick, full jitter
	plan, err := montecarlo.NewPlan(sc, montecarlo.Cohort{}, montecarlo.Options{Trials: 200, Seed: 1, Use: montecarlo.Auto})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("engine:", plan.Choice.Engine)
	served, trials := int64(0), 0
	_ = plan.Run(context.Background(), func(t *montecarlo.Trial) error {
		served += t.Served
		trials++
		return nil
	})
	fmt.Println("trials:", trials, "clients served per trial:", served/int64(trials))
	// Output:
	// engine: counts
	// trials: 200 clients served per trial: 100
}

// A kind of run that has its own engine refuses another one, naming why.
func ExampleNewPlan_refusal() {
	sc := model.Default()
	tr := model.Traffic{Rate: 16, Ticks: 200}
	_, err := montecarlo.NewPlan(sc, montecarlo.OpenLoop{Traffic: tr}, montecarlo.Options{Trials: 10, Use: montecarlo.Counts})
	fmt.Println(err)
	// Output:
	// the count engine (--engine counts) cannot play open-loop traffic (--rate), which has its own engine (requests arrive and leave, there is no cohort to count); leave out --engine (or use --engine auto)
}
