package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/plots"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/stats"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

// compareOptions are what herd compare's flags said.
type compareOptions struct {
	IO  *iostreams
	Ctx context.Context
	// Labels name the policies; Scenarios are the service under each.
	Labels    []string
	Scenarios []model.Scenario
	Run       montecarlo.Options
	// Dir is the directory written; Force replaces one that holds files.
	Dir   string
	Force bool
	Cite  render.Provenance
}

// compareFiles are the files herd compare writes into its directory.
var compareFiles = struct{ report, svg, png, data string }{"report.md", "figure.svg", "figure.png", "compare.json"}

func newCmdCompare(f *factory, runF func(*compareOptions) error) *cobra.Command {
	opts := &compareOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		run      runFlags
		policies string
	)
	c := &cobra.Command{
		Use:   "compare",
		Short: "Compare retry policies on your own service, in real units, into a report directory",
		Long: `compare plays one thundering herd on your service — --clients that fail
together, a server with --capacity given as a rate (-k 200/s) at the real
length of a tick (--tick, default 1s) — under two or more policies or
library presets, all on common random numbers: trial i of every policy draws
from the same random stream, so the differences between policies are
measured trial by trial (paired), with 95% Student-t intervals.

Give the policies as a list (--policy full,cenkalti-v4) that shares the
scenario flags (--base and --cap in ticks, --retries, --max-elapsed), or as
a YAML file (--policies FILE) that gives each its own parameters:

  policies:
    - policy: full
      cap: 64          # ticks, or a duration such as 640ms (converted with --tick)
    - policy: equal
      base: 20ms
      label: equal, 20 ms base
    - policy: cenkalti-v4  # a preset: its library's own delays and limits

compare writes one directory (--out DIR, refused when it holds files unless
--force; written whole or not at all): report.md (the scenario, a table of
calls, completion, latency quantiles, clients that gave up and censored
trials per policy, the paired differences with their intervals and a verdict
per pair in words, "not significant" where the interval holds 0),
figure.svg and figure.png (the arrival rate over time against the capacity,
and the distribution of completion, per policy), compare.json (the numbers
behind both), each with the cite line. The same command gives the same bytes.`,
		Example: `  herd compare -n 1000 -k 100/s --tick 10ms --policy full,cenkalti-v4 --out review
  herd compare -n 5000 -k 200/s --tick 5ms --policies policies.yaml --trials 2000 --out review --force`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = c.Context()
			var err error
			if opts.Run, err = run.options(); err != nil {
				return err
			}
			if opts.Dir == "" {
				return usageError{fmt.Errorf("--out must name the directory to write (new or empty, or any with --force)")}
			}
			if err := outfile.CheckDir(opts.Dir, opts.Force); err != nil {
				return outError(err)
			}
			spec, err := scenario.spec("policy")
			if err != nil {
				return err
			}
			if !spec.Given("tick") {
				// One tick for every policy, textbook or preset.
				if spec, err = spec.With("tick", policy.DefaultTick.String()); err != nil {
					return usageError{err}
				}
			}
			var entries []policyEntry
			switch {
			case policies != "" && scenario.changed("policy"):
				return usageError{fmt.Errorf("give the policies either by --policy or by --policies FILE, not both")}
			case policies != "":
				if entries, err = readPolicies(policies); err != nil {
					return usageError{err}
				}
			default:
				for _, name := range strings.Split(scenario.policy, ",") {
					entries = append(entries, policyEntry{fields: [][2]string{{"policy", strings.TrimSpace(name)}}})
				}
			}
			if opts.Labels, opts.Scenarios, err = comparedScenarios(spec, entries); err != nil {
				return err
			}
			opts.Cite = f.provenance()
			opts.Cite.Command = render.CommandLine(citedCompareArgs(f.Args))
			if runF != nil {
				return runF(opts)
			}
			return compareRun(opts)
		},
	}
	scenario.register(c)
	c.Flags().Lookup("policy").Usage = "the policies to compare, comma-separated: " + kindList() + " or library presets (see herd presets); at least two"
	c.Flags().Lookup("policy").DefValue = "full,equal"
	scenario.policy = "full,equal"
	c.Flags().Lookup("tick").Usage = "real length of one tick, shared by every policy, e.g. 10ms (default 1s)"
	c.Flags().StringVar(&policies, "policies", "", "YAML file listing the policies with their parameters (instead of --policy)")
	run.register(c, 1000)
	c.Flags().StringVar(&opts.Dir, "out", "", "directory to write: report.md, figure.svg, figure.png, compare.json (new or empty; any with --force)")
	c.Flags().BoolVar(&opts.Force, "force", false, "replace the --out directory even if it holds files")
	return c
}

// citedCompareArgs is the command line as the cite line gives it: the
// directory written and --force change nothing in the results, so that
// the same comparison written twice, anywhere, has the same bytes.
func citedCompareArgs(args []string) []string {
	var out []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--out":
			out = append(out, "--out", "DIR")
			i++
		case strings.HasPrefix(a, "--out="):
			out = append(out, "--out", "DIR")
		case a == "--force" || strings.HasPrefix(a, "--force="):
		default:
			out = append(out, a)
		}
	}
	return out
}

// policyEntry is one policy of a comparison: its label, if given, and its
// fields in the order given, spelled as the scenario flags.
type policyEntry struct {
	label  string
	fields [][2]string
}

// policyFields are the fields a policy of a comparison may set.
var policyFields = []string{"policy", "base", "cap", "fixed-delay", "retries", "max-elapsed"}

// readPolicies reads a --policies file: a list of policies, each a map of
// its fields (and an optional label).
func readPolicies(path string) ([]policyEntry, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--policies: %w", err)
	}
	var doc struct {
		Policies []yaml.Node `yaml:"policies"`
	}
	if err := yaml.Unmarshal(b, &doc); err != nil {
		return nil, fmt.Errorf("--policies %s: %w", path, err)
	}
	var out []policyEntry
	for i, n := range doc.Policies {
		if n.Kind != yaml.MappingNode {
			return nil, fmt.Errorf("--policies %s: policy %d must be a map of fields (policy, base, cap, fixed-delay, retries, max-elapsed, label)", path, i+1)
		}
		var e policyEntry
		for j := 0; j+1 < len(n.Content); j += 2 {
			key, val := n.Content[j].Value, n.Content[j+1].Value
			switch {
			case key == "label":
				e.label = val
			case slicesContains(policyFields, key):
				e.fields = append(e.fields, [2]string{key, val})
			default:
				return nil, fmt.Errorf("--policies %s: policy %d: %q is not a policy field (fields: %s, label)", path, i+1, key, strings.Join(policyFields, ", "))
			}
		}
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--policies %s: no policies listed (want a list under \"policies:\")", path)
	}
	return out, nil
}

func slicesContains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

// comparedScenarios builds the service under each policy: the scenario
// flags' spec with each entry's fields. A delay given as a duration (base:
// 20ms) is converted to ticks of the spec's tick.
func comparedScenarios(spec model.Spec, entries []policyEntry) ([]string, []model.Scenario, error) {
	if len(entries) < 2 {
		return nil, nil, usageError{fmt.Errorf("--policy must list two or more policies to compare, got %d", len(entries))}
	}
	sc0, err := spec.Scenario()
	if err != nil {
		return nil, nil, usageError{err}
	}
	tick := sc0.Policy.TickLength()
	var labels []string
	var scs []model.Scenario
	for _, e := range entries {
		s := spec
		var params []string
		name := ""
		for _, kv := range e.fields {
			field, text := kv[0], kv[1]
			if field == "base" || field == "cap" || field == "fixed-delay" {
				if d, err := time.ParseDuration(text); err == nil && strings.TrimLeft(text, "0123456789.") != "" {
					text = strconv.FormatFloat(float64(d)/float64(tick), 'g', -1, 64)
				}
			}
			if s, err = s.With(field, text); err != nil {
				return nil, nil, usageError{err}
			}
			if field == "policy" {
				name = text
			} else {
				params = append(params, field+" "+kv[1])
			}
		}
		if name == "" {
			return nil, nil, usageError{fmt.Errorf("--policies: every policy needs a policy: name")}
		}
		sc, err := s.Scenario()
		if err != nil {
			return nil, nil, usageError{fmt.Errorf("policy %s: %w", name, err)}
		}
		label := e.label
		if label == "" {
			label = name
			if len(params) > 0 {
				label += " (" + strings.Join(params, ", ") + ")"
			}
		}
		for _, l := range labels {
			if l == label {
				return nil, nil, usageError{fmt.Errorf("policy %q is listed twice; give each its own label", label)}
			}
		}
		labels, scs = append(labels, label), append(scs, sc)
	}
	if sc0.Continuous() {
		return nil, nil, usageError{fmt.Errorf("--server occ has no ticks; compare policies on the capacity or collision server")}
	}
	return labels, scs, nil
}

// compareRun plays the comparison and writes its directory.
func compareRun(opts *compareOptions) error {
	bar := newProgress(opts.IO, "policies", len(opts.Scenarios))
	c, err := analysis.ComparePolicies(opts.Ctx, opts.Labels, opts.Scenarios, opts.Run, func(done, _ int) { bar.set(done) })
	bar.finish()
	if err != nil {
		return err
	}
	engine := engines(opts.Run.Use, opts.Scenarios...)
	cite := opts.Cite.WithRun(opts.Run.Seed, opts.Run.Trials, engine)
	r := newCompareReport(c, opts.Scenarios[0], cite)
	files, err := r.files()
	if err != nil {
		return err
	}
	if err := outfile.WriteDir(opts.Dir, files, opts.Force); err != nil {
		return outError(err)
	}
	fmt.Fprintf(opts.IO.Out, "wrote %s: %s, %s, %s, %s\n", opts.Dir, compareFiles.report, compareFiles.svg, compareFiles.png, compareFiles.data)
	for _, p := range r.Pairs {
		fmt.Fprintf(opts.IO.Out, "%s vs %s: %s\n", p.A, p.B, p.Verdict)
	}
	return nil
}

// compareReport is a comparison in real units: what the report, the
// figure and the JSON show.
type compareReport struct {
	Service  serviceJSON          `json:"service"`
	Trials   int                  `json:"trials"`
	Seed     uint64               `json:"seed"`
	Unit     string               `json:"unit"` // of every time below
	Policies []comparedPolicyJSON `json:"policies"`
	Pairs    []comparedPairJSON   `json:"pairs"`

	Provenance render.Provenance `json:"provenance"`

	comparison analysis.ServiceComparison
	perTick    float64 // time units in one tick
}

// serviceJSON is the service every policy ran on.
type serviceJSON struct {
	Clients  int     `json:"clients"`
	Server   string  `json:"server"`
	Capacity int     `json:"capacity_per_tick"`
	Rate     float64 `json:"capacity_per_second"`
	Tick     string  `json:"tick"`
	Rounding string  `json:"rounding"`
	// FirstWindow is the ticks over which first sends spread.
	FirstWindow int `json:"first_window_ticks"`
	Horizon     int `json:"horizon_ticks"`
}

type comparedPolicyJSON struct {
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

type comparedPairJSON struct {
	A          string           `json:"a"`
	B          string           `json:"b"`
	Censored   int              `json:"censored_pairs"`
	Calls      stats.Difference `json:"calls"`
	Completion stats.Difference `json:"completion"`
	Latency    stats.Difference `json:"latency_mean"`
	GaveUp     stats.Difference `json:"gave_up"`
	Verdict    string           `json:"verdict"`
}

// newCompareReport turns a comparison into real units: milliseconds for a
// tick under a second (a whole number of them: times are whole ticks),
// seconds otherwise.
func newCompareReport(c analysis.ServiceComparison, sc model.Scenario, cite render.Provenance) *compareReport {
	unit, perTick := "s", c.Tick.Seconds()
	if c.Tick < time.Second {
		unit, perTick = "ms", perTick*1000
	}
	r := &compareReport{Trials: c.Trials, Seed: c.Seed, Unit: unit, Provenance: cite, comparison: c, perTick: perTick}
	r.Service = serviceJSON{Clients: sc.Clients, Server: sc.Server.String(), Capacity: sc.Capacity, Rate: float64(sc.Capacity) / c.Tick.Seconds(),
		Tick: c.Tick.String(), Rounding: sc.Rounding.String(), FirstWindow: sc.FirstWindow, Horizon: sc.EffectiveHorizon()}
	for _, o := range c.Policies {
		s := o.Summary
		p := comparedPolicyJSON{Label: o.Label, Policy: string(s.Scenario.Policy.Kind), Description: describePolicyOf(s.Scenario, c.Tick),
			Scenario: s.Scenario, Engine: s.Engine, Censored: s.Censored, Calls: s.Calls, GaveUp: s.GaveUp,
			Completion: scaleDistribution(s.Completion, perTick), Latency: scaleDistribution(s.Latency, perTick)}
		at, share := o.CompletionCDF()
		for i := range at {
			p.CompletionCDF = append(p.CompletionCDF, [2]float64{at[i] * perTick, share[i]})
		}
		p.ArrivalRate = arrivalRate(s, c.Tick, perTick)
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
		j := comparedPairJSON{A: pr.A, B: pr.B, Censored: pr.Censored, Calls: pr.Calls, GaveUp: pr.GaveUp,
			Completion: scaleDifference(pr.Completion, perTick), Latency: scaleDifference(pr.Latency, perTick)}
		j.Verdict = pairVerdict(j, unit, func(label, metric string) *stats.Estimate { return means[label+"\x00"+metric] })
		r.Pairs = append(r.Pairs, j)
	}
	return r
}

// arrivalRate is the mean arrivals per second after the first wave, in
// bins of ticks (at most plots' serviceBins), at each bin's middle time.
func arrivalRate(s analysis.Summary, tick time.Duration, perTick float64) [][2]float64 {
	arr := s.Arrivals
	first := s.Scenario.FirstWindow
	const bins = 400
	bin := max(1, (len(arr)-first+bins-1)/bins)
	var out [][2]float64
	for start := first; start < len(arr); start += bin {
		end := min(start+bin, len(arr))
		sum := 0.0
		for _, e := range arr[start:end] {
			sum += e.Mean
		}
		out = append(out, [2]float64{float64(start+end) / 2 * perTick, sum / float64(end-start) / tick.Seconds()})
	}
	return out
}

func scaleEstimate(e stats.Estimate, f float64) stats.Estimate {
	e.Mean, e.SD = e.Mean*f, e.SD*f
	if e.CI95 != nil {
		iv := stats.Interval{e.CI95[0] * f, e.CI95[1] * f}
		e.CI95 = &iv
	}
	return e
}

func scaleDistribution(d *analysis.Distribution, f float64) *analysis.Distribution {
	if d == nil {
		return nil
	}
	out := &analysis.Distribution{Estimate: scaleEstimate(d.Estimate, f), Quantiles: map[string]stats.Quantile{}}
	for k, q := range d.Quantiles {
		out.Quantiles[k] = stats.Quantile{P: q.P, Value: q.Value * f, CI95: stats.Interval{q.CI95[0] * f, q.CI95[1] * f}}
	}
	return out
}

func scaleDifference(d stats.Difference, f float64) stats.Difference {
	d.Estimate = scaleEstimate(d.Estimate, f)
	return d
}

// describePolicyOf says a policy in real time: a textbook policy's delays
// in ticks and what they are at this tick, a preset's library.
func describePolicyOf(sc model.Scenario, tick time.Duration) string {
	p := sc.Policy
	ticks := func(x float64) string {
		unit := "ticks"
		if x == 1 {
			unit = "tick"
		}
		return fmt.Sprintf("%s %s = %s", render.Number(x), unit, time.Duration(x*float64(tick)).Round(time.Microsecond))
	}
	s := string(p.Kind)
	switch {
	case p.Kind.IsPreset():
		if ps, ok := policy.LookupPreset(p.Kind); ok {
			s = ps.Library + " " + ps.Version + " (library preset): " + ps.Formula
		}
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
	of                     func(comparedPairJSON) stats.Difference
}{
	{"calls", "makes fewer calls", "makes more calls", "calls per trial", func(p comparedPairJSON) stats.Difference { return p.Calls }},
	{"completion", "serves every client sooner", "serves every client later", "", func(p comparedPairJSON) stats.Difference { return p.Completion }},
	{"latency", "serves the average client sooner", "serves the average client later", "", func(p comparedPairJSON) stats.Difference { return p.Latency }},
	{"gave up", "has fewer clients give up", "has more clients give up", "clients per trial", func(p comparedPairJSON) stats.Difference { return p.GaveUp }},
}

// pairVerdict says in words how A compares with B on each metric: which
// way a significant difference goes, by how much (with its interval and
// as a share of B's mean), and "not significant" where the interval
// holds 0.
func pairVerdict(p comparedPairJSON, unit string, mean func(label, metric string) *stats.Estimate) string {
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
			parts = append(parts, fmt.Sprintf("%s: not significant (%s %s)", m.name, render.Text.Signed(d.Mean, d.CI95), u))
		default:
			words := m.less
			if d.Mean > 0 {
				words = m.more
			}
			s := fmt.Sprintf("%s %s (%s %s", p.A, words, render.Text.Signed(d.Mean, d.CI95), u)
			if b := mean(p.B, m.name); b != nil && b.Mean != 0 {
				s += fmt.Sprintf(", %+.0f%% of %s's", 100*d.Mean/b.Mean, p.B)
			}
			parts = append(parts, s+")")
		}
	}
	return strings.Join(parts, "; ")
}

// files renders the directory's files.
func (r *compareReport) files() (map[string][]byte, error) {
	var md bytes.Buffer
	if err := r.markdown(&md); err != nil {
		return nil, err
	}
	var js bytes.Buffer
	if err := render.JSON(&js, r); err != nil {
		return nil, err
	}
	d, err := plots.ServiceComparison(r.comparison, r.Unit, r.perTick, r.Service.Capacity, "Cite: "+r.Provenance.Cite)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{compareFiles.report: md.Bytes(), compareFiles.data: js.Bytes()}
	for name, format := range map[string]string{compareFiles.svg: "svg", compareFiles.png: "png"} {
		b, err := d.Render(format)
		if err != nil {
			return nil, err
		}
		files[name] = b
	}
	return files, nil
}

// markdown writes the report.
func (r *compareReport) markdown(w io.Writer) error {
	labels := make([]string, len(r.Policies))
	for i, p := range r.Policies {
		labels[i] = p.Label
	}
	s := r.Service
	fmt.Fprintf(w, "# %s\n\n", strings.Join(labels, " vs "))
	fmt.Fprintf(w, "**The service.** %d clients fail at the same moment and retry; a %s server accepts %s requests/s (%d per tick of %s) and fails the rest",
		s.Clients, s.Server, render.Number(s.Rate), s.Capacity, s.Tick)
	if s.Server == model.Collision.String() {
		fmt.Fprint(w, " (on a tick with more arrivals than it accepts, it serves nobody)")
	}
	fmt.Fprintf(w, "; delays are rounded to ticks (%s)", s.Rounding)
	if s.FirstWindow > 1 {
		fmt.Fprintf(w, "; first sends spread over %d ticks", s.FirstWindow)
	}
	fmt.Fprintf(w, "; a trial still running after %s is censored.\n\n", fmtDuration(float64(s.Horizon)*r.perTick, r.Unit))
	fmt.Fprintln(w, "**The policies.**")
	fmt.Fprintln(w)
	for _, p := range r.Policies {
		fmt.Fprintf(w, "- `%s`: %s\n", p.Label, render.MarkdownCell(p.Description))
	}
	fmt.Fprintf(w, "\n%d trials per policy, seed %d, on common random numbers (trial i of every policy draws from the same random stream). "+
		"Means ± half their 95%% Student-t interval; quantiles with distribution-free 95%% intervals; times in %s.\n\n", r.Trials, r.Seed, r.Unit)

	fmt.Fprintln(w, "## Each policy")
	fmt.Fprintln(w)
	u := r.Unit
	cols := []render.Column{{Name: "policy", Code: true}}
	cols = append(cols, render.EstimateColumns("calls", 0)...)
	cols = append(cols, render.EstimateColumns("completion ("+u+")", 0)...)
	for _, q := range stats.Percentiles {
		cols = append(cols, render.Column{Name: "completion " + q.Name, Right: true})
	}
	cols = append(cols, render.EstimateColumns("latency mean ("+u+")", 0)...)
	for _, q := range stats.Percentiles {
		cols = append(cols, render.Column{Name: "latency " + q.Name, Right: true})
	}
	cols = append(cols, render.EstimateColumns("gave up (clients)", 0)...)
	t := render.NewTable(append(cols, render.Column{Name: "censored trials", Right: true})...)
	for _, p := range r.Policies {
		cells := []string{p.Label}
		cells = append(cells, render.EstimateCells(p.Calls)...)
		cells = append(cells, distCells(p.Completion)...)
		cells = append(cells, distCells(p.Latency)...)
		cells = append(cells, render.EstimateCells(p.GaveUp)...)
		t.Add(append(cells, strconv.Itoa(p.Censored))...)
	}
	t.Markdown(w)

	fmt.Fprintln(w)
	fmt.Fprintln(w, "## Paired differences")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "A − B over the trials where neither was censored, with 95% intervals; ~ marks a difference that is not significant (its interval holds 0).")
	fmt.Fprintln(w)
	pt := render.NewTable(render.Column{Name: "A − B"}, render.Column{Name: "calls", Right: true}, render.Column{Name: "completion (" + u + ")", Right: true},
		render.Column{Name: "latency mean (" + u + ")", Right: true}, render.Column{Name: "gave up (clients)", Right: true}, render.Column{Name: "pairs left out (censored)", Right: true})
	for _, p := range r.Pairs {
		pt.Add(fmt.Sprintf("%s − %s", p.A, p.B), render.Difference(p.Calls), render.Difference(p.Completion), render.Difference(p.Latency), render.Difference(p.GaveUp), strconv.Itoa(p.Censored))
	}
	pt.Markdown(w)
	fmt.Fprintln(w)
	fmt.Fprintln(w, "**Verdicts.**")
	fmt.Fprintln(w)
	for _, p := range r.Pairs {
		fmt.Fprintf(w, "- **%s vs %s**: %s.\n", render.MarkdownCell(p.A), render.MarkdownCell(p.B), render.MarkdownCell(p.Verdict))
	}
	fmt.Fprintf(w, "\n![Arrival rate over time and the distribution of completion, per policy](%s)\n\n", compareFiles.svg)
	fmt.Fprintf(w, "The numbers behind this report and its figure are in `%s`.\n\n", compareFiles.data)
	_, err := fmt.Fprintln(w, r.Provenance.Markdown())
	return err
}

// distCells are a distribution's mean (two cells) and its quantiles.
func distCells(d *analysis.Distribution) []string {
	if d == nil {
		return append([]string{"—", ""}, make([]string, len(stats.Percentiles))...)
	}
	cells := render.EstimateCells(&d.Estimate)
	for _, q := range stats.Percentiles {
		cells = append(cells, render.Quantile(d.Quantiles[q.Name]))
	}
	return cells
}

// fmtDuration is x (in unit) read more easily: seconds, minutes or hours.
func fmtDuration(x float64, unit string) string {
	d := time.Duration(x * float64(map[string]time.Duration{"ms": time.Millisecond, "s": time.Second}[unit]))
	return d.Round(time.Millisecond).String()
}
