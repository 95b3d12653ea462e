package sweep_test

import (
	"fmt"

	"github.com/herdlab/herd/sweep"
)

// A grid expands in the order of GridFields, the last field varying
// fastest; fields left out keep model.Default's values.
func ExampleSweepSpec_Points() {
	spec := sweep.SweepSpec{Grid: sweep.Grid{"clients": "100,1000", "policy": "full,equal", "cap": "16:64:*2"}, Trials: 100, Seed: 1}
	points, err := spec.Points()
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, sc := range points[:4] {
		fmt.Printf("N=%d k=%d %s cap %g\n", sc.Clients, sc.Capacity, sc.Policy.Kind, sc.Policy.Cap)
	}
	fmt.Println(len(points), "points")
	// Output:
	// N=100 k=10 full cap 16
	// N=100 k=10 full cap 32
	// N=100 k=10 full cap 64
	// N=100 k=10 equal cap 16
	// 12 points
}

// A Slurm job array of 4 tasks numbered from 1: task 3 runs every 4th point
// from point 2.
func ExampleParseShard() {
	env := map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4", "SLURM_ARRAY_TASK_MIN": "1"}
	sh, err := sweep.ParseShard("auto", func(k string) string { return env[k] })
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sh, sweep.ShardPoints(10, sh))
	// Output:
	// 2/4 [2 6]
}
