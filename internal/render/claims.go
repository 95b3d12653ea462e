package render

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/herdlab/herd/claims"
)

// ClaimsReport is herd claims' result, its JSON document: a verdict with
// its evidence per claim.
type ClaimsReport struct {
	Trials     int             `json:"trials"`
	Seed       uint64          `json:"seed"`
	Claims     []claims.Result `json:"claims"`
	Provenance Provenance      `json:"provenance"`
	// Evidence: the table also gives each claim's quote, check and
	// evidence; without it, the verdicts and their tally.
	Evidence bool `json:"-"`
}

// verdictText is a verdict with its condition.
func verdictText(v claims.Verdict, cond string) string {
	if cond == "" {
		return string(v)
	}
	return string(v) + ": " + cond
}

// findingText is a verdict with its condition and the regime it names
// (a growth claim's "for N ≥ …").
func findingText(v claims.Verdict, cond, regime string) string {
	s := verdictText(v, cond)
	if regime != "" {
		s += " (" + regime + ")"
	}
	return s
}

// quoteText is a quote in quotation marks, flagged when it is not the
// source's exact words.
func quoteText(c claims.Result) string {
	if c.Paraphrase {
		return "“" + c.Quote + "” (paraphrase)"
	}
	return "“" + c.Quote + "”"
}

// evidenceText is a finding's evidence in one line.
func evidenceText(ev []claims.Evidence) string {
	s := make([]string, len(ev))
	for i, e := range ev {
		s[i] = e.String()
	}
	return strings.Join(s, "; ")
}

// otherText is the verdict in the other model (with its regime when
// asked), or a dash for a claim that has none.
func otherText(c claims.Result, regime bool) string {
	if c.Transfer == claims.NotApplicable {
		return "—"
	}
	if !regime {
		return c.Other.Model + ": " + verdictText(c.Other.Verdict, c.Other.Condition)
	}
	return c.Other.Model + ": " + findingText(c.Other.Verdict, c.Other.Condition, c.Other.Regime)
}

// contentionOnly reports whether every claim of r is a contention claim
// (--source contention), whose rule is not the growth rule.
func contentionOnly(r ClaimsReport) bool {
	for _, c := range r.Claims {
		if c.Origin != claims.OriginContention {
			return false
		}
	}
	return len(r.Claims) > 0
}

// Table writes the verdicts for a terminal, one row per claim fitted to
// width (0: no limit), then each claim's quote, check and evidence.
func (r ClaimsReport) Table(w io.Writer, width int) error {
	if contentionOnly(r) {
		fmt.Fprintf(w, "herd claims --source contention: %d trials per point, seed %d; 95%% intervals; policies paired on common random numbers.\n%s\n\n", r.Trials, r.Seed, claims.ContentionRule)
	} else {
		fmt.Fprintf(w, "herd claims: %d trials per scenario (%d per point for the control claims), seed %d; 95%% intervals; paired on common random numbers.\n%s\n\n", r.Trials, claims.ControlTrials, r.Seed, claims.GrowthRule)
	}
	t := NewTable(Column{Name: "claim"}, Column{Name: "model", Wrap: true}, Column{Name: "verdict", Wrap: true},
		Column{Name: "other model", Wrap: true}, Column{Name: "transfer", Wrap: true})
	for _, c := range r.Claims {
		t.Add(c.ID, c.Model, verdictText(c.Verdict, c.Condition), otherText(c, false), string(c.Transfer))
	}
	if err := t.Text(w, width); err != nil {
		return err
	}
	if !r.Evidence {
		_, err := fmt.Fprintf(w, "\n%s\nEach claim's quote, check and evidence: the same command with --evidence (or --format markdown or json).\n", tally(r.Claims))
		return err
	}
	for _, c := range r.Claims {
		fmt.Fprintf(w, "\n%s — %s\n  %s\n  check: %s\n  %s: %s\n    %s\n",
			c.ID, c.Source, quoteText(c), c.Check,
			withParameters(c.Model, c.Parameters), findingText(c.Verdict, c.Condition, c.Regime), strings.ReplaceAll(evidenceText(c.Evidence), "; ", "\n    "))
		if c.Note != "" {
			fmt.Fprintf(w, "  note: %s\n", c.Note)
		}
		if c.Transfer != claims.NotApplicable {
			fmt.Fprintf(w, "  %s: %s\n    %s\n", withParameters(c.Other.Model, c.Other.Scenario),
				findingText(c.Other.Verdict, c.Other.Condition, c.Other.Regime), strings.ReplaceAll(evidenceText(c.Other.Evidence), "; ", "\n    "))
			if c.Other.Note != "" {
				fmt.Fprintf(w, "  note: %s\n", c.Other.Note)
			}
		}
	}
	return nil
}

// tally counts the verdicts in the claims' own models.
func tally(cs []claims.Result) string {
	var order []claims.Verdict
	n := map[claims.Verdict]int{}
	for _, c := range cs {
		if n[c.Verdict] == 0 {
			order = append(order, c.Verdict)
		}
		n[c.Verdict]++
	}
	rank := map[claims.Verdict]int{claims.Holds: 1, claims.HoldsOnlyWhen: 2, claims.Inconclusive: 3, claims.Fails: 4}
	slices.SortFunc(order, func(a, b claims.Verdict) int {
		if rank[a] != rank[b] {
			return rank[a] - rank[b]
		}
		return strings.Compare(string(a), string(b))
	})
	parts := make([]string, len(order))
	for i, v := range order {
		parts[i] = fmt.Sprintf("%d %s", n[v], v)
	}
	return fmt.Sprintf("%d claims, in the models they were made in: %s.", len(cs), strings.Join(parts, ", "))
}

// Markdown writes one table row per claim, for a design review.
func (r ClaimsReport) Markdown(w io.Writer) error {
	cell := MarkdownCell
	rule := claims.GrowthRule
	if contentionOnly(r) {
		rule = claims.ContentionRule
	}
	fmt.Fprintf(w, "Verdicts by herd (%d trials per scenario, seed %d, 95%% intervals, paired comparisons on common random numbers).\n\n%s\n\n", r.Trials, r.Seed, rule)
	fmt.Fprintln(w, "| claim | source | quote | verdict (own model) | evidence | other model | transfer |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|")
	for _, c := range r.Claims {
		fmt.Fprintf(w, "| `%s` | %s | %s | **%s** (%s) | %s | %s | %s |\n",
			c.ID, cell(c.Source), cell(quoteText(c)), cell(findingText(c.Verdict, c.Condition, c.Regime)), c.Model,
			cell(withNote(evidenceText(c.Evidence), c.Note)), cell(otherText(c, true)), c.Transfer)
	}
	_, err := fmt.Fprintf(w, "\nChecks: %s\n", cell(checksText(r.Claims)))
	return err
}

// withNote is s followed by the note, when there is one.
func withNote(s, note string) string {
	if note == "" {
		return s
	}
	return s + " (note: " + note + ")"
}

// withParameters is a model with the parameters it was judged at.
func withParameters(model, params string) string {
	if params == "" {
		return model
	}
	return model + " (" + params + ")"
}

// checksText is every claim's check, for the line under the markdown table.
func checksText(cs []claims.Result) string {
	var s []string
	for _, c := range cs {
		s = append(s, "`"+c.ID+"`: "+c.Check)
	}
	return strings.Join(s, "; ")
}
