package montecarlo

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gonum.org/v1/gonum/stat"
)

// agreementScenarios are the scenarios on which the two engines must draw
// from the same law: every class-based policy on capacity and collision
// servers, every rounding, small and large k (the direct and ratio
// hypergeometric paths), few and many losers per class (single draws and
// sequential binomials).
func agreementScenarios() []model.Scenario {
	type env struct {
		n, k            int
		server          model.Server
		rounding        policy.Rounding
		base, cap, hold float64
		horizon         int
	}
	envs := []env{
		{20, 1, model.Capacity, policy.HalfEven, 1, 32, 2, 0},
		{50, 5, model.Capacity, policy.HalfEven, 1, 32, 2, 0},
		{100, 10, model.Capacity, policy.HalfEven, 1, 32, 2, 0},
		{200, 40, model.Capacity, policy.HalfEven, 0.5, 8, 3.5, 0},
		{400, 100, model.Capacity, policy.Floor, 2, 16, 1, 0},
		{150, 20, model.Capacity, policy.Ceil, 1, 64, 0, 0},
		{60, 7, model.Capacity, policy.HalfUp, 0.7, 5, 2.5, 0},
		{30, 3, model.Collision, policy.HalfEven, 1, 32, 2, 300},
		{12, 2, model.Collision, policy.HalfUp, 2, 64, 3, 200},
		{1000, 200, model.Capacity, policy.HalfEven, 1, 4, 2, 0},
		{80, 79, model.Capacity, policy.HalfEven, 1, 32, 2, 0},
		{100, 1, model.Capacity, policy.HalfEven, 1, 32, 2, 0},
	}
	var out []model.Scenario
	for _, e := range envs {
		for _, kind := range []policy.Kind{policy.None, policy.Fixed, policy.Expo, policy.Full, policy.Equal} {
			out = append(out, model.Scenario{
				Clients: e.n, Capacity: e.k, Server: e.server, Rounding: e.rounding, FirstWindow: 1,
				Policy:  policy.Policy{Kind: kind, Base: e.base, Cap: e.cap, FixedDelay: e.hold},
				Horizon: e.horizon,
			})
		}
	}
	// The window policies of the contention literature on the collision
	// server (k = 1, and k = 2 beside it), where their results are stated.
	for _, kind := range policy.ContentionKinds() {
		for _, e := range []struct{ n, k int }{{30, 1}, {12, 2}} {
			out = append(out, model.Scenario{
				Clients: e.n, Capacity: e.k, Server: model.Collision, Rounding: policy.HalfEven, FirstWindow: 1,
				Policy: policy.Policy{Kind: kind, Base: 1, Cap: 64},
			})
		}
	}
	return append(out, limitScenarios()...)
}

// limitScenarios add retry limits, elapsed-time limits and the library
// presets whose law depends on the retry number alone (lattice laws among
// them), where clients give up.
func limitScenarios() []model.Scenario {
	var out []model.Scenario
	for _, c := range []struct {
		kind    policy.Kind
		n, k    int
		retries int
		elapsed time.Duration
		tick    time.Duration
		server  model.Server
		horizon int
		window  int
	}{
		{policy.Full, 100, 10, 3, 0, 0, model.Capacity, 0, 1},
		{policy.Expo, 60, 5, 4, 0, 0, model.Capacity, 0, 1},
		{policy.Equal, 300, 30, 5, 0, 0, model.Capacity, 0, 1},
		{policy.None, 50, 5, 6, 0, 0, model.Capacity, 0, 1},
		{policy.Full, 40, 4, 0, 20 * time.Second, time.Second, model.Capacity, 0, 1},
		{policy.Full, 400, 20, 0, 40 * time.Second, time.Second, model.Capacity, 0, 1},
		{policy.Fixed, 30, 3, 0, 9500 * time.Millisecond, time.Second, model.Collision, 400, 1},
		{policy.Equal, 200, 10, 8, 60 * time.Second, time.Second, model.Capacity, 0, 1},
		// First-request windows, alone and with an elapsed-time limit.
		{policy.Full, 100, 10, 0, 0, 0, model.Capacity, 0, 10},
		{policy.Expo, 300, 20, 5, 0, 0, model.Capacity, 0, 4},
		{policy.Equal, 4000, 400, 0, 30 * time.Second, time.Second, model.Capacity, 0, 25},
		// Enough losers per class for multinomials cut at the limit.
		{policy.Full, 20000, 2000, 0, 12 * time.Second, time.Second, model.Capacity, 0, 1},
		{policy.Equal, 20000, 1000, 6, 25 * time.Second, time.Second, model.Capacity, 0, 1},
	} {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Server, sc.Horizon, sc.FirstWindow = c.n, c.k, c.server, c.horizon, c.window
		sc.Policy.Kind, sc.Policy.Retries, sc.Policy.MaxElapsed, sc.Policy.Tick = c.kind, c.retries, c.elapsed, c.tick
		out = append(out, sc)
	}
	for _, ps := range policy.Presets() {
		for _, size := range [][2]int{{200, 20}, {20000, 2000}} {
			sc := model.Default()
			sc.Clients, sc.Capacity = size[0], size[1]
			sc.Policy = ps.Policy(100 * time.Millisecond)
			if sc.Policy.Classes() == 0 || sc.Validate() != nil || (size[0] > 200 && ps.Name != "go-retry-expo-jitter") {
				continue
			}
			out = append(out, sc)
		}
	}
	return out
}

// sampleOf is what a two-sample test compares: per-trial calls,
// completion, mean latency, censoring and arrivals at a few ticks.
type sampleOf struct {
	calls, completion []float64
	latency           []float64 // mean latency of the trial's served clients
	gaveUp            []float64
	censored          int
	arrivals          [][]float64 // arrivals[j][trial] at tick probeTicks[j]
}

var probeTicks = []int{1, 2, 3, 5, 8, 13, 21, 34}

func collect(t *testing.T, sc model.Scenario, trials int, seed uint64, newEngine func(model.Scenario) (Engine, error)) sampleOf {
	var s sampleOf
	s.arrivals = make([][]float64, len(probeTicks))
	err := Run(context.Background(), sc, Options{Trials: trials, Seed: seed, Arrivals: true, build: newEngine}, func(tr *Trial) error {
		s.calls = append(s.calls, float64(tr.Calls))
		s.completion = append(s.completion, float64(tr.Completion))
		var sum int64
		for _, r := range tr.Latency.Runs() {
			sum += r.Value * r.Count
		}
		s.latency = append(s.latency, float64(sum)/float64(max(1, tr.Served)))
		s.gaveUp = append(s.gaveUp, float64(tr.GaveUp))
		if tr.Censored {
			s.censored++
		}
		for j, tick := range probeTicks {
			x := 0.0
			if tick < len(tr.Arrivals) {
				x = float64(tr.Arrivals[tick])
			}
			s.arrivals[j] = append(s.arrivals[j], x)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// ksP is the asymptotic p-value of the two-sample Kolmogorov–Smirnov
// statistic; on discrete data it is conservative (too large), so it never
// raises false alarms.
func ksP(x, y []float64) float64 {
	x, y = slices.Clone(x), slices.Clone(y)
	slices.Sort(x)
	slices.Sort(y)
	d := stat.KolmogorovSmirnov(x, nil, y, nil)
	ne := float64(len(x)) * float64(len(y)) / float64(len(x)+len(y))
	lambda := (math.Sqrt(ne) + 0.12 + 0.11/math.Sqrt(ne)) * d
	if lambda < 0.2 {
		return 1
	}
	p := 0.0
	for j := 1; j <= 100; j++ {
		term := 2 * math.Exp(-2*float64(j*j)*lambda*lambda)
		if j%2 == 0 {
			term = -term
		}
		p += term
		if math.Abs(term) < 1e-12 {
			break
		}
	}
	return min(1, max(0, p))
}

// welchP is the two-sided normal p-value of a difference of means; with no
// variance on either side the means must be equal.
func welchP(x, y []float64) float64 {
	mx, vx := stat.MeanVariance(x, nil)
	my, vy := stat.MeanVariance(y, nil)
	se := math.Sqrt(vx/float64(len(x)) + vy/float64(len(y)))
	if se == 0 {
		if mx == my {
			return 1
		}
		return 0
	}
	return math.Erfc(math.Abs(mx-my) / se / math.Sqrt2)
}

// disagreements runs every scenario through the per-client engine and
// through counts (built by newCounts) and returns the tests that reject
// "same law" at family-wise level alpha (Bonferroni over all tests).
func disagreements(t *testing.T, scenarios []model.Scenario, trials int, alpha float64, newCounts func(model.Scenario) (Engine, error)) []string {
	tests := len(scenarios) * (5 + len(probeTicks))
	level := alpha / float64(tests)
	clients := func(sc model.Scenario) (Engine, error) { return NewClientEngine(sc) }
	var bad []string
	smallP := 0
	defer func() { t.Logf("%d of %d p-values below 0.05", smallP, tests) }()
	for i, sc := range scenarios {
		// Different seeds: the engines use their streams differently, and
		// independent samples are what a two-sample test assumes.
		n := trials
		if sc.Clients >= 10_000 {
			n = trials / 5 // large cohorts: fewer trials keep the test fast
		}
		a := collect(t, sc, n, uint64(2*i+1), clients)
		b := collect(t, sc, n, uint64(2*i+2), newCounts)
		name := fmt.Sprintf("%s N=%d k=%d %s %s base=%g cap=%g retries=%d max-elapsed=%s W=%d", sc.Policy.Kind, sc.Clients, sc.Capacity, sc.Server, sc.Rounding, sc.Policy.Base, sc.Policy.Cap, sc.Policy.Retries, sc.Policy.MaxElapsed, sc.FirstWindow)
		check := func(what string, p float64) {
			if p < 0.05 {
				smallP++
			}
			if p < level {
				bad = append(bad, fmt.Sprintf("%s: %s differ (p = %.3g < %.3g)", name, what, p, level))
			}
		}
		check("calls", ksP(a.calls, b.calls))
		check("completion", ksP(a.completion, b.completion))
		check("mean latency", ksP(a.latency, b.latency))
		check("gave up", ksP(a.gaveUp, b.gaveUp))
		censA := make([]float64, n)
		censB := make([]float64, n)
		for j := range a.censored {
			censA[j] = 1
		}
		for j := range b.censored {
			censB[j] = 1
		}
		check("censored share", welchP(censA, censB))
		for j, tick := range probeTicks {
			check(fmt.Sprintf("arrivals at tick %d", tick), welchP(a.arrivals[j], b.arrivals[j]))
		}
	}
	return bad
}

const agreementTrials = 2000

// TestCountEngineAgreesWithClientEngine is the proof that the count engine
// draws from the per-client engine's law: ≥ 50 scenarios, calls,
// completion and mean latency by Kolmogorov–Smirnov, censoring and arrivals at eight ticks
// by a difference of means, no rejection at the 99.9% family-wise level.
func TestCountEngineAgreesWithClientEngine(t *testing.T) {
	scenarios := agreementScenarios()
	if len(scenarios) < 50 {
		t.Fatalf("only %d scenarios", len(scenarios))
	}
	counts := func(sc model.Scenario) (Engine, error) { return NewCountEngine(sc) }
	for _, d := range disagreements(t, scenarios, agreementTrials, 0.001, counts) {
		t.Error(d)
	}
}

// TestAgreementCheckCanFail gives the count engine two plausible bugs —
// the delay of retry n drawn from the law of retry n−1, and delays rounded
// down instead of to the nearest tick — and requires the same battery to
// catch each.
func TestAgreementCheckCanFail(t *testing.T) {
	var scenarios []model.Scenario
	for _, sc := range agreementScenarios() {
		if (sc.Policy.Kind == policy.Full || sc.Policy.Kind == policy.Expo) && sc.Rounding == policy.HalfEven && sc.Clients < 1000 {
			scenarios = append(scenarios, sc)
		}
	}
	if testing.Short() {
		// The first six scenarios and every one with an elapsed-time
		// limit, which the third bug needs to show.
		var short []model.Scenario
		for i, sc := range scenarios {
			if i < 6 || sc.Policy.MaxElapsed > 0 {
				short = append(short, sc)
			}
		}
		scenarios = short
	}
	for _, bug := range []struct {
		name string
		new  func(model.Scenario) (Engine, error)
	}{
		{"law of retry n−1", func(sc model.Scenario) (Engine, error) {
			return newCountEngine(sc, func(n int) policy.Law { return sc.Policy.Law(max(1, n-1), sc.Policy.Base) })
		}},
		{"floor rounding", func(sc model.Scenario) (Engine, error) {
			sc.Rounding = policy.Floor
			return NewCountEngine(sc)
		}},
		{"elapsed-time limit a tick late", func(sc model.Scenario) (Engine, error) {
			if sc.Policy.MaxElapsed > 0 {
				sc.Policy.MaxElapsed += sc.Policy.TickLength()
			}
			return NewCountEngine(sc)
		}},
	} {
		bad := disagreements(t, scenarios, agreementTrials, 0.001, bug.new)
		if len(bad) == 0 {
			t.Errorf("the agreement battery did not notice a count engine with %s", bug.name)
			continue
		}
		t.Logf("%s: %d rejections, e.g. %s", bug.name, len(bad), bad[0])
	}
}

// TestCountEngineHugeCohort plays N = 10⁹ clients and checks the
// conservation laws that hold in every trial: everyone is served, calls are
// at least N, and the capacity bounds completion from below.
func TestCountEngineHugeCohort(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 1_000_000_000, 10_000_000
	e, err := NewEngineUsing(sc, Default)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := e.(*CountEngine); !ok {
		t.Fatalf("auto picked %T for N = 10⁹", e)
	}
	var tr Trial
	tr.reset(0)
	e.Play(Stream(1, sc, 0), &tr, false)
	if tr.Censored || tr.Served != int64(sc.Clients) || tr.Calls < int64(sc.Clients) || tr.Completion < 100 {
		t.Errorf("trial: censored %v, served %d, calls %d, completion %d", tr.Censored, tr.Served, tr.Calls, tr.Completion)
	}
	if sum := tr.Latency.Total(); sum != int64(sc.Clients) {
		t.Errorf("latency histogram holds %d clients, want %d", sum, sc.Clients)
	}
}

// TestCountLaws checks the law of a wait in ticks that the count engine
// spreads losers by: without a cut it is policy.Rounding.Waits, and
// for every law — lattices and elapsed-time cuts included — its mean
// matches a fine quadrature of Ticks(Law.Draw(u)), the per-client engine's
// own computation.
func TestCountLaws(t *testing.T) {
	steps := policy.Law{Lo: 0.96 * 7, Hi: 1.06 * 7, Max: math.Inf(1), Steps: 10}
	clamped := policy.Law{Lo: 1, Hi: 9, Max: 4.5}
	for _, c := range []struct {
		name string
		law  policy.Law
	}{
		{"full n=3", policy.Policy{Kind: policy.Full, Base: 1, Cap: 32}.Law(3, 1)},
		{"equal n=4", policy.Policy{Kind: policy.Equal, Base: 0.3, Cap: 7.5}.Law(4, 0.3)},
		{"expo n=2", policy.Policy{Kind: policy.Expo, Base: 1.5, Cap: 40}.Law(2, 1.5)},
		{"poly n=3", policy.Policy{Kind: policy.Poly, Base: 1, Cap: 64}.Law(3, 1)},
		{"loglog n=5", policy.Policy{Kind: policy.LogLog, Base: 1, Cap: 64}.Law(5, 1)},
		{"sawtooth n=5", policy.Policy{Kind: policy.Sawtooth, Base: 1, Cap: 64}.Law(5, 1)},
		{"lattice", steps},
		{"clamped at a tie", clamped},
	} {
		for _, r := range []policy.Rounding{policy.HalfEven, policy.HalfUp, policy.Ceil, policy.Floor} {
			for _, cut := range []float64{math.Inf(1), 5.2, 6.9, 0.4} {
				src := countLaw{law: c.law, sup: c.law.Sup()}
				var l countLaw
				src.cutAt(cut, r, &l)
				if cut == math.Inf(1) {
					w := r.Waits(c.law)
					for i, m := range l.mass {
						if math.Abs(m-w.Prob(l.first+i)) > 1e-12 {
							t.Errorf("%s %s: P(wait %d) = %v, Rounding.Waits says %v", c.name, r, l.first+i, m, w.Prob(l.first+i))
						}
					}
				}
				var stay, mean float64
				for i, m := range l.mass {
					stay += m
					mean += float64(l.first+i) * m
				}
				if math.Abs(stay+l.giveUp-1) > 1e-12 {
					t.Errorf("%s %s cut %v: masses sum to %v", c.name, r, cut, stay+l.giveUp)
				}
				const n = 200_000
				var wantStay, wantMean float64
				for i := range n {
					d := c.law.Draw((float64(i) + 0.5) / n)
					if d <= cut {
						wantStay++
						wantMean += float64(r.Ticks(d))
					}
				}
				if math.Abs(stay-wantStay/n) > 1e-4 || math.Abs(mean-wantMean/n) > 1e-3 {
					t.Errorf("%s %s cut %v: stay %v mean %v, quadrature %v %v", c.name, r, cut, stay, mean, wantStay/n, wantMean/n)
				}
			}
		}
	}
}

// TestChoose checks the engine choice and its refusals.
func TestChoose(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 1_000_000_000, 10_000_000
	if c, _ := Choose(sc, Auto); c.Engine != Counts {
		t.Errorf("N = 10⁹: auto chose %s (%s)", c.Engine, c.Reason)
	}
	if _, err := NewEngineUsing(sc, Clients); err == nil {
		t.Error("the per-client engine accepted 10⁹ clients")
	} else if le, ok := err.(*LimitError); !ok || le.Alternative == "" {
		t.Errorf("refusal %v names no alternative", err)
	}
	sc.Policy.Kind = policy.Decorrelated
	if c, err := Choose(sc, Auto); err == nil {
		t.Errorf("decorrelated N = 10⁹: auto chose %s, want a refusal (neither engine can hold it)", c.Engine)
	} else if le, ok := err.(*LimitError); !ok || !strings.Contains(le.Error(), "--clients") {
		t.Errorf("decorrelated N = 10⁹: refusal %v does not name --clients", err)
	}
	if _, err := Choose(sc, Counts); err == nil {
		t.Error("the count engine accepted decorrelated")
	}
	sc = model.Default()
	sc.FirstWindow = 5
	if c, _ := Choose(sc, Auto); c.Engine != Counts {
		t.Errorf("first-request window of 5: auto chose %s (%s)", c.Engine, c.Reason)
	}
	sc.FirstWindow = 1000
	if c, _ := Choose(sc, Auto); c.Engine != Clients {
		t.Errorf("100 clients, first-request window of 1000: auto chose %s", c.Engine)
	}
	sc = model.Default()
	sc.Clients, sc.Policy.Cap = 10, 1e6
	if c, _ := Choose(sc, Auto); c.Engine != Clients {
		t.Errorf("10 clients, a ring of 10⁶ ticks × 21 classes: auto chose %s", c.Engine)
	}
	sc.Clients = 100_000_000
	if c, _ := Choose(sc, Auto); c.Engine != Counts {
		t.Errorf("10⁸ clients, a ring of 10⁶ ticks × 21 classes: auto chose %s", c.Engine)
	}
	sc = model.Default()
	sc.Policy.Cap = 9e6
	if _, err := Choose(sc, Counts); err == nil {
		t.Error("the count engine accepted a ring of 9e6 ticks × 24 classes")
	}
}
