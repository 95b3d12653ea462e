package analysis

import (
	"errors"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
)

func TestPlantedErrorsReachTheModelsOnly(t *testing.T) {
	var o ValidateOptions
	if err := (Planted{Delays: 1, Completion: 1}).Plant(&o); err != nil || o.Perturb != nil || o.PlantMeanField != nil {
		t.Fatalf("no planted error: %v, perturb set %v, plant set %v; want none", err, o.Perturb != nil, o.PlantMeanField != nil)
	}
	if err := (Planted{Delays: 2, Completion: 1.5, Queue: 3}).Plant(&o); err != nil {
		t.Fatal(err)
	}
	sc := model.Default()
	sc.Server, sc.Queue.Timeout, sc.Queue.Limit = model.Queue, 4, 10
	got := o.Perturb(sc)
	if got.Policy.Base != 2*sc.Policy.Base || got.Queue.Timeout != 7 || got.Queue.Limit != 13 {
		t.Errorf("delays ×2 and queue +3: base %g, timeout %d, limit %d; want %g, 7, 13", got.Policy.Base, got.Queue.Timeout, got.Queue.Limit, 2*sc.Policy.Base)
	}
	m := solve.MeanField{Completion: 10}
	o.PlantMeanField(&m)
	if m.Completion != 15 {
		t.Errorf("completion ×1.5 of 10 = %g", m.Completion)
	}
	for _, p := range []Planted{{Delays: 0, Completion: 1}, {Delays: 1, Completion: -1}, {Delays: 1, Completion: 1, Queue: 1001}} {
		var ue *model.UsageError
		if err := p.Plant(&ValidateOptions{}); !errors.As(err, &ue) {
			t.Errorf("%+v: error %v, want a usage error", p, err)
		}
	}
}
