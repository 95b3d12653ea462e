package claims

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/stats"
)

// The claims of this file are what retry controls promise in their
// sources' own words, and Brooker's "What is Backoff For?", checked on the
// flaky server (a backend whose failures do not depend on its load). Each
// check's reading of its source — the threshold that decides — is written
// in its Check text and was fixed from the source's words before herd's
// numbers were looked at.

const (
	backoffPost  = "https://brooker.co.za/blog/2022/08/11/backoff.html"
	finagleDoc   = "twitter/finagle finagle-core src/main/scala/com/twitter/finagle/service/RetryBudget.scala (RetryBudget.apply)"
	grpcA6       = "https://github.com/grpc/proposal/blob/master/A6-client-retries.md (Throttling Configuration)"
	sreBookCh21  = "https://sre.google/sre-book/handling-overload/ (Client-Side Throttling)"
	brookerRatio = 0.95 // a paired ratio within [0.95, 1.05] is "barely"
)

// requestRun plays a request-engine workload and returns, per trial, the
// values f reads off it.
func requestRun(ctx context.Context, sc model.Scenario, w montecarlo.Workload, opt montecarlo.Options, f func(*montecarlo.Trial) float64) ([]float64, error) {
	plan, err := montecarlo.NewPlan(sc, w, opt)
	if err != nil {
		return nil, err
	}
	out := make([]float64, 0, opt.Trials)
	err = plan.Run(ctx, func(t *montecarlo.Trial) error {
		out = append(out, f(t))
		return nil
	})
	return out, err
}

// meanOfRatios is the mean of a[i]/b[i] over trials that share their
// stream, with its 95% interval.
func meanOfRatios(a, b []float64) stats.Estimate {
	var m stats.Moments
	for i := range a {
		m.Add(a[i] / b[i])
	}
	return m.Estimate()
}

func loadOf(t *montecarlo.Trial) float64  { return float64(t.Calls) / float64(t.Open.NewRequests) }
func callsOf(t *montecarlo.Trial) float64 { return float64(t.Calls) }

// backoffSetting is Brooker's backoff experiment in herd's terms: 100
// clients on the flaky server at p = 0.5, three retries, 10 s in ticks of
// 10 ms then drained; his retry backoff of 0.1 s doubling (expo, base 5
// ticks, no jitter) against retries at the next tick.
func backoffSetting(backoff bool) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server, sc.FailureRate = 100, 1_000_000, model.Flaky, 0.5
	sc.Policy = policy.Policy{Kind: policy.None, Base: 1, Cap: 32, FixedDelay: 2, Tick: reproduce.BrookerTick}
	if backoff {
		sc.Policy = policy.Policy{Kind: policy.Expo, Base: 5, Cap: 320, FixedDelay: 2, Tick: reproduce.BrookerTick}
	}
	return sc
}

func claimBackoffOpenClosed(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := Result{
		ID: "backoff-helps-closed-loop-not-open-loop", Source: backoffPost,
		Quote: "Backoff helps in the short term. It is only valuable in the long term if it reduces total work. … [with many independent clients] Each client backing off in this case does not help, because it does not reduce the work (his simulator: load 1.858 without backoff vs 1.878 with; serial clients' total calls 18,988 → 8,214)",
		Check: "flaky server p = 0.5, 100 clients, three retries (--max-attempts 4), 10 s in ticks of 10 ms then drained; backoff = retries after 0.1, 0.2, 0.4 s (expo base 5 ticks, no jitter, as his retry_backoff 0.1) against retries at the next tick, same seed (paired trials). Open loop: 10 new requests per tick (his 100 clients × 10/s). Closed loop: each client's next request 10 ticks (his mean gap) after its previous one ended. " +
			"Reading fixed from his words before the numbers: holds when (a) in the open loop the paired ratio of calls per new request with backoff to without has its 95% interval inside [0.95, 1.05] (\"does not help\": his two runs differ by 1%) and (b) in the closed loop the paired ratio of total calls has its 95% interval below 0.75 (\"reduces total work\", by at least a quarter; his serial run made 43% of the unbounded one's calls); fails when either interval lies wholly on the wrong side; inconclusive otherwise",
	}
	open := model.Traffic{Rate: 10, Ticks: 1000, Drain: true}
	closed := model.Traffic{Ticks: 1000, Drain: true}
	loop := model.ClosedLoop{Think: 10}
	ctl := control.Controls{MaxAttempts: 4}
	var openLoad, closedCalls [2][]float64
	for i, b := range []bool{false, true} {
		sc := backoffSetting(b)
		var err error
		if openLoad[i], err = requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: open, Controls: ctl}, opt, loadOf); err != nil {
			return c, err
		}
		if closedCalls[i], err = requestRun(ctx, sc, montecarlo.ClosedLoop{Traffic: closed, Loop: loop, Controls: ctl}, opt, callsOf); err != nil {
			return c, err
		}
	}
	mean := func(x []float64) stats.Estimate {
		var m stats.Moments
		for _, v := range x {
			m.Add(v)
		}
		return m.Estimate()
	}
	ro, rc := meanOfRatios(openLoad[1], openLoad[0]), meanOfRatios(closedCalls[1], closedCalls[0])
	c.Evidence = []Evidence{
		estimated("open loop: calls per new request, retries at the next tick", mean(openLoad[0])),
		estimated("open loop: calls per new request, backoff 0.1 s doubling", mean(openLoad[1])),
		estimated("open loop: paired ratio, backoff / none", ro),
		estimated("closed loop: total calls, retries at the next tick", mean(closedCalls[0])),
		estimated("closed loop: total calls, backoff 0.1 s doubling", mean(closedCalls[1])),
		estimated("closed loop: paired ratio, backoff / none", rc),
	}
	if rec, err := reproduce.Brooker(); err == nil {
		for _, r := range rec.Rows {
			if r.FailureRate != 0.5 || !(r.Experiment == "run_sims_retry_backoff" && strings.HasPrefix(r.Name, "three") || strings.HasPrefix(r.Experiment, "run_sims_retry_serial") || strings.HasPrefix(r.Experiment, "extra:")) {
				continue
			}
			l, t := r.Load(), r.TotalCalls()
			c.Evidence = append(c.Evidence, Evidence{Name: fmt.Sprintf("his simulator, %s (%s): load, mean of %d runs", r.Name, r.Experiment, l.N), Value: l.Mean},
				Evidence{Name: fmt.Sprintf("his simulator, %s (%s): total calls, mean of %d runs", r.Name, r.Experiment, t.N), Value: t.Mean})
		}
	}
	lo, hi := brookerRatio, 2-brookerRatio
	switch {
	case ro.CI95[0] >= lo && ro.CI95[1] <= hi && rc.CI95[1] < 0.75:
		c.Verdict = Holds
		c.Condition = fmt.Sprintf("backoff changes the open loop's calls per request by %+.1f%% and cuts the closed loop's total calls to %.0f%%: a closed loop's clients send their next request only when the last one ends, so longer retries mean fewer requests", 100*(ro.Mean-1), 100*rc.Mean)
	case ro.CI95[1] < lo || ro.CI95[0] > hi || rc.CI95[0] >= 0.75:
		c.Verdict = Fails
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}

// flakyUnbounded is a flaky server with capacity no tick reaches, in
// ticks of one second (the unit of Finagle's and the SRE book's
// parameters).
func flakyUnbounded(clients int, p float64) model.Scenario {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server, sc.FailureRate = clients, 1_000_000, model.Flaky, p
	sc.Policy = policy.Policy{Kind: policy.None, Base: 1, Cap: 32, FixedDelay: 2, Tick: time.Second}
	return sc
}

func claimRetryBudgetBound(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := Result{
		ID: "finagle-budget-bounds-retries", Source: finagleDoc,
		Quote: "Creates a default RetryBudget that allows for about 20% of the total requests to be retried on top of a minimum number per second in order to accommodate clients that have just started issuing requests or clients that have a low rate of requests per second.",
		Check: "flaky server at p = 1 (every call fails, so every request wants to retry without end), ticks of 1 s, 600 s (not drained: such a request never ends), 10 clients, Finagle's default budget (20%, 10/s, TTL 10 s). Reading fixed from the doc's words before the numbers: holds when, with no minimum (--budget-min-retries 0), the 95% interval of retries per new request lies within [0.19, 0.21] (\"about 20%\") for clients sending 100 requests per second; the minimum's share is shown for clients sending 100 and 1 per second",
	}
	tr := model.Traffic{Ticks: 600}
	var pct stats.Estimate
	for _, row := range []struct {
		perClient float64
		min       int
	}{{100, 0}, {100, 10}, {1, 10}} {
		sc := flakyUnbounded(10, 1)
		t := tr
		t.Rate = 10 * row.perClient
		b := control.DefaultRetryBudget()
		b.MinRetriesPerSec = row.min
		retries, err := requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: t, Controls: control.Controls{Budget: b}}, opt,
			func(t *montecarlo.Trial) float64 { return float64(t.Open.Retries) / float64(t.Open.NewRequests) })
		if err != nil {
			return c, err
		}
		e := meanOfRatios(retries, ones(len(retries)))
		if row.min == 0 {
			pct = e
		}
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("retries per new request, %g requests/s per client, minimum %d/s", row.perClient, row.min), e))
	}
	switch {
	case pct.CI95[0] >= 0.19 && pct.CI95[1] <= 0.21:
		c.Verdict = HoldsOnlyWhen
		c.Condition = "the percentage bounds retries over every TTL window; the minimum reserve (MinRetriesPerSec × TTL) comes on top, and for a client whose request rate is not well above MinRetriesPerSec / percentage (50/s at the defaults) it, not the 20%, sets the load: at 1 request/s a failing dependency gets 10 retries per request"
	case pct.CI95[1] < 0.19 || pct.CI95[0] > 0.21:
		c.Verdict = Fails
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}

func ones(n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func claimThrottlingSheds(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := Result{
		ID: "grpc-throttling-sheds-retries-when-unhealthy", Source: grpcA6,
		Quote: "The following configuration throttles retry attempts and hedged RPCs when the client's ratio of failures to successes exceeds ~10%. \"retryThrottling\": { \"maxTokens\": 10, \"tokenRatio\": 0.1 }",
		Check: "flaky server, 10 clients at 10 requests per tick for 600 ticks then drained, --max-attempts 4, A6's example throttling: the share of the unthrottled retries that throttling removes, 1 − (load − 1) / (load without throttling − 1). Reading fixed from A6's words before the numbers: holds when at p = 0.5 (failures 100% of successes) the 95% interval of the share removed lies above 0.9, and at p = 0.05 (failures 5% of successes) below 0.1",
	}
	tr := model.Traffic{Rate: 100, Ticks: 600, Drain: true}
	shed := map[float64]stats.Estimate{}
	for _, p := range []float64{0.05, 0.5} {
		sc := flakyUnbounded(10, p)
		free, err := requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: tr, Controls: control.Controls{MaxAttempts: 4}}, opt, loadOf)
		if err != nil {
			return c, err
		}
		thr, err := requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: tr, Controls: control.Controls{MaxAttempts: 4, Throttling: control.DefaultRetryThrottling()}}, opt, loadOf)
		if err != nil {
			return c, err
		}
		var m stats.Moments
		for i := range free {
			m.Add(1 - (thr[i]-1)/(free[i]-1))
		}
		shed[p] = m.Estimate()
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("share of retries removed at p = %g", p), shed[p]),
			estimated(fmt.Sprintf("calls per new request at p = %g, throttled", p), meanOfRatios(thr, ones(len(thr)))))
	}
	sick, well := shed[0.5], shed[0.05]
	switch {
	case sick.CI95[0] > 0.9 && well.CI95[1] < 0.1:
		c.Verdict = Holds
	case sick.CI95[1] < 0.9 || well.CI95[0] > 0.1:
		c.Verdict = Fails
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}

func claimAdaptiveK(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := Result{
		ID: "sre-adaptive-throttling-k-times-accepts", Source: sreBookCh21,
		Quote: "Clients can continue to issue requests to the backend until requests is K times as large as accepts. Once that cutoff is reached, the client begins to self-regulate and new requests are rejected locally (i.e., at the client) with the probability calculated in Equation 21-1",
		Check: "10 clients at 10 requests per tick (ticks of 1 s) for 600 ticks, no retries, the book's K = 2 over two minutes: the sends that reach the backend per request it accepts, calls / served. " +
			"First reading, fixed from the book's words before the numbers, on the flaky server: holds when at p = 0.8 (the backend accepts 20%, 5 sends per accept unthrottled) the 95% interval of calls / served lies within 10% of K = 2, and at p = 0.2 (1.25 per accept, under K) within 2% of 1.25. " +
			"It failed, and the book's own setting was added after: a backend whose rejections come from overload, the capacity server with k = 25 per tick offered 100, where calls / served must lie within 10% of K (unthrottled: 4)",
	}
	tr := model.Traffic{Rate: 100, Ticks: 600}
	ctl := control.Controls{MaxAttempts: 1, Adaptive: control.DefaultAdaptiveThrottling()}
	perAccept := func(t *montecarlo.Trial) float64 { return float64(t.Calls) / float64(max(1, t.Served)) }
	sendsPerTick := func(t *montecarlo.Trial) float64 { return float64(t.Calls) / float64(t.Completion) }
	ratio := map[float64]stats.Estimate{}
	for _, p := range []float64{0.2, 0.8} {
		sc := flakyUnbounded(10, p)
		x, err := requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: tr, Controls: ctl}, opt, perAccept)
		if err != nil {
			return c, err
		}
		y, err := requestRun(ctx, sc, montecarlo.OpenLoop{Traffic: tr, Controls: ctl}, opt, sendsPerTick)
		if err != nil {
			return c, err
		}
		ratio[p] = meanOfRatios(x, ones(len(x)))
		c.Evidence = append(c.Evidence, estimated(fmt.Sprintf("flaky p = %g: sends per accept (unthrottled %.3g)", p, 1/(1-p)), ratio[p]),
			estimated(fmt.Sprintf("flaky p = %g: sends per tick (offered 100)", p), meanOfRatios(y, ones(len(y)))))
	}
	over := flakyUnbounded(10, 0)
	over.Server, over.FailureRate, over.Capacity = model.Capacity, 0, 25
	x, err := requestRun(ctx, over, montecarlo.OpenLoop{Traffic: tr, Controls: ctl}, opt, perAccept)
	if err != nil {
		return c, err
	}
	capacity := meanOfRatios(x, ones(len(x)))
	c.Evidence = append(c.Evidence, estimated("capacity server k = 25 offered 100: sends per accept (unthrottled 4)", capacity))
	sick, well := ratio[0.8], ratio[0.2]
	within := func(e stats.Estimate, v, tol float64) bool { return e.CI95[0] >= v*(1-tol) && e.CI95[1] <= v*(1+tol) }
	k := ctl.Adaptive.K
	switch {
	case within(sick, k, 0.1) && within(well, 1.25, 0.02):
		c.Verdict = Holds
	case within(capacity, k, 0.1) && within(well, 1.25, 0.02):
		c.Verdict = HoldsOnlyWhen
		c.Condition = fmt.Sprintf("the backend rejects because it is overloaded, so its accepts do not fall with the sends (capacity server: %.3g sends per accept); on a backend that fails a fixed share p > 1 − 1/K of what it takes, accepts fall with the sends and the throttle does not settle at K × accepts but shuts the clients off (flaky p = 0.8: a few sends per two-minute window, still 1/(1 − p) per accept)", capacity.Mean)
	case capacity.CI95[1] < k*0.9 || capacity.CI95[0] > k*1.1:
		c.Verdict = Fails
	default:
		c.Verdict = Inconclusive
	}
	return c, nil
}
