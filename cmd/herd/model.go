package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
	"github.com/spf13/cobra"
)

// modelOptions are what herd model's flags said.
type modelOptions struct {
	IO       *iostreams
	Scenario model.Scenario
	Output   output
	Method   string
	Solve    solve.Options
}

func newCmdModel(f *factory, runF func(*modelOptions) error) *cobra.Command {
	opts := &modelOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		out      outputFlags
		traffic  trafficFlags
		controls controlFlags
		chain    chainFlags
	)
	c := &cobra.Command{
		Use:   "model",
		Short: "Analytical model of one scenario: closed form, exact Markov chain or mean field",
		Long: `model answers a scenario without simulating it.

  closed     exact, for a synchronized cohort whose waits are certain (none,
             fixed, expo): the waves, calls = R·N − k·R(R−1)/2, completion and
             the latency distribution. Refuses random waits and the collision
             server with N > k (no one is ever served).
  markov     exact, for small cohorts (N up to about 10): propagates the
             probability of every state; gives the mean and sd of calls and
             completion and the whole law of completion. Refuses
             decorrelated and state spaces beyond --max-states.
  meanfield  approximate, for large cohorts: expected calls, expected
             arrivals per tick and the law of completion, from the
             fluctuations of the arrivals around their means (the last
             clients' number is itself random). herd validate holds it to
             0.5% (calls) and 2% (completion) of Monte Carlo for full, equal
             and decorrelated at N = 1,000…100,000, N/k = 3…100.
  chain      exact, for small systems on the queue server (--server queue):
             a cohort, or open-loop traffic with an outage (--rate,
             --outage, --ticks). Propagates the law of (abandoned requests
             at the queue's head, live queued requests by age and retry
             class, requests in backoff by ticks until they send and retry
             class): moments of calls, useful and wasted work, timeouts and
             rejections, the law of completion, the queue's expected length
             per tick, the probability of recovering within the horizon
             after the outage and the recovery time, and the stationary
             goodput when there is no outage. Of the controls only
             --max-attempts applies. Open-loop paths whose backlog passes
             --max-backlog or whose queue passes --max-queue leave the
             chain as overflowed (reported); the Poisson tail and states
             below 1e-9 are cut (reported).

Every result states its validity (JSON "validity"): exact; conditional
(exact given that the trial finishes by the horizon, with the probability
left unfinished, and a warning); or approximate, with the relative errors
herd validate measured at the nearest validated scenario, and a warning
outside the validated region.

A scenario a method cannot answer exits 1 with the reason.`,
		Example: `  herd model --method closed -n 100 -k 10 --policy expo
  herd model --method markov -n 8 -k 2 --policy full --format json
  herd model --method meanfield -n 100000 -k 1000 --policy equal
  herd model --method chain --server queue -n 6 -k 2 --timeout 2 --policy full
  herd model --method chain --server queue -k 1 --rate 0.5 --ticks 100 --outage-start 3 --outage 4 --timeout 2 --queue-limit 4 --policy none --max-attempts 2`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if err := chain.options(c.Flags(), opts, &traffic, &controls); err != nil {
				return err
			}
			opts.Solve.Context = c.Context() // the chains poll it
			if err := solve.CheckMethod(opts.Method, opts.Solve); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return modelRun(opts)
		},
	}
	d := solve.DefaultSolveOptions()
	c.Flags().StringVar(&opts.Method, "method", "", "model: "+strings.Join(solve.Methods(), "|")+" (required)")
	c.Flags().IntVar(&opts.Solve.MaxStates, "max-states", d.MaxStates, "markov: the most states at one tick before the scenario is refused (≥ 1)")
	c.Flags().IntVar(&opts.Solve.Grid, "grid", d.Grid, fmt.Sprintf("meanfield: cells of decorrelated's previous-delay dimension (≥ 1; 0: doubled from %d until the calls change by less than %g%%)", solve.DefaultGrid, 100*solve.DefaultGridTolerance))
	complete(c, "method", solve.Methods())
	scenario.register(c)
	out.register(c)
	traffic.register(c)
	controls.register(c)
	chain.register(c)
	return c
}

// modelResult is the JSON document of herd model; calls and completion
// carry no interval because they are exact (or, for meanfield, a model's
// value).
type modelResult struct {
	Method     string           `json:"method"`
	Scenario   model.Scenario   `json:"scenario"`
	Calls      modelValue       `json:"calls"`
	Completion modelCompletion  `json:"completion"`
	Closed     *solve.Closed    `json:"closed,omitempty"`
	Markov     *markovDetail    `json:"markov,omitempty"`
	MeanField  *solve.MeanField `json:"meanfield,omitempty"`
	Chain      *chainDetail     `json:"chain,omitempty"`
	// Validity says whether the values are exact, exact given finishing by
	// the horizon, or approximate with the error herd validate measured.
	Validity   analysis.Validity `json:"validity"`
	Warnings   []string          `json:"warnings,omitempty"`
	Provenance render.Provenance `json:"provenance"`
}

// modelValue is a model's mean; SD is given where the model knows it
// (closed and markov), and left out for the mean field.
type modelValue struct {
	Mean float64  `json:"mean"`
	SD   *float64 `json:"sd,omitempty"`
}

func (v modelValue) sd() string {
	if v.SD == nil {
		return "—"
	}
	return render.Number(*v.SD)
}

func exactly(mean, sd float64) modelValue { return modelValue{Mean: mean, SD: &sd} }

type modelCompletion struct {
	modelValue
	Quantiles    map[string]quantileValue `json:"quantiles,omitempty"`
	Distribution []completionMass         `json:"distribution,omitempty"`
}

type quantileValue struct {
	Value float64 `json:"value"`
}

type completionMass struct {
	Completion int     `json:"completion"`
	P          float64 `json:"p"`
}

type markovDetail struct {
	Unfinished float64 `json:"unfinished"`
	Ticks      int     `json:"ticks"`
	States     int     `json:"states"`
	PeakStates int     `json:"peak_states"`
}

func modelRun(opts *modelOptions) error {
	r, err := solve.Solve(opts.Method, opts.Scenario, opts.Solve)
	if err != nil {
		return err
	}
	res := modelResultOf(r, opts.Scenario)
	res.Provenance = opts.Output.Cite
	opts.Output.warn(opts.IO, res.Warnings)
	return opts.Output.writeAs(opts.IO, renderers{
		json:  res,
		csv:   func(w io.Writer) error { return modelCSV(w, res) },
		table: func(w io.Writer) error { return modelTable(w, res) },
	})
}

// modelResultOf is a model's solution as herd model reports it: the
// completion's quantiles at the reported percentiles where the model gives
// its law, the completions the chains can reach, and every result's
// validity with its warnings.
func modelResultOf(r solve.Solution, sc model.Scenario) modelResult {
	res := modelResult{Method: r.Method, Scenario: sc, Closed: r.Closed, MeanField: r.MeanField}
	res.Calls, res.Completion.modelValue = modelValue{Mean: r.Calls.Mean}, modelValue{Mean: r.Completion.Mean}
	if r.KnowsSD {
		res.Calls, res.Completion.modelValue = exactly(r.Calls.Mean, r.Calls.SD), exactly(r.Completion.Mean, r.Completion.SD)
	}
	if _, ok := r.CompletionQuantile(0.5); ok {
		res.Completion.Quantiles = map[string]quantileValue{}
		for _, p := range stats.Percentiles {
			t, _ := r.CompletionQuantile(p.P)
			res.Completion.Quantiles[p.Name] = quantileValue{float64(t)}
		}
	}
	if m := r.Markov; m != nil {
		for t, p := range m.Distribution {
			if p > 0 {
				res.Completion.Distribution = append(res.Completion.Distribution, completionMass{t, p})
			}
		}
		res.Markov = &markovDetail{m.Unfinished, m.Ticks, m.States, m.PeakStates}
	}
	if r.Chain != nil {
		chainResult(&res, *r.Chain, sc)
	}
	res.Validity, res.Warnings = analysis.SolutionValidity(r, sc)
	return res
}

func modelTable(w io.Writer, r modelResult) error {
	fmt.Fprintln(w, render.Describe(r.Scenario))
	fmt.Fprintf(w, "method %s\n\n", r.Method)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tsd")
	fmt.Fprintf(tw, "calls\t%s\t%s\n", render.Number(r.Calls.Mean), r.Calls.sd())
	fmt.Fprintf(tw, "completion (ticks)\t%s\t%s\n", render.Number(r.Completion.Mean), r.Completion.sd())
	for _, p := range stats.Percentiles {
		if q, ok := r.Completion.Quantiles[p.Name]; ok {
			fmt.Fprintf(tw, "completion %s\t%s\t\n", p.Name, render.Number(q.Value))
		}
	}
	tw.Flush()
	switch {
	case r.Closed != nil:
		fmt.Fprintf(w, "\n%d waves", r.Closed.Rounds)
		if len(r.Closed.Waves) > 0 {
			fmt.Fprintln(w, " (tick: arrivals → served):")
			for _, wv := range r.Closed.Waves {
				fmt.Fprintf(w, "  %d: %d → %d\n", wv.Tick, wv.Size, wv.Served)
			}
		} else {
			fmt.Fprintln(w)
		}
	case r.Markov != nil:
		fmt.Fprintf(w, "\n%d states visited over %d ticks (at most %d at once); unfinished probability %s\n",
			r.Markov.States, r.Markov.Ticks, r.Markov.PeakStates, render.Number(r.Markov.Unfinished))
		fmt.Fprintln(w, "P(completion = t):")
		for _, m := range r.Completion.Distribution {
			fmt.Fprintf(w, "  %d\t%.6g\n", m.Completion, m.P)
		}
	case r.MeanField != nil:
		fmt.Fprintf(w, "\nexpected arrivals over %d ticks", len(r.MeanField.Arrivals))
		if r.MeanField.Grid > 0 {
			fmt.Fprintf(w, "; decorrelated's previous delay on %d cells", r.MeanField.Grid)
			if r.MeanField.GridChange > 0 {
				fmt.Fprintf(w, " (calls change %.2g%% from half as many)", 100*r.MeanField.GridChange)
			}
		}
		fmt.Fprintln(w)
	case r.Chain != nil:
		chainTable(w, r)
	}
	fmt.Fprintln(w, "\nvalidity: "+describeValidity(r.Validity))
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "\nwarning: "+warn)
	}
	return nil
}

// describeValidity says a result's validity in a sentence.
func describeValidity(v analysis.Validity) string {
	switch v.Kind {
	case analysis.ValidityExact:
		return "exact"
	case analysis.ValidityConditional:
		return fmt.Sprintf("conditional (exact given that the trial finishes by the horizon); unfinished probability %s", render.Number(v.Unfinished))
	}
	s := "approximate"
	if n := v.NearestValidated; n != nil {
		e := func(m *analysis.MeasuredError) string {
			return fmt.Sprintf("%+.2f%% [%+.2f%%, %+.2f%%] (bound ±%g%%)", 100*m.RelErr, 100*m.CI[0], 100*m.CI[1], 100*m.Bound)
		}
		where := "at the nearest validated scenario,"
		if v.InRegion != nil && *v.InRegion {
			where = "inside the validated region; at its nearest scenario,"
		}
		s += fmt.Sprintf(" — %s %s (%d trials, seed %d), herd validate measured calls %s and completion %s",
			where, render.Brief(n.Scenario), n.Trials, n.Seed, e(v.CallsError), e(v.CompletionError))
	}
	return s
}

func modelCSV(w io.Writer, r modelResult) error {
	cw := csv.NewWriter(w)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	cw.Write([]string{"method", "metric", "mean", "sd"})
	sd := func(v modelValue) string {
		if v.SD == nil {
			return ""
		}
		return num(*v.SD)
	}
	cw.Write([]string{r.Method, "calls", num(r.Calls.Mean), sd(r.Calls)})
	cw.Write([]string{r.Method, "completion", num(r.Completion.Mean), sd(r.Completion.modelValue)})
	cw.Write([]string{r.Method, "validity", r.Validity.Kind, ""})
	if r.Validity.Kind == analysis.ValidityConditional {
		cw.Write([]string{r.Method, "unfinished", num(r.Validity.Unfinished), ""})
	}
	if e := r.Validity.CallsError; e != nil {
		cw.Write([]string{r.Method, "calls_error", num(e.RelErr), ""})
		cw.Write([]string{r.Method, "completion_error", num(r.Validity.CompletionError.RelErr), ""})
	}
	for _, m := range r.Completion.Distribution {
		cw.Write([]string{r.Method, "P(completion=" + strconv.Itoa(m.Completion) + ")", num(m.P), ""})
	}
	if r.Chain != nil {
		chainCSV(cw, r)
	}
	cw.Flush()
	return cw.Error()
}
