package claims

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// The stations claims of Håstad, Leighton and Rogoff: N stations with
// queues fed at a total rate λ, on the collision server with k = 1
// (montecarlo.Stations).
const (
	// StationCount is N.
	StationCount = 8
	// GrowthBand is the backlog growth per tick, as a share of λ, that
	// separates stable from unstable: unstable when the 95% interval of
	// the growth over a trial's second half lies above 1% of λ (the
	// channel serves under 99% of what arrives), stable when it lies below.
	GrowthBand = 0.01
	// hastadLambda0 is their λ₀ ≈ 0.567.
	hastadLambda0 = 0.567
)

// StationTicks is the length of a trial judged first (doubled twice for a
// rate judged against the claim).
var StationTicks = 200_000

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
	g, err := growthPerTrial(ctx, sc, rate, ticks, opt)
	if err != nil {
		return stats.Estimate{}, err
	}
	var m stats.Moments
	for _, x := range g {
		m.Add(x)
	}
	return m.Estimate(), nil
}

// growthPerTrial is each trial's backlog growth per tick over the second
// half, as a share of λ. Trial i plays the same stream whatever the
// length, so runs of different lengths are paired trial by trial.
func growthPerTrial(ctx context.Context, sc model.Scenario, rate float64, ticks int, opt montecarlo.Options) ([]float64, error) {
	ts, err := montecarlo.RunStations(ctx, sc, montecarlo.Stations{Rate: rate, Ticks: ticks}, opt)
	if err != nil {
		return nil, err
	}
	g := make([]float64, len(ts))
	for i, t := range ts {
		g[i] = t.Growth(ticks) / rate
	}
	return g, nil
}

// pairedChange is the paired difference b − a of two runs' growths.
func pairedChange(a, b []float64) stats.Estimate {
	var m stats.Moments
	for i := range a {
		m.Add(b[i] - a[i])
	}
	return m.Estimate()
}

func stationClaim(ctx context.Context, opt montecarlo.Options, s stationSetting) (Result, error) {
	thr := hastadThreshold(StationCount)
	word := "stable"
	if s.unstable {
		word = "unstable"
	}
	c := Result{ID: s.id, Source: hastadSIAM, Quote: s.quote,
		Check: fmt.Sprintf("%d stations with FIFO queues, each receiving a message with probability λ/%d per tick, on the collision server with k = 1; a head that has collided b times sends with probability 1/W_b per tick (%s: W_b = %s), a fresh head at once; %d ticks, %d trials per rate: the backlog's growth per tick over the second half, as a share of λ. "+
			"Reading fixed from the words before the numbers: at a rate, unstable when the growth's 95%% interval lies above %g (under %g%% of what arrives is served) and stable when it lies below; the claim holds when every rate judged (λ = %v%s) is %s. A rate judged against the claim is judged again from the trend over doublings of time: the same trials 2× and 4× as long; the claim fails when the growth over 4× as long has not moved toward the claim (the paired change's 95%% interval), is inconclusive: pre-asymptotic when it has, and inconclusive otherwise",
			StationCount, StationCount, s.policy.Kind, map[bool]string{true: "2^b (their binary exponential backoff)", false: "b² (their quadratic backoff)"}[s.unstable],
			StationTicks, opt.Trials, GrowthBand, 100*(1-GrowthBand), s.rates,
			map[bool]string{true: fmt.Sprintf(", all above 0.567 + 1/(4N − 2) = %.3f for N = %d", thr, StationCount), false: ", all below 1"}[s.unstable], word),
	}
	sc := stationScenario(s.policy)
	decided, opposite, approaching := 0, 0, 0
	var key *Evidence
	var notes []string
	for _, rate := range append(append([]float64(nil), s.rates...), s.shown...) {
		base, err := growthPerTrial(ctx, sc, rate, StationTicks, opt)
		if err != nil {
			return c, err
		}
		var m stats.Moments
		for _, x := range base {
			m.Add(x)
		}
		g := m.Estimate()
		judged := rate >= s.rates[0] && rate <= s.rates[len(s.rates)-1] || !s.unstable && rate <= s.rates[len(s.rates)-1]
		label := "judged"
		if !judged {
			label = "shown, not judged"
		}
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("backlog growth per tick / λ at λ = %g over %d ticks (%s)", rate, StationTicks, label), g))
		if !judged {
			continue
		}
		up, down := g.CI95[0] > GrowthBand, g.CI95[1] < GrowthBand
		if key == nil || math.Abs(rate-s.rates[len(s.rates)-1]) < 1e-12 {
			k := c.Evidence[len(c.Evidence)-1]
			key = &k
		}
		if up == s.unstable && (up || down) {
			decided++
			continue
		}
		if !up && !down {
			continue
		}
		// Against the claim: the same trials twice and four times as
		// long tell a drift from an approach.
		words := []string{fmt.Sprintf("%.3g", g.Mean)}
		var long []float64
		for _, f := range []int{2, 4} {
			if long, err = growthPerTrial(ctx, sc, rate, f*StationTicks, opt); err != nil {
				return c, err
			}
			var lm stats.Moments
			for _, x := range long {
				lm.Add(x)
			}
			e := lm.Estimate()
			c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("backlog growth per tick / λ at λ = %g over %d ticks (judged: the trend)", rate, f*StationTicks), e))
			words = append(words, fmt.Sprintf("%.3g", e.Mean))
		}
		d := pairedChange(base, long)
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("change of that growth from %d to %d ticks, paired by trial", StationTicks, 4*StationTicks), d))
		toward := s.unstable && d.CI95[0] > 0 || !s.unstable && d.CI95[1] < 0
		trend := fmt.Sprintf("over %d, %d and %d ticks the growth is %s of λ (change %.3g [%.3g, %.3g])", StationTicks, 2*StationTicks, 4*StationTicks, strings.Join(words, ", "), d.Mean, d.CI95[0], d.CI95[1])
		if toward {
			approaching++
			notes = append(notes, fmt.Sprintf("pre-asymptotic at λ = %g: %s over the first run, but %s, moving toward %s", rate, map[bool]string{true: "unstable", false: "stable"}[up], trend, word))
		} else {
			opposite++
			notes = append(notes, fmt.Sprintf("%s at λ = %g: %s, not moving toward %s", map[bool]string{true: "unstable", false: "stable"}[up], rate, trend, word))
		}
	}
	c.Condition = strings.Join(notes, "; ")
	c.KeyEvidence = key
	c.Regime = fmt.Sprintf("N = %d stations, λ = %g … %g, %d ticks (collision server, k = 1)", StationCount, s.rates[0], s.rates[len(s.rates)-1], StationTicks)
	switch {
	case opposite > 0:
		c.Verdict = Fails
	case approaching > 0:
		c.Verdict = Inconclusive
	case decided == len(s.rates):
		c.Verdict = Holds
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}
