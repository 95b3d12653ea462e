package montecarlo_test

import (
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

// ExampleEngines names the engines that play a set of scenarios, each once
// in the order it first plays: the AWS blog's OCC scenario has its own
// event engine, and a cohort on the capacity server is counted unless
// --engine asks for one engine per client; a limiter in continuous time
// plays on the window server's event engine.
func ExampleEngines() {
	occ := model.AWSScenario(10, policy.Full)
	cohort := model.Default()
	fmt.Println(montecarlo.Engines(montecarlo.Default, occ, cohort, occ))
	fmt.Println(montecarlo.Engines(montecarlo.Clients, cohort))
	limiter, _ := model.ScenarioOf("clients", "2000", "capacity", "50/100ms", "policy", "retry-go-v4")
	fmt.Println(montecarlo.Engines(montecarlo.Default, limiter))
	// Output:
	// events, counts
	// clients
	// window
}
