package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/policy"
)

// DelayLaws is herd delays' result, its JSON document: the exact laws of a
// policy's delays, of the waits and of the time to give up.
type DelayLaws struct {
	Policy     string            `json:"policy"`
	Scenario   delayPolicyJSON   `json:"parameters"`
	Unit       string            `json:"unit"`
	Rounding   string            `json:"rounding"`
	Method     string            `json:"method"`
	RelErr     float64           `json:"max_relative_error"`
	Rows       []policy.DelayRow `json:"retries"`
	GiveUp     *policy.GiveUp    `json:"give_up,omitempty"`
	Notes      []string          `json:"notes,omitempty"`
	Provenance Provenance        `json:"provenance"`

	laws policy.DelayAnalysis // what the table, markdown and CSV show
}

// delayPolicyJSON is the policy's parameters in the JSON document.
type delayPolicyJSON struct {
	Base       float64 `json:"base,omitempty"`
	Cap        float64 `json:"cap,omitempty"`
	FixedDelay float64 `json:"fixed_delay,omitempty"`
	Tick       string  `json:"tick,omitempty"`
	Retries    int     `json:"retries,omitempty"`
	MaxElapsed string  `json:"max_elapsed,omitempty"`
	Exponent   float64 `json:"exponent,omitempty"`
	// Config is a configured policy's parameters (--config).
	Config *policy.Config `json:"config,omitempty"`
}

const noRounding = "none: the unrounded delays a library waits (no tick rounding)"

// NewDelayLaws is the result of the laws a, cited by cite.
func NewDelayLaws(a policy.DelayAnalysis, cite Provenance) DelayLaws {
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
	if p.Kind.IsConfigured() {
		j.Config = &p.Config
	}
	if t := p.TickLength(); t > 0 {
		j.Tick = t.String()
	}
	if p.MaxElapsed > 0 {
		j.MaxElapsed = p.MaxElapsed.String()
	}
	return DelayLaws{Policy: string(p.Kind), Scenario: j, Unit: a.Unit, Rounding: noRounding, Method: a.Method,
		RelErr: a.RelErr(), Rows: a.Rows, GiveUp: a.GiveUp, Notes: a.Notes, Provenance: cite, laws: a}
}

// describePolicy says the policy and its limits in one line.
func describePolicy(a policy.DelayAnalysis) string {
	p := a.Policy
	s := p.Describe()
	unit := "ticks"
	if a.Unit == "s" {
		unit = "seconds"
		if t := p.TickLength(); !p.Kind.IsPreset() && !p.Kind.IsConfigured() {
			unit += fmt.Sprintf(" (tick %s)", t)
		}
	}
	return s + "; values in " + unit
}

// boundText prints a value to the precision its bound supports (at least 4 and
// at most 6 significant digits).
func boundText(b policy.Bound) string {
	digits := 6
	if e := b.RelErr(); e > 0 {
		digits = max(4, min(6, int(-math.Log10(e))))
	}
	return strconv.FormatFloat(b.Value, 'g', digits, 64)
}

// delayColumn is one statistic of a law, a column of the tables.
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

// Table writes the laws for a terminal; its columns are aligned, not
// fitted to width.
func (r DelayLaws) Table(w io.Writer, _ int) error {
	a := r.laws
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
				fmt.Fprintf(tw, "%s\t", boundText(col.get(get(r))))
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
			fmt.Fprintf(tw, "%s\t", boundText(col.get(g.Summary)))
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

// Markdown writes the laws as markdown.
func (r DelayLaws) Markdown(w io.Writer) error {
	a := r.laws
	fmt.Fprintf(w, "**%s.** Exact laws of the unrounded delays (no tick rounding); every median, mean and quantile within %.2g relative (proven bounds).\n\n", MarkdownCell(describePolicy(a)), a.RelErr())
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
				fmt.Fprintf(w, " %s |", boundText(col.get(s)))
			}
		}
		fmt.Fprintln(w)
	}
	if g := a.GiveUp; g != nil {
		fmt.Fprintf(w, "\nTime to give up when every attempt fails (%s): median %s, mean %s, p99 %s, max %s.\n",
			MarkdownCell(g.Method), boundText(g.Median), boundText(g.Mean), boundText(g.P99), boundText(g.Max))
	}
	for _, n := range a.Notes {
		fmt.Fprintln(w, "\nNote: "+MarkdownCell(n))
	}
	return nil
}

// CSV writes one row per quantity and retry with every statistic's value
// and bound.
func (r DelayLaws) CSV(w io.Writer) error {
	a := r.laws
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
