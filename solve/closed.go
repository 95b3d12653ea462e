package solve

import (
	"fmt"
	"math/big"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// Unsupported is a scenario that a model cannot answer, with the reason in
// the problem's words (so that a reader learns which model can).
type Unsupported struct {
	Method string // "closed", "markov" or "meanfield"
	Reason string
	// Limit says the scenario is beyond a bound of the model's work (the
	// exact chain's --max-states), which the reason names with the flag to
	// raise or the model to use instead, rather than outside what the
	// model describes.
	Limit bool
	// Field, when set, is the scenario field (in its flag's spelling) that
	// puts the scenario outside the model, so that a command can name the
	// flags that set it.
	Field string
}

func (e *Unsupported) Error() string { return e.Method + ": " + e.Reason }

// Wave is one tick at which a synchronized cohort sends: Size clients
// arrive together and Served of them succeed.
type Wave struct {
	Tick   int64 `json:"tick"`
	Size   int64 `json:"size"`
	Served int64 `json:"served"`
}

// MaxListedWaves bounds the waves a Closed lists; beyond it only the totals
// are given (they have closed forms and cost nothing).
const MaxListedWaves = 100_000

// Closed is the exact outcome of a scenario in which nothing is random.
type Closed struct {
	Scenario   model.Scenario `json:"scenario"`
	Rounds     int64          `json:"rounds"` // R: the number of waves
	Calls      int64          `json:"calls"`
	Completion int64          `json:"completion"`
	// Waves lists every wave when Rounds ≤ MaxListedWaves. The clients
	// served in wave r have latency Waves[r].Tick + 1, so Waves is also the
	// exact distribution of client latency.
	Waves []Wave `json:"waves,omitempty"`
}

// ClosedForm is the outcome of a synchronized cohort (first window 1) whose
// waits are certain: none, fixed, expo, and any jittered policy whose whole
// delay range rounds to one tick count. All N clients then move as one
// wave. On the capacity server wave r (r = 0, 1, …) has N − r·k clients of
// which min(k, N − r·k) are served, so there are R = ⌈N/k⌉ waves,
//
//	calls = R·N − k·R(R−1)/2,
//
// and wave r is sent at tick t_r = w_1 + … + w_r, where w_n is the wait
// before retry n; completion = t_{R−1} + 1. On the collision server a wave
// larger than k fails whole and the next wave is the same clients again, so
// N > k never completes and ClosedForm says so instead of giving a number.
func ClosedForm(sc model.Scenario) (Closed, error) {
	if err := sc.Validate(); err != nil {
		return Closed{}, err
	}
	no := func(format string, a ...any) (Closed, error) {
		return Closed{}, &Unsupported{Method: "closed", Reason: fmt.Sprintf(format, a...)}
	}
	if sc.FirstWindow > 1 {
		return Closed{}, &Unsupported{Method: MethodClosed, Field: "first-window", Reason: fmt.Sprintf(
			"the first sends are spread at random over %d ticks, so the cohort is not synchronized; use markov (small N), meanfield or simulate", sc.FirstWindow)}
	}
	if err := modelled(MethodClosed, sc); err != nil {
		return Closed{}, err
	}
	wait, err := certainWaits(sc)
	if err != nil {
		return Closed{}, err
	}
	n, k := int64(sc.Clients), int64(sc.Capacity)
	if sc.Served(sc.Clients) == 0 {
		return no("on the collision server %d synchronized clients with certain waits collide at every wave (more than k = %d arrive together, so all fail and retry together again): no client is ever served", n, k)
	}
	r := n / k // ⌈N/k⌉ without overflow for k near 2⁶³
	if n%k != 0 {
		r++
	}
	c := Closed{Scenario: sc, Rounds: r}
	// calls = R·N − k·R(R−1)/2, exactly; it can exceed int64 for huge N.
	calls := new(big.Int).Mul(big.NewInt(r), big.NewInt(n))
	tri := new(big.Int).Mul(big.NewInt(r), big.NewInt(r-1))
	tri.Rsh(tri, 1).Mul(tri, big.NewInt(k))
	calls.Sub(calls, tri)
	if !calls.IsInt64() {
		return no("calls = %s do not fit in 64 bits", calls)
	}
	c.Calls = calls.Int64()
	// t_{R−1} = Σ_{n=1}^{R−1} w_n; waits are constant from retry len(wait).
	last := new(big.Int)
	for i := int64(1); i < r && i <= int64(len(wait)); i++ {
		last.Add(last, big.NewInt(int64(wait[i-1])))
	}
	if rest := r - 1 - int64(len(wait)); rest > 0 {
		last.Add(last, new(big.Int).Mul(big.NewInt(rest), big.NewInt(int64(wait[len(wait)-1]))))
	}
	if h := int64(sc.EffectiveHorizon()); !last.IsInt64() || last.Int64() >= h {
		return no("the last wave comes at tick %s, at or after the horizon %d: every trial is censored", last, h)
	}
	c.Completion = last.Int64() + 1
	if r <= MaxListedWaves {
		c.Waves = make([]Wave, r)
		var t int64
		for i := range r {
			if i > 0 {
				t += int64(wait[min(i, int64(len(wait)))-1])
			}
			size := n - i*k
			c.Waves[i] = Wave{Tick: t, Size: size, Served: int64(sc.Served(int(size)))}
		}
	}
	return c, nil
}

// The models' names, as Unsupported.Method and herd model --method spell
// them.
const (
	MethodClosed    = "closed"
	MethodMarkov    = "markov"
	MethodMeanField = "meanfield"
)

// modelled refuses what no analytical model follows: clients that give up
// (a retry limit or a maximum elapsed time) and presets whose delay depends
// on their previous draw (textbook decorrelated is each model's own case).
func modelled(method string, sc model.Scenario) error {
	p := sc.Policy
	switch {
	case sc.InContinuousTime():
		return &Unsupported{Method: method, Field: "time", Reason: "the scenario is in continuous time (the window server) and the models count whole ticks; use simulate (herd validate checks it against the closed form of a cohort whose delays are certain)"}
	case !sc.Models(method):
		return &Unsupported{Method: method, Field: "server", Reason: sc.Plays().Unmodelled}
	case p.Retries > 0:
		return &Unsupported{Method: method, Field: "retries", Reason: fmt.Sprintf("clients give up after %d retries, and the models follow every client until it is served; use simulate", p.Retries)}
	case p.MaxElapsed > 0:
		return &Unsupported{Method: method, Field: "max-elapsed", Reason: fmt.Sprintf("clients give up after %v, and the models follow every client until it is served; use simulate", p.MaxElapsed)}
	case p.Stateful() && p.Kind != policy.Decorrelated:
		return &Unsupported{Method: method, Field: "policy", Reason: fmt.Sprintf("preset %s draws each delay from its previous draw, a continuous state the models do not follow; use simulate", p.Kind)}
	}
	return nil
}

// certainWaits returns w_1…w_L, the certain wait before each retry, where
// retries n ≥ L wait w_L; or Unsupported when some wait is random.
func certainWaits(sc model.Scenario) ([]int, error) {
	if sc.Policy.Kind == policy.Decorrelated {
		w, ok := sc.DecorrelatedWaits()
		if !ok {
			return nil, &Unsupported{Method: "closed", Reason: fmt.Sprintf(
				"decorrelated draws delays in [base, cap] = [%g, %g], which round to different tick counts, so its waits are random; use meanfield or simulate",
				sc.Policy.Base, sc.Policy.Cap)}
		}
		return []int{w}, nil
	}
	laws := sc.RetryClasses()
	wait := make([]int, len(laws))
	for i, l := range laws {
		w, ok := l.Point()
		if !ok {
			return nil, &Unsupported{Method: "closed", Reason: fmt.Sprintf(
				"the wait before retry %d is random (%d to %d ticks under policy %s), so the cohort does not stay synchronized; use markov (small N), meanfield or simulate",
				i+1, l.Min, l.Max(), sc.Policy.Kind)}
		}
		wait[i] = w
	}
	return wait, nil
}
