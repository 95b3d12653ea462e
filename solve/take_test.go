package solve

import (
	"errors"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
)

func TestTakeGivesTheChainWhatOnlyItFollows(t *testing.T) {
	none := func(string) bool { return false }
	tr := model.DefaultTraffic(1)
	for _, c := range []struct {
		method string
		mode   model.RunMode
		ctl    control.Controls
		given  func(string) bool
		want   string
	}{
		{MethodMarkov, model.OpenRun, control.Controls{}, none, "--rate: open-loop traffic needs --method chain (the other models follow a cohort without controls)"},
		{MethodClosed, model.CohortRun, control.Controls{MaxAttempts: 2}, none, "--max-attempts: retry controls need --method chain (the other models follow a cohort without controls)"},
		{MethodClosed, model.CohortRun, control.Controls{Budget: control.DefaultRetryBudget()}, none, "--retry-budget: retry controls need --method chain (the other models follow a cohort without controls)"},
		{MethodMeanField, model.CohortRun, control.Controls{}, func(n string) bool { return n == "max-queue" }, "--max-queue needs --method chain"},
		{MethodChain, model.ClosedRun, control.Controls{}, none, "--loop closed: the chain follows a cohort or open-loop traffic (--rate)"},
	} {
		var o Options
		err := o.Take(c.method, c.mode, tr, c.ctl, QueueChainOptions{}, c.given)
		var ue *model.UsageError
		if !errors.As(err, &ue) || err.Error() != c.want {
			t.Errorf("%s, mode %d: error %v, want the usage error %q", c.method, c.mode, err, c.want)
		}
	}
	var o Options
	if err := o.Take(MethodChain, model.OpenRun, tr, control.Controls{MaxAttempts: 2}, QueueChainOptions{MaxBacklog: 7}, none); err != nil {
		t.Fatal(err)
	}
	if o.Traffic == nil || o.Traffic.Ticks != tr.Ticks || o.Controls.MaxAttempts != 2 || o.Chain.MaxBacklog != 7 || o.Chain.Tail != DefaultChainTail {
		t.Errorf("chain with open-loop traffic: options %+v, want its traffic, controls and bounds", o)
	}
}
