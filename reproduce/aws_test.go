package reproduce

import (
	"context"
	"testing"

	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
)

func TestAWSSeries(t *testing.T) {
	rows, err := ReproduceAWS(context.Background(), []int{10, 20}, []policy.Kind{policy.Full, policy.Expo}, montecarlo.Options{Trials: 20, Seed: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	calls, time := AWSCallsVersusClients(rows), AWSTimeVersusClients(rows)
	if len(calls) != 2 || calls[0].Policy != "full" || len(calls[0].Points) != 2 || calls[0].Points[1].X != 20 {
		t.Fatalf("calls series %+v", calls)
	}
	if calls[1].Points[0].Mean != rows[1].Calls.Mean || time[0].Points[1].Mean != rows[2].Completion.Mean || time[0].Unit != "ms" {
		t.Fatalf("series do not carry the rows' estimates")
	}
}
