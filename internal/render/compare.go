package render

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
)

// CompareFiles are the files of herd compare's directory.
var CompareFiles = struct{ Report, SVG, PNG, Data string }{"report.md", "figure.svg", "figure.png", "compare.json"}

// CompareReport is a comparison in real units: what the report, the
// figure and the JSON show.
type CompareReport struct {
	Service  ComparedService  `json:"service"`
	Trials   int              `json:"trials"`
	Seed     uint64           `json:"seed"`
	Unit     string           `json:"unit"` // of every time below
	Policies []ComparedPolicy `json:"policies"`
	Pairs    []ComparedPair   `json:"pairs"`

	Provenance Provenance `json:"provenance"`

	// Comparison is what was played, in ticks; PerTick is the time units
	// in one tick.
	Comparison analysis.ServiceComparison `json:"-"`
	PerTick    float64                    `json:"-"`
}

// ComparedService is the service every policy ran on.
type ComparedService struct {
	Clients  int     `json:"clients"`
	Server   string  `json:"server"`
	Capacity int     `json:"capacity_per_tick"`
	Rate     float64 `json:"capacity_per_second"`
	Tick     string  `json:"tick"`
	Rounding string  `json:"rounding"`
	// FirstWindow is the ticks over which first sends spread.
	FirstWindow int `json:"first_window_ticks"`
	Horizon     int `json:"horizon_ticks"`
	// Continuous is set for the window server in continuous time, where
	// a tick is the limiter's window and delays are not rounded; Latency
	// is then its round trip.
	Continuous bool   `json:"continuous_time,omitempty"`
	Latency    string `json:"round_trip,omitempty"`
}

type ComparedPolicy struct {
	Label       string                 `json:"label"`
	Policy      string                 `json:"policy"`
	Description string                 `json:"description"`
	Scenario    model.Scenario         `json:"scenario"`
	Engine      montecarlo.Choice      `json:"engine"`
	Censored    int                    `json:"censored"`
	Calls       *stats.Estimate        `json:"calls"`
	Completion  *analysis.Distribution `json:"completion"`
	Latency     *analysis.Distribution `json:"latency"`
	GaveUp      *stats.Estimate        `json:"gave_up"`
	// ArrivalRate is the figure's curve: the mean arrivals per second
	// after the first wave, at the middle of each bin of ticks.
	ArrivalRate [][2]float64 `json:"arrival_rate"`
	// CompletionCDF is the share of all trials finished by each time.
	CompletionCDF [][2]float64 `json:"completion_cdf"`
}

type ComparedPair struct {
	A          string           `json:"a"`
	B          string           `json:"b"`
	Censored   int              `json:"censored_pairs"`
	Calls      stats.Difference `json:"calls"`
	Completion stats.Difference `json:"completion"`
	Latency    stats.Difference `json:"latency_mean"`
	GaveUp     stats.Difference `json:"gave_up"`
	Verdict    string           `json:"verdict"`
}

// NewCompareReport turns a comparison into real units: milliseconds for a
// tick under a second (a whole number of them: times are whole ticks),
// seconds otherwise.
func NewCompareReport(c analysis.ServiceComparison, sc model.Scenario, cite Provenance) *CompareReport {
	unit, perTick := "s", c.Tick.Seconds()
	if c.Tick < time.Second {
		unit, perTick = "ms", perTick*1000
	}
	r := &CompareReport{Trials: c.Trials, Seed: c.Seed, Unit: unit, Provenance: cite, Comparison: c, PerTick: perTick}
	r.Service = ComparedService{Clients: sc.Clients, Server: sc.Server.String(), Capacity: sc.Capacity, Rate: float64(sc.Capacity) / c.Tick.Seconds(),
		Tick: c.Tick.String(), Rounding: sc.Rounding.String(), FirstWindow: sc.FirstWindow, Horizon: sc.EffectiveHorizon()}
	if sc.InContinuousTime() {
		r.Service.Continuous, r.Service.Latency = true, sc.Latency.String()
	}
	for _, o := range c.Policies {
		s := o.Summary
		p := ComparedPolicy{Label: o.Label, Policy: string(s.Scenario.Policy.Kind), Description: describePolicyAt(s.Scenario, c.Tick),
			Scenario: s.Scenario, Engine: s.Engine, Censored: s.Censored, Calls: s.Calls, GaveUp: s.GaveUp,
			Completion: s.Completion.Scaled(perTick), Latency: s.Latency.Scaled(perTick)}
		at, share := o.CompletionCDF()
		for i := range at {
			p.CompletionCDF = append(p.CompletionCDF, [2]float64{at[i] * perTick, share[i]})
		}
		at, rate := o.ArrivalRate(analysis.ArrivalRateBins)
		for i := range at {
			p.ArrivalRate = append(p.ArrivalRate, [2]float64{at[i] * perTick, rate[i] / c.Tick.Seconds()})
		}
		r.Policies = append(r.Policies, p)
	}
	means := map[string]*stats.Estimate{}
	for _, p := range r.Policies {
		means[p.Label+"\x00calls"], means[p.Label+"\x00completion"], means[p.Label+"\x00gave up"] = p.Calls, nil, p.GaveUp
		if p.Completion != nil {
			means[p.Label+"\x00completion"] = &p.Completion.Estimate
		}
		if p.Latency != nil {
			means[p.Label+"\x00latency"] = &p.Latency.Estimate
		}
	}
	for _, pr := range c.Pairs {
		j := ComparedPair{A: pr.A, B: pr.B, Censored: pr.Censored, Calls: pr.Calls, GaveUp: pr.GaveUp,
			Completion: pr.Completion.Scaled(perTick), Latency: pr.Latency.Scaled(perTick)}
		j.Verdict = pairVerdict(j, unit, sc.Clients, func(label, metric string) *stats.Estimate { return means[label+"\x00"+metric] })
		r.Pairs = append(r.Pairs, j)
	}
	return r
}

// describePolicyAt says a policy in real time: a textbook policy's delays
// in ticks and what they are at this tick, a preset's library.
func describePolicyAt(sc model.Scenario, tick time.Duration) string {
	p := sc.Policy
	ticks := func(x float64) string {
		unit := "ticks"
		if x == 1 {
			unit = "tick"
		}
		return fmt.Sprintf("%s %s = %s", Number(x), unit, time.Duration(x*float64(tick)).Round(time.Microsecond))
	}
	s := string(p.Kind)
	switch {
	case p.Kind.IsPreset():
		if ps, ok := policy.LookupPreset(p.Kind); ok {
			s = ps.Library + " " + ps.Version + " (library preset): " + ps.Formula
		}
	case p.Kind.IsConfigured():
		s = p.Describe() + ": " + p.Kind.Formula()
	case p.Kind == policy.Fixed:
		s += ", delay " + ticks(p.FixedDelay)
	case p.Kind == policy.None:
		s += ", no delay"
	default:
		s += ", base " + ticks(p.Base) + ", cap " + ticks(p.Cap)
	}
	if p.Retries > 0 {
		s += fmt.Sprintf("; gives up after %d retries", p.Retries)
	}
	if p.MaxElapsed > 0 {
		s += fmt.Sprintf("; gives up past %s elapsed", p.MaxElapsed)
	}
	return s
}

// comparedMetrics are the paired quantities a verdict speaks of, each with
// its words for less and more (less is better for all of them).
var comparedMetrics = []struct {
	name, less, more, unit string
	of                     func(ComparedPair) stats.Difference
}{
	{"calls", "makes fewer calls", "makes more calls", "calls per trial", func(p ComparedPair) stats.Difference { return p.Calls }},
	{"completion", "serves every client sooner", "serves every client later", "", func(p ComparedPair) stats.Difference { return p.Completion }},
	{"latency", "serves the average client sooner", "serves the average client later", "", func(p ComparedPair) stats.Difference { return p.Latency }},
	{"gave up", "has fewer clients give up", "has more clients give up", "clients per trial", func(p ComparedPair) stats.Difference { return p.GaveUp }},
}

// pairVerdict says in words how A compares with B on each metric: which
// way a significant difference goes, by how much (with its interval and
// as a share of B's mean), and "not significant" where the interval
// holds 0. Where clients gave up, the calls are also said per served
// client, since fewer calls can come from clients giving up, and the
// completion is the last served client's.
func pairVerdict(p ComparedPair, unit string, clients int, mean func(label, metric string) *stats.Estimate) string {
	if p.Calls.N == 0 {
		return fmt.Sprintf("nothing to compare: in each of the %d trials %s or %s was censored (raise --horizon)", p.Censored, p.A, p.B)
	}
	var parts []string
	for _, m := range comparedMetrics {
		d := m.of(p)
		u := m.unit
		if u == "" {
			u = unit
		}
		switch {
		case d.N == 0:
			parts = append(parts, m.name+": no trials to pair")
		case d.CI95 != nil && d.CI95[0] == 0 && d.CI95[1] == 0:
			parts = append(parts, m.name+": the same in every trial")
		case !d.Significant:
			parts = append(parts, fmt.Sprintf("%s: not significant (%s %s)", m.name, Text.Signed(d.Mean, d.CI95), u))
		default:
			words := m.less
			if d.Mean > 0 {
				words = m.more
			}
			if m.name == "completion" && perServed(p, clients, mean) != "" {
				// Clients that gave up were never served.
				words = strings.Replace(words, "every client", "its last served client", 1)
			}
			s := fmt.Sprintf("%s %s (%s %s", p.A, words, Text.Signed(d.Mean, d.CI95), u)
			if b := mean(p.B, m.name); b != nil && b.Mean != 0 {
				s += fmt.Sprintf(", %+.0f%% of %s's", 100*d.Mean/b.Mean, p.B)
			}
			parts = append(parts, s+")")
		}
		if m.name == "calls" {
			if per := perServed(p, clients, mean); per != "" {
				parts[len(parts)-1] += " " + per
			}
		}
	}
	return strings.Join(parts, "; ")
}

// perServed says the calls per served client of A and B where clients
// of either gave up ("" otherwise).
func perServed(p ComparedPair, clients int, mean func(label, metric string) *stats.Estimate) string {
	per := func(label string) (string, bool) {
		c, g := mean(label, "calls"), mean(label, "gave up")
		if c == nil || g == nil || float64(clients)-g.Mean <= 0 {
			return "—", g != nil && g.Mean > 0
		}
		return Number(c.Mean/(float64(clients)-g.Mean)) + " calls per served client", g.Mean > 0
	}
	a, gaveA := per(p.A)
	b, gaveB := per(p.B)
	if !gaveA && !gaveB {
		return ""
	}
	return fmt.Sprintf("[%s %s, %s %s; clients that gave up are never served]", p.A, a, p.B, b)
}

// Markdown writes the report.
func (r *CompareReport) Markdown(w io.Writer) error {
	labels := make([]string, len(r.Policies))
	for i, p := range r.Policies {
		labels[i] = MarkdownCell(p.Label)
	}
	s := r.Service
	fmt.Fprintf(w, "# %s\n\n", strings.Join(labels, " vs "))
	if s.Continuous {
		fmt.Fprintf(w, "**The service.** %d clients fail at the same moment and retry; a limiter admits the first %d requests of each %s window (%s requests/s) and fails the rest at once; "+
			"continuous time: delays are the policies' own, unrounded, and each attempt's round trip is %s",
			s.Clients, s.Capacity, s.Tick, Number(s.Rate), s.Latency)
	} else {
		fmt.Fprintf(w, "**The service.** %d clients fail at the same moment and retry; a %s server accepts %s requests/s (%d per tick of %s) and fails the rest",
			s.Clients, s.Server, Number(s.Rate), s.Capacity, s.Tick)
		if s.Server == model.Collision.String() {
			fmt.Fprint(w, " (on a tick with more arrivals than it accepts, it serves nobody)")
		}
		fmt.Fprintf(w, "; delays are rounded to ticks (%s)", s.Rounding)
	}
	if s.FirstWindow > 1 {
		fmt.Fprintf(w, "; first sends spread over %d ticks", s.FirstWindow)
	}
	fmt.Fprintf(w, "; a trial still running after %s is censored.\n\n", fmtDuration(float64(s.Horizon)*r.PerTick, r.Unit))
	fmt.Fprintln(w, "**The policies.**")
	fmt.Fprintln(w)
	for _, p := range r.Policies {
		fmt.Fprintf(w, "- %s: %s\n", MarkdownCode(p.Label), MarkdownCell(p.Description))
	}
	fmt.Fprintf(w, "\n%d trials per policy, seed %d, on common random numbers (trial i of every policy draws from the same random stream). "+
		"Means ± half their 95%% Student-t interval; quantiles with distribution-free 95%% intervals; times in %s.\n\n", r.Trials, r.Seed, r.Unit)

	fmt.Fprintln(w, "## Each policy")
	fmt.Fprintln(w)
	u := r.Unit
	cols := []Column{{Name: "policy", Code: true}}
	cols = append(cols, EstimateColumns("calls", 0)...)
	cols = append(cols, EstimateColumns("completion ("+u+")", 0)...)
	for _, q := range stats.Percentiles {
		cols = append(cols, Column{Name: "completion " + q.Name, Right: true})
	}
	cols = append(cols, EstimateColumns("latency mean ("+u+")", 0)...)
	for _, q := range stats.Percentiles {
		cols = append(cols, Column{Name: "latency " + q.Name, Right: true})
	}
	cols = append(cols, EstimateColumns("gave up (clients)", 0)...)
	t := NewTable(append(cols, Column{Name: "censored trials", Right: true})...)
	for _, p := range r.Policies {
		cells := []string{p.Label}
		cells = append(cells, EstimateCells(p.Calls)...)
		cells = append(cells, distCells(p.Completion)...)
		cells = append(cells, distCells(p.Latency)...)
		cells = append(cells, EstimateCells(p.GaveUp)...)
		t.Add(append(cells, strconv.Itoa(p.Censored))...)
	}
	t.Markdown(w)

	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Paired differences")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A − B over the trials where neither was censored, with 95% intervals; ~ marks a difference that is not significant (its interval holds 0).")
	fmt.Fprintln(w)
	pt := NewTable(Column{Name: "A − B"}, Column{Name: "calls", Right: true}, Column{Name: "completion (" + u + ")", Right: true},
		Column{Name: "latency mean (" + u + ")", Right: true}, Column{Name: "gave up (clients)", Right: true}, Column{Name: "pairs left out (censored)", Right: true})
	for _, p := range r.Pairs {
		pt.Add(fmt.Sprintf("%s − %s", p.A, p.B), Difference(p.Calls), Difference(p.Completion), Difference(p.Latency), Difference(p.GaveUp), strconv.Itoa(p.Censored))
	}
	pt.Markdown(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "**Verdicts.**")
	fmt.Fprintln(w)
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "- **%s vs %s**: %s.\n", MarkdownCell(p.A), MarkdownCell(p.B), MarkdownCell(p.Verdict))
	}
	fmt.Fprintf(w, "\n![Arrival rate over time and the distribution of completion, per policy](%s)\n\n", CompareFiles.SVG)
	fmt.Fprintf(w, "The numbers behind this report and its figure are in `%s`.\n\n", CompareFiles.Data)
	_, err := fmt.Fprintln(w, r.Provenance.Markdown())
	return err
}

// distCells are a distribution's mean (two cells) and its quantiles.
func distCells(d *analysis.Distribution) []string {
	if d == nil {
		return append([]string{"—", ""}, make([]string, len(stats.Percentiles))...)
	}
	cells := EstimateCells(&d.Estimate)
	for _, q := range stats.Percentiles {
		cells = append(cells, Quantile(d.Quantiles[q.Name]))
	}
	return cells
}

// fmtDuration is x (in unit) read more easily: seconds, minutes or hours.
func fmtDuration(x float64, unit string) string {
	d := time.Duration(x * float64(map[string]time.Duration{"ms": time.Millisecond, "s": time.Second}[unit]))
	return d.Round(time.Millisecond).String()
}
