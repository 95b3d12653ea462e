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
// --engine asks for one engine per client.
func ExampleEngines() {
	occ := model.AWSScenario(10, policy.Full)
	cohort := model.Default()
	fmt.Println(montecarlo.Engines(montecarlo.Default, occ, cohort, occ))
	fmt.Println(montecarlo.Engines(montecarlo.Clients, cohort))
	// Output:
	// events, counts
	// clients
}
