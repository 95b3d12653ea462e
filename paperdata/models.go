package paperdata

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/claims"
)

// validateSection runs herd validate's default grid: the closed form, the
// exact Markov chain and the mean field against Monte Carlo (the budgets
// are the grid's own; Scale does not apply).
func validateSection(ctx context.Context, cfg Config, d *doc) error {
	v, err := analysis.Validate(ctx, analysis.DefaultValidationGrid(), analysis.ValidateOptions{Seed: cfg.Seed, Workers: cfg.Workers})
	if err != nil {
		return err
	}
	byMethod := map[string][2]int{} // checks, passed (judged checks only)
	for _, c := range v.Checks {
		if c.Verdict == analysis.Info {
			continue
		}
		n := byMethod[c.Method]
		n[0]++
		if c.Verdict == analysis.Pass {
			n[1]++
		}
		byMethod[c.Method] = n
	}
	for _, m := range []string{analysis.MethodClosed, analysis.MethodMarkov, analysis.MethodMeanField} {
		key := strings.ReplaceAll(m, "-", "")
		d.set("validate."+key+".checks", num(float64(byMethod[m][0]), 0))
		d.set("validate."+key+".passed", num(float64(byMethod[m][1]), 0))
	}
	d.set("validate.checks", num(float64(len(v.Checks)), 0))
	d.set("validate.failed", num(float64(v.Failed), 0))
	d.set("validate.statistical", num(float64(v.Statistical), 0))
	d.set("validate.level", num(100*v.Level, 1))
	d.set("validate.critical", num(v.Critical, 2))
	d.set("validate.mfcallsbound", num(100*analysis.MeanFieldCallsBound, 1))
	d.set("validate.mfcompletionbound", num(100*analysis.MeanFieldCompletionBound, 0))
	d.set("validate.mflevel", num(100*analysis.MeanFieldLevel, 0))
	if cfg.full() && v.Failed > 0 {
		return stale("%d model checks fail; the text says the models agree with Monte Carlo", v.Failed)
	}
	return nil
}

// verdictOf is a claim's verdict as the paper's table prints it: with its
// condition, the head of its regime (a growth claim's "for N ≥ …") and
// its note.
func verdictOf(r claims.Result) string {
	v := string(r.Verdict)
	if r.Condition != "" {
		v += ": " + r.Condition
	}
	if r.Regime != "" {
		v += " (" + strings.SplitN(r.Regime, ":", 2)[0] + ")"
	}
	if r.Note != "" {
		v += "; " + r.Note
	}
	return v
}

// keyText is the evidence that carries a verdict, as the paper prints it.
func keyText(e *claims.Evidence) string {
	if e == nil {
		return ""
	}
	return e.String()
}

// claimsSection gives every registered claim its verdict at herd claims'
// default budget, in its own model and in the other; the claims about retry
// controls, which have one model, get a table of their own.
func claimsSection(ctx context.Context, cfg Config, d *doc) error {
	opt := cfg.options(claims.DefaultTrials)
	res, err := claims.Evaluate(ctx, claims.Options{Trials: opt.Trials, Seed: cfg.Seed, Workers: cfg.Workers})
	if err != nil {
		return err
	}
	count := map[string]int{}
	var body, controls [][]string
	last, total := "", 0
	for _, r := range res {
		verdict := escape(verdictOf(r))
		count[r.Origin+"."+string(r.Verdict)]++
		id := `\texttt{` + escape(r.ID) + `}`
		if r.Paraphrase {
			id += `$^\dagger$`
		}
		if r.Origin == claims.OriginControls {
			count["controls"]++
			controls = append(controls, []string{id, verdict, escape(keyText(r.KeyEvidence))})
			continue
		}
		total++
		count[string(r.Verdict)]++
		if r.Transfer == claims.DoesNotTransfer {
			count["notransfer"]++
		}
		if last != "" && r.Origin != last {
			body = append(body, nil)
		}
		last = r.Origin
		body = append(body, []string{id, verdict, escape(keyText(r.KeyEvidence)), escape(string(r.Other.Verdict))})
	}
	d.table("claims-table", tabular("l p{0.40\\textwidth} p{0.30\\textwidth} l", []string{"claim", "verdict (own model)", "key evidence (95\\%)", "other model"}, body))
	d.table("controls-claims-table", tabular("l p{0.50\\textwidth} p{0.30\\textwidth}", []string{"claim", "verdict", "key evidence (95\\%)"}, controls))
	d.set("claims.total", num(float64(total), 0))
	d.set("claims.controls.total", num(float64(count["controls"]), 0))
	d.set("claims.trials", num(float64(opt.Trials), 0))
	d.set("claims.controls.trials", num(float64(claims.ControlTrials), 0))
	for _, v := range []string{"holds", "fails", "holds-only-when", "inconclusive"} {
		key := strings.ReplaceAll(v, "-", "")
		d.set("claims."+key, num(float64(count[v]), 0))
		for _, o := range []string{"aws", "seed", claims.OriginControls} {
			d.set(fmt.Sprintf("claims.%s.%s", o, key), num(float64(count[o+"."+v]), 0))
		}
	}
	d.set("claims.notransfer", num(float64(count["notransfer"]), 0))
	for _, r := range res {
		own := claims.Finding{Model: r.Model, Evidence: r.Evidence, Exponents: r.Exponents}
		for _, f := range []claims.Finding{own, r.Other} {
			growthNumbers(d, r.ID, f)
		}
	}
	return nil
}

// growthNumbers sets, for a growth claim in one model, the local exponent
// of each policy at the top doubling of the ladder (claims.ID.model.policy)
// and the N from which the claim holds (claims.ID.model.from).
func growthNumbers(d *doc, id string, f claims.Finding) {
	if len(f.Exponents) == 0 {
		return
	}
	top := map[string]claims.LocalExponent{}
	var order []string
	for _, e := range f.Exponents {
		if _, ok := top[e.Policy]; !ok {
			order = append(order, e.Policy)
		}
		top[e.Policy] = e
	}
	for _, p := range order {
		d.set(fmt.Sprintf("claims.%s.%s.%s", id, f.Model, p), num(top[p].Value, 3))
	}
	from := 0.0
	for _, e := range f.Evidence {
		if strings.Contains(e.Name, "N from which") {
			from = math.Max(from, e.Value)
		}
	}
	if from > 0 {
		d.set(fmt.Sprintf("claims.%s.%s.from", id, f.Model), num(from, 0))
	}
}
