package montecarlo

import (
	"math/rand/v2"
	"testing"

	"github.com/herdlab/herd/model"
)

// BenchmarkContinuousVsTick plays one service, N = 20,000 clients against
// 100 requests per 100 ms window, on the window server's event engine
// (continuous time, "window") and on the per-client tick engine with a
// tick of 100 ms ("clients"), for full jitter and a library preset, and
// the window engine forced to play event by event ("events", its heap).
// The sub-benchmarks alternate under -count, so the engines' calls/s are
// measured side by side; `make bench-continuous` prints the median ratio.
func BenchmarkContinuousVsTick(b *testing.B) {
	for _, policy := range []string{"full", "retry-go-v4"} {
		for _, use := range []EngineName{WindowName, Clients, "events"} {
			b.Run(policy+"/"+string(use), func(b *testing.B) {
				kv := []string{"clients", "20000", "capacity", "100/100ms", "policy", policy}
				if use == Clients {
					kv = append(kv, "tick", "100ms", "time", "tick")
				}
				sc, err := model.ScenarioOf(kv...)
				if err != nil {
					b.Fatal(err)
				}
				var e Engine
				switch use {
				case WindowName:
					e, err = NewWindowEngine(sc)
				case "events":
					var w *WindowEngine
					w, err = NewWindowEngine(sc)
					e = byEvents{w}
				default:
					e, err = NewEngineUsing(sc, use)
				}
				if err != nil {
					b.Fatal(err)
				}
				benchPlay(b, sc, e)
			})
		}
	}
}

// byEvents plays a window engine's trials event by event.
type byEvents struct{ *WindowEngine }

func (e byEvents) Play(src *rand.PCG, t *Trial, arrivals bool) { e.playEvents(src, t, arrivals) }
