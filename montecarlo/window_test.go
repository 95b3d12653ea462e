package montecarlo

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
)

func windowScenario(t *testing.T, kv ...string) model.Scenario {
	t.Helper()
	sc, err := model.ScenarioOf(kv...)
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func playWindow(t *testing.T, sc model.Scenario, trials int, fold func(*Trial)) {
	t.Helper()
	err := Run(context.Background(), sc, Options{Trials: trials, Seed: 7}, func(tr *Trial) error {
		fold(tr)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A cohort whose delays and round trip are certain plays the same trial
// every time, and it is the closed form's: calls, give-ups and the
// completion in ms exactly, and the latency histogram of its waves.
func TestWindowEngineMatchesClosedForm(t *testing.T) {
	for _, kv := range [][]string{
		{"policy", "expo", "window", "100ms"},
		{"policy", "expo", "window", "100ms", "latency", "30ms", "clients", "1000", "capacity", "7"},
		{"policy", "expo", "window", "100ms", "base", "0.25", "clients", "30"}, // retries within a full window
		{"policy", "fixed", "fixed-delay", "0.3", "window", "10ms", "latency", "1ms", "clients", "50", "capacity", "3"},
		{"policy", "retryablehttp-default", "window", "100ms", "clients", "200", "latency", "5ms"},
		{"policy", "retryablehttp-default", "window", "10ms", "clients", "1000", "capacity", "50"},
		{"policy", "expo", "window", "1s", "max-elapsed", "20s", "clients", "100", "latency", "500ms"},
	} {
		sc := windowScenario(t, kv...)
		want, err := solve.WindowClosedForm(sc)
		if err != nil {
			t.Fatalf("%v: %v", kv, err)
		}
		var hist []int64
		for _, w := range want.Waves {
			l := w.Time // every first send is at 0
			for range w.Served {
				probe := Trial{}
				probe.servedAfter(l)
				bin := int(probe.Latency.Max())
				for len(hist) <= bin {
					hist = append(hist, 0)
				}
				hist[bin]++
			}
		}
		playWindow(t, sc, 3, func(tr *Trial) {
			if tr.Calls != want.Calls || tr.Served != want.Served || tr.GaveUp != want.GaveUp || tr.Censored || math.Abs(tr.Time-want.Completion) > 1e-9*want.Completion {
				t.Errorf("%v trial %d: calls %d served %d gave up %d completion %v ms; closed form %d, %d, %d, %v ms",
					kv, tr.Index, tr.Calls, tr.Served, tr.GaveUp, tr.Time, want.Calls, want.Served, want.GaveUp, want.Completion)
			}
			got := tr.Latency.Dense()
			for l := range max(len(hist), len(got)) {
				var a, b int64
				if l < len(hist) {
					a = hist[l]
				}
				if l < len(got) {
					b = got[l]
				}
				if a != b {
					t.Errorf("%v: latency bin %d holds %d clients, closed form %d", kv, l, b, a)
					break
				}
			}
		})
	}
}

// referenceWindow is the window server written the plain way, to check the
// engine's heap and bookkeeping: every event is found by scanning all
// clients for the earliest next arrival (the lowest index on a tie, which
// the engine breaks by its heap's history instead, so the cases below have
// none), with the engine's streams and order of draws. With a latency per
// flight P, sending[c] says that client c's next event is a retry's send,
// which the machine (free from free on) carries to the server in P: it is
// then the client's arrival; a first send takes its P of the machine as it
// arrives; every answer, admitted or not, takes P of the machine too, but
// only when the machine is free before the next event (requests first; the
// answers in the order given), and a failed client sends again one round
// trip and its delay after its answer is back.
func referenceWindow(sc model.Scenario, src *rand.PCG) (calls, served, gaveUp int64, completion float64) {
	w := sc.Policy.TickLength()
	trip := sc.Latency.In(w)
	p := float64(sc.LatencyPerFlight) / float64(w)
	n := sc.Clients
	net := make([]rand.PCG, n)
	next := make([]float64, n) // +Inf: done
	first := make([]float64, n)
	answer := make([]float64, n) // the first answers, with their law
	retry := make([]int, n)
	prev := make([]float64, n)
	sending := make([]bool, n)
	free := 0.0
	// stops are the machine's stops [from, to), drawn as the run needs
	// them; carry walks them.
	var stall rand.PCG
	type stop struct{ from, to float64 }
	var stops []stop
	every, length := float64(sc.Stalls.Every)/float64(w), float64(sc.Stalls.Length)/float64(w)
	carry := func(t float64) float64 {
		if every == 0 {
			return t + p
		}
		left := p
		for i := 0; ; i++ {
			for i >= len(stops) {
				end := 0.0
				if len(stops) > 0 {
					end = stops[len(stops)-1].to
				}
				from := end - every*math.Log1p(-uniform(&stall))
				stops = append(stops, stop{from, from - length*math.Log1p(-uniform(&stall))})
			}
			s := stops[i]
			if s.to <= t {
				continue
			}
			if t < s.from {
				if t+left <= s.from {
					return t + left
				}
				left -= s.from - t
			}
			t = s.to
		}
	}
	for c := range n {
		net[c].Seed(src.Uint64(), src.Uint64())
		u := uniform(&net[c])
		first[c] = u * float64(sc.FirstSpread) / float64(w)
		if !sc.FirstArrivals.IsZero() {
			first[c] = sc.FirstArrivals.In(w).Draw(u)
		}
		if !sc.FirstAnswers.IsZero() {
			answer[c] = sc.FirstAnswers.In(w).Draw(u)
		}
		next[c], prev[c] = first[c], sc.Policy.Start()
	}
	if every > 0 {
		stall.Seed(src.Uint64(), src.Uint64())
	}
	admitted := map[float64]int{}
	maxElapsed := math.Inf(1)
	if sc.Policy.MaxElapsed > 0 {
		maxElapsed = float64(sc.Policy.MaxElapsed) / float64(w)
	}
	type answerWaiting struct {
		client        int // −1: an admitted request's
		given, lat, d float64
	}
	var waiting []answerWaiting
	for {
		c := -1
		for i := range n {
			if !math.IsInf(next[i], 1) && (c < 0 || next[i] < next[c]) {
				c = i
			}
		}
		if len(waiting) > 0 {
			x := waiting[0]
			if at := math.Max(free, x.given); c < 0 || at < next[c] {
				waiting = waiting[1:]
				free = carry(at)
				switch {
				case x.client < 0:
				case sc.Policy.Retries > 0 && retry[x.client] > sc.Policy.Retries || free+x.lat-first[x.client]+x.d > maxElapsed:
					gaveUp++
				default:
					next[x.client], sending[x.client] = free+x.lat+x.d, true
				}
				continue
			}
		}
		if c < 0 {
			break
		}
		a := next[c]
		if sending[c] {
			free = carry(math.Max(free, a))
			next[c], sending[c] = free, false
			continue
		}
		calls++
		lat := trip.Draw(uniform(&net[c]))
		back := a
		if p > 0 && retry[c] == 0 {
			free = carry(math.Max(free, a)) // the first send's way
		}
		waits := p > 0 // the answer waits for the machine
		if retry[c] == 0 && !sc.FirstAnswers.IsZero() {
			back, waits = math.Max(a, answer[c]), false // the answer as measured, no way carried
		}
		if win := math.Floor(a); admitted[win] < sc.Capacity {
			admitted[win]++
			served++
			completion = math.Max(completion, a)
			next[c] = math.Inf(1)
			if waits {
				waiting = append(waiting, answerWaiting{client: -1, given: a})
			}
			continue
		}
		retry[c]++
		var d float64
		d, prev[c] = sc.Policy.Law(retry[c], prev[c]).Sample(uniform(&net[c]))
		if waits {
			waiting = append(waiting, answerWaiting{client: c, given: a, lat: lat, d: d})
			next[c] = math.Inf(1)
			continue
		}
		if sc.Policy.Retries > 0 && retry[c] > sc.Policy.Retries || back+lat-first[c]+d > maxElapsed {
			gaveUp++
			next[c] = math.Inf(1)
			continue
		}
		next[c], sending[c] = back+lat+d, p > 0
	}
	return calls, served, gaveUp, completion * float64(w) / 1e6
}

// The engine plays exactly the trials of the plain reference, with random
// delays, round trips and first sends, including stateful policies and
// give-ups.
func TestWindowEngineMatchesReference(t *testing.T) {
	for _, kv := range [][]string{
		{"policy", "full", "window", "100ms", "clients", "60", "capacity", "5", "first-spread", "50ms", "latency", "uniform:2ms,8ms"},
		{"policy", "retry-go-v4", "window", "100ms", "clients", "80", "capacity", "10", "first-spread", "30ms", "latency", "lognormal:5ms,2ms"},
		{"policy", "cenkalti-v4", "window", "10ms", "clients", "300", "capacity", "1", "first-spread", "40ms", "latency", "4ms", "max-elapsed", "2s"},
		{"policy", "decorrelated", "window", "10ms", "clients", "50", "capacity", "2", "first-spread", "5ms", "latency", "1ms", "base", "0.5", "cap", "20"},
		{"policy", "polly-v8-expo-jitter", "window", "1s", "clients", "40", "capacity", "4", "first-spread", "1s"},
		{"policy", "full", "window", "10ms", "clients", "300", "capacity", "10", "first-spread", "40ms", "latency", "uniform:0s,2ms", "latency-per-flight", "50us"},
		{"policy", "cenkalti-v4", "window", "10ms", "clients", "200", "capacity", "3", "first-spread", "5ms", "latency", "1ms", "latency-per-flight", "200us", "max-elapsed", "3s"},
		{"policy", "retry-go-v4", "window", "100ms", "clients", "100", "capacity", "10", "first-spread", "30ms", "latency-per-flight", "1ms"},
		{"policy", "full", "window", "10ms", "clients", "200", "capacity", "50", "first-arrivals", "quantiles:0s,1ms,30ms,32ms,45ms", "latency", "quantiles:0s,1ms,9ms", "latency-per-flight", "80us"},
		{"policy", "full", "window", "10ms", "clients", "500", "capacity", "20", "first-spread", "40ms", "latency", "uniform:0s,2ms", "latency-per-flight", "60us", "stalls", "20ms,6ms"},
		{"policy", "cenkalti-v4", "window", "10ms", "clients", "300", "capacity", "10", "first-spread", "30ms", "latency-per-flight", "500us", "stalls", "2ms,3ms"},
		{"policy", "retry-go-v4", "window", "10ms", "clients", "300", "capacity", "10", "first-arrivals", "quantiles:0s,20ms,60ms", "first-answers", "quantiles:5ms,55ms,62ms,70ms", "latency", "uniform:0s,2ms"},
		{"policy", "full", "window", "10ms", "clients", "400", "capacity", "20", "first-arrivals", "quantiles:0s,1ms,30ms,45ms", "first-answers", "quantiles:0s,40ms,50ms", "latency-per-flight", "60us", "stalls", "20ms,6ms"},
	} {
		sc := windowScenario(t, kv...)
		e, err := NewWindowEngine(sc)
		if err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			var tr Trial
			e.Play(Stream(3, sc, i), &tr, false)
			calls, served, gaveUp, completion := referenceWindow(sc, Stream(3, sc, i))
			if tr.Calls != calls || tr.Served != served || tr.GaveUp != gaveUp || math.Abs(tr.Time-completion) > 1e-12*completion || tr.Censored {
				t.Errorf("%v trial %d: engine %d calls, %d served, %d gave up, %v ms; reference %d, %d, %d, %v ms",
					kv, i, tr.Calls, tr.Served, tr.GaveUp, tr.Time, calls, served, gaveUp, completion)
			}
		}
	}
}

// When the server admits everyone (k ≥ N), a trial is its first sends:
// calls = N, every latency is 0, and completion is the last first send.
// With first sends uniform over [0, S), E[completion] = S·N/(N+1) and Var =
// S²·N/((N+1)²(N+2)). Two clients, one admitted per window of 1 s and a
// fixed delay of one window: the loser comes back one round trip L and a
// window later, in window 1, so completion is 1000 ms + L, whose mean and
// variance are the round trip's. The means are checked within 4 standard
// errors over 4,000 trials.
func TestWindowFirstSendsAndRoundTrips(t *testing.T) {
	const trials, n = 4000, 20
	sc := windowScenario(t, "policy", "full", "window", "10ms", "clients", "20", "capacity", "20", "first-spread", "8ms", "latency", "3ms")
	var sum float64
	playWindow(t, sc, trials, func(tr *Trial) {
		if tr.Calls != n || tr.Served != n || tr.LatencySum != 0 {
			t.Fatalf("k ≥ N: %d calls, %d served, latencies %v ms", tr.Calls, tr.Served, tr.LatencySum)
		}
		sum += tr.Time
	})
	mean, sd := 8.0*n/(n+1), 8*math.Sqrt(n/((n+1.0)*(n+1)*(n+2)))
	if got := sum / trials; math.Abs(got-mean) > 4*sd/math.Sqrt(trials) {
		t.Errorf("completion %.4f ms, want %.4f ± %.4f", got, mean, 4*sd/math.Sqrt(trials))
	}
	for _, c := range []struct {
		latency  string
		mean, sd float64 // ms
	}{{"5ms", 5, 0}, {"uniform:2ms,8ms", 5, 6 / math.Sqrt(12)}, {"lognormal:5ms,2ms", 5, 2}} {
		sc := windowScenario(t, "policy", "fixed", "fixed-delay", "1", "window", "1s", "clients", "2", "capacity", "1", "latency", c.latency)
		var m1, m2 float64
		playWindow(t, sc, trials, func(tr *Trial) {
			if tr.Calls != 3 || tr.Served != 2 {
				t.Fatalf("%s: %d calls, %d served", c.latency, tr.Calls, tr.Served)
			}
			l := tr.Time - 1000
			m1 += l / trials
			m2 += l * l / trials
		})
		se := c.sd / math.Sqrt(trials)
		// The sd within 10%: more than 4 standard errors of a sample sd of
		// these laws over 4,000 trials (at most 1.6% of it).
		if got := math.Sqrt(math.Max(0, m2-m1*m1)); math.Abs(m1-c.mean) > 4*se+1e-6 || math.Abs(got-c.sd) > 0.1*c.sd+1e-4 {
			t.Errorf("round trip %s: mean %.4f ms, sd %.4f ms; want %g ± %.4f, sd %g", c.latency, m1, got, c.mean, 4*se, c.sd)
		}
	}
}

// The machine of a latency per flight, by hand: two clients reach the
// server at 0, a window of 100 ms admits one, each way takes 10 ms of the
// machine and a round trip of 5 ms and a fixed delay of one window follow
// a failure. The machine carries the first one's way (to 10 ms) and its
// answer (to 20 ms), then the second's way (to 30 ms) and its answer, a
// 503, back at 40 ms; it sends again at 40 + 5 + 100 = 145 ms and the
// machine, idle, takes it to the server at 155 ms, in window 1: 3 calls,
// completion 155 ms, latencies 0 and 155 ms (first arrival to success).
// Without the machine it would come back at 105 ms; with admitted answers
// that took no machine at 135 ms.
func TestWindowLatencyPerFlight(t *testing.T) {
	sc := windowScenario(t, "policy", "fixed", "fixed-delay", "1", "window", "100ms", "clients", "2", "capacity", "1", "latency", "5ms", "latency-per-flight", "10ms")
	playWindow(t, sc, 3, func(tr *Trial) {
		if tr.Calls != 3 || tr.Served != 2 || math.Abs(tr.Time-155) > 1e-9 || math.Abs(tr.LatencySum-155) > 1e-9 {
			t.Errorf("trial %d: %d calls, %d served, completion %v ms, latencies %v ms; want 3, 2, 155 ms, 155 ms", tr.Index, tr.Calls, tr.Served, tr.Time, tr.LatencySum)
		}
	})
	sc.LatencyPerFlight = 0
	playWindow(t, sc, 1, func(tr *Trial) {
		if math.Abs(tr.Time-105) > 1e-9 {
			t.Errorf("without the machine: completion %v ms, want 105", tr.Time)
		}
	})
}

// A trial's arrivals allocate nothing once the engine's buffers have grown:
// the hot loop is the heap and the clients' records.
func TestWindowEngineAllocatesNothingPerEvent(t *testing.T) {
	t.Run("round trips", func(t *testing.T) {
		windowAllocatesNothing(t, windowScenario(t, "policy", "cenkalti-v4", "window", "10ms", "clients", "2000", "capacity", "5", "first-spread", "50ms", "latency", "lognormal:5ms,2ms"))
	})
	t.Run("the machine's answers waiting", func(t *testing.T) {
		windowAllocatesNothing(t, windowScenario(t, "policy", "cenkalti-v4", "window", "10ms", "clients", "2000", "capacity", "5", "first-spread", "50ms", "latency", "uniform:0s,2ms", "latency-per-flight", "50us"))
	})
}

func windowAllocatesNothing(t *testing.T, sc model.Scenario) {
	e, err := NewWindowEngine(sc)
	if err != nil {
		t.Fatal(err)
	}
	var tr Trial
	src := Stream(1, sc, 0)
	e.Play(src, &tr, false)
	if tr.Calls < 3*int64(sc.Clients) {
		t.Fatalf("only %d calls: too few events to measure", tr.Calls)
	}
	if a := testing.AllocsPerRun(5, func() {
		tr.reset(0)
		src.Seed(1, 2)
		e.Play(src, &tr, false)
	}); a != 0 {
		t.Errorf("%v allocations per trial of %d events", a, tr.Calls)
	}
}

// The run is the same whatever the worker count, trial by trial.
func TestWindowWorkersInvariant(t *testing.T) {
	for _, sc := range []model.Scenario{
		windowScenario(t, "policy", "retry-go-v4", "window", "100ms", "clients", "200", "first-spread", "50ms", "latency", "uniform:2ms,8ms"),
		windowScenario(t, "policy", "full", "window", "10ms", "clients", "1000", "capacity", "10", "first-spread", "50ms", "latency", "uniform:0s,2ms", "latency-per-flight", "50us"),
		windowScenario(t, "policy", "cenkalti-v4", "window", "10ms", "clients", "1000", "capacity", "50", "first-arrivals", "quantiles:0s,30ms,40ms", "latency-per-flight", "50us", "stalls", "30ms,8ms"),
	} {
		workersInvariant(t, sc)
	}
}

func workersInvariant(t *testing.T, sc model.Scenario) {
	var runs [3][]Trial
	for i, w := range []int{1, 2, 5} {
		err := Run(context.Background(), sc, Options{Trials: 40, Seed: 11, Workers: w}, func(tr *Trial) error {
			c := *tr
			c.Latency = tr.Latency.Clone()
			c.stop = nil
			runs[i] = append(runs[i], c)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	for i := 1; i < 3; i++ {
		for j := range runs[0] {
			a, b := runs[0][j], runs[i][j]
			if a.Calls != b.Calls || a.Time != b.Time || a.LatencySum != b.LatencySum || a.GaveUp != b.GaveUp || a.Latency.String() != b.Latency.String() {
				t.Fatalf("trial %d differs between worker counts", j)
			}
		}
	}
}

// Continuous time is a kind of run: the tick engines and the open loop
// refuse it, naming the flag, and a cancelled run stops inside a long trial.
func TestWindowPlan(t *testing.T) {
	sc := windowScenario(t, "policy", "full", "window", "100ms")
	if p, err := NewPlan(sc, CohortOf(sc), Options{Trials: 1}); err != nil || p.Choice.Engine != WindowName {
		t.Errorf("plan %+v, %v", p, err)
	}
	var le *LimitError
	if _, err := NewPlan(sc, CohortOf(sc), Options{Trials: 1, Use: Counts}); !errors.As(err, &le) {
		t.Errorf("--engine counts in continuous time: %v", err)
	}
	var fe *model.FieldError
	if _, err := NewPlan(sc, Cohort{}, Options{Trials: 1}); !errors.As(err, &fe) || fe.Flag != "time" {
		t.Errorf("tick cohort in continuous time: %v", err)
	}
	if _, err := NewPlan(sc, OpenLoop{Traffic: model.Traffic{Rate: 5, Ticks: 100}}, Options{Trials: 1}); !errors.As(err, &fe) || fe.Flag != "time" {
		t.Errorf("open loop in continuous time: %v", err)
	}

	long := windowScenario(t, "policy", "full", "window", "1ms", "clients", "2000000", "capacity", "1", "cap", "100000")
	p, err := NewPlan(long, CohortOf(long), Options{Trials: 1, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = p.Run(ctx, func(*Trial) error { t.Error("a cancelled trial was folded"); return nil })
	if took := time.Since(start); took > slowdown*5*time.Second || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("cancelled after 200ms: took %s, err %v", took, err)
	}
}

// The first answers' law sets when each failed first send's client has its
// answer: with every answer back at 50 ms (quantiles:50ms,50ms) and a fixed
// delay of 2 windows of 10 ms with no round trip, every first send that
// failed arrives again at exactly 70 ms, where one window admits k of them.
// And answers no later than the arrivals (the law of the arrivals itself)
// change nothing: the trials are those without the law, draw for draw.
func TestWindowFirstAnswers(t *testing.T) {
	const n, k = 200, 10
	kv := []string{"policy", "fixed", "fixed-delay", "2", "window", "10ms", "clients", "200", "capacity", "10", "first-arrivals", "quantiles:0s,30ms"}
	sc := windowScenario(t, append(append([]string(nil), kv...), "first-answers", "quantiles:50ms,50ms")...)
	e, err := NewWindowEngine(sc)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		var tr Trial
		e.Play(Stream(1, sc, i), &tr, true)
		// 30 ms of first sends over 3 windows admit 3k; the other n − 3k
		// all come back at 70 ms: k of them get in, the rest at 90 ms, …
		at70 := 0
		for _, ms := range tr.CallTimes {
			if math.Abs(ms-70) < 1e-9 {
				at70++
			}
		}
		if at70 != n-3*k {
			t.Errorf("trial %d: %d calls at 70 ms, want the %d first sends that failed", i, at70, n-3*k)
		}
	}
	var plain, same []Trial
	playWindow(t, windowScenario(t, kv...), 10, func(tr *Trial) { plain = append(plain, *tr) })
	playWindow(t, windowScenario(t, append(append([]string(nil), kv...), "first-answers", "quantiles:0s,30ms")...), 10, func(tr *Trial) { same = append(same, *tr) })
	for i := range plain {
		if plain[i].Calls != same[i].Calls || plain[i].Time != same[i].Time || plain[i].LatencySum != same[i].LatencySum {
			t.Errorf("trial %d: answers at the arrivals changed it: %d calls %v ms, without the law %d calls %v ms", i, same[i].Calls, same[i].Time, plain[i].Calls, plain[i].Time)
		}
	}
}

// A first-arrival law replaces the uniform first sends draw for draw:
// quantiles:0s,8ms is the uniform over [0, 8 ms), so it plays the trials
// of --first-spread 8ms exactly; quantiles:0s,0s,8ms puts half the first
// arrivals at 0, which k = 1 per window of 1 s then fails, so it plays
// others.
func TestWindowFirstArrivals(t *testing.T) {
	kv := []string{"policy", "full", "window", "10ms", "clients", "300", "capacity", "10", "latency", "1ms"}
	type result struct {
		calls            int64
		time, latencySum float64
	}
	trials := func(extra ...string) []result {
		var out []result
		playWindow(t, windowScenario(t, append(append([]string(nil), kv...), extra...)...), 20, func(tr *Trial) {
			out = append(out, result{tr.Calls, tr.Time, tr.LatencySum})
		})
		return out
	}
	uniform, law, other := trials("first-spread", "8ms"), trials("first-arrivals", "quantiles:0s,8ms"), trials("first-arrivals", "quantiles:0s,0s,8ms")
	same := 0
	for i := range uniform {
		if uniform[i] != law[i] {
			t.Errorf("trial %d: first-spread 8ms %+v, quantiles:0s,8ms %+v", i, uniform[i], law[i])
		}
		if uniform[i] == other[i] {
			same++
		}
	}
	if same > 0 {
		t.Errorf("quantiles:0s,0s,8ms played %d of the uniform's trials", same)
	}
}

// A machine with stalls runs a fraction Every/(Every + Length) of the
// time: W windows of ways carried back to back take W·(1 + Length/Every)
// on average, whose stop time has variance (W/Every)·2·Length² (a Poisson
// number of exponential stops). Checked within 4 standard deviations.
func TestWindowStallsStretchTheMachine(t *testing.T) {
	sc := windowScenario(t, "policy", "full", "window", "10ms", "clients", "1", "latency-per-flight", "1ms", "stalls", "10ms,5ms")
	e, err := NewWindowEngine(sc)
	if err != nil {
		t.Fatal(err)
	}
	e.stall.Seed(3, 4)
	e.resumeAt = 0
	var tr Trial
	e.nextStop(&tr)
	const ways = 1_000_000 // of 0.1 window each: W = 10⁵ windows
	at := 0.0
	for range ways {
		at = e.carry(&tr, at)
	}
	w, every, length := ways*0.1, 1.0, 0.5
	mean, sd := w*(1+length/every), math.Sqrt(w/every*2)*length
	if math.Abs(at-mean) > 4*sd {
		t.Errorf("%d ways took %.1f windows, want %.1f ± %.1f", ways, at, mean, 4*sd)
	}
}

// Played window by window, a trial is the trial played event by event, bit
// for bit: calls, give-ups, completion, the latencies' sum and histogram,
// censoring; with first sends all at 0 (the heap's order of that tie),
// far retries, give-ups, stateful and warped laws, the horizon, measured
// first arrivals and answers. Where a tie leaves the order to the heap,
// playWindows declines (and Play plays events): a policy without jitter.
func TestWindowsPlayTheEventsTrial(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		ties bool // playWindows may decline
	}{
		{kv: []string{"policy", "full", "window", "100ms", "clients", "3000", "capacity", "20"}},
		{kv: []string{"policy", "full", "window", "100ms", "clients", "30", "capacity", "40"}},
		{kv: []string{"policy", "retry-go-v4", "window", "100ms", "clients", "2000", "capacity", "50"}},
		{kv: []string{"policy", "full", "window", "100ms", "clients", "2000", "capacity", "30", "horizon", "12", "first-spread", "20ms"}},
		{kv: []string{"policy", "cenkalti-v4", "window", "10ms", "clients", "1500", "capacity", "5", "first-spread", "40ms", "latency", "4ms", "max-elapsed", "2s"}},
		{kv: []string{"policy", "cenkalti-v4", "window", "10ms", "clients", "800", "capacity", "2", "latency", "lognormal:5ms,2ms"}},
		{kv: []string{"policy", "decorrelated", "window", "10ms", "clients", "1000", "capacity", "3", "first-spread", "5ms", "latency", "1ms", "base", "0.5", "cap", "20"}},
		{kv: []string{"policy", "polly-v8-expo-jitter", "window", "1s", "clients", "400", "capacity", "4", "first-spread", "1s"}},
		{kv: []string{"policy", "full", "window", "1s", "clients", "5000", "capacity", "50", "first-spread", "1ms", "latency", "uniform:0s,2ms"}},
		{kv: []string{"policy", "retry-go-v4", "window", "10ms", "clients", "1000", "capacity", "10", "first-arrivals", "quantiles:0s,20ms,60ms", "first-answers", "quantiles:5ms,55ms,62ms,70ms", "latency", "uniform:0s,2ms"}},
		{kv: []string{"policy", "full", "window", "1ms", "clients", "300", "capacity", "2", "base", "3000", "cap", "20000", "first-spread", "3ms", "latency", "uniform:0s,2ms"}},
		{kv: []string{"policy", "full", "window", "100ms", "clients", "1000", "capacity", "30", "first-spread", "10ms", "latency", "3ms"}},
		{kv: []string{"policy", "expo", "window", "100ms", "clients", "500", "capacity", "20", "latency", "5ms"}, ties: true},
		{kv: []string{"policy", "equal", "window", "100ms", "clients", "500", "capacity", "20", "first-arrivals", "quantiles:0s,0s,30ms,32ms"}, ties: true},
	} {
		sc := windowScenario(t, c.kv...)
		byWindows, _ := NewWindowEngine(sc)
		byEvents, _ := NewWindowEngine(sc)
		declined := 0
		for i := range 6 {
			var w, v Trial
			if !byWindows.playWindows(Stream(5, sc, i), &w) {
				declined++
				continue
			}
			byEvents.playEvents(Stream(5, sc, i), &v, false)
			if w.Calls != v.Calls || w.Served != v.Served || w.GaveUp != v.GaveUp || w.Censored != v.Censored ||
				math.Float64bits(w.Time) != math.Float64bits(v.Time) || math.Float64bits(w.LatencySum) != math.Float64bits(v.LatencySum) ||
				w.Latency.String() != v.Latency.String() {
				t.Errorf("%v trial %d: by windows %d calls, %d served, %d gave up, censored %v, %v ms, latencies %v ms; by events %d, %d, %d, %v, %v ms, %v ms",
					c.kv, i, w.Calls, w.Served, w.GaveUp, w.Censored, w.Time, w.LatencySum, v.Calls, v.Served, v.GaveUp, v.Censored, v.Time, v.LatencySum)
			}
		}
		if declined > 0 && !c.ties {
			t.Errorf("%v: playWindows declined %d of 6 trials", c.kv, declined)
		}
	}
}

// TestLatencyBinIsTheFormula checks latencyBin against its formula at
// every bin edge up to 10¹⁰ ms (115 days), 64 floats either side, where
// the series it reads the logarithm from is closest to the wrong bin,
// and at a million latencies drawn log-uniformly between them.
func TestLatencyBinIsTheFormula(t *testing.T) {
	formula := func(ms float64) int {
		if ms > latencyFloor {
			return int(math.Ceil(math.Log(ms/latencyFloor) / latencyRatio))
		}
		return 0
	}
	check := func(ms float64) {
		if got, want := latencyBin(ms), formula(ms); got != want {
			t.Fatalf("latency %v ms (%#x): bin %d, the formula's %d", ms, math.Float64bits(ms), got, want)
		}
	}
	for l := 0; LatencyBinEdge(l) < 1e10; l++ {
		edge := LatencyBinEdge(l)
		for i, up, down := 0, edge, edge; i <= 64; i++ {
			check(up)
			check(down)
			up, down = math.Nextafter(up, math.Inf(1)), math.Nextafter(down, 0)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 1_000_000 {
		check(latencyFloor * math.Exp(r.Float64()*math.Log(1e13)))
	}
	for _, ms := range []float64{0, -1, latencyFloor, math.SmallestNonzeroFloat64, 1e300, math.MaxFloat64} {
		check(ms)
	}
}
