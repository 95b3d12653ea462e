package analysis

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// ServiceComparison is one service — its clients, server and tick — under
// several retry policies, every policy played on the same trials' random
// streams (common random numbers: trial i draws from a stream of the seed,
// the scenario without its policy, and i), so that differences between
// policies are estimated trial by trial.
type ServiceComparison struct {
	Trials int    `json:"trials"`
	Seed   uint64 `json:"seed"`
	// Tick is the real length of one tick; every policy shares it.
	Tick     time.Duration   `json:"-"`
	Policies []PolicyOutcome `json:"policies"`
	// Pairs holds every pair i < j of Policies: i − j, trial by trial.
	Pairs []PolicyPair `json:"pairs"`
}

// PolicyOutcome is one policy's run: its summary (with the mean arrivals
// of every tick) and the completions of its finished trials, sorted, for
// the completion's distribution.
type PolicyOutcome struct {
	Label       string    `json:"label"`
	Summary     Summary   `json:"summary"`
	Completions []float64 `json:"-"`
}

// PolicyPair is the paired differences A − B of two policies over the
// trials where neither was censored.
type PolicyPair struct {
	A, B string `json:"-"`
	// Censored counts the trials left out: A or B was censored in them.
	Censored   int              `json:"censored"`
	Calls      stats.Difference `json:"calls"`
	Completion stats.Difference `json:"completion"`
	// Latency is the difference of the trials' mean client latencies
	// (trials where both served someone).
	Latency stats.Difference `json:"latency"`
	GaveUp  stats.Difference `json:"gave_up"`
}

// pairTrial is what a paired comparison keeps of one trial.
type pairTrial struct {
	calls, completion, latency, gaveUp float64
	served, censored                   bool
}

// ComparePolicies plays every scenario (one service under the policies,
// named by labels) with opt's trials and seed, arrivals recorded, and
// pairs every two policies trial by trial. Times are in ticks: windows in
// continuous time. The scenarios must differ only
// in their policy; progress, if set, is called after each policy.
func ComparePolicies(ctx context.Context, labels []string, scs []model.Scenario, opt montecarlo.Options, progress func(done, total int)) (ServiceComparison, error) {
	if len(scs) < 2 || len(labels) != len(scs) {
		return ServiceComparison{}, fmt.Errorf("a comparison needs two or more policies, each with a label; got %d scenarios, %d labels", len(scs), len(labels))
	}
	base := scs[0]
	for i, sc := range scs {
		if sc.Plays().Milliseconds {
			return ServiceComparison{}, fmt.Errorf("policy %s: the OCC server has no ticks or windows; compare policies on the capacity or collision server", labels[i])
		}
		a, b := base, sc
		a.Policy, b.Policy = policy.Policy{}, policy.Policy{}
		if a != b || sc.Policy.TickLength() != base.Policy.TickLength() {
			return ServiceComparison{}, fmt.Errorf("policy %s: the scenarios of a comparison must differ only in their policy, on one tick", labels[i])
		}
	}
	opt.Arrivals = true
	c := ServiceComparison{Trials: opt.Trials, Seed: opt.Seed, Tick: base.Policy.TickLength()}
	// In continuous time the times (ms) are counted in windows, the
	// comparison's ticks, as its arrivals are.
	perWindow := 1.0
	if base.InContinuousTime() {
		perWindow = float64(base.Window()) / float64(time.Millisecond)
	}
	trials := make([][]pairTrial, len(scs))
	for i, sc := range scs {
		var done []float64
		s, err := simulate(ctx, sc, opt, func(t *montecarlo.Trial) {
			x := pairTrial{calls: float64(t.Calls), completion: t.CompletionTime() / perWindow, gaveUp: float64(t.GaveUp), censored: t.Censored}
			switch {
			case t.Served > 0 && t.Continuous:
				x.latency, x.served = t.LatencySum/float64(t.Served)/perWindow, true
			case t.Served > 0:
				var sum int64
				for _, r := range t.Latency.Runs() {
					sum += r.Value * r.Count
				}
				x.latency, x.served = float64(sum)/float64(t.Served), true
			}
			trials[i] = append(trials[i], x)
			if !t.Censored {
				done = append(done, x.completion)
			}
		})
		if err != nil {
			return c, fmt.Errorf("policy %s: %w", labels[i], err)
		}
		slices.Sort(done)
		if perWindow != 1 {
			s.Completion, s.Latency = s.Completion.Scaled(1/perWindow), s.Latency.Scaled(1/perWindow)
		}
		c.Policies = append(c.Policies, PolicyOutcome{Label: labels[i], Summary: s, Completions: done})
		if progress != nil {
			progress(i+1, len(scs))
		}
	}
	for i := range scs {
		for j := i + 1; j < len(scs); j++ {
			c.Pairs = append(c.Pairs, pair(labels[i], labels[j], trials[i], trials[j]))
		}
	}
	return c, nil
}

// pair is A − B over the trials where neither was censored.
func pair(a, b string, ta, tb []pairTrial) PolicyPair {
	p := PolicyPair{A: a, B: b}
	var calls, completion, latency, gaveUp stats.Moments
	for i := range ta {
		x, y := ta[i], tb[i]
		if x.censored || y.censored {
			p.Censored++
			continue
		}
		calls.Add(x.calls - y.calls)
		completion.Add(x.completion - y.completion)
		gaveUp.Add(x.gaveUp - y.gaveUp)
		if x.served && y.served {
			latency.Add(x.latency - y.latency)
		}
	}
	p.Calls, p.Completion, p.Latency, p.GaveUp = calls.Difference(), completion.Difference(), latency.Difference(), gaveUp.Difference()
	return p
}

// CompletionCDF is the share of all trials finished by each completion
// of the finished ones: the empirical distribution function, which tops
// out under 1 when trials were censored.
func (o PolicyOutcome) CompletionCDF() (at, share []float64) {
	n := float64(o.Summary.Trials)
	for i, x := range o.Completions {
		if i+1 < len(o.Completions) && o.Completions[i+1] == x {
			continue // one step per distinct completion
		}
		at, share = append(at, x), append(share, float64(i+1)/n)
	}
	return at, share
}

// ArrivalRateBins is at most how many points an arrival-rate curve has:
// ticks are pooled into bins of equal length beyond it.
const ArrivalRateBins = 400

// ArrivalRate is the policy's mean arrivals per tick after the first wave
// (every client within the first window, which would dwarf the retries),
// pooled into at most bins bins of equal length, each at its middle tick.
// It is empty when every trial was censored (only finished trials record
// their arrivals).
func (o PolicyOutcome) ArrivalRate(bins int) (at, perTick []float64) {
	arr := o.Summary.Arrivals
	first := o.Summary.Scenario.FirstWindow
	bin := max(1, (len(arr)-first+bins-1)/bins)
	for start := first; start < len(arr); start += bin {
		end := min(start+bin, len(arr))
		sum := 0.0
		for _, e := range arr[start:end] {
			sum += e.Mean
		}
		at, perTick = append(at, float64(start+end)/2), append(perTick, sum/float64(end-start))
	}
	return at, perTick
}
