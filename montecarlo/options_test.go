package montecarlo

import (
	"strings"
	"testing"
)

// The trials bound, the workers and the engine's name are checked once
// here, for the CLI and for sweep specs alike.
func TestOptionsValidate(t *testing.T) {
	if err := (Options{Trials: MaxTrials, Use: Counts}).Validate(); err != nil {
		t.Errorf("good options: %v", err)
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Trials: 0}, "trials must be"},
		{Options{Trials: MaxTrials + 1}, "trials must be"},
		{Options{Trials: 1, Workers: -1}, "workers must be"},
		{Options{Trials: 1, Use: "warp"}, "engine must be"},
	} {
		if err := c.opt.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}
