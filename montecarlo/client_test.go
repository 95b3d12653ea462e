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

// playAll runs trials of sc and returns them (copied).
func playAll(t *testing.T, sc model.Scenario, opt Options) []Trial {
	t.Helper()
	return playWork(t, sc, Cohort{}, opt)
}

// playWork plays the workload's trials through its plan and returns copies.
func playWork(t *testing.T, sc model.Scenario, w Workload, opt Options) []Trial {
	t.Helper()
	var out []Trial
	p, err := NewPlan(sc, w, opt)
	if err != nil {
		t.Fatal(err)
	}
	err = p.Run(context.Background(), func(tr *Trial) error {
		c := *tr
		c.Latency = tr.Latency.Clone()
		c.Arrivals = append([]int64(nil), tr.Arrivals...)
		out = append(out, c)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// cohort is the synchronized cohort of a no-jitter policy on the capacity
// server, worked out wave by wave: all pending clients send together, k of
// them are served, the rest wait the same deterministic delay.
func cohort(sc model.Scenario) (calls, completion int64, latency map[int]int64) {
	latency = map[int]int64{}
	pending, tick := sc.Clients, 0
	for n := 1; ; n++ {
		calls += int64(pending)
		served := min(pending, sc.Capacity)
		latency[tick+1] += int64(served)
		pending -= served
		if pending == 0 {
			return calls, int64(tick + 1), latency
		}
		tick += sc.Rounding.Ticks(sc.Policy.Delay(n, sc.Policy.Base, 0))
	}
}

// The engine reproduces the synchronized cohort exactly for no-jitter
// policies over many random scenarios, roundings included.
func TestNoJitterMatchesCohort(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	for i := range 300 {
		sc := model.Default()
		sc.Clients = 1 + r.IntN(400)
		sc.Capacity = 1 + r.IntN(40)
		sc.Policy.Kind = []policy.Kind{policy.None, policy.Fixed, policy.Expo}[i%3]
		sc.Policy.Base = []float64{0.25, 0.5, 1, 1.5, 2, 3}[r.IntN(6)]
		sc.Policy.Cap = sc.Policy.Base * float64(1+r.IntN(64))
		sc.Policy.FixedDelay = float64(r.IntN(8)) / 2
		sc.Rounding = policy.Rounding(r.IntN(4))
		calls, completion, latency := cohort(sc)
		for _, tr := range playAll(t, sc, Options{Trials: 3, Seed: uint64(i)}) {
			if tr.Censored || tr.Calls != calls || tr.Completion != completion {
				t.Fatalf("%+v: engine calls %d completion %d censored %v; cohort %d, %d", sc, tr.Calls, tr.Completion, tr.Censored, calls, completion)
			}
			for l, c := range tr.Latency.Dense() {
				if c != latency[l] {
					t.Fatalf("%+v: %d clients with latency %d, cohort says %d", sc, c, l, latency[l])
				}
			}
		}
	}
}

// The seed article's exact rows (section 5.2).
func TestSeedNoJitterRows(t *testing.T) {
	for _, c := range []struct {
		n                 int
		kind              policy.Kind
		calls, completion int64
	}{
		{50, policy.Fixed, 150, 9}, {100, policy.Fixed, 550, 19}, {200, policy.Fixed, 2100, 39},
		{50, policy.Expo, 150, 31}, {100, policy.Expo, 550, 191}, {200, policy.Expo, 2100, 511},
	} {
		sc := model.Default()
		sc.Clients, sc.Policy.Kind = c.n, c.kind
		tr := playAll(t, sc, Options{Trials: 1, Seed: 1})[0]
		if tr.Calls != c.calls || tr.Completion != c.completion {
			t.Errorf("N=%d %s: calls %d completion %d, want %d and %d", c.n, c.kind, tr.Calls, tr.Completion, c.calls, c.completion)
		}
	}
}

// exact is the exact law of (calls, completion) of a tiny capacity-server
// scenario, by enumerating every history. Clients are (retry number, next
// send tick); wait[n] is the hand-computed law of the wait before retry n
// (the last entry serves every larger n).
func exact(clients []client, k int, wait []map[int]float64, tick int, calls int, p float64, out map[[2]int]float64) {
	if len(clients) == 0 {
		return
	}
	var arriving, later []client
	for _, c := range clients {
		if c.at == tick {
			arriving = append(arriving, c)
		} else {
			later = append(later, c)
		}
	}
	m := len(arriving)
	calls += m
	if m <= k {
		if len(later) == 0 {
			out[[2]int{calls, tick + 1}] += p
			return
		}
		exact(later, k, wait, tick+1, calls, p, out)
		return
	}
	// Every set of k winners is equally likely.
	subsets := combinations(m, k)
	for _, winners := range subsets {
		var losers []client
		for i, c := range arriving {
			if !winners[i] {
				losers = append(losers, client{c.n + 1, 0})
			}
		}
		retryAll(losers, 0, later, k, wait, tick, calls, p/float64(len(subsets)), out)
	}
}

type client struct{ n, at int }

// retryAll draws the wait of each loser in turn, then continues.
func retryAll(losers []client, i int, rest []client, k int, wait []map[int]float64, tick, calls int, p float64, out map[[2]int]float64) {
	if i == len(losers) {
		exact(append(append([]client(nil), rest...), losers...), k, wait, tick+1, calls, p, out)
		return
	}
	law := wait[min(losers[i].n, len(wait)-1)]
	for w, q := range law {
		l := append([]client(nil), losers...)
		l[i].at = tick + w
		retryAll(l, i+1, rest, k, wait, tick, calls, p*q, out)
	}
}

func combinations(m, k int) [][]bool {
	var out [][]bool
	var rec func(i, left int, cur []bool)
	rec = func(i, left int, cur []bool) {
		if i == m {
			if left == 0 {
				out = append(out, append([]bool(nil), cur...))
			}
			return
		}
		if left > 0 {
			cur[i] = true
			rec(i+1, left-1, cur)
			cur[i] = false
		}
		rec(i+1, left, cur)
	}
	rec(0, k, make([]bool, m))
	return out
}

// Full and Equal Jitter agree with exact laws worked out by hand: with base
// 1, cap 2, Full's δ ~ U(0, 2) rounds (half-even) to a wait of 1 with
// probability ¾ and 2 with ¼; with base 1, cap 4, Equal's δ ~ U(1, 2) for
// n = 1 gives waits 1 and 2 with ½ each, and U(2, 4) for n ≥ 2 gives 2, 3,
// 4 with ¼, ½, ¼. Each check is a 4σ bound on the Monte Carlo mean, and on
// every cell of the completion distribution.
func TestJitterAgreesWithEnumeration(t *testing.T) {
	cases := []struct {
		name string
		kind policy.Kind
		cap  float64
		n, k int
		wait []map[int]float64
	}{
		{"full N=3 k=1", policy.Full, 2, 3, 1, []map[int]float64{nil, {1: 0.75, 2: 0.25}}},
		{"full N=4 k=2", policy.Full, 2, 4, 2, []map[int]float64{nil, {1: 0.75, 2: 0.25}}},
		{"equal N=3 k=1", policy.Equal, 4, 3, 1, []map[int]float64{nil, {1: 0.5, 2: 0.5}, {2: 0.25, 3: 0.5, 4: 0.25}}},
		{"equal N=4 k=1", policy.Equal, 4, 4, 1, []map[int]float64{nil, {1: 0.5, 2: 0.5}, {2: 0.25, 3: 0.5, 4: 0.25}}},
	}
	const trials = 200000
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			law := map[[2]int]float64{}
			start := make([]client, c.n)
			exact(start, c.k, c.wait, 0, 0, 1, law)
			var eCalls, eComp, total float64
			pComp := map[int]float64{}
			for key, p := range law {
				eCalls += float64(key[0]) * p
				eComp += float64(key[1]) * p
				pComp[key[1]] += p
				total += p
			}
			if math.Abs(total-1) > 1e-12 {
				t.Fatalf("enumeration lost mass: %g", total)
			}
			sc := model.Default()
			sc.Clients, sc.Capacity = c.n, c.k
			sc.Policy = policy.Policy{Kind: c.kind, Base: 1, Cap: c.cap}
			var sCalls, sCalls2, sComp, sComp2 float64
			seen := map[int]float64{}
			err := Run(context.Background(), sc, Options{Trials: trials, Seed: 11}, func(tr *Trial) error {
				x, y := float64(tr.Calls), float64(tr.Completion)
				sCalls, sCalls2, sComp, sComp2 = sCalls+x, sCalls2+x*x, sComp+y, sComp2+y*y
				seen[int(tr.Completion)]++
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			check := func(what string, sum, sum2, want float64) {
				mean := sum / trials
				se := math.Sqrt((sum2/trials - mean*mean) / trials)
				if math.Abs(mean-want) > 4*se+1e-12 {
					t.Errorf("%s: Monte Carlo %.5f ± %.5f (se), exact %.5f", what, mean, se, want)
				}
			}
			check("E[calls]", sCalls, sCalls2, eCalls)
			check("E[completion]", sComp, sComp2, eComp)
			for v := range seen {
				if pComp[v] == 0 {
					t.Errorf("completion %d seen %g times but impossible", v, seen[v])
				}
			}
			for v, p := range pComp {
				se := math.Sqrt(p * (1 - p) / trials)
				if got := seen[v] / trials; math.Abs(got-p) > 4*se {
					t.Errorf("P(completion=%d): Monte Carlo %.5f, exact %.5f (4σ = %.5f)", v, got, p, 4*se)
				}
			}
		})
	}
}

// The collision server never serves a synchronized cohort larger than k:
// every trial is censored at the horizon, having sent N calls every
// fixed-delay period.
func TestCollisionCensors(t *testing.T) {
	sc := model.Default()
	sc.Server, sc.Policy.Kind, sc.Clients, sc.Capacity, sc.Horizon = model.Collision, policy.Fixed, 20, 1, 101
	for _, tr := range playAll(t, sc, Options{Trials: 5, Seed: 3}) {
		if !tr.Censored || tr.Served != 0 || tr.Calls != 20*51 {
			t.Fatalf("collision cohort: censored %v served %d calls %d, want censored, 0, %d", tr.Censored, tr.Served, tr.Calls, 20*51)
		}
	}
	// With m ≤ k everyone is served at once.
	sc.Capacity = 20
	tr := playAll(t, sc, Options{Trials: 1, Seed: 3})[0]
	if tr.Censored || tr.Calls != 20 || tr.Completion != 1 {
		t.Fatalf("collision with N ≤ k: %+v", tr)
	}
}

// A first-request window spreads the first sends uniformly: with k ≥ N
// everyone is served at their first send, so the arrivals of each tick are
// Binomial(N, 1/W) and every latency is 1.
func TestFirstWindow(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.FirstWindow = 1000, 1000, 10
	var tick0 float64
	const trials = 2000
	for _, tr := range playAll(t, sc, Options{Trials: trials, Seed: 5, Arrivals: true}) {
		if tr.Calls != 1000 || tr.Latency.Count(1) != 1000 || len(tr.Arrivals) > 10 {
			t.Fatalf("window trial: %+v", tr)
		}
		tick0 += float64(tr.Arrivals[0])
	}
	mean, sd := tick0/trials, math.Sqrt(1000*0.1*0.9/trials)
	if math.Abs(mean-100) > 4*sd {
		t.Errorf("mean arrivals at tick 0: %g, want 100 ± %g", mean, 4*sd)
	}
}

// Results depend on the seed, scenario and trial index only: not on the
// number of workers.
func TestWorkersDoNotChangeResults(t *testing.T) {
	sc := model.Default()
	sc.Policy.Kind = policy.Decorrelated
	opt := Options{Trials: 700, Seed: 42, Workers: 1, Arrivals: true}
	a := playAll(t, sc, opt)
	opt.Workers = 3
	b := playAll(t, sc, opt)
	for i := range a {
		if a[i].Index != i || a[i].Calls != b[i].Calls || a[i].Completion != b[i].Completion || len(a[i].Arrivals) != len(b[i].Arrivals) {
			t.Fatalf("trial %d differs between 1 and 3 workers: %+v vs %+v", i, a[i], b[i])
		}
	}
	opt.Seed = 43
	c := playAll(t, sc, opt)
	same := 0
	for i := range a {
		if a[i].Calls == c[i].Calls {
			same++
		}
	}
	if same == len(a) {
		t.Fatal("seed 43 reproduced seed 42 exactly")
	}
}

func TestRefusesHugeCohort(t *testing.T) {
	sc := model.Default()
	sc.Clients = MaxEngineClients + 1
	if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1, Use: Clients}); err == nil || !strings.Contains(err.Error(), "--clients") {
		t.Fatalf("a plan gave the per-client engine more clients than MaxEngineClients (%v)", err)
	}
}

// The per-client engine's fast path for plain policies (retryPlain, with
// its counts as uint8 classes or as int32 retry numbers) plays the very
// trials of its general path (wait for every loser), draw for draw: the
// same calls, completion, peak and latency histogram for every trial, with
// and without a first-request window and under every rounding.
func TestPlainPathMatchesGeneralPath(t *testing.T) {
	for _, c := range []struct {
		kind     policy.Kind
		window   int
		rounding policy.Rounding
	}{
		{policy.Full, 1, policy.HalfEven}, {policy.Expo, 1, policy.HalfEven}, {policy.Equal, 9, policy.Ceil},
		{policy.Fixed, 1, policy.Floor}, {policy.None, 3, policy.HalfUp}, {policy.Full, 5, policy.Floor},
		{policy.Poly, 1, policy.HalfEven}, {policy.LogLog, 4, policy.HalfEven}, {policy.Sawtooth, 1, policy.Ceil},
		{policy.Window, 2, policy.HalfEven},
	} {
		sc := model.Default()
		sc.Clients, sc.Capacity, sc.Policy.Kind = 2000, 20, c.kind
		sc.FirstWindow, sc.Rounding = c.window, c.rounding
		build := func(counts string) *ClientEngine {
			e, err := NewClientEngine(sc)
			if err != nil {
				t.Fatal(err)
			}
			if !e.plain {
				t.Fatalf("%s: not a plain engine", c.kind)
			}
			switch counts {
			case "int32":
				if e.class == nil {
					return e // more than 255 classes: int32 counts already
				}
				e.class, e.retry = nil, make([]int32, sc.Clients)
			case "general":
				e.class, e.retry, e.plain = nil, make([]int32, sc.Clients), false
			}
			return e
		}
		engines := map[string]*ClientEngine{"uint8": build("uint8"), "int32": build("int32"), "general": build("general")}
		for i := range 30 {
			var want Trial
			engines["general"].Play(Stream(5, sc, i), &want, true)
			for _, name := range []string{"uint8", "int32"} {
				var got Trial
				engines[name].Play(Stream(5, sc, i), &got, true)
				if got.Calls != want.Calls || got.Completion != want.Completion || got.Peak != want.Peak ||
					got.Served != want.Served || got.Censored != want.Censored ||
					!slices.Equal(got.Latency.Runs(), want.Latency.Runs()) || !slices.Equal(got.Arrivals, want.Arrivals) {
					t.Fatalf("%s window %d %s, trial %d: the %s fast path played calls %d completion %d peak %d, the general path %d %d %d",
						c.kind, c.window, c.rounding, i, name, got.Calls, got.Completion, got.Peak, want.Calls, want.Completion, want.Peak)
				}
			}
		}
	}
}
