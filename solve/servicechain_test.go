package solve

import (
	"math"
	"testing"
)

// Without timeouts the chain is M/M/1/K with K = room + 1 places, whose
// loss probability is (1 − ρ)ρ^K / (1 − ρ^(K+1)).
func TestServiceChainIsMM1K(t *testing.T) {
	lambda, mu, room := 0.8, 1.0, 3
	r, err := serviceChain(lambda, mu, 0, room, 1, false, false)
	if err != nil {
		t.Fatal(err)
	}
	rho, k := lambda/mu, float64(room+1)
	loss := (1 - rho) * math.Pow(rho, k) / (1 - math.Pow(rho, k+1))
	if math.Abs(r.Goodput-lambda*(1-loss)) > 1e-12 || math.Abs(r.Rejections-lambda*loss) > 1e-12 || r.States != int(k)+1 {
		t.Errorf("goodput %g rejections %g states %d, want %g, %g, %g", r.Goodput, r.Rejections, r.States, lambda*(1-loss), lambda*loss, k+1)
	}
}

// Every new request ends once: served, dropped or given up, so in the
// steady state λ = goodput + drops + gave up, with timeouts, retries and
// either rule for rejections and abandoned work.
func TestServiceChainConservesRequests(t *testing.T) {
	for _, c := range []struct {
		lambda, theta  float64
		room, attempts int
		cancel, final  bool
	}{{1.2, 0.3, 3, 2, false, false}, {0.9, 0.5, 2, 3, true, false}, {1.5, 0.2, 4, 4, false, true}, {0.5, 1, 0, 2, true, true}} {
		r, err := serviceChain(c.lambda, 1, c.theta, c.room, c.attempts, c.cancel, c.final)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Goodput + r.Drops + r.GiveUps; math.Abs(got-c.lambda) > 1e-9 {
			t.Errorf("%+v: goodput + drops + gave up = %g, want λ = %g", c, got, c.lambda)
		}
		if c.cancel && r.Wasted != 0 || !c.cancel && c.theta > 0 && r.Wasted <= 0 {
			t.Errorf("%+v: wasted %g", c, r.Wasted)
		}
	}
}
