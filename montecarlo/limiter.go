package montecarlo

import (
	"math"
	"math/rand/v2"

	"github.com/herdlab/herd/model"
)

// A gate is a limiter server's admission rule in the window engine: asked
// at every arrival in time order (times in windows), it says whether the
// arrival is admitted and when the server answers it. The window server
// has no gate (the engine counts its windows itself).
type gate interface {
	// reset starts a trial, drawing what the trial needs from src.
	reset(src *rand.PCG)
	admit(a float64) (ok bool, answered float64)
}

// newGate is the scenario's gate, nil for the window server.
func newGate(sc model.Scenario) gate {
	ms := float64(sc.Window()) / 1e6
	switch sc.Server {
	case model.TokenBucket:
		return &bucketGate{rate: float64(sc.Capacity), size: float64(sc.Limiter.Burst)}
	case model.GCRA:
		return &nginxGate{ms: ms, rate: sc.RateMilli(), burst: int64(sc.Limiter.Burst) * 1000, nodelay: sc.Limiter.Nodelay}
	}
	return nil
}

// bucketGate is the token bucket: size tokens at most, rate tokens per
// window, full at the start.
type bucketGate struct {
	rate, size   float64
	tokens, last float64
}

// wholeToken is how close to a whole token a bucket must be to admit: the
// tokens are sums of rate·Δt in floating point, and a refill that is a
// whole number of tokens may come out a rounding error short.
const wholeToken = 1 - 1e-9

func (g *bucketGate) reset(*rand.PCG) { g.tokens, g.last = g.size, math.Inf(-1) }

func (g *bucketGate) admit(a float64) (bool, float64) {
	if a > g.last {
		g.tokens = math.Min(g.size, g.tokens+g.rate*(a-g.last))
		g.last = a
	}
	if g.tokens < wholeToken {
		return false, a
	}
	g.tokens--
	return true, a
}

// nginxGate is ngx_http_limit_req_module's rule for one key, in its own
// integer arithmetic: excess in thousandths of a request, rate in
// thousandths per second, time in whole milliseconds of its clock. The
// clock's phase against the trial's start is uniform on one millisecond,
// drawn per trial.
type nginxGate struct {
	ms            float64 // one window in ms
	rate, burst   int64
	nodelay       bool
	phase         float64 // ms
	fresh         bool    // no request yet: the key has no node
	excess, lastM int64
}

func (g *nginxGate) reset(src *rand.PCG) {
	g.phase, g.fresh, g.excess, g.lastM = uniform(src), true, 0, 0
}

func (g *nginxGate) admit(a float64) (bool, float64) {
	now := int64(math.Floor(a*g.ms + g.phase))
	if g.fresh { // a new node: excess 0
		g.fresh, g.excess, g.lastM = false, 0, now
		return true, a
	}
	elapsed := max(now-g.lastM, 0)
	drain := int64(math.MaxInt64)
	if elapsed < math.MaxInt64/max(g.rate, 1) {
		drain = g.rate * elapsed / 1000
	}
	excess := int64(0)
	if drain < g.excess+1000 {
		excess = g.excess - drain + 1000
	}
	if excess > g.burst {
		return false, a
	}
	g.excess, g.lastM = excess, now
	if g.nodelay || excess == 0 {
		return true, a
	}
	delay := excess * 1000 / g.rate // ms
	return true, a + float64(delay)/g.ms
}
