package solve

import (
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
)

// waveGate admits whole waves on a limiter server (docs/limiters.md), for
// WindowClosedForm: size clients arrive together at t (in windows); it
// returns how many it admits and when (in windows) the last of them is
// answered.
type waveGate interface {
	admit(t float64, size int64) (served int64, answered float64, err error)
}

func newWaveGate(sc model.Scenario) waveGate {
	switch sc.Server {
	case model.TokenBucket:
		return &bucketWaves{rate: float64(sc.Capacity), size: float64(sc.Limiter.Burst), last: math.Inf(-1)}
	case model.GCRA:
		return &nginxWaves{ms: float64(sc.Window()) / 1e6, rate: sc.RateMilli(), burst: int64(sc.Limiter.Burst) * 1000, nodelay: sc.Limiter.Nodelay, fresh: true}
	}
	return nil
}

// bucketWaves: a wave takes the whole tokens the bucket holds, up to its
// size (a bucket within 10⁻⁹ of a whole token has it, as the engine's).
type bucketWaves struct{ rate, size, tokens, last float64 }

func (b *bucketWaves) admit(t float64, size int64) (int64, float64, error) {
	if t > b.last {
		b.tokens = math.Min(b.size, b.tokens+b.rate*(t-b.last))
		b.last = t
	}
	n := min(size, int64(math.Floor(b.tokens+1e-9)))
	b.tokens -= float64(n)
	return n, t, nil
}

// nginxWaves: nginx's rule for a wave on its millisecond clock. A wave at
// a whole millisecond t has the same clock whatever its phase; its first
// request finds e₁ = max(0, excess − ⌊rate·ms/1000⌋ + 1000) (0 for the
// first request of all), each next one 1000 more, and the first above the
// burst is rejected with every later one (the state is unchanged by a
// rejection), so it admits min(size, ⌊(burst − e₁)/1000⌋ + 1) when e₁ ≤
// burst. Without nodelay the last of them is answered e·1000/rate ms
// later, e its excess.
type nginxWaves struct {
	ms             float64
	rate, burst    int64
	nodelay, fresh bool
	excess, last   int64
}

func (g *nginxWaves) admit(t float64, size int64) (int64, float64, error) {
	x := t * g.ms
	now := math.Round(x)
	if math.Abs(x-now) > 1e-6 {
		return 0, 0, fmt.Errorf("a wave at %.6g ms falls between nginx's milliseconds, where its clock's phase decides; use simulate", x)
	}
	e1 := int64(0)
	if !g.fresh {
		drain := int64(math.MaxInt64)
		if el := int64(now) - g.last; el < math.MaxInt64/max(g.rate, 1) {
			drain = g.rate * el / 1000
		}
		if drain < g.excess+1000 {
			e1 = g.excess - drain + 1000
		}
	}
	if e1 > g.burst {
		return 0, t, nil
	}
	n := min(size, (g.burst-e1)/1000+1)
	g.fresh, g.excess, g.last = false, e1+(n-1)*1000, int64(now)
	if g.nodelay || g.excess == 0 {
		return n, t, nil
	}
	return n, t + float64(g.excess*1000/g.rate)/g.ms, nil
}
