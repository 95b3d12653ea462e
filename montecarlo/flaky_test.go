package montecarlo

import (
	"fmt"
	"math"
	"testing"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// flakyScenario is N clients on a flaky server whose capacity no tick
// reaches, retrying at once (policy none: the next tick).
func flakyScenario(clients int, p float64) model.Scenario {
	sc := openScenario(clients, 1_000_000, policy.None)
	sc.Server, sc.FailureRate = model.Flaky, p
	return sc
}

// loads is the mean and standard error of calls per new request over
// trials.
func loads(trials []Trial) (mean, se float64) {
	var s, s2 float64
	for _, x := range trials {
		l := float64(x.Calls) / float64(x.Open.NewRequests)
		s += l
		s2 += l * l
	}
	n := float64(len(trials))
	mean = s / n
	return mean, math.Sqrt((s2/n - mean*mean) / (n - 1))
}

// On a flaky server with unbounded capacity each call fails on its own
// with probability p, so a request allowed A = 4 attempts makes
// (1 − p^A)/(1 − p) calls on average (model.Amplification). Draining the
// trial counts every request's whole life; the mean calls per request
// then lie within 4 standard errors of the closed form for every
// p = 0, 0.1, …, 0.9, and at p = 0 every trial makes exactly one call per
// request.
func TestFlakyAmplificationClosedForm(t *testing.T) {
	ctl := control.Controls{MaxAttempts: 4}
	tr := model.Traffic{Rate: 30, Ticks: 200, Drain: true}
	for i := range 10 {
		p := float64(i) / 10
		want := model.Amplification(p, []int{4})
		trials := openTrials(t, flakyScenario(100, p), tr, ctl, Options{Trials: 200, Seed: 17})
		for _, x := range trials {
			if x.Open.Backlog != 0 || x.Served+x.Open.GaveUp != x.Open.NewRequests {
				t.Fatalf("p = %g: the drain left %d requests pending (%d served, %d gave up of %d)", p, x.Open.Backlog, x.Served, x.Open.GaveUp, x.Open.NewRequests)
			}
		}
		mean, se := loads(trials)
		if p == 0 {
			if mean != 1 || se != 0 {
				t.Fatalf("p = 0: load %g ± %g, want exactly 1", mean, se)
			}
			continue
		}
		if math.Abs(mean-want) > 4*se {
			t.Errorf("p = %g: calls per request %.5f ± %.5f (SE), closed form %.5f (%.1fσ)", p, mean, se, want, (mean-want)/se)
		}
	}
}

// Without the drain a trial cut at its last tick undercounts the requests
// still retrying: on short trials the bias is many standard errors, which
// is why the flaky server drains by default (and the check above would
// fail without it).
func TestUndrainedTrialsUndercount(t *testing.T) {
	tr := model.Traffic{Rate: 30, Ticks: 20}
	mean, se := loads(openTrials(t, flakyScenario(100, 0.5), tr, control.Controls{MaxAttempts: 4}, Options{Trials: 200, Seed: 17}))
	if want := model.Amplification(0.5, []int{4}); want-mean < 8*se {
		t.Errorf("undrained load %g ± %g, expected well under %g", mean, se, want)
	}
}

// closedTrials plays closed-loop trials and returns copies of them.
func closedTrials(t *testing.T, sc model.Scenario, tr model.Traffic, l model.ClosedLoop, ctl control.Controls, opt Options) []Trial {
	t.Helper()
	return playWork(t, sc, ClosedLoop{Traffic: tr, Loop: l, Controls: ctl}, opt)
}

// A closed loop on a server that serves everything: each client sends at
// ticks 0, T+1, 2(T+1), …, one request at a time, so a trial of L ticks
// makes exactly N·⌈L/(T+1)⌉ calls, all first tries, each served in its
// tick.
func TestClosedLoopPace(t *testing.T) {
	sc := flakyScenario(7, 0)
	for _, think := range []int{0, 1, 3} {
		tr := model.Traffic{Ticks: 50}
		for _, x := range closedTrials(t, sc, tr, model.ClosedLoop{Think: think}, control.Controls{}, Options{Trials: 3, Seed: 1}) {
			want := int64(7 * ((50 + think) / (think + 1)))
			if x.Calls != want || x.Open.NewRequests != want || x.Served != want || x.Open.Retries != 0 || x.Peak != 7 {
				t.Fatalf("think %d: %d calls, %d new, %d served, peak %d; want %d each, peak 7", think, x.Calls, x.Open.NewRequests, x.Served, x.Peak, want)
			}
		}
	}
}

// A request that gives up ends too: with every call failing and two
// attempts (a retry at the next tick), a client's requests start every
// 2 + T ticks and make two calls each.
func TestClosedLoopGiveUpThenThink(t *testing.T) {
	sc := flakyScenario(3, 1)
	tr := model.Traffic{Ticks: 40, Drain: true}
	for _, think := range []int{0, 2} {
		for _, x := range closedTrials(t, sc, tr, model.ClosedLoop{Think: think}, control.Controls{MaxAttempts: 2}, Options{Trials: 2, Seed: 1}) {
			per := int64((40 + think + 1) / (think + 2))
			if x.Open.NewRequests != 3*per || x.Calls != 2*3*per || x.Open.GaveUpBy[byLimit] != 3*per || x.Served != 0 {
				t.Fatalf("think %d: %d new (want %d), %d calls, gave up %v", think, x.Open.NewRequests, 3*per, x.Calls, x.Open.GaveUpBy)
			}
		}
	}
}

// Brooker's retry_sim bucket in the engine, one client at a time (a
// closed loop) with every call failing: the full bucket pays for 4
// retries of the first request, and then every tenth new request's 0.1
// deposits make it pass 1 again, so n requests retry 4 + ⌊(n + 8)/10⌋
// times in all.
func TestBrookerSimBucketInEngine(t *testing.T) {
	sc := flakyScenario(1, 1)
	ctl := control.Controls{Bucket: control.DefaultBucket(control.BrookerSimBucket)}
	for _, ticks := range []int{3, 30, 300} {
		for _, x := range closedTrials(t, sc, model.Traffic{Ticks: ticks, Drain: true}, model.ClosedLoop{}, ctl, Options{Trials: 1, Seed: 1}) {
			n := x.Open.NewRequests
			if want := 4 + (n+8)/10; x.Open.Retries != want || x.Open.GaveUpBy[byBucket] != n {
				t.Fatalf("%d ticks: %d requests made %d retries (want %d), gave up %v", ticks, n, x.Open.Retries, want, x.Open.GaveUpBy)
			}
		}
	}
}

// The start cohort adds one request of each client at tick 0.
func TestStartCohort(t *testing.T) {
	sc := flakyScenario(50, 0)
	tr := model.Traffic{Rate: 1e-9, Ticks: 5, StartCohort: true}
	for _, x := range openTrials(t, sc, tr, control.Controls{}, Options{Trials: 3, Seed: 2}) {
		if x.Open.NewRequests != 50 || x.Calls != 50 {
			t.Fatalf("%d new requests, %d calls; want 50", x.Open.NewRequests, x.Calls)
		}
	}
}

// Every new control runs in both loops, the outputs do not depend on the
// worker count, and a refusal is counted under its cause.
func TestNewControlsInEngine(t *testing.T) {
	sc := flakyScenario(20, 0.5)
	sc.Policy.Tick = 0
	for _, c := range []struct {
		ctl   control.Controls
		cause int
	}{
		{control.Controls{Bucket: control.DefaultBucket(control.AWS2026Bucket)}, byBucket},
		{control.Controls{SimBreaker: control.DefaultSimBreaker(), MaxAttempts: 4}, byBreaker},
		{control.Controls{Budget: control.RetryBudget{TTL: 10e9, PercentCanRetry: 0.2}}, byBudget},
		{control.Controls{Throttling: control.DefaultRetryThrottling()}, byThrottle},
		{control.Controls{Adaptive: control.AdaptiveThrottling{K: 1.1, Window: 10e9}}, byAdaptive},
	} {
		t.Run(c.ctl.String(), func(t *testing.T) {
			tr := model.Traffic{Rate: 5, Ticks: 300, Drain: true}
			a := openTrials(t, sc, tr, c.ctl, Options{Trials: 6, Seed: 3, Workers: 1})
			b := openTrials(t, sc, tr, c.ctl, Options{Trials: 6, Seed: 3, Workers: 3})
			for i := range a {
				if fmt.Sprint(a[i].Calls, a[i].Served, a[i].Latency, *a[i].Open) != fmt.Sprint(b[i].Calls, b[i].Served, b[i].Latency, *b[i].Open) {
					t.Fatalf("trial %d: the worker count changed it", i)
				}
			}
			for _, x := range a {
				if x.Open.GaveUpBy[c.cause] == 0 || x.Open.Backlog != 0 {
					t.Fatalf("gave up %v, backlog %d", x.Open.GaveUpBy, x.Open.Backlog)
				}
			}
			for _, x := range closedTrials(t, sc, model.Traffic{Ticks: 300, Drain: true}, model.ClosedLoop{Think: 2}, c.ctl, Options{Trials: 2, Seed: 3}) {
				if x.Open.GaveUpBy[c.cause] == 0 {
					t.Fatalf("closed loop: gave up %v", x.Open.GaveUpBy)
				}
			}
		})
	}
}
