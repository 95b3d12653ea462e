package montecarlo

import (
	"math/rand/v2"

	"github.com/herdlab/herd/model"
)

// Trial is what one trial of a scenario records.
type Trial struct {
	Index      int   // trial number i
	Calls      int64 // all arrivals of all ticks, successful or not
	Completion int64 // last tick with a success + 1; meaningless when Censored
	Censored   bool  // the horizon came before every client was served
	Served     int64 // clients served
	// GaveUp counts the clients that stopped retrying at their policy's
	// retry or elapsed-time limit; they are neither served nor pending, so
	// a trial ends when every client is served or gave up.
	GaveUp int64
	Peak   int64 // the largest number of arrivals in one tick
	// Latency[l] counts the clients whose latency (success tick − first
	// send tick + 1) is l ticks; Latency[0] is always 0.
	Latency []int64
	// Arrivals[t] is the number of arrivals at tick t, recorded only when
	// Options.Arrivals is set.
	Arrivals []int64
	// Open is what an open-loop trial records besides (nil otherwise).
	Open *OpenTrial

	// Continuous-time engines (OCC) set Continuous and give the completion
	// as Time, in the scenario's unit (milliseconds), leaving Completion,
	// Peak, Latency and Arrivals, which count whole ticks, empty. When
	// Options.Arrivals is set they record the time of every call, in order,
	// in CallTimes instead.
	Continuous bool
	Time       float64
	CallTimes  []float64
}

func (t *Trial) reset(i int) {
	*t = Trial{Index: i, Latency: t.Latency[:0], Arrivals: t.Arrivals[:0], CallTimes: t.CallTimes[:0]}
}

// CompletionTime is the completion as a real number in the scenario's time
// unit: Time for continuous-time engines, Completion for tick engines.
func (t *Trial) CompletionTime() float64 {
	if t.Continuous {
		return t.Time
	}
	return float64(t.Completion)
}

// served records one success of a client with the given latency.
func (t *Trial) served(latency int) {
	for len(t.Latency) <= latency {
		t.Latency = append(t.Latency, 0)
	}
	t.Latency[latency]++
	t.Served++
}

// An Engine plays trials of one scenario. An Engine is used by one
// goroutine at a time; Run makes one per worker.
type Engine interface {
	// Play runs one trial from the stream src into t, which has been reset.
	// arrivals asks for t.Arrivals.
	Play(src *rand.PCG, t *Trial, arrivals bool)
}

// NewEngine returns the engine for a scenario, or an error naming why the
// scenario cannot be simulated.
func NewEngine(sc model.Scenario) (Engine, error) {
	if err := sc.Validate(); err != nil {
		return nil, err
	}
	if sc.Server == model.OCC {
		return NewOCCEngine(sc)
	}
	return NewClientEngine(sc)
}
