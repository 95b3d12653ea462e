package claims

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// The stations claims of Håstad, Leighton and Rogoff: N stations with
// queues fed at a total rate λ, on the collision server with k = 1
// (montecarlo.Stations).
const (
	// StationCount is N, and StationTicks the length of a trial.
	StationCount = 8
	StationTicks = 200_000
	// GrowthBand is the backlog growth per tick, as a share of λ, that
	// separates stable from unstable: unstable when the 95% interval of
	// the growth over a trial's second half lies above 1% of λ (the
	// channel serves under 99% of what arrives), stable when it lies below.
	GrowthBand = 0.01
	// hastadLambda0 is their λ₀ ≈ 0.567.
	hastadLambda0 = 0.567
)

// stationClaims are the contention claims about stations with queues fed
// open-loop.
var stationClaims = []func(ctx context.Context, opt montecarlo.Options) (Result, error){
	func(ctx context.Context, opt montecarlo.Options) (Result, error) {
		return stationClaim(ctx, opt, stationBEB)
	},
	func(ctx context.Context, opt montecarlo.Options) (Result, error) {
		return stationClaim(ctx, opt, stationPoly)
	},
}

// stationSetting is one stations claim: its policy, the rates it is judged
// at and whether the source says stable or unstable there.
type stationSetting struct {
	id, quote string
	policy    policy.Policy
	rates     []float64 // judged
	shown     []float64 // shown beside, not judged
	unstable  bool
}

func hastadThreshold(n int) float64 { return hastadLambda0 + 1/(4*float64(n)-2) }

var (
	stationBEB = stationSetting{
		id:    "hastad-beb-unstable-above-0.567",
		quote: "binary exponential backoff is unstable if the arrival rate of new messages at each station is λ/N for any λ > 1/2 and the number of stations N is sufficiently large. For small N, we prove that λ ≥ λ₀ + 1/(4N − 2) implies instability, where λ₀ ≈ .567",
		// base 1: W_b = 2^b; a cap far above every window reached.
		policy:   policy.Policy{Kind: policy.Full, Base: 1, Cap: model.MaxDelay},
		rates:    []float64{0.65, 0.75, 0.85, 0.95},
		shown:    []float64{0.3, 0.45},
		unstable: true,
	}
	stationPoly = stationSetting{
		id:       "hastad-polynomial-stable-below-1",
		quote:    "any superlinear polynomial backoff protocol (e.g., quadratic backoff) is stable for any set of arrival rates that sum to less than one and any number of stations",
		policy:   policy.Policy{Kind: policy.Poly, Base: 1, Cap: model.MaxDelay, Exponent: 2},
		rates:    []float64{0.3, 0.5, 0.7, 0.8, 0.9},
		unstable: false,
	}
)

func stationScenario(p policy.Policy) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server, sc.Policy = StationCount, 1, model.Collision, p
	return sc
}

// growth is the backlog growth per tick over the second half, as a share
// of λ, with its 95% interval.
func backlogGrowth(ctx context.Context, sc model.Scenario, rate float64, ticks int, opt montecarlo.Options) (stats.Estimate, error) {
	ts, err := montecarlo.RunStations(ctx, sc, montecarlo.Stations{Rate: rate, Ticks: ticks}, opt)
	if err != nil {
		return stats.Estimate{}, err
	}
	var m stats.Moments
	for _, t := range ts {
		m.Add(t.Growth(ticks) / rate)
	}
	return m.Estimate(), nil
}

func stationClaim(ctx context.Context, opt montecarlo.Options, s stationSetting) (Result, error) {
	thr := hastadThreshold(StationCount)
	word := "stable"
	if s.unstable {
		word = "unstable"
	}
	c := Result{ID: s.id, Source: hastadSIAM, Quote: s.quote,
		Check: fmt.Sprintf("%d stations with FIFO queues, each receiving a message with probability λ/%d per tick, on the collision server with k = 1; a head that has collided b times sends with probability 1/W_b per tick (%s: W_b = %s), a fresh head at once; %d ticks, %d trials per rate: the backlog's growth per tick over the second half, as a share of λ. "+
			"Reading fixed from the words before the numbers: at a rate, unstable when the growth's 95%% interval lies above %g (under %g%% of what arrives is served) and stable when it lies below; the claim holds when every rate judged (λ = %v%s) is %s, fails when one is the opposite, and is inconclusive otherwise. A rate judged against the claim is rerun 4× as long and shown beside (not judged)",
			StationCount, StationCount, s.policy.Kind, map[bool]string{true: "2^b (their binary exponential backoff)", false: "b² (their quadratic backoff)"}[s.unstable],
			StationTicks, opt.Trials, GrowthBand, 100*(1-GrowthBand), s.rates,
			map[bool]string{true: fmt.Sprintf(", all above 0.567 + 1/(4N − 2) = %.3f for N = %d", thr, StationCount), false: ", all below 1"}[s.unstable], word),
	}
	sc := stationScenario(s.policy)
	decided, opposite := 0, 0
	var key *Evidence
	for _, rate := range append(append([]float64(nil), s.rates...), s.shown...) {
		g, err := backlogGrowth(ctx, sc, rate, StationTicks, opt)
		if err != nil {
			return c, err
		}
		judged := rate >= s.rates[0] && rate <= s.rates[len(s.rates)-1] || !s.unstable && rate <= s.rates[len(s.rates)-1]
		label := "judged"
		if !judged {
			label = "shown, not judged"
		}
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("backlog growth per tick / λ at λ = %g (%s)", rate, label), g))
		if !judged {
			continue
		}
		up, down := g.CI95[0] > GrowthBand, g.CI95[1] < GrowthBand
		if key == nil || math.Abs(rate-s.rates[len(s.rates)-1]) < 1e-12 {
			k := c.Evidence[len(c.Evidence)-1]
			key = &k
		}
		switch {
		case up == s.unstable && (up || down):
			decided++
		case up || down:
			opposite++
			// Shown beside: the same run 4× as long, which tells a
			// transient (the growth falls) from a drift (it stays).
			long, err := backlogGrowth(ctx, sc, rate, 4*StationTicks, opt)
			if err != nil {
				return c, err
			}
			c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("backlog growth per tick / λ at λ = %g over %d ticks (shown, not judged)", rate, 4*StationTicks), long))
			c.Condition = fmt.Sprintf("against the claim at λ = %g; over a run 4× as long the growth is %.3g of λ (it was %.3g): ", rate, long.Mean, g.Mean) +
				map[bool]string{true: "it falls, so the rule's finite run may be seeing the approach to a large stationary backlog rather than instability", false: "it does not fall, a drift"}[long.Mean < g.Mean/2]
		}
	}
	c.KeyEvidence = key
	c.Regime = fmt.Sprintf("N = %d stations, λ = %g … %g, %d ticks (collision server, k = 1)", StationCount, s.rates[0], s.rates[len(s.rates)-1], StationTicks)
	switch {
	case opposite > 0:
		c.Verdict = Fails
	case decided == len(s.rates):
		c.Verdict = Holds
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}
