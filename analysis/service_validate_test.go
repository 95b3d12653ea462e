package analysis

import (
	"context"
	"testing"
)

// The service chain agrees with the engine on every case of its grid, and
// a chain whose service is 5% slower than the engine's fails.
func TestServiceChainAgainstEngine(t *testing.T) {
	grid := serviceValidationGrid()
	if !longSuite {
		grid = grid[2:3]
	}
	for _, plant := range []float64{1, 1.05} {
		opt := ValidateOptions{Seed: 1}
		if plant != 1 {
			opt.PerturbService = PerturbService(plant)
		}
		v, err := Validate(context.Background(), grid, opt)
		if err != nil {
			t.Fatal(err)
		}
		if plant == 1 && v.Failed > 0 {
			for _, c := range v.Checks {
				if c.Verdict == Fail {
					t.Errorf("%s %s: chain %g, engine %v: %s", c.Run, c.Quantity, float64(c.Model), c.MonteCarlo, c.Detail)
				}
			}
		}
		if plant != 1 && v.Failed == 0 {
			t.Errorf("a chain with service %g× slower passed every check", plant)
		}
	}
}
