package montecarlo

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// A lone client's attempt always wins: one call, and the time is the sum of
// four hops, mean 4·10 ms and variance 4·2² ms² (|Normal(10, 2)| differs
// from Normal(10, 2) with probability 3·10⁻⁷). The tolerance is 4 standard
// errors.
func TestOCCLoneClient(t *testing.T) {
	sc := model.AWSScenario(1, policy.Full)
	const trials = 20000
	var sum, sq float64
	err := Run(context.Background(), sc, Options{Trials: trials, Seed: 3}, func(tr *Trial) error {
		if tr.Calls != 1 || tr.Served != 1 || tr.Censored || !tr.Continuous {
			t.Fatalf("trial %d: calls %d served %d censored %v continuous %v", tr.Index, tr.Calls, tr.Served, tr.Censored, tr.Continuous)
		}
		sum += tr.Time
		sq += tr.Time * tr.Time
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	mean := sum / trials
	variance := sq/trials - mean*mean
	se := math.Sqrt(16.0 / trials)
	if math.Abs(mean-40) > 4*se {
		t.Errorf("mean time %.3f ms, want 40 ± %.3f", mean, 4*se)
	}
	// The variance of a sample variance of a normal is 2σ⁴/(n−1).
	if sev := math.Sqrt(2 * 16 * 16 / float64(trials-1)); math.Abs(variance-16) > 4*sev {
		t.Errorf("time variance %.3f ms², want 16 ± %.3f", variance, 4*sev)
	}
}

// Every client is served exactly once, every trial makes at least N calls,
// and with `none` two clients contend: the first to write wins; the second
// has read before that win unless its read came after it, so the calls are
// 2 or more, never fewer.
func TestOCCServesEveryone(t *testing.T) {
	for _, kind := range model.AWSKinds() {
		sc := model.AWSScenario(30, kind)
		err := Run(context.Background(), sc, Options{Trials: 200, Seed: 1, Arrivals: true}, func(tr *Trial) error {
			if tr.Served != 30 || tr.Calls < 30 || tr.Censored {
				t.Fatalf("%s trial %d: served %d calls %d censored %v", kind, tr.Index, tr.Served, tr.Calls, tr.Censored)
			}
			if int64(len(tr.CallTimes)) != tr.Calls {
				t.Fatalf("%s: %d call times for %d calls", kind, len(tr.CallTimes), tr.Calls)
			}
			for i := 1; i < len(tr.CallTimes); i++ {
				if tr.CallTimes[i] < tr.CallTimes[i-1] {
					t.Fatalf("%s: call times out of order at %d", kind, i)
				}
			}
			if last := tr.CallTimes[len(tr.CallTimes)-1]; tr.Time <= last {
				t.Fatalf("%s: completion %.3f not after the last write %.3f", kind, tr.Time, last)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The first attempt of every client does not depend on the policy (common
// random numbers), so with N = 1 every policy gives the same time, bit for
// bit, trial by trial.
func TestOCCCommonRandomNumbers(t *testing.T) {
	times := map[policy.Kind][]float64{}
	for _, kind := range model.AWSKinds() {
		err := Run(context.Background(), model.AWSScenario(1, kind), Options{Trials: 50, Seed: 9}, func(tr *Trial) error {
			times[kind] = append(times[kind], tr.Time)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, kind := range model.AWSKinds() {
		for i, x := range times[kind] {
			if x != times[policy.None][i] {
				t.Fatalf("%s trial %d: time %v, none %v", kind, i, x, times[policy.None][i])
			}
		}
	}
}

// The horizon censors: a horizon of 1 ms stops every trial before its first
// write (a read and two hops take about 30 ms).
func TestOCCHorizonCensors(t *testing.T) {
	sc := model.AWSScenario(5, policy.Full)
	sc.Horizon = 1
	err := Run(context.Background(), sc, Options{Trials: 10, Seed: 1}, func(tr *Trial) error {
		if !tr.Censored || tr.Calls != 0 {
			t.Fatalf("trial %d: censored %v calls %d", tr.Index, tr.Censored, tr.Calls)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// Results do not depend on the number of workers.
func TestOCCWorkersInvariant(t *testing.T) {
	sc := model.AWSScenario(40, policy.Decorrelated)
	collect := func(workers int) []float64 {
		var out []float64
		if err := Run(context.Background(), sc, Options{Trials: 300, Seed: 5, Workers: workers}, func(tr *Trial) error {
			out = append(out, float64(tr.Calls), tr.Time)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	a, b := collect(1), collect(3)
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("value %d: %v with 1 worker, %v with 3", i, a[i], b[i])
		}
	}
}

// The plan gives the OCC server its event engine and nothing else, and
// refuses a cohort beyond it naming --clients (exit 2 in the CLI).
func TestPlanOCCEngine(t *testing.T) {
	sc := model.AWSScenario(10, policy.Full)
	for _, want := range []EngineName{Clients, Counts} {
		if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1, Use: want}); err == nil {
			t.Errorf("--engine %s accepted the OCC server", want)
		}
	}
	if p, err := NewPlan(sc, Cohort{}, Options{Trials: 1}); err != nil || p.Choice.Engine != Events {
		t.Errorf("OCC plan: %+v, %v; want the event engine", p, err)
	}
	if c, _ := Choose(model.Default(), Auto); c.Engine == Events {
		t.Error("a capacity scenario got the OCC event engine")
	}
	sc.Clients = MaxOCCClients + 1
	if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1}); err == nil || !strings.Contains(err.Error(), "--clients") {
		t.Errorf("OCC with %d clients: %v; want a LimitError naming --clients", sc.Clients, err)
	}
}

// occReference is the OCC engine as it was before its draws were made
// fast, written plainly: every client draws its hops through
// rand.Rand.NormFloat64 on its own PCG and its backoffs by drawDelay, and
// the tournament tree gives the next write. It is the oracle of TestOCCMatchesReference and the baseline of
// BenchmarkOCCGrid/reference: every change to the engine's speed must keep
// its draws and its results, bit for bit.
type occReference struct {
	sc    model.Scenario
	net   []rand.PCG
	rng   []*rand.Rand
	read  []float64
	queue clientQueue
	retry []int
	prev  []float64
	laws  []policy.Law
}

func newOCCReference(sc model.Scenario) *occReference {
	n := sc.Clients
	e := &occReference{sc: sc, net: make([]rand.PCG, n), rng: make([]*rand.Rand, n),
		read: make([]float64, n), retry: make([]int, n), prev: make([]float64, n), laws: classLaws(sc.Policy)}
	for c := range e.net {
		e.rng[c] = rand.New(&e.net[c])
	}
	return e
}

func (e *occReference) hop(c int) float64 {
	return math.Abs(model.HopMean + model.HopSD*e.rng[c].NormFloat64())
}

func (e *occReference) attempt(c int, s float64) float64 {
	e.read[c] = s + e.hop(c)
	return e.read[c] + e.hop(c) + e.hop(c)
}

func (e *occReference) Play(src *rand.PCG, t *Trial, arrivals bool) {
	t.Continuous = true
	sc := e.sc
	horizon := float64(sc.EffectiveHorizon())
	q := &e.queue
	q.reset(sc.Clients)
	for c := range sc.Clients {
		e.net[c].Seed(src.Uint64(), src.Uint64())
		e.retry[c], e.prev[c] = 0, sc.Policy.Start()
		start := 0.0
		if sc.FirstWindow > 1 {
			start = float64(e.net[c].Uint64()>>11) * 0x1p-53 * float64(sc.FirstWindow)
		}
		q.at[c] = math.Float64bits(e.attempt(c, start))
	}
	q.build()
	lastWin, done := math.Inf(-1), 0.0
	for {
		cc, w := q.next()
		c := int(cc)
		if math.IsInf(w, 1) {
			break
		}
		if w > horizon {
			t.Censored = true
			break
		}
		t.Calls++
		if arrivals {
			t.CallTimes = append(t.CallTimes, w)
		}
		if lastWin < e.read[c] {
			lastWin = w
			t.Served++
			done = max(done, w+e.hop(c))
			q.set(cc, math.Inf(1))
			continue
		}
		e.retry[c]++
		fail := w + e.hop(c)
		u := float64(e.net[c].Uint64()>>11) * 0x1p-53
		d := drawDelay(e.laws, sc.Policy.Law, e.retry[c], &e.prev[c], u)
		q.set(cc, e.attempt(c, fail+d))
	}
	t.Time = done
}

// The engine plays every trial exactly as the reference does: the same
// calls, wins, censoring, completion time and every write's time, bit for
// bit, over the AWS grid's policies, cohorts from 1 to 190, a first window
// and a horizon that censors some trials. Shown to fail by one extra
// uniform drawn in the engine's attempt, and by a loser's response
// arriving 10⁻⁹ ms late (the completion time then differs in its 10th
// digit).
func TestOCCMatchesReference(t *testing.T) {
	type variant struct {
		n, window int
		horizon   int
	}
	variants := []variant{{1, 0, 0}, {2, 0, 0}, {10, 0, 0}, {57, 0, 0}, {190, 0, 0}, {30, 500, 0}, {40, 0, 400}}
	if testing.Short() {
		variants = variants[:4]
	}
	for _, v := range variants {
		for _, kind := range model.AWSKinds() {
			sc := model.AWSScenario(v.n, kind)
			sc.FirstWindow = v.window
			if v.horizon > 0 {
				sc.Horizon = v.horizon
			}
			e, err := NewOCCEngine(sc)
			if err != nil {
				t.Fatal(err)
			}
			ref := newOCCReference(sc)
			var got, want Trial
			censored := 0
			for i := range 40 {
				got.reset(i)
				want.reset(i)
				e.Play(Stream(3, sc, i), &got, true)
				ref.Play(Stream(3, sc, i), &want, true)
				if got.Calls != want.Calls || got.Served != want.Served || got.Censored != want.Censored ||
					math.Float64bits(got.Time) != math.Float64bits(want.Time) || !slices.Equal(got.CallTimes, want.CallTimes) {
					t.Fatalf("N = %d, %s, window %d, horizon %d, trial %d: engine %d calls, %d served, censored %v, time %v; reference %d, %d, %v, %v",
						v.n, kind, v.window, v.horizon, i, got.Calls, got.Served, got.Censored, got.Time, want.Calls, want.Served, want.Censored, want.Time)
				}
				if got.Censored {
					censored++
				}
			}
			if v.horizon > 0 && censored == 0 {
				t.Errorf("N = %d, %s, horizon %d: no trial censored, the horizon case tests nothing", v.n, kind, v.horizon)
			}
		}
	}
}
