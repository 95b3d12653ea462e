package study

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// SyncThreshold is the share of the retrying cohort arriving within one
// SyncWindow after the first wave above which an audit calls a policy
// synchronized: the cohort still hits the server together, almost whole.
const SyncThreshold = 0.9

// SyncWindow is the real length of the window in which an audit counts the
// cohort's retries together. It is real time, not a tick, so that whether a
// policy keeps clients in step does not depend on the tick the scenario is
// played on: as the tick shrinks the window spans more ticks and the share
// converges. With abstract ticks (textbook policies only) it is one tick.
const SyncWindow = time.Second

// syncWindow is the window an audit of sc judges synchronization in: the
// limiter's own window in continuous time, where the server's window is
// known, else SyncWindow.
func syncWindow(sc model.Scenario) time.Duration {
	if sc.InContinuousTime() {
		return sc.Window()
	}
	return SyncWindow
}

// FirstRetrySync is the share of a large cohort's first retries that fall
// within the busiest window of length window: the most probability that the
// first retry's time — the first send's tick (uniform over the first
// window) plus the policy's unrounded first delay — puts in any interval
// (x, x + window]. The first retries of clients that failed together are
// independent draws of that time, so this is the share the busiest window
// holds as N grows, whatever the server. It is in real time (window and
// delays in seconds) when the policy has a tick, and in ticks otherwise, so
// it does not depend on the tick a scenario is played on. The scan's step
// is window/400, so a share is exact to within the mass the law puts in
// that step. Its cost grows with the first window's square, so it looks at
// ctx at every step of the scan.
func FirstRetrySync(ctx context.Context, sc model.Scenario, window time.Duration) (float64, error) {
	p := sc.Policy
	unit := p.TickLength().Seconds() // seconds per tick; 0: abstract ticks
	tau := window.Seconds()
	if unit == 0 {
		unit, tau = 1, 1 // one tick
	}
	law := p.Law(1, p.Start())
	lo, hi := law.Draw(0)*unit, law.Sup()*unit
	w := sc.FirstWindow
	cdf := func(x float64) float64 { // P(first send + delay ≤ x), x in seconds
		var sum float64
		for f := range w {
			sum += law.CDF((x - float64(f)*unit) / unit)
		}
		return sum / float64(w)
	}
	step := tau / 400
	best := 0.0
	for x := lo - tau - step; x <= hi+float64(w)*unit; x += step {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		best = max(best, cdf(x+tau)-cdf(x))
	}
	return math.Min(1, best), nil
}

// Cohort is the number of clients that fail their first request in the
// first-request window and so retry: N − k·W on the capacity server (at
// least 1), N on the collision server when N > k.
func Cohort(sc model.Scenario) float64 {
	n, k := float64(sc.Clients), float64(sc.Capacity)
	if sc.Server == model.Collision {
		if n <= k {
			return 1
		}
		return n
	}
	return math.Max(1, n-k*float64(sc.FirstWindow))
}

// AuditRow is one policy of an audit, with every statistic over the
// trials that finished and its paired difference from the best policy.
type AuditRow struct {
	Rank    int    `json:"rank"`
	Policy  string `json:"policy"`
	Preset  bool   `json:"preset"`
	Library string `json:"library,omitempty"`
	Retries int    `json:"retries,omitempty"`
	// Censored trials were still running at the horizon and are left out.
	Censored   int             `json:"censored"`
	Calls      *stats.Estimate `json:"calls"`
	Completion *stats.Estimate `json:"completion"`
	GaveUp     *stats.Estimate `json:"gave_up"`
	// RetryPeak is the largest number of arrivals in one tick after the
	// first-request window and PeakOverCapacity is RetryPeak / k, both
	// measured in the tick model. Sync is FirstRetrySync: the share of the
	// cohort's first retries within the busiest SyncWindow, exact and in
	// real time.
	RetryPeak        *stats.Estimate `json:"retry_peak"`
	PeakOverCapacity *stats.Estimate `json:"peak_over_capacity"`
	Sync             *stats.Estimate `json:"sync"`
	LatencyP99       *stats.Quantile `json:"latency_p99"`
	// Synchronized is Sync's mean ≥ SyncThreshold; Why says, for presets,
	// which feature of the library's formula keeps clients in step.
	Synchronized bool   `json:"synchronized"`
	Why          string `json:"why,omitempty"`
	// VsBest are the paired differences (this − best) of completion and
	// calls over trials where neither was censored; zero for the best.
	VsBest struct {
		Completion stats.Difference `json:"completion"`
		Calls      stats.Difference `json:"calls"`
	} `json:"vs_best"`

	perTrial []auditTrial
}

type auditTrial struct {
	calls, completion, gaveUp, retryPeak float64
	censored                             bool
}

// Audit ranks the textbook policies and every library preset on one
// thundering-herd scenario.
type Audit struct {
	Scenario model.Scenario `json:"scenario"`
	Unit     string         `json:"unit"`
	Trials   int            `json:"trials"`
	Seed     uint64         `json:"seed"`
	// RankedBy says how rows are ordered.
	RankedBy      string  `json:"ranked_by"`
	SyncThreshold float64 `json:"sync_threshold"`
	// SyncWindow is the window of Sync, in real time.
	SyncWindow string     `json:"sync_window"`
	Rows       []AuditRow `json:"rows"`
	// Notes say what the audit left out, and why.
	Notes []string `json:"notes,omitempty"`
}

// AuditPolicies are the policies an audit of sc compares: the textbook
// policies with sc's parameters and every preset with its defaults, all on
// sc's tick (DefaultTick when sc has none, so that they share a unit). In
// continuous time with no round trip, the policies that retry at once are
// left out (AuditLeftOut says which).
func AuditPolicies(sc model.Scenario) []policy.Policy {
	var out []policy.Policy
	for _, p := range auditPolicies(sc) {
		if !withPolicy(sc, p).RetriesAtOnce() {
			out = append(out, p)
		}
	}
	return out
}

// AuditLeftOut says which policies AuditPolicies leaves out of an audit of
// sc, and why ("" when none).
func AuditLeftOut(sc model.Scenario) string {
	var names []string
	for _, p := range auditPolicies(sc) {
		if withPolicy(sc, p).RetriesAtOnce() {
			names = append(names, string(p.Kind))
		}
	}
	if len(names) == 0 {
		return ""
	}
	return "left out: " + strings.Join(names, ", ") + ", whose retries have no delay: in continuous time with no round trip (--latency) they would reach the full window again at the same instant, for ever"
}

func withPolicy(sc model.Scenario, p policy.Policy) model.Scenario {
	sc.Policy = p
	return sc
}

func auditPolicies(sc model.Scenario) []policy.Policy {
	tick := sc.Policy.Tick
	if tick == 0 {
		tick = policy.DefaultTick
	}
	var out []policy.Policy
	for _, k := range policy.Kinds() {
		p := sc.Policy
		if p.Kind.IsPreset() || p.Kind.IsConfigured() {
			p = model.Default().Policy
		}
		p.Kind, p.Tick, p.Retries, p.MaxElapsed = k, tick, 0, 0
		out = append(out, p)
	}
	for _, ps := range policy.Presets() {
		out = append(out, ps.Policy(tick))
	}
	return out
}

// AuditPoliciesNamed are the policies of spec's service named in names
// (each a textbook policy, a preset or NAME:FIELD=VALUE,…), for an audit of
// those alone: each with the spec's other fields, all on one tick as in
// AuditPolicies.
func AuditPoliciesNamed(spec model.Spec, names []string) ([]policy.Policy, error) {
	var out []policy.Policy
	for _, name := range names {
		s, err := spec.With("policy", strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		sc, err := s.Scenario()
		if err != nil {
			return nil, err
		}
		p := sc.Policy
		if p.Tick == 0 {
			p.Tick = policy.DefaultTick
		}
		if slices.ContainsFunc(out, func(q policy.Policy) bool { return q.Kind == p.Kind }) {
			return nil, &model.FieldError{Flag: "policy", Valid: "a list of distinct policies", Got: strconv.Quote(name) + " twice"}
		}
		out = append(out, p)
	}
	return out, nil
}

// AuditRanking is how an audit orders its rows. Censored trials come
// first: a row's statistics are over its finished trials, conditional on
// finishing, so a policy whose trials do not finish by the horizon is not
// ranked on the few that did.
const AuditRanking = "fewest censored trials, then clients that gave up, then mean calls, then mean completion"

// CensoredRows counts the rows of an audit with censored trials.
func (a Audit) CensoredRows() int {
	n := 0
	for _, r := range a.Rows {
		if r.Censored > 0 {
			n++
		}
	}
	return n
}

// RunAudit plays opt.Trials trials of sc under each of policies (nil:
// every policy of AuditPolicies) — trial i of each on the same random stream, so that
// differences are paired — and ranks them by what the herd costs: fewest
// censored trials first (AuditRanking), then fewest clients that gave up,
// then fewest calls (the server's load), then shortest mean completion. Completion alone would rank retrying at once
// first on a capacity server, at the highest load.
func RunAudit(ctx context.Context, sc model.Scenario, policies []policy.Policy, opt montecarlo.Options, progress func(done, total int)) (Audit, error) {
	a := Audit{Trials: opt.Trials, Seed: opt.Seed, SyncThreshold: SyncThreshold,
		RankedBy: AuditRanking}
	if policies == nil {
		policies = AuditPolicies(sc)
		if n := AuditLeftOut(sc); n != "" {
			a.Notes = append(a.Notes, n)
		}
	}
	a.Scenario = sc
	a.Scenario.Policy = policies[0]
	a.Unit = policies[0].Unit()
	if sc.InContinuousTime() {
		a.Unit = sc.TimeUnit()
	}
	tick := policies[0].TickLength()
	a.SyncWindow = syncWindow(sc).String()
	if tick == 0 {
		a.SyncWindow = "1 tick"
	}
	opt.Arrivals = true
	for _, p := range policies { // refuse before any work, as the plans would
		s := sc
		s.Policy = p
		if _, err := montecarlo.NewPlan(s, montecarlo.CohortOf(s), opt); err != nil {
			return Audit{}, fmt.Errorf("policy %s: %w", p.Kind, err)
		}
	}
	for i, p := range policies {
		s := sc
		s.Policy = p
		row, err := auditPolicy(ctx, s, opt)
		if err != nil {
			return Audit{}, fmt.Errorf("policy %s: %w", p.Kind, err)
		}
		a.Rows = append(a.Rows, row)
		if progress != nil {
			progress(i+1, len(policies))
		}
	}
	sort.SliceStable(a.Rows, func(i, j int) bool { return auditLess(a.Rows[i], a.Rows[j]) })
	best := a.Rows[0].perTrial
	for i := range a.Rows {
		r := &a.Rows[i]
		r.Rank = i + 1
		var dc, dk stats.Moments
		for t, x := range r.perTrial {
			if x.censored || best[t].censored {
				continue
			}
			dc.Add(x.completion - best[t].completion)
			dk.Add(x.calls - best[t].calls)
		}
		r.VsBest.Completion, r.VsBest.Calls = dc.Difference(), dk.Difference()
	}
	return a, nil
}

func mean(e *stats.Estimate) float64 {
	if e == nil {
		return 1e300 // no finished trial ranks last
	}
	return e.Mean
}

func auditLess(a, b AuditRow) bool {
	if a.Censored != b.Censored {
		return a.Censored < b.Censored
	}
	if mean(a.GaveUp) != mean(b.GaveUp) {
		return mean(a.GaveUp) < mean(b.GaveUp)
	}
	if mean(a.Calls) != mean(b.Calls) {
		return mean(a.Calls) < mean(b.Calls)
	}
	return mean(a.Completion) < mean(b.Completion)
}

// retryPeak is a trial's largest number of arrivals in one tick (one
// window in continuous time) after the first sends' ticks or windows.
func retryPeak(sc model.Scenario, t *montecarlo.Trial) int64 {
	arrivals, first := t.Arrivals, sc.FirstWindow
	if t.Continuous {
		arrivals = analysis.PerWindow(t.CallTimes, sc.Window())
		first = max(1, int(math.Ceil(float64(sc.FirstSpread)/float64(sc.Window()))))
	}
	var rp int64
	for i := first; i < len(arrivals); i++ {
		rp = max(rp, arrivals[i])
	}
	return rp
}

// auditPolicy runs one policy and keeps its per-trial values for pairing.
func auditPolicy(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (AuditRow, error) {
	row := AuditRow{Policy: string(sc.Policy.Kind), Retries: sc.Policy.Retries}
	if ps, ok := policy.LookupPreset(sc.Policy.Kind); ok {
		row.Preset, row.Library, row.Why = true, ps.Library, ps.Synchronizing
	}
	var peak, over stats.Moments
	k := float64(sc.Capacity)
	s, err := analysis.SimulateTrials(ctx, sc, opt, func(t *montecarlo.Trial) {
		rp := float64(retryPeak(sc, t))
		x := auditTrial{float64(t.Calls), t.CompletionTime(), float64(t.GaveUp), rp, t.Censored}
		row.perTrial = append(row.perTrial, x)
		if t.Censored {
			row.Censored++
			return
		}
		peak.Add(rp)
		over.Add(rp / k)
	})
	if err != nil {
		return row, err
	}
	if s.Calls == nil {
		return row, nil
	}
	est := func(m *stats.Moments) *stats.Estimate { e := m.Estimate(); return &e }
	row.Calls, row.GaveUp = s.Calls, s.GaveUp
	row.Completion = &s.Completion.Estimate
	sw := syncWindow(sc)
	share, err := FirstRetrySync(ctx, sc, sw)
	if err != nil {
		return row, err
	}
	sync := stats.Exact(share)
	row.RetryPeak, row.PeakOverCapacity, row.Sync = est(&peak), est(&over), &sync
	if s.Latency != nil {
		q := s.Latency.Quantiles["p99"]
		row.LatencyP99 = &q
	}
	row.Synchronized = row.Sync.Mean >= SyncThreshold
	switch {
	case !row.Synchronized:
		row.Why = ""
	case row.Preset && row.Why == "" && sc.Policy.Law(1, sc.Policy.Start()).Sup()*sc.Policy.TickLength().Seconds() <= sw.Seconds():
		row.Why = fmt.Sprintf("every first-retry delay is at most %s, so the cohort re-arrives within one %s window",
			time.Duration(sc.Policy.Law(1, sc.Policy.Start()).Sup()*float64(sc.Policy.TickLength())).Round(time.Millisecond), sw)
	}
	return row, nil
}

// Synchronized lists the presets of an audit that keep clients in step.
func (a Audit) Synchronized() []string {
	var s []string
	for _, r := range a.Rows {
		if r.Preset && r.Synchronized {
			s = append(s, r.Policy)
		}
	}
	return s
}

// PresetsAuditPoint is one bar of the presets-audit figure: a policy's
// mean completion and share of the herd that gave up, with 95% intervals,
// and whether it stays synchronized.
type PresetsAuditPoint struct {
	Policy                 string
	Preset, Synchronized   bool
	Completion, GaveUpRate stats.Estimate // completion in the audit's unit; gave-up as a share of N
	CallsPerClient         stats.Estimate
	Sync                   stats.Estimate
}

// PresetsAuditData is the data of the presets-audit figure, in rank order,
// for the plots registry.
func PresetsAuditData(a Audit) []PresetsAuditPoint {
	var out []PresetsAuditPoint
	n := float64(a.Scenario.Clients)
	for _, r := range a.Rows {
		if r.Completion == nil {
			continue
		}
		g := *r.GaveUp
		g.Mean, g.SD = g.Mean/n, g.SD/n
		if g.CI95 != nil {
			g.CI95 = &stats.Interval{g.CI95[0] / n, g.CI95[1] / n}
		}
		out = append(out, PresetsAuditPoint{Policy: r.Policy, Preset: r.Preset, Synchronized: r.Synchronized,
			Completion: *r.Completion, GaveUpRate: g, CallsPerClient: r.Calls.Scale(1 / n), Sync: *r.Sync})
	}
	return out
}

// AuditWith is the audit's policies with a configured one added (label
// names its file), on the tick of AuditPolicies; a second policy of the
// same kind is refused, since the audit's rows could not tell them apart.
func AuditWith(policies []policy.Policy, p policy.Policy, label string) ([]policy.Policy, error) {
	if p.Tick == 0 {
		p.Tick = policy.DefaultTick
	}
	for _, q := range policies {
		if q.Kind == p.Kind {
			return nil, model.Usagef("--config gives two %s policies (%s among them), which an audit's rows cannot tell apart; compare them with herd compare --config", p.Kind, label)
		}
	}
	return append(policies, p), nil
}
