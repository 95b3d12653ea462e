package analysis

import (
	"context"
	"fmt"
	"math"
	"sort"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// SyncThreshold is the share of the retrying cohort arriving in one tick
// after the first wave above which an audit calls a policy synchronized:
// the cohort still hits the server together, almost whole.
const SyncThreshold = 0.9

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
	Censored   int       `json:"censored"`
	Calls      *Estimate `json:"calls"`
	Completion *Estimate `json:"completion"`
	GaveUp     *Estimate `json:"gave_up"`
	// RetryPeak is the largest number of arrivals in one tick after the
	// first-request window; PeakOverCapacity is RetryPeak / k, and Sync is
	// RetryPeak / Cohort, the share of the retrying cohort that still
	// arrives together.
	RetryPeak        *Estimate `json:"retry_peak"`
	PeakOverCapacity *Estimate `json:"peak_over_capacity"`
	Sync             *Estimate `json:"sync"`
	LatencyP99       *Quantile `json:"latency_p99"`
	// Synchronized is Sync's mean ≥ SyncThreshold; Why says, for presets,
	// which feature of the library's formula keeps clients in step.
	Synchronized bool   `json:"synchronized"`
	Why          string `json:"why,omitempty"`
	// VsBest are the paired differences (this − best) of completion and
	// calls over trials where neither was censored; zero for the best.
	VsBest struct {
		Completion Difference `json:"completion"`
		Calls      Difference `json:"calls"`
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
	RankedBy      string     `json:"ranked_by"`
	SyncThreshold float64    `json:"sync_threshold"`
	Rows          []AuditRow `json:"rows"`
}

// AuditPolicies are the policies an audit of sc compares: the textbook
// policies with sc's parameters and every preset with its defaults, all on
// sc's tick (DefaultTick when sc has none, so that they share a unit).
func AuditPolicies(sc model.Scenario) []model.Policy {
	tick := sc.Policy.Tick
	if tick == 0 {
		tick = model.DefaultTick
	}
	var out []model.Policy
	for _, k := range model.Kinds() {
		p := sc.Policy
		if p.Kind.IsPreset() {
			p = model.Default().Policy
		}
		p.Kind, p.Tick, p.Retries, p.MaxElapsed = k, tick, 0, 0
		out = append(out, p)
	}
	for _, ps := range model.Presets() {
		out = append(out, ps.Policy(tick))
	}
	return out
}

// RunAudit plays opt.Trials trials of sc under every policy of
// AuditPolicies — trial i of each on the same random stream, so that
// differences are paired — and ranks them by what the herd costs: fewest
// clients that gave up first, then fewest calls (the server's load), then
// shortest mean completion. Completion alone would rank retrying at once
// first on a capacity server, at the highest load.
func RunAudit(ctx context.Context, sc model.Scenario, opt montecarlo.Options, progress func(done, total int)) (Audit, error) {
	policies := AuditPolicies(sc)
	a := Audit{Trials: opt.Trials, Seed: opt.Seed, SyncThreshold: SyncThreshold,
		RankedBy: "clients that gave up, then mean calls, then mean completion"}
	a.Scenario = sc
	a.Scenario.Policy = policies[0]
	a.Unit = policies[0].Unit()
	opt.Arrivals = true
	for _, p := range policies { // refuse before any work, as the plans would
		s := sc
		s.Policy = p
		if _, err := montecarlo.NewPlan(s, montecarlo.Cohort{}, opt); err != nil {
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
		var dc, dk Moments
		for t, x := range r.perTrial {
			if x.censored || best[t].censored {
				continue
			}
			dc.Add(x.completion - best[t].completion)
			dk.Add(x.calls - best[t].calls)
		}
		r.VsBest.Completion, r.VsBest.Calls = difference(&dc), difference(&dk)
	}
	return a, nil
}

func mean(e *Estimate) float64 {
	if e == nil {
		return 1e300 // no finished trial ranks last
	}
	return e.Mean
}

func auditLess(a, b AuditRow) bool {
	if mean(a.GaveUp) != mean(b.GaveUp) {
		return mean(a.GaveUp) < mean(b.GaveUp)
	}
	if mean(a.Calls) != mean(b.Calls) {
		return mean(a.Calls) < mean(b.Calls)
	}
	return mean(a.Completion) < mean(b.Completion)
}

// auditPolicy runs one policy and keeps its per-trial values for pairing.
func auditPolicy(ctx context.Context, sc model.Scenario, opt montecarlo.Options) (AuditRow, error) {
	row := AuditRow{Policy: string(sc.Policy.Kind), Retries: sc.Policy.Retries}
	if ps, ok := model.LookupPreset(sc.Policy.Kind); ok {
		row.Preset, row.Library, row.Why = true, ps.Library, ps.Synchronizing
	}
	var calls, completion, gaveUp, peak, over, sync Moments
	var lat LatencyCDF
	n, k := Cohort(sc), float64(sc.Capacity)
	err := montecarlo.Run(ctx, sc, opt, func(t *montecarlo.Trial) error {
		var rp int64
		for tick := sc.FirstWindow; tick < len(t.Arrivals); tick++ {
			rp = max(rp, t.Arrivals[tick])
		}
		x := auditTrial{float64(t.Calls), float64(t.Completion), float64(t.GaveUp), float64(rp), t.Censored}
		row.perTrial = append(row.perTrial, x)
		if t.Censored {
			row.Censored++
			return nil
		}
		calls.Add(x.calls)
		completion.Add(x.completion)
		gaveUp.Add(x.gaveUp)
		peak.Add(x.retryPeak)
		over.Add(x.retryPeak / k)
		sync.Add(x.retryPeak / n)
		lat.Add(t.Latency)
		return nil
	})
	if err != nil {
		return row, err
	}
	if calls.N() == 0 {
		return row, nil
	}
	est := func(m *Moments) *Estimate { e := m.Estimate(); return &e }
	row.Calls, row.Completion, row.GaveUp = est(&calls), est(&completion), est(&gaveUp)
	row.RetryPeak, row.PeakOverCapacity, row.Sync = est(&peak), est(&over), est(&sync)
	q := lat.Quantile(0.99)
	row.LatencyP99 = &q
	row.Synchronized = row.Sync.Mean >= SyncThreshold
	switch {
	case !row.Synchronized:
		row.Why = ""
	case row.Preset && row.Why == "" && sc.Rounding.Ticks(sc.Policy.Law(1, sc.Policy.Start()).Sup()) == 1:
		row.Why = fmt.Sprintf("every first-retry delay rounds to one tick (%s), so the cohort re-arrives within one tick (a finer --tick resolves it)", sc.Policy.TickLength())
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
	Completion, GaveUpRate Estimate // completion in the audit's unit; gave-up as a share of N
	Sync                   Estimate
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
			g.CI95 = &Interval{g.CI95[0] / n, g.CI95[1] / n}
		}
		out = append(out, PresetsAuditPoint{Policy: r.Policy, Preset: r.Preset, Synchronized: r.Synchronized,
			Completion: *r.Completion, GaveUpRate: g, Sync: *r.Sync})
	}
	return out
}
