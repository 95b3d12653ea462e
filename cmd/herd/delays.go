package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/plots"
	"github.com/herdlab/herd/policy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// delayScenarioFlags are the scenario flags that say what a policy is;
// herd delays hides the others (clients, server, rounding, …), which do not
// change a delay's law.
var delayScenarioFlags = map[string]bool{
	"policy": true, "base": true, "cap": true, "fixed-delay": true,
	"tick": true, "retries": true, "max-elapsed": true, "exponent": true,
}

// delaysOptions are what herd delays' flags said.
type delaysOptions struct {
	IO     *iostreams
	Policy policy.Policy
	Count  int // retries 1…Count
	Cells  int
	// Figure is the file the CDFs are drawn into ("": none), FigureFormat
	// its format (from its extension).
	Figure, FigureFormat string
	Output               output
}

func newCmdDelays(f *factory, runF func(*delaysOptions) error) *cobra.Command {
	opts := &delaysOptions{IO: f.IO}
	var scenario scenarioFlags
	out := outputFlags{markdown: true}
	c := &cobra.Command{
		Use:   "delays",
		Short: "Exact law of each delay, of the total wait until retry n and of the time to give up",
		Long: `delays computes, for one policy or library preset, the exact law of the delay
before each retry n, of the total wait until retry n (the sum of the first n
delays) and, when the policy gives up (a retry limit or --max-elapsed), of the
time from the first send until it gives up if every attempt fails: median,
mean, 10th/90th/99th percentiles and the ends of the support (min and max are
the infimum and supremum), for n = 1 … --count.

The laws are those of the unrounded delays — what a real library waits — with
no tick rounding. Values are in seconds when the policy has a real tick
(every preset; --tick for a textbook policy) and in ticks otherwise.

Nothing is simulated. Each law is computed twice on a lattice of spacing a
power of two, with every delay rounded down and with every delay rounded up;
the two lattice laws are exact (discrete convolutions, or the exact
propagation of the lattice chain of (previous delay, total) for decorrelated,
and the closed form of the total for Polly's V2), and they bound the true
delays draw by draw, so each printed value comes with an interval that
contains the exact one; the header states the largest relative error. The
time to give up under a limit on elapsed time is approximate (rounding a delay
can move the give-up either way) and says so.

--figure FILE draws the CDFs of the total wait until each retry (.svg, .png
or .pdf).`,
		Example: `  herd delays --policy polly-v8-expo-jitter
  herd delays --policy polly-v8-expo-jitter --count 4 --format json
  herd delays --policy decorrelated --base 1 --cap 32 --count 12
  herd delays --policy cenkalti-v4 --format markdown
  herd delays --policy full --base 100 --cap 20000 --tick 1ms --figure waits.svg`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			sc, err := scenario.scenario()
			if err != nil {
				return err
			}
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			opts.Policy = sc.Policy
			if !c.Flags().Changed("count") {
				opts.Count = policy.DefaultDelayCount(sc.Policy)
			}
			if opts.Count < 1 || opts.Count > policy.MaxDelayRetries {
				return usageError{fmt.Errorf("--count must be an integer in [1, %d], got %d", policy.MaxDelayRetries, opts.Count)}
			}
			if opts.Cells < policy.MinDelayCells || opts.Cells > policy.MaxDelayCells {
				return usageError{fmt.Errorf("--cells must be an integer in [%d, %d], got %d", policy.MinDelayCells, policy.MaxDelayCells, opts.Cells)}
			}
			if opts.Figure != "" {
				opts.FigureFormat = strings.TrimPrefix(strings.ToLower(filepath.Ext(opts.Figure)), ".")
				if !validFigureFormat(opts.FigureFormat) {
					return usageError{fmt.Errorf("--figure must name a .svg, .png or .pdf file, got %q", opts.Figure)}
				}
			}
			if runF != nil {
				return runF(opts)
			}
			return delaysRun(opts)
		},
	}
	scenario.register(c)
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !delayScenarioFlags[f.Name] {
			_ = c.Flags().MarkHidden(f.Name)
		}
	})
	c.Flags().IntVar(&opts.Count, "count", 0, fmt.Sprintf("retries to analyse, 1…%d (default: the retry limit, or 10 without one); retries past the limit are marked", policy.MaxDelayRetries))
	c.Flags().IntVar(&opts.Cells, "cells", policy.DefaultDelayCells, "lattice cells across each law (2^10…2^24): more gives tighter bounds, proportionally slower")
	c.Flags().StringVar(&opts.Figure, "figure", "", "also draw the CDFs of the total waits into this file (.svg, .png or .pdf)")
	out.register(c)
	return c
}

// delaysResult is the JSON document of herd delays.
type delaysResult struct {
	Policy     string            `json:"policy"`
	Scenario   delayPolicyJSON   `json:"parameters"`
	Unit       string            `json:"unit"`
	Rounding   string            `json:"rounding"`
	Method     string            `json:"method"`
	RelErr     float64           `json:"max_relative_error"`
	Rows       []policy.DelayRow `json:"retries"`
	GiveUp     *policy.GiveUp    `json:"give_up,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
	Provenance render.Provenance `json:"provenance"`
}

type delayPolicyJSON struct {
	Base       float64 `json:"base,omitempty"`
	Cap        float64 `json:"cap,omitempty"`
	FixedDelay float64 `json:"fixed_delay,omitempty"`
	Tick       string  `json:"tick,omitempty"`
	Retries    int     `json:"retries,omitempty"`
	MaxElapsed string  `json:"max_elapsed,omitempty"`
	Exponent   float64 `json:"exponent,omitempty"`
}

const noRounding = "none: the unrounded delays a library waits (no tick rounding)"

func delaysRun(opts *delaysOptions) error {
	a, err := policy.Delays(opts.Policy, opts.Count, policy.DelayOptions{Cells: opts.Cells})
	if err != nil {
		return err
	}
	if opts.Figure != "" {
		d, err := plots.WaitFigure(a)
		if err != nil {
			return err
		}
		b, err := d.Render(opts.FigureFormat)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(opts.Figure, b); err != nil {
			return err
		}
	}
	opts.Output.warn(opts.IO, a.Notes)
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		switch opts.Output.Format {
		case "json":
			res := delaysJSON(a)
			res.Provenance = opts.Output.Cite
			return render.JSON(w, res)
		case "csv":
			return delaysCSV(w, a)
		case "markdown":
			return delaysMarkdown(w, a)
		}
		return delaysTable(w, a)
	})
}

func validFigureFormat(f string) bool {
	for _, v := range plots.Formats {
		if f == v {
			return true
		}
	}
	return false
}

func delaysJSON(a policy.DelayAnalysis) delaysResult {
	p := a.Policy
	j := delayPolicyJSON{Retries: p.Retries}
	if !p.Kind.IsPreset() {
		switch p.Kind {
		case policy.Fixed:
			j.FixedDelay = p.FixedDelay
		case policy.Expo, policy.Full, policy.Equal, policy.Decorrelated, policy.LogLog, policy.Sawtooth, policy.Window:
			j.Base, j.Cap = p.Base, p.Cap
		case policy.Poly:
			j.Base, j.Cap, j.Exponent = p.Base, p.Cap, p.Exponent
			if j.Exponent == 0 {
				j.Exponent = policy.DefaultExponent
			}
		}
	}
	if t := p.TickLength(); t > 0 {
		j.Tick = t.String()
	}
	if p.MaxElapsed > 0 {
		j.MaxElapsed = p.MaxElapsed.String()
	}
	return delaysResult{Policy: string(p.Kind), Scenario: j, Unit: a.Unit, Rounding: noRounding, Method: a.Method,
		RelErr: a.RelErr(), Rows: a.Rows, GiveUp: a.GiveUp, Notes: a.Notes}
}

// describePolicy says the policy and its limits in one line.
func describePolicy(a policy.DelayAnalysis) string {
	p := a.Policy
	s := p.Describe()
	unit := "ticks"
	if a.Unit == "s" {
		unit = "seconds"
		if t := p.TickLength(); !p.Kind.IsPreset() {
			unit += fmt.Sprintf(" (tick %s)", t)
		}
	}
	return s + "; values in " + unit
}

// num prints a value to the precision its bound supports (at least 4 and
// at most 6 significant digits).
func num(b policy.Bound) string {
	digits := 6
	if e := b.RelErr(); e > 0 {
		digits = max(4, min(6, int(-math.Log10(e))))
	}
	return strconv.FormatFloat(b.Value, 'g', digits, 64)
}

type delayColumn struct {
	name string
	get  func(policy.Summary) policy.Bound
}

var delayColumns = []delayColumn{
	{"median", func(s policy.Summary) policy.Bound { return s.Median }},
	{"mean", func(s policy.Summary) policy.Bound { return s.Mean }},
	{"p10", func(s policy.Summary) policy.Bound { return s.P10 }},
	{"p90", func(s policy.Summary) policy.Bound { return s.P90 }},
	{"p99", func(s policy.Summary) policy.Bound { return s.P99 }},
	{"min", func(s policy.Summary) policy.Bound { return s.Min }},
	{"max", func(s policy.Summary) policy.Bound { return s.Max }},
}

func delaysTable(w io.Writer, a policy.DelayAnalysis) error {
	fmt.Fprintln(w, describePolicy(a))
	fmt.Fprintln(w, "Exact laws of the unrounded delays (what the library waits; no tick rounding); nothing simulated.")
	fmt.Fprintf(w, "Every median, mean and quantile is within %.2g relative of the exact value (proven bounds); min and max are exact.\n", a.RelErr())
	section := func(title string, get func(policy.DelayRow) policy.Summary) {
		fmt.Fprintf(w, "\n%s\n", title)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprint(tw, "n\t")
		for _, col := range delayColumns {
			fmt.Fprintf(tw, "%s\t", col.name)
		}
		fmt.Fprintln(tw)
		for _, r := range a.Rows {
			n := strconv.Itoa(r.N)
			if r.BeyondLimit {
				n += "*"
			}
			fmt.Fprintf(tw, "%s\t", n)
			for _, col := range delayColumns {
				fmt.Fprintf(tw, "%s\t", num(col.get(get(r))))
			}
			fmt.Fprintln(tw)
		}
		tw.Flush()
	}
	section("delay before retry n", func(r policy.DelayRow) policy.Summary { return r.Delay })
	section("total wait until retry n (the sum of the first n delays)", func(r policy.DelayRow) policy.Summary { return r.Wait })
	for _, r := range a.Rows {
		if r.BeyondLimit {
			fmt.Fprintf(w, "\n* past the retry limit (%d): the client gives up before this retry.\n", a.Policy.Retries)
			break
		}
	}
	if g := a.GiveUp; g != nil {
		fmt.Fprintf(w, "\ntime to give up when every attempt fails (%s", g.Method)
		if !g.Proven {
			fmt.Fprint(w, "; approximate")
		}
		fmt.Fprintln(w, "):")
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		for _, col := range delayColumns {
			fmt.Fprintf(tw, "%s\t", col.name)
		}
		fmt.Fprintln(tw)
		for _, col := range delayColumns {
			fmt.Fprintf(tw, "%s\t", num(col.get(g.Summary)))
		}
		fmt.Fprintln(tw)
		tw.Flush()
		if g.Unresolved > 0 {
			fmt.Fprintf(w, "probability %.2g not resolved (the computation stopped at retry %d)\n", g.Unresolved, policy.MaxDelayRetries)
		}
	}
	for _, n := range a.Notes {
		fmt.Fprintln(w, "\nnote: "+n)
	}
	fmt.Fprintf(w, "\nmethod: %s.\n", a.Method)
	return nil
}

func delaysMarkdown(w io.Writer, a policy.DelayAnalysis) error {
	fmt.Fprintf(w, "**%s.** Exact laws of the unrounded delays (no tick rounding); every median, mean and quantile within %.2g relative (proven bounds).\n\n", render.MarkdownCell(describePolicy(a)), a.RelErr())
	fmt.Fprint(w, "| n |")
	for _, col := range delayColumns {
		fmt.Fprintf(w, " delay %s |", col.name)
	}
	for _, col := range delayColumns {
		fmt.Fprintf(w, " total %s |", col.name)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "|---:|"+strings.Repeat("---:|", 2*len(delayColumns)))
	for _, r := range a.Rows {
		n := strconv.Itoa(r.N)
		if r.BeyondLimit {
			n += "\\*"
		}
		fmt.Fprintf(w, "| %s |", n)
		for _, s := range []policy.Summary{r.Delay, r.Wait} {
			for _, col := range delayColumns {
				fmt.Fprintf(w, " %s |", num(col.get(s)))
			}
		}
		fmt.Fprintln(w)
	}
	if g := a.GiveUp; g != nil {
		fmt.Fprintf(w, "\nTime to give up when every attempt fails (%s): median %s, mean %s, p99 %s, max %s.\n",
			render.MarkdownCell(g.Method), num(g.Median), num(g.Mean), num(g.P99), num(g.Max))
	}
	for _, n := range a.Notes {
		fmt.Fprintln(w, "\nNote: "+render.MarkdownCell(n))
	}
	return nil
}

// delaysCSV writes one row per quantity and retry with every statistic's
// value and bound.
func delaysCSV(w io.Writer, a policy.DelayAnalysis) error {
	cw := csv.NewWriter(w)
	head := []string{"quantity", "n", "unit"}
	for _, col := range delayColumns {
		head = append(head, col.name, col.name+"_lo", col.name+"_hi")
	}
	cw.Write(head)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	row := func(quantity, n string, s policy.Summary) {
		r := []string{quantity, n, a.Unit}
		for _, col := range delayColumns {
			b := col.get(s)
			r = append(r, f(b.Value), f(b.Lo), f(b.Hi))
		}
		cw.Write(r)
	}
	for _, r := range a.Rows {
		row("delay", strconv.Itoa(r.N), r.Delay)
	}
	for _, r := range a.Rows {
		row("wait", strconv.Itoa(r.N), r.Wait)
	}
	if a.GiveUp != nil {
		row("give-up", "", a.GiveUp.Summary)
	}
	cw.Flush()
	return cw.Error()
}
