package main

import (
	"context"
	"fmt"
	"io"

	"github.com/herdlab/herd/claims"
	"github.com/herdlab/herd/internal/outfile"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/montecarlo"
	"github.com/spf13/cobra"
)

// claimsOptions are what herd claims' flags said.
type claimsOptions struct {
	IO     *iostreams
	Ctx    context.Context
	Claims claims.Options // Origin "" is every claim
	Output output
	// ScalingOut, when set, is where the scaling study is written.
	ScalingOut string
	Evidence   bool // the table gives each claim's evidence
}

func newCmdClaims(f *factory, runF func(*claimsOptions) error) *cobra.Command {
	opts := &claimsOptions{IO: f.IO}
	var (
		run      runFlags
		out      outputFlags
		source   string
		scaling  string
		evidence bool
	)
	var withCache func(context.Context) context.Context
	c := &cobra.Command{
		Use:   "claims",
		Short: "Verdicts on what the AWS blog and the seed articles claim, with evidence",
		Long: `claims checks every registered claim of the AWS Architecture Blog post
"Exponential Backoff And Jitter" and of the seed articles, in the model it was
made in (the blog's OCC row or the seed's capacity server) and in the other,
and prints one row per claim: its verdict — holds, fails, holds-only-when (with
the condition, e.g. a crossover client count found by bisection) or
inconclusive (the 95% intervals cannot decide at the budget) — the evidence
(estimates with 95% intervals) and whether the verdict transfers to the other
model. Policies are compared on common random numbers with paired tests; a
grid point left undecided is rerun with 4× the trials.

The growth claims (work ∝ N², time ∝ N) are judged by one rule from local
exponents over doublings of N = 10 … 10240, up to where the delays sit at the
cap; their trials per rung are chosen sequentially from a pilot for ±0.03 on each exponent,
whatever --trials says. The OCC rungs near N = 10⁴ cost minutes of CPU, so by
default (--scaling committed) they are read from the committed run of that
study, claims/data/scaling.json, when --seed is its seed (1), and rerun
otherwise; --scaling fresh reruns them, and --scaling-out FILE writes the
study's rungs (the committed file is "herd claims --scaling fresh
--scaling-out claims/data/scaling.json").

--source contention checks the classic results on backoff in contention
resolution, which "all" leaves out (they take a few CPU-minutes): Bender,
Farach-Colton, He, Kuszmaul and Leiserson (SPAA 2005) — a batch of n on a
simple multiple-access channel (--server collision -k 1) resolves in
Θ(n lg n) under binary exponential backoff, Θ((n/lg n)^{3/2}) under quadratic
backoff (--policy poly) and Θ(n lg lg n / lg lg lg n) under loglog-iterated
backoff (--policy loglog), the best monotone policy — each Θ claim judged
against competing forms (n, n lg lg n, n lg n, n^1.2, …) from the trend of
the makespan over the doublings n = 512 … 16384 (trials per n from a pilot
of 40 until the trend is precise, at most 400, whatever --trials says): the
verdict names the forms the data rejects, says "inconclusive: pre-asymptotic"
when the data moves toward the claim, and "fails" only when it does not; and
Håstad, Leighton and Rogoff (SIAM J. Comput. 1996) — N stations with queues
fed at a total rate λ: binary exponential backoff is unstable above
λ ≈ 0.567 + 1/(4N − 2), superlinear polynomial backoff stable for every
λ < 1, judged over doublings of the run's length.`,
		Example: `  herd claims
  herd claims --source aws --format markdown > claims.md
  herd claims --source contention --format json
  herd claims --format json --trials 4000 --seed 7`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			opts.Ctx = withCache(c.Context())
			opt, err := run.options()
			if err != nil {
				return err
			}
			origin := source
			switch origin {
			case "all":
				origin = ""
			case "aws", "seed", "controls", "contention":
			default:
				return usageError{fmt.Errorf("--source must be one of aws, seed, controls, contention, all, got %q", source)}
			}
			// Claims have no CSV: a .csv --out still gets JSON.
			opts.Output = output{Format: out.format, Path: stdoutPath(out.out), Cite: f.provenance()}
			switch out.format {
			case "markdown", "table", "json":
			case "":
				if opts.Output, err = out.resolve(f); err != nil {
					return err
				}
				if opts.Output.Format == "csv" {
					opts.Output.Format = "json"
				}
			default:
				return usageError{fmt.Errorf("--format must be one of table, json, markdown, got %q", out.format)}
			}
			switch scaling {
			case "committed", "fresh":
			default:
				return usageError{fmt.Errorf("--scaling must be committed or fresh, got %q", scaling)}
			}
			if opts.ScalingOut != "" {
				if err := outfile.Check(opts.ScalingOut); err != nil {
					return err
				}
			}
			opts.Output.Width = out.width(f, opts.Output)
			opts.Evidence = evidence
			opts.Claims = claims.Options{Trials: opt.Trials, Seed: opt.Seed, Workers: opt.Workers, Origin: origin, FreshScaling: scaling == "fresh"}
			if err := opts.Claims.Validate(); err != nil {
				return usageError{err}
			}
			if runF != nil {
				return runF(opts)
			}
			return claimsRun(opts)
		},
	}
	withCache = runCache(c)
	run.register(c, claims.DefaultTrials)
	c.Flags().StringVar(&source, "source", "all", "which claims: aws|seed|controls|contention|all (all: every source but contention)")
	complete(c, "source", []string{"aws", "seed", "controls", "contention", "all"})
	c.Flags().StringVar(&scaling, "scaling", "committed", "the growth claims' scaling study: committed (read the committed run when --seed is its seed) or fresh (rerun it, minutes)")
	complete(c, "scaling", []string{"committed", "fresh"})
	c.Flags().StringVar(&opts.ScalingOut, "scaling-out", "", "also write the scaling study's rungs (JSON) to this file")
	c.Flags().StringVar(&out.format, "format", "", "output format: table|json|markdown (default: table on a terminal, json otherwise)")
	c.Flags().StringVar(&out.out, "out", "", "write the result to this file (atomically) instead of standard output")
	complete(c, "format", []string{"table", "json", "markdown"})
	c.Flags().BoolVar(&evidence, "evidence", false, "table: also give each claim's quote, check and evidence (default: the verdicts and their tally)")
	out.registerWide(c)
	return c
}

func claimsRun(opts *claimsOptions) error {
	co := opts.Claims
	total, trials := co.Runs()
	bar := newProgress(opts.IO, "claims", total)
	if co.JudgesScaling() || opts.ScalingOut != "" {
		ladders := newProgress(opts.IO, "scaling ladders", len(claims.ScalingModels)*len(claims.ScalingKinds))
		s, err := claims.RunScaling(opts.Ctx, montecarlo.Options{Seed: co.Seed, Workers: co.Workers}, co.FreshScaling, func(done, _ int) { ladders.Set(done) })
		ladders.Finish()
		if err != nil {
			return err
		}
		if opts.ScalingOut != "" {
			out := output{Format: "json", Path: opts.ScalingOut}
			if err := out.write(opts.IO, func(w io.Writer) error { return render.JSON(w, s) }); err != nil {
				return err
			}
		}
		co.Scaling = &s
	}
	co.Progress = bar.Of
	res, err := claims.Evaluate(opts.Ctx, co)
	bar.Finish()
	if err != nil {
		return err
	}
	// Each claim's scenarios choose their own engine (the default rule).
	opts.Output.Cite = opts.Output.Cite.WithRun(co.Seed, trials, "default, per scenario")
	r := render.ClaimsReport{Trials: trials, Seed: co.Seed, Claims: res, Provenance: opts.Output.Cite, Evidence: opts.Evidence}
	return opts.Output.writeResult(opts.IO, r)
}
