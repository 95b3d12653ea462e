package claims

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// Control claims have no capacity/OCC counterpart: they are about layers
// of retries and open-loop traffic, so they are checked in one model only.
const (
	ModelControls  = "open loop, layers"
	NotApplicable  = "not applicable (no capacity/OCC counterpart)"
	OriginControls = "controls"
	ControlTrials  = 40 // trials per simulated point of a control claim
)

// controlResult completes a control claim's row of the claims report: it
// has one model and no counterpart, and a condition goes with
// holds-only-when only (otherwise it is a note).
func controlResult(r Result) Result {
	r.Origin, r.Model, r.Other, r.Transfer = OriginControls, ModelControls, Finding{Model: "none"}, NotApplicable
	r.KeyEvidence = keyEvidence(r.Evidence, "")
	if r.Verdict != HoldsOnlyWhen {
		r.Condition, r.Note = "", r.Condition
	}
	return r
}

const (
	buildersLibrary = "https://aws.amazon.com/builders-library/timeouts-retries-and-backoff-with-jitter/"
	brookerPost     = "https://brooker.co.za/blog/2022/02/28/retries.html"
	jitterGuide     = "shared/seeds/002_46a7a3a4b348517f.txt"
)

// controlClaims are the control claims' sources, quotes and checks; the
// functions of EvaluateControls add their verdicts and evidence.
var controlClaims = []Result{
	{
		ID: "layers-243x", Source: buildersLibrary,
		Quote:      "three retries at each of five layers amplify the load on the bottom layer 243×",
		Paraphrase: true,
		Check:      "closed form (1 − p^A)/(1 − p), A = ∏ tries, against a simulated call tree; exact agreement required at p = 1",
	},
	{
		ID: "seed-layers-27x", Source: jitterGuide + " (3.2, retry amplification)",
		Quote: "A、B、Cの「全レイヤー」がリトライ（例：3回）を実装している場合 … Cへの負荷は 3x3x3 = 27倍",
		Check: "as layers-243x with three layers",
	},
	{
		ID: "n-retries-1-plus-n", Source: brookerPost,
		Quote: "At 100% failure rate, the system does 1+N times as much work.",
		Check: "open loop at total failure, --max-attempts 3 (N = 2 retries): holds when the 95% interval of calls per new request lies within 1% of 3 — \"1+N times\" is exact at total failure; the 1% allows for the requests the end of the run cuts short",
	},
	{
		ID: "token-bucket-bounds-load", Source: brookerPost,
		Quote:      "a token bucket bounds the extra load at 1.1× at 100% failure (each success deposits 0.1 token, a retry costs 1)",
		Paraphrase: true,
		Check:      "open loop at total failure, 100 clients, λ = 20 for 2,000 ticks: holds when the 95% interval of calls per new request under Brooker's bucket (herd's reading of the post: a deposit per success) lies under 1.1, the words' own number; the AWS SDK's bucket, three attempts and his simulator's bucket (brooker-sim: a deposit per new request, so at total failure it still pays one retry per ten requests) are shown beside it",
	},
	{
		ID: "retry-storm-outlives-trigger", Source: jitterGuide + " (3.5, retry storms and hysteresis)",
		Quote: "リトライによって負荷が非線形に増幅し、正常な状態に自動復帰できなくなる（＝ヒステリシス）",
		Check: "metastability map (λ/k 0.3…0.9 × outage 0…200 ticks, Full Jitter, no control): count the cells with λ < k whose recovered share has its 95% interval under ½ (\"自動復帰できなくなる\", cannot come back by itself: stuck more often than not), on the capacity server and on a server where a rejection costs 5% of a request",
	},
	{
		ID: "controls-shrink-metastable-region", Source: brookerPost,
		Quote:      "retry budgets (token buckets) and circuit breakers keep a retry storm from outliving its trigger",
		Paraphrase: true,
		Check:      "metastability map as retry-storm-outlives-trigger (reject cost 0.05) under each control: holds when every bucket and the breaker leave fewer non-recovering cells with λ < k than no control. Also the collision server with k = 100 at λ/k = 0.5 after a 20-tick outage, where a limit of 3 attempts is shown beside the buckets and breaker",
	},
	{
		ID: "jitter-first-request", Source: jitterGuide + " (3.4, the Google Cloud incident)",
		Quote: "「ジッターはリトライ時だけに必要なものではない」… 「初回のリクエスト」にもジッターを適用すべきである",
		Check: "cohort of N = 1,000, k = 10, Full Jitter: first sends at tick 0 (W = 1) against a window W = N/k = 100; holds when the window lowers the mean peak arrivals per tick and the mean calls, both with disjoint 95% intervals. Completion is shown: it cannot fall below W",
	},
}

// controlClaim is the entry of controlClaims with the given id.
func controlClaim(id string) Result {
	for _, c := range controlClaims {
		if c.ID == id {
			return c
		}
	}
	panic("claims: no control claim " + id)
}

func exact(name string, x float64) Evidence { return Evidence{Name: name, Value: x} }

func estimated(name string, e stats.Estimate) Evidence {
	return Evidence{Name: name, Value: e.Mean, CI95: e.CI95}
}

func share(name string, s stats.Share) Evidence {
	iv := s.CI95
	return Evidence{Name: name, Value: s.Value, CI95: &iv}
}

// EvaluateControls evaluates the claims of retry controls, layered retries,
// first-request jitter and metastability with opt.Trials trials per
// simulated point, as rows of the claims report.
func EvaluateControls(ctx context.Context, opt montecarlo.Options) ([]Result, error) {
	return evaluateControls(ctx, opt, nil)
}

// controlCheck is a control claim's check and the ID of the claim it
// decides, known before it runs (to label and order the runs by).
type controlCheck struct {
	id    string
	check func(context.Context, montecarlo.Options) (Result, error)
}

// run runs the check and completes its row.
func (c controlCheck) run(ctx context.Context, opt montecarlo.Options) (Result, error) {
	r, err := c.check(ctx, opt)
	if err != nil {
		return Result{}, err
	}
	if r.ID != c.id {
		return Result{}, fmt.Errorf("claims: the check listed as %s decided %s", c.id, r.ID)
	}
	return controlResult(r), nil
}

// controlChecks are the control claims' checks, in the report's order.
var controlChecks = []controlCheck{
	{"layers-243x", claimLayers243}, {"seed-layers-27x", claimLayers27}, {"n-retries-1-plus-n", claimNRetries},
	{"token-bucket-bounds-load", claimBucketBound}, {"retry-storm-outlives-trigger", claimMetastable},
	{"controls-shrink-metastable-region", claimControlsShrink}, {"jitter-first-request", claimFirstRequest},
	{"backoff-helps-closed-loop-not-open-loop", claimBackoffOpenClosed}, {"finagle-budget-bounds-retries", claimRetryBudgetBound},
	{"grpc-throttling-sheds-retries-when-unhealthy", claimThrottlingSheds}, {"sre-adaptive-throttling-k-times-accepts", claimAdaptiveK},
}

// evaluateControls is EvaluateControls calling done, when set, after each
// claim: they take minutes, and a progress bar should move while they run.
func evaluateControls(ctx context.Context, opt montecarlo.Options, done func(n int)) ([]Result, error) {
	out := make([]Result, len(controlChecks))
	err := analysis.EachPoint(ctx, len(controlChecks), opt.Workers, func(ctx context.Context, i int) error {
		var err error
		out[i], err = controlChecks[i].run(ctx, opt)
		return err
	}, done)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func stackClaim(ctx context.Context, opt montecarlo.Options, layers int, c Result) (Result, error) {
	tries := make([]int, layers)
	retries := make([]int, layers)
	for i := range tries {
		tries[i], retries[i] = 3, 4
	}
	a, err := study.Amplify(ctx, 1, tries, opt)
	if err != nil {
		return c, err
	}
	b, err := study.Amplify(ctx, 1, retries, opt)
	if err != nil {
		return c, err
	}
	half, err := study.Amplify(ctx, 0.5, tries, opt)
	if err != nil {
		return c, err
	}
	c.Evidence = []Evidence{
		exact(fmt.Sprintf("bottom calls per request, 3 tries × %d layers, every call fails (closed form)", layers), a.ClosedForm),
		estimated(fmt.Sprintf("the same, simulated (every trial exact: %v)", a.Exact), a.Simulated),
		exact(fmt.Sprintf("bottom calls per request, 3 retries (4 tries) × %d layers, every call fails", layers), b.ClosedForm),
		exact(fmt.Sprintf("bottom calls per request, 3 tries × %d layers, half the calls fail (closed form)", layers), half.ClosedForm),
		estimated("the same, simulated", half.Simulated),
		exact("bottom calls per request when only the top layer retries (3 tries)", model.Amplification(1, append([]int{3}, make1(layers-1)...))),
	}
	c.Verdict = Inconclusive
	if a.Exact && b.Exact && a.ClosedForm == model.TotalAttempts(tries) && half.Simulated.CI95.Contains(half.ClosedForm) {
		c.Verdict = HoldsOnlyWhen
	}
	c.Condition = fmt.Sprintf("\"3 retries\" means 3 tries per layer (with 3 retries after the first try it is %g×) and every call to the bottom fails: at failure rate p the load is (1 − p^A)/(1 − p), %.3g× at p = 0.5", b.ClosedForm, half.ClosedForm)
	return c, nil
}

func make1(n int) []int {
	s := make([]int, n)
	for i := range s {
		s[i] = 1
	}
	return s
}

func claimLayers243(ctx context.Context, opt montecarlo.Options) (Result, error) {
	return stackClaim(ctx, opt, 5, controlClaim("layers-243x"))
}

func claimLayers27(ctx context.Context, opt montecarlo.Options) (Result, error) {
	return stackClaim(ctx, opt, 3, controlClaim("seed-layers-27x"))
}

// totalOutage is a 2,000-tick run at λ = 20 over 100 clients whose server
// fails every call.
func totalOutage() (model.Scenario, model.Traffic) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 100, 20
	return sc, model.Traffic{Rate: 20, Ticks: 2000, OutageLength: 2000}
}

func claimNRetries(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := controlClaim("n-retries-1-plus-n")
	sc, tr := totalOutage()
	s, err := analysis.SimulateTraffic(ctx, sc, tr, control.Controls{MaxAttempts: 3}, opt)
	if err != nil {
		return c, err
	}
	c.Evidence = []Evidence{estimated("calls per new request, 3 attempts, 100% failure", s.Load)}
	c.Verdict = Fails
	if s.Load.CI95[0] > 0.99*3 && s.Load.CI95[1] < 1.01*3 {
		c.Verdict = Holds
	}
	return c, nil
}

func claimBucketBound(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := controlClaim("token-bucket-bounds-load")
	sc, tr := totalOutage()
	var loads []stats.Estimate
	for _, ctl := range []control.Controls{{Bucket: control.DefaultBucket(control.BrookerBucket)}, {Bucket: control.DefaultBucket(control.AWSBucket)}, {MaxAttempts: 3}, {Bucket: control.DefaultBucket(control.BrookerSimBucket)}} {
		s, err := analysis.SimulateTraffic(ctx, sc, tr, ctl, opt)
		if err != nil {
			return c, err
		}
		loads = append(loads, s.Load)
		c.Evidence = append(c.Evidence, estimated("calls per new request, "+ctl.String(), s.Load))
	}
	c.Evidence = append(c.Evidence, exact("Brooker bound: 1 + clients × bucket / new requests", 1+100*10/(tr.Rate*float64(tr.Ticks))))
	c.Verdict = Fails
	if loads[0].CI95[1] < 1.1 {
		c.Verdict = Holds
		c.Condition = "at 100% failure no success deposits, so the extra load is only the buckets' initial tokens and falls toward 1.0×; 1.1× is the bound at any failure rate (retries ≤ 0.1 × successes + the buckets)"
	}
	return c, nil
}

// stuckCells counts the non-recovering cells of the metastability map of
// each control on a server (study.StuckBelowCapacity: each cell's
// trials played until they decide it).
func stuckCells(ctx context.Context, rejectCost float64, ctls []control.Controls, opt montecarlo.Options) ([]study.StuckCount, error) {
	sc, base := study.MetastabilityScenario()
	base.RejectCost = rejectCost
	var out []study.StuckCount
	for _, ctl := range ctls {
		m, err := study.StuckBelowCapacity(ctx, sc, base, ctl, study.DefaultMapGrid(), opt)
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}

func claimMetastable(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := controlClaim("retry-storm-outlives-trigger")
	var stuck []int
	for _, cost := range []float64{0, 0.05} {
		m, err := stuckCells(ctx, cost, []control.Controls{{}}, opt)
		if err != nil {
			return c, err
		}
		n := m[0].Stuck
		stuck = append(stuck, n)
		c.Evidence = append(c.Evidence, exact(fmt.Sprintf("cells with λ < k that do not recover, reject cost %g (of %d)", cost, m[0].Cells), float64(n)))
	}
	switch {
	case stuck[0] == 0 && stuck[1] > 0:
		c.Verdict = HoldsOnlyWhen
		c.Condition = "the server's goodput falls under overload (here rejecting costs 5% of serving): on a server that keeps serving k per tick however overloaded, every λ < k recovers"
	case stuck[0] > 0:
		c.Verdict = Holds
	default:
		c.Verdict = Fails
	}
	return c, nil
}

func claimControlsShrink(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := controlClaim("controls-shrink-metastable-region")
	ms, err := stuckCells(ctx, 0.05, study.StandardControls(), opt)
	if err != nil {
		return c, err
	}
	none := ms[0].Stuck
	c.Verdict = Holds
	for _, m := range ms {
		n := m.Stuck
		c.Evidence = append(c.Evidence, exact("non-recovering cells with λ < k, "+m.Controls.Name, float64(n)))
		if m.Controls.Bucket != nil || m.Controls.Breaker != nil {
			if n >= none {
				c.Verdict = Fails
			}
		}
	}
	sc, tr := study.MetastabilityScenario()
	sc.Server, tr.RejectCost, sc.Capacity = model.Collision, 0, 100
	tr.Rate, tr.OutageLength, tr.CollapseBacklog = 0.5*float64(sc.Capacity), 20, 50*sc.Capacity
	limitStuck := false
	for _, ctl := range study.StandardControls() {
		s, err := analysis.SimulateRecovery(ctx, sc, tr, ctl, opt)
		if err != nil {
			return c, err
		}
		c.Evidence = append(c.Evidence, share("recovered share on the collision server, k = 100, λ/k = 0.5, outage 20, "+ctl.String(), s.Recovered))
		if ctl.MaxAttempts > 0 && s.Recovered.CI95[1] < 0.5 {
			limitStuck = true
		}
	}
	if none == 0 {
		c.Verdict = Inconclusive
	}
	if c.Verdict == Holds && limitStuck {
		c.Condition = "a limit on attempts alone is not enough where goodput collapses (collision server): with 3 attempts the storm still outlives the trigger"
	}
	return c, nil
}

func claimFirstRequest(ctx context.Context, opt montecarlo.Options) (Result, error) {
	c := controlClaim("jitter-first-request")
	sc := model.Default()
	sc.Clients, sc.Capacity = 1000, 10
	rows, err := study.FirstWindowEffect(ctx, sc, []int{1, 25, 100}, opt)
	if err != nil {
		return c, err
	}
	for _, r := range rows {
		if r.Peak == nil || r.Completion == nil {
			return c, fmt.Errorf("first window %d: no trial finished", r.Window)
		}
		c.Evidence = append(c.Evidence,
			estimated(fmt.Sprintf("peak arrivals per tick, W = %d", r.Window), *r.Peak),
			estimated(fmt.Sprintf("calls, W = %d", r.Window), *r.Calls),
			estimated(fmt.Sprintf("completion (ticks), W = %d", r.Window), *r.Completion))
	}
	a, b := rows[0], rows[2]
	c.Verdict = Fails
	if b.Peak.CI95[1] < a.Peak.CI95[0] && b.Calls.CI95[1] < a.Calls.CI95[0] {
		c.Verdict = Holds
	}
	return c, nil
}
