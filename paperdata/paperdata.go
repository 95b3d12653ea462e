package paperdata

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/montecarlo"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/reproduce"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
	"github.com/herdlab/herd/study"
)

// Config says how much Monte Carlo the paper's numbers get and how.
type Config struct {
	// Scale multiplies every section's trial count: 1 for the paper,
	// less for tests. A count never drops below 30.
	Scale   float64
	Seed    uint64
	Workers int
	// Progress, when set, is called after each section (done of total).
	Progress func(done, total int)
}

// Default is the configuration of `make paper-data`: full budgets, seed 1.
func Default() Config { return Config{Scale: 1, Seed: 1} }

// full reports whether the budgets are the paper's own; the statements the
// text makes about results are checked only then (a draft's few trials
// cannot support them).
func (c Config) full() bool { return c.Scale == 1 }

func (c Config) options(trials int) montecarlo.Options {
	return montecarlo.Options{Trials: max(30, int(math.Round(float64(trials)*c.Scale))), Seed: c.Seed, Workers: c.Workers}
}

// section computes the numbers and tables of one part of the paper.
type section struct {
	name string
	run  func(ctx context.Context, cfg Config, d *doc) error
}

// sections are run in this order; each is independent of the others.
var sections = []section{
	{"seed", seedSection},
	{"closed", closedSection},
	{"validate", validateSection},
	{"load", loadSection},
	{"tails", tailsSection},
	{"sensitivity", sensitivitySection},
	{"audit", auditSection},
	{"claims", claimsSection},
	{"time", timeModelSection},
}

// Generate computes every section and returns the files of
// paper/generated, sorted by name.
func Generate(ctx context.Context, cfg Config) ([]File, error) {
	if !(cfg.Scale > 0 && cfg.Scale <= 1) {
		return nil, fmt.Errorf("scale must be in (0, 1], got %g", cfg.Scale)
	}
	d := newDoc()
	for i, s := range sections {
		if err := s.run(ctx, cfg, d); err != nil {
			return nil, fmt.Errorf("%s: %w", s.name, err)
		}
		if cfg.Progress != nil {
			cfg.Progress(i+1, len(sections))
		}
	}
	return d.files(), nil
}

// equivalenceMultiple is the seed table's equivalence margin in standard
// errors of the article's mean: the one that two one-sided tests at 5%
// confirm with 95% probability when herd is exactly right.
var equivalenceMultiple = stats.PowerMultiple(stats.EquivalenceAlpha, 0.95)

// seedSection reruns the seed article's table (section 5.2) with 10,000
// trials per row, as `herd reproduce seed` does.
func seedSection(ctx context.Context, cfg Config, d *doc) error {
	opt := cfg.options(10_000)
	rows, err := reproduce.ReproduceSeed(ctx, opt, nil)
	if err != nil {
		return err
	}
	d.set("seed.trials", num(float64(opt.Trials), 0))
	agree, total := 0, 0
	maxZ := 0.0
	// The z test above can only fail to find a difference; two one-sided
	// tests show equivalence within a margin of the article's standard
	// errors, the smallest that 30 trials confirm 95% of the time.
	equivalent, maxMargin := 0, 0.0
	byKey := map[string]reproduce.SeedComparison{}
	var body [][]string
	lastN := 0
	for _, r := range rows {
		if r.Censored > 0 {
			return fmt.Errorf("N = %d, %s: %d censored trials", r.Clients, r.Policy, r.Censored)
		}
		byKey[fmt.Sprint(r.Policy, r.Clients)] = r
		for _, c := range []reproduce.Compared{r.Calls, r.Completion} {
			total++
			if c.Agrees {
				agree++
			}
			if !exact(c.Estimate) {
				maxZ = math.Max(maxZ, math.Abs(c.Z))
			}
			eq := stats.Equivalent(c.Estimate, c.Published, equivalenceMultiple)
			if eq.Equivalent {
				equivalent++
			}
			if eq.Margin > 0 {
				maxMargin = math.Max(maxMargin, 100*eq.Margin/math.Abs(c.Published.Mean))
			}
		}
		if lastN != 0 && r.Clients != lastN {
			body = append(body, nil)
		}
		lastN = r.Clients
		mark := func(c reproduce.Compared) string {
			if c.Agrees {
				return `\checkmark`
			}
			return `$\times$`
		}
		body = append(body, []string{
			num(float64(r.Clients), 0), `\texttt{` + r.Policy + `}`,
			num(r.Calls.Published.Mean, 1) + ` $\pm$ ` + num(r.Calls.Published.SD, 1),
			est(r.Calls.Estimate, 1), mark(r.Calls),
			num(r.Completion.Published.Mean, 2) + ` $\pm$ ` + num(r.Completion.Published.SD, 2),
			est(r.Completion.Estimate, 2), mark(r.Completion),
		})
	}
	d.table("seed-table", tabular("rl rrc rrc",
		[]string{`$N$`, "policy", `calls (article)`, `calls (herd, 95\% CI)`, "", `completion (article)`, `completion (herd, 95\% CI)`, ""}, body))
	d.set("seed.numbers", num(float64(total), 0))
	d.set("seed.agree", num(float64(agree), 0))
	d.set("seed.maxz", num(maxZ, 2))
	d.set("seed.tost.equivalent", num(float64(equivalent), 0))
	d.set("seed.tost.multiple", num(equivalenceMultiple, 2))
	d.set("seed.tost.maxmargin", num(maxMargin, 1))

	get := func(kind policy.Kind, n int) reproduce.SeedComparison { return byKey[fmt.Sprint(kind, n)] }
	minSaving, maxSaving := math.Inf(1), math.Inf(-1)
	var fastest []fastestAt
	for _, n := range []int{50, 100, 200} {
		fixed := get(policy.Fixed, n)
		expo := get(policy.Expo, n)
		d.set(fmt.Sprintf("seed.fixed.completion.%d", n), num(fixed.Completion.Mean, 0))
		d.set(fmt.Sprintf("seed.expo.completion.%d", n), num(expo.Completion.Mean, 0))
		d.set(fmt.Sprintf("seed.calls.%d", n), num(fixed.Calls.Mean, 0))
		d.set(fmt.Sprintf("seed.expo.slowdown.%d", n), num(expo.Completion.Mean/fixed.Completion.Mean, 1))
		// The saving of each jittered policy against fixed (exact), with the
		// interval carried over from the calls' interval.
		best, bestKind := math.Inf(1), policy.Kind("")
		for _, k := range study.Jittered {
			c := get(k, n).Calls
			base := fixed.Calls.Mean
			saving := 100 * (1 - c.Mean/base)
			d.set(fmt.Sprintf("seed.saving.%s.%d", k, n), num(saving, 1))
			minSaving, maxSaving = math.Min(minSaving, saving), math.Max(maxSaving, saving)
			if m := get(k, n).Completion.Mean; m < best {
				best, bestKind = m, k
			}
		}
		d.set(fmt.Sprintf("seed.fastest.%d", n), string(bestKind))
		fastest = append(fastest, fastestAt{n, bestKind})
	}
	d.set("seed.fastest", fastestProse(fastest))
	d.set("seed.saving.min", num(minSaving, 1))
	d.set("seed.saving.max", num(maxSaving, 1))
	// The text says finding (4) fails because at N = 50 decorrelated is the
	// slowest jittered policy with an interval clear of the others'.
	dec := get(policy.Decorrelated, 50).Completion
	for _, k := range []policy.Kind{policy.Full, policy.Equal} {
		if c := get(k, 50).Completion; cfg.full() && !(c.CI95[1] < dec.CI95[0]) {
			return stale("decorrelated is no longer clearly the slowest jittered policy at N = 50 (vs %s)", k)
		}
	}
	return nil
}

// fastestAt is the fastest jittered policy at one N of the seed article.
type fastestAt struct {
	clients int
	kind    policy.Kind
}

// fastestProse says which policy is fastest where, naming each policy once
// for its run of consecutive settings ("\pol{equal} at $N=50$ and
// \pol{decorrelated} at $N=100$ and 200"), so the sentence never repeats
// itself whatever the results.
func fastestProse(at []fastestAt) string {
	var parts []string
	for i := 0; i < len(at); {
		j := i + 1
		for j < len(at) && at[j].kind == at[i].kind {
			j++
		}
		var ns []string
		for _, a := range at[i:j] {
			ns = append(ns, strconv.Itoa(a.clients))
		}
		ns[0] = "$N=" + ns[0] + "$"
		parts = append(parts, fmt.Sprintf(`\pol{%s} at %s`, at[i].kind, andList(ns)))
		i = j
	}
	return andList(parts)
}

// andList joins items as prose: "a", "a and b", "a, b and c".
func andList(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// stale reports that a statement the paper's text makes about a result no
// longer holds: the text, not just the number, must be revised.
func stale(format string, a ...any) error {
	return fmt.Errorf("paper/herd.tex is stale: "+format, a...)
}

// closedSection checks the closed form of the synchronized cohort (none,
// fixed, expo) against Monte Carlo over the load sweep of the figures: the
// scenarios are deterministic, so every trial must give exactly the closed
// form's calls and completion.
func closedSection(ctx context.Context, cfg Config, d *doc) error {
	opt := cfg.options(30)
	st := study.LoadStudy()
	checked, match := 0, 0
	for _, k := range st.Capacities {
		for _, load := range st.Loads {
			for _, kind := range study.Certain {
				sc := st.Scenario(k, load, kind)
				c, err := solve.ClosedForm(sc)
				if err != nil {
					return err
				}
				s, err := analysis.Simulate(ctx, sc, opt)
				if err != nil {
					return err
				}
				checked++
				if s.Censored == 0 && s.Calls.SD == 0 && s.Calls.Mean == float64(c.Calls) &&
					s.Completion.SD == 0 && s.Completion.Mean == float64(c.Completion) {
					match++
				}
			}
		}
	}
	if match != checked {
		return stale("the closed form and Monte Carlo differ in %d of %d scenarios", checked-match, checked)
	}
	d.set("closed.checked", num(float64(checked), 0))
	d.set("closed.match", num(float64(match), 0))
	d.set("closed.trials", num(float64(opt.Trials), 0))
	// The worked example of the text: N = 200, k = 10.
	sc := reproduce.SeedScenario(200, policy.Expo)
	c, err := solve.ClosedForm(sc)
	if err != nil {
		return err
	}
	d.set("closed.example.rounds", num(float64(c.Rounds), 0))
	d.set("closed.example.calls", num(float64(c.Calls), 0))
	d.set("closed.example.completion", num(float64(c.Completion), 0))
	return nil
}

// loadSection tabulates calls per client and completion against N/k for the
// jittered policies beside the synchronized cohort's (N/k + 1)/2, checks
// that k = 10 and k = 100 give the same curve, and fits the growth
// exponent of calls per client at high load.
func loadSection(ctx context.Context, cfg Config, d *doc) error {
	// The figures' load sweep, for the jittered policies at k = 10 and 100.
	st := study.LoadStudy()
	st.Capacities, st.Kinds = []int{10, 100}, study.Jittered
	opt := cfg.options(st.Trials)
	d.set("load.trials", num(float64(opt.Trials), 0))
	sweep, err := st.Run(ctx, opt, nil)
	if err != nil {
		return err
	}
	// at[k][kind][j]
	at := map[int]map[policy.Kind][]analysis.Summary{}
	for i, k := range st.Capacities {
		at[k] = sweep[i]
		for _, kind := range st.Kinds {
			for _, s := range sweep[i][kind] {
				if s.Censored > 0 || s.Calls == nil {
					return fmt.Errorf("%s, N = %d, k = %d: %d censored trials", kind, s.Scenario.Clients, k, s.Censored)
				}
			}
		}
	}
	perClient := func(s analysis.Summary) stats.Estimate { return s.Calls.Scale(1 / float64(s.Scenario.Clients)) }
	var body [][]string
	maxRel := 0.0
	for j, load := range st.Loads {
		sync := (float64(load) + 1) / 2
		row := []string{num(float64(load), 0), num(sync, 1)}
		for _, kind := range st.Kinds {
			row = append(row, est(perClient(at[10][kind][j]), 2))
		}
		for _, kind := range st.Kinds {
			row = append(row, est(at[10][kind][j].Completion.Estimate, 1))
		}
		body = append(body, row)
		for _, kind := range st.Kinds {
			a, b := perClient(at[10][kind][j]).Mean, perClient(at[100][kind][j]).Mean
			maxRel = math.Max(maxRel, math.Abs(a-b)/b)
		}
	}
	d.table("load-table", tabular("r r rrr rrr",
		[]string{`$N/k$`, `sync.`, `\texttt{full}`, `\texttt{equal}`, `\texttt{decorr.}`, `\texttt{full}`, `\texttt{equal}`, `\texttt{decorr.}`}, body))
	d.set("load.collapse.maxrel", num(100*maxRel, 1))

	// Savings against the synchronized cohort at the highest load, and the
	// growth exponent of calls per client between the two highest loads
	// (a conservative interval from the ends of the two means' intervals).
	last := len(st.Loads) - 1
	hi, lo := st.Loads[last], st.Loads[last-1]
	d.set("load.top", num(float64(hi), 0))
	d.set("load.top.sync", num((float64(hi)+1)/2, 1))
	for _, kind := range st.Kinds {
		a, b := perClient(at[10][kind][last-1]), perClient(at[10][kind][last])
		d.set(fmt.Sprintf("load.top.%s", kind), num(b.Mean, 2))
		d.set(fmt.Sprintf("load.top.saving.%s", kind), num(100*(1-b.Mean/((float64(hi)+1)/2)), 1))
		den := math.Log(float64(hi) / float64(lo))
		slope := math.Log(b.Mean/a.Mean) / den
		d.set(fmt.Sprintf("load.slope.%s", kind), num(slope, 2))
		d.set(fmt.Sprintf("load.slope.%s.ci", kind), interval(math.Log(b.CI95[0]/a.CI95[1])/den, math.Log(b.CI95[1]/a.CI95[0])/den, 2))
	}
	d.set("load.slope.from", num(float64(lo), 0))
	return nil
}

// tailCheckpoints are the rows of the tails table: the tail-convergence
// study's seed cohort (N = 100, k = 10, full jitter) after n trials.
var tailCheckpoints = []int{30, 100, 300, 1000, 3000, 10_000}

func tailsSection(ctx context.Context, cfg Config, d *doc) error {
	st := study.TailStudy()
	sc := st.Seed
	opt := cfg.options(tailCheckpoints[len(tailCheckpoints)-1])
	var at []int
	for _, n := range tailCheckpoints {
		if n <= opt.Trials {
			at = append(at, n)
		}
	}
	ps := st.Levels
	conv, err := st.Run(ctx, sc, opt, at)
	if err != nil {
		return err
	}
	if conv.Censored > 0 {
		return fmt.Errorf("%d censored trials", conv.Censored)
	}
	var body [][]string
	for i, n := range at {
		row := []string{num(float64(n), 0)}
		for _, path := range conv.Paths {
			row = append(row, quantile(path.At[i]))
		}
		body = append(body, row)
	}
	d.table("tails-table", tabular("r rrr", []string{"trials $n$", `$p_{50}$`, `$p_{95}$`, `$p_{99}$`}, body))
	// The fewest trials that bound each quantile on both sides: a property
	// of the order-statistic interval alone, not of the scenario.
	for i, p := range ps {
		n := 1
		for ; ; n++ {
			l, u := stats.OrderStatisticRanks(n, p)
			if l >= 1 && u <= n {
				break
			}
		}
		d.set(fmt.Sprintf("tails.minn.p%d", int(math.Round(100*p))), num(float64(n), 0))
		// The width of the interval at the largest checkpoint and the first
		// checkpoint where it is at most one tick.
		path := conv.Paths[i]
		last := path.At[len(path.At)-1]
		d.set(fmt.Sprintf("tails.width.p%d", int(math.Round(100*p))), num(last.CI95[1]-last.CI95[0], 0))
		first := "more than " + num(float64(at[len(at)-1]), 0)
		for j, q := range path.At {
			if q.CI95[1]-q.CI95[0] <= 1 {
				first = num(float64(at[j]), 0)
				break
			}
		}
		d.set(fmt.Sprintf("tails.onetick.p%d", int(math.Round(100*p))), first)
	}
	d.set("tails.trials", num(float64(at[len(at)-1]), 0))
	return nil
}

func sensitivitySection(ctx context.Context, cfg Config, d *doc) error {
	// The grid of the sensitivity-base-cap figure, restricted to three caps.
	st := study.SensitivityStudy()
	st.Caps = []float64{8, 32, 1024}
	opt := cfg.options(st.Trials)
	d.set("sens.trials", num(float64(opt.Trials), 0))
	grid, diff, err := st.RunPaired(ctx, opt, nil)
	if err != nil {
		return err
	}
	var body [][]string
	maxCallsHW, maxCompHW := 0.0, 0.0
	callsAt := map[string]float64{} // kind/base at cap 32
	for ki, kind := range st.Kinds {
		if ki > 0 {
			body = append(body, nil)
		}
		for b, base := range st.Bases {
			sums := grid[kind][b]
			row := []string{`\texttt{` + string(kind) + `}`, num(base, 2)}
			for _, s := range sums {
				if s.Censored > 0 {
					return fmt.Errorf("%s base %g: %d censored", kind, base, s.Censored)
				}
				row = append(row, num(s.Calls.Mean, 1))
				if s.Scenario.Policy.Cap == 32 {
					callsAt[fmt.Sprint(kind, "/", base)] = s.Calls.Mean
				}
				maxCallsHW = math.Max(maxCallsHW, (s.Calls.CI95[1]-s.Calls.CI95[0])/2)
			}
			for _, s := range sums {
				row = append(row, num(s.Completion.Mean, 1))
				maxCompHW = math.Max(maxCompHW, (s.Completion.CI95[1]-s.Completion.CI95[0])/2)
			}
			body = append(body, row)
		}
	}
	head := []string{"policy", "base"}
	for _, c := range st.Caps {
		head = append(head, fmt.Sprintf("cap %s", num(c, 0)))
	}
	for _, c := range st.Caps {
		head = append(head, fmt.Sprintf("cap %s", num(c, 0)))
	}
	d.table("sensitivity-table", tabular("lr rrr rrr", head, body))
	for _, kind := range st.Kinds {
		d.set(fmt.Sprintf("sens.cut.%s", kind), num(100*(1-callsAt[fmt.Sprint(kind, "/", 4.0)]/callsAt[fmt.Sprint(kind, "/", 1.0)]), 0))
	}
	d.set("sens.hw.calls", num(maxCallsHW, 1))
	d.set("sens.hw.completion", num(maxCompHW, 1))

	// Which of full and decorrelated costs fewer calls depends on base:
	// paired differences with common random numbers at cap 32.
	for _, base := range []float64{0.25, 1, 4} {
		c := diff[slices.Index(st.Bases, base)][slices.Index(st.Caps, 32)]
		key := fmt.Sprintf("sens.diff.%s", baseKey(base))
		d.set(key, est(c.Calls.Estimate, 1))
		sig := "no"
		if c.Calls.Significant {
			sig = "yes"
		}
		d.set(key+".significant", sig)
		// The text says the sign flips between base 0.25 and base 1.
		flipped := (base == 0.25 && !(c.Calls.Significant && c.Calls.Mean < 0)) ||
			(base == 1 && !(c.Calls.Significant && c.Calls.Mean > 0))
		if cfg.full() && flipped {
			return stale("full − decorrelated calls at base %g is no longer significantly %s", base, map[bool]string{true: "negative", false: "positive"}[base == 0.25])
		}
	}
	return nil
}

// baseKey names a base in a key: 0.25 → b025, 4 → b4.
func baseKey(b float64) string {
	s := fmt.Sprintf("%g", b)
	out := "b"
	for _, r := range s {
		if r != '.' {
			out += string(r)
		}
	}
	return out
}

func auditSection(ctx context.Context, cfg Config, d *doc) error {
	// The audit of library defaults at 1 s and at 100 ms ticks.
	st := study.AuditStudy()
	opt := cfg.options(st.Trials)
	audits := make([]study.Audit, len(st.Ticks))
	for i, tick := range st.Ticks {
		a, err := st.Run(ctx, tick, opt, nil)
		if err != nil {
			return err
		}
		audits[i] = a
	}
	d.set("audit.trials", num(float64(opt.Trials), 0))
	d.set("audit.clients", num(float64(st.Clients), 0))
	d.set("audit.capacity", num(float64(st.Capacity), 0))
	presets := 0
	for _, r := range audits[0].Rows {
		if r.Preset {
			presets++
		}
	}
	d.set("audit.presets", num(float64(presets), 0))
	d.set("audit.sync.1s", num(float64(len(audits[0].Synchronized())), 0))
	d.set("audit.sync.100ms", num(float64(len(audits[1].Synchronized())), 0))
	gaveUp := 0
	for _, r := range audits[0].Rows {
		if r.Preset && r.GaveUp != nil && r.GaveUp.Mean > 0 {
			gaveUp++
		}
	}
	d.set("audit.gaveup.1s", num(float64(gaveUp), 0))

	fine := map[string]study.AuditRow{}
	for _, r := range audits[1].Rows {
		fine[r.Policy] = r
	}
	yes := func(b bool) string {
		if b {
			return `\textbf{yes}`
		}
		return "no"
	}
	var body [][]string
	for _, r := range audits[0].Rows {
		if r.Calls == nil {
			return fmt.Errorf("%s: every trial censored", r.Policy)
		}
		f, ok := fine[r.Policy]
		if !ok {
			return errors.New("the two audits list different policies")
		}
		name := `\texttt{` + escape(r.Policy) + `}`
		body = append(body, []string{
			num(float64(r.Rank), 0), name,
			num(r.GaveUp.Mean/float64(st.Clients)*100, 1),
			est(*r.Calls, 0), est(*r.Completion, 1), yes(r.Synchronized), yes(f.Synchronized),
		})
	}
	d.table("audit-table", tabular("rl rrr cc",
		[]string{"\\#", "policy", `gave up (\%)`, "calls", `completion (s)`, `sync.\ 1\,s`, `sync.\ 100\,ms`}, body))
	return nil
}

// Sections is the number of sections Generate runs (for progress bars).
func Sections() int { return len(sections) }
