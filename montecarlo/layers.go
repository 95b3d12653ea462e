package montecarlo

import (
	"math/rand/v2"
)

// StackEngine plays one top-level request through a stack of layers: layer
// j (top first) tries its call to the layer below up to Attempts[j] times,
// stopping at the first success, and every call that reaches the bottom
// fails independently with probability Failure. It walks the call tree as
// the layers would, without using the closed form it is checked against
// (model.Amplification). A trial records the bottom calls in Calls and
// Served = 1 when the top-level request succeeded.
type StackEngine struct {
	Failure  float64
	Attempts []int
}

// Play runs one top-level request.
func (e *StackEngine) Play(src *rand.PCG, t *Trial, _ bool) {
	if e.call(src, t, 0) {
		t.Served = 1
		t.Completion = 1
	}
}

// call is one call into layer j; it reports success.
func (e *StackEngine) call(src *rand.PCG, t *Trial, j int) bool {
	if j == len(e.Attempts) {
		t.Calls++
		return uniform(src) >= e.Failure
	}
	for range e.Attempts[j] {
		if e.call(src, t, j+1) {
			return true
		}
	}
	return false
}
