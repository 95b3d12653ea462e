package montecarlo

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

type panicEngine struct{}

func (panicEngine) Play(*rand.PCG, *Trial, bool) { panic("engine bug") }

// A panic in an engine's goroutine reaches the caller's
// goroutine (where main recovers it as an internal error) with the
// engine's stack, instead of killing the process with exit 2.
func TestEnginePanicReachesTheCaller(t *testing.T) {
	defer func() {
		r := recover()
		msg, _ := r.(string)
		if !strings.Contains(msg, "engine bug") || !strings.Contains(msg, "panicEngine") {
			t.Errorf("recovered %v, want the engine's panic with its stack", r)
		}
	}()
	build := func(model.Scenario) (Engine, error) { return panicEngine{}, nil }
	Run(context.Background(), model.Default(), Options{Trials: 4, Seed: 1, Workers: 2, build: build}, func(*Trial) error { return nil })
	t.Error("Run returned after an engine panicked")
}
