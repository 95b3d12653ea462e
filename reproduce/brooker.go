package reproduce

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// Marc Brooker's retry simulator (github.com/mbrooker/simulator_example,
// retry_sim) is the source of the numbers in his posts on retries, token
// buckets and circuit breakers ("Fixing retries with token buckets and
// circuit breakers", 2022; "What is Backoff For?", 2022). herd reruns its
// experiments in its own terms and sets its values beside those his code
// gives. His code is not part of herd: it was run outside the project, and
// its outputs — counts per run, with the commit, command and date — are
// recorded in data/brooker_retry_sim.json.

//go:embed data/brooker_retry_sim.json
var brookerJSON []byte

// BrookerSource is the simulator the recorded values come from.
const BrookerSource = "github.com/mbrooker/simulator_example retry_sim"

// BrookerRecord is the recorded output of his simulator with its
// provenance.
type BrookerRecord struct {
	Source  string   `json:"source"`
	Commit  string   `json:"commit"`
	Files   []string `json:"files"`
	Command string   `json:"command"`
	Python  string   `json:"python"`
	Date    string   `json:"date"`
	MaxT    float64  `json:"max_t"` // seconds of new requests per run
	Seeds   [2]int   `json:"seeds"` // random.seed(s) for s in this range, one run each
	// Definitions say how load and success are read from a run's counts.
	Definitions map[string]string `json:"definitions"`
	Notes       []string          `json:"notes"`
	Published   []BrookerPoint    `json:"published"`
	Rows        []BrookerRow      `json:"rows"`
}

// BrookerRow is one experiment row of his simulator: a strategy at a
// failure rate with a number of clients, and the counts of each run.
type BrookerRow struct {
	Experiment    string  `json:"experiment"` // his function: run_sims, run_sims_clients, …
	Name          string  `json:"name"`       // his strategy name
	FailureRate   float64 `json:"failure_rate"`
	Clients       int     `json:"clients"`
	RatePerClient float64 `json:"rate_per_client"` // new requests per second per client
	Backoff       float64 `json:"backoff"`         // his retry_backoff: the first retry's delay, s, doubling
	Client        string  `json:"client"`          // his client class: Client (open loop) or SerialClient
	// Runs are each run's successes, total calls and unique calls (new
	// requests).
	Runs [][3]int64 `json:"runs"`
}

// BrookerPoint is a value his posts print, as herd quotes it.
type BrookerPoint struct {
	Experiment  string   `json:"experiment"`
	Name        string   `json:"name"`
	FailureRate float64  `json:"failure_rate"`
	Clients     int      `json:"clients"`
	Load        *float64 `json:"load,omitempty"`
	Success     *float64 `json:"success,omitempty"`
	TotalCalls  *float64 `json:"total_calls,omitempty"`
	Where       string   `json:"where"`
}

// Brooker reads the recorded values.
func Brooker() (BrookerRecord, error) {
	var r BrookerRecord
	if err := json.Unmarshal(brookerJSON, &r); err != nil {
		return r, fmt.Errorf("data/brooker_retry_sim.json: %w", err)
	}
	return r, nil
}

// published is the mean ± sd over runs of f of a run's counts.
func (r BrookerRow) published(f func(successes, total, unique float64) float64) stats.Published {
	var m stats.Moments
	for _, run := range r.Runs {
		m.Add(f(float64(run[0]), float64(run[1]), float64(run[2])))
	}
	e := m.Estimate()
	return stats.Published{Mean: e.Mean, SD: e.SD, N: e.N}
}

// Load is total calls / unique calls of each run.
func (r BrookerRow) Load() stats.Published {
	return r.published(func(_, total, unique float64) float64 { return total / unique })
}

// Success is successes / unique calls of each run.
func (r BrookerRow) Success() stats.Published {
	return r.published(func(s, _, unique float64) float64 { return s / unique })
}

// TotalCalls is the total calls of each run.
func (r BrookerRow) TotalCalls() stats.Published {
	return r.published(func(_, total, _ float64) float64 { return total })
}

// BrookerTick is the tick herd plays his runs with: 10 ms, his mean
// network hop. His retries arrive a few hops after the failure, herd's at
// the next tick; on a server insensitive to load that changes no count.
const BrookerTick = 10 * time.Millisecond

// BrookerSetting is herd's scenario, traffic and controls for a row of his
// open-loop experiments: his clients as herd's, each a Poisson stream of
// new requests that starts with one request (his clients start a call as
// they start), for MaxT seconds in ticks of BrookerTick, then drained as
// he drains; the flaky server with capacity no tick reaches; retries at
// the next tick or, with his retry backoff b, after b, 2b, 4b, … (expo,
// no jitter, as his). His strategies: no_retries is one attempt,
// three_retries four, adaptive_10pct his bucket (control.BrookerSimBucket,
// no attempt limit, as his) and breaker_10pct his breaker at 10%
// (control.SimBreaker) over three retries.
func BrookerSetting(r BrookerRow, maxT float64) (model.Scenario, model.Traffic, control.Controls, error) {
	sc := model.Default()
	sc.Clients, sc.Capacity, sc.Server, sc.FailureRate = r.Clients, 1_000_000, model.Flaky, r.FailureRate
	sc.Policy = policy.Policy{Kind: policy.None, Base: 1, Cap: 32, FixedDelay: 2, Tick: BrookerTick}
	perTick := BrookerTick.Seconds()
	if r.Backoff > 0 {
		// herd's expo waits base·2ⁿ before retry n ≥ 1: base = b/2.
		b := r.Backoff / perTick / 2
		sc.Policy = policy.Policy{Kind: policy.Expo, Base: b, Cap: b * 64, FixedDelay: 2, Tick: BrookerTick}
	}
	ticks := int(math.Round(maxT / perTick))
	tr := model.Traffic{Rate: float64(r.Clients) * r.RatePerClient * perTick, Ticks: ticks, StartCohort: true, Drain: true}
	var ctl control.Controls
	switch {
	case strings.HasPrefix(r.Name, "no_retries"):
		ctl.MaxAttempts = 1
	case strings.HasPrefix(r.Name, "three_retries"):
		ctl.MaxAttempts = 4
	case strings.HasPrefix(r.Name, "adaptive_10pct"):
		ctl.Bucket = control.DefaultBucket(control.BrookerSimBucket)
	case strings.HasPrefix(r.Name, "breaker_10pct"):
		ctl.SimBreaker, ctl.MaxAttempts = control.DefaultSimBreaker(), 4
	default:
		return sc, tr, ctl, fmt.Errorf("retry_sim strategy %q has no herd counterpart", r.Name)
	}
	if r.Client != "Client" {
		return sc, tr, ctl, fmt.Errorf("retry_sim client %q is not an open-loop client", r.Client)
	}
	return sc, tr, ctl, nil
}

// BrookerComparison is one row of the reproduction: herd's estimate of
// each metric beside his simulator's mean ± sd over its runs.
type BrookerComparison struct {
	Experiment  string         `json:"experiment"`
	Name        string         `json:"name"`
	FailureRate float64        `json:"failure_rate"`
	Clients     int            `json:"clients"`
	Controls    string         `json:"controls"`
	Load        Compared       `json:"load"`
	Success     Compared       `json:"success"`
	Published   *BrookerPoint  `json:"published,omitempty"`
	Scenario    model.Scenario `json:"scenario"`
	Warnings    []string       `json:"warnings,omitempty"`
}

// BrookerReproduction is the whole rerun.
type BrookerReproduction struct {
	Record BrookerRecord       `json:"-"`
	Rows   []BrookerComparison `json:"rows"`
	// Level is the confidence level of each row's test: 95% over all the
	// comparisons (Bonferroni), 1 − 0.05/Comparisons.
	Level       float64 `json:"level"`
	Comparisons int     `json:"comparisons"`
	Agree       int     `json:"agree"` // comparisons that agree
}

// BrookerExperiments are the experiments the reproduction reruns: load and
// success against failure rate for each strategy, the client-count sweep,
// and backoff with open-loop clients.
var BrookerExperiments = []string{"run_sims", "run_sims_clients", "run_sims_retry_backoff"}

// Reproduced is the recorded rows of BrookerExperiments, which
// ReproduceBrooker reruns.
func (rec BrookerRecord) Reproduced() []BrookerRow {
	var rows []BrookerRow
	for _, r := range rec.Rows {
		for _, e := range BrookerExperiments {
			if r.Experiment == e {
				rows = append(rows, r)
			}
		}
	}
	return rows
}

// ReproduceBrooker reruns every recorded open-loop row of his experiments
// with opt.Trials trials and compares load and success with his runs by a
// two-sample t test with the pooled variance (stats.AgreePooled: under the
// null hypothesis the two simulators draw from one law, and some of his
// rows have no variance at all only because a rare retry did not happen in
// his 20 runs) at the Bonferroni level over every comparison.
func ReproduceBrooker(ctx context.Context, opt montecarlo.Options, progress func(done, total int)) (BrookerReproduction, error) {
	rec, err := Brooker()
	if err != nil {
		return BrookerReproduction{}, err
	}
	return rec.Reproduce(ctx, rec.Reproduced(), opt, progress)
}

// Reproduce reruns the given rows of the record, as ReproduceBrooker
// does, with the Bonferroni level over their comparisons.
func (rec BrookerRecord) Reproduce(ctx context.Context, rows []BrookerRow, opt montecarlo.Options, progress func(done, total int)) (BrookerReproduction, error) {
	out := BrookerReproduction{Record: rec, Comparisons: 2 * len(rows)}
	out.Level = 1 - (1-stats.Confidence)/float64(out.Comparisons)
	for i, r := range rows {
		sc, tr, ctl, err := BrookerSetting(r, rec.MaxT)
		if err != nil {
			return out, err
		}
		s, err := analysis.SimulateTraffic(ctx, sc, tr, ctl, opt)
		if err != nil {
			return out, fmt.Errorf("%s %s p = %g: %w", r.Experiment, r.Name, r.FailureRate, err)
		}
		c := BrookerComparison{Experiment: r.Experiment, Name: r.Name, FailureRate: r.FailureRate, Clients: r.Clients,
			Controls: ctl.String(), Scenario: sc, Warnings: s.Warnings,
			Load:    Compared{s.Load, stats.AgreePooled(s.Load, r.Load(), out.Level)},
			Success: Compared{s.ServedShare, stats.AgreePooled(s.ServedShare, r.Success(), out.Level)}}
		for _, p := range rec.Published {
			if p.Experiment == r.Experiment && p.Name == r.Name && p.FailureRate == r.FailureRate && p.Clients == r.Clients {
				p := p
				c.Published = &p
			}
		}
		for _, a := range []stats.Agreement{c.Load.Agreement, c.Success.Agreement} {
			if a.Agrees {
				out.Agree++
			}
		}
		out.Rows = append(out.Rows, c)
		if progress != nil {
			progress(i+1, len(rows))
		}
	}
	return out, nil
}
