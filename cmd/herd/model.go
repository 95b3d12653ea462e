package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/spf13/cobra"
)

// modelOptions are what herd model's flags said.
type modelOptions struct {
	IO       *iostreams
	Scenario model.Scenario
	Output   output
	Method   string
	Solve    model.SolveOptions
}

func newCmdModel(f *factory, runF func(*modelOptions) error) *cobra.Command {
	opts := &modelOptions{IO: f.IO}
	var (
		scenario scenarioFlags
		out      outputFlags
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
             arrivals per tick and an estimate of completion.

A scenario a method cannot answer exits 1 with the reason.`,
		Example: `  herd model --method closed -n 100 -k 10 --policy expo
  herd model --method markov -n 8 -k 2 --policy full --format json
  herd model --method meanfield -n 100000 -k 1000 --policy equal`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			var err error
			if opts.Scenario, err = scenario.scenario(); err != nil {
				return err
			}
			if opts.Output, err = out.resolve(f); err != nil {
				return err
			}
			if err := model.CheckMethod(opts.Method, opts.Solve); err != nil {
				return err
			}
			if runF != nil {
				return runF(opts)
			}
			return modelRun(opts)
		},
	}
	d := model.DefaultSolveOptions()
	c.Flags().StringVar(&opts.Method, "method", "", "model: "+strings.Join(model.Methods(), "|")+" (required)")
	c.Flags().IntVar(&opts.Solve.MaxStates, "max-states", d.MaxStates, "markov: the most states at one tick before the scenario is refused (≥ 1)")
	c.Flags().IntVar(&opts.Solve.Grid, "grid", d.Grid, "meanfield: cells of decorrelated's previous-delay dimension (≥ 1)")
	complete(c, "method", model.Methods())
	scenario.register(c)
	out.register(c)
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
	Closed     *model.Closed    `json:"closed,omitempty"`
	Markov     *markovDetail    `json:"markov,omitempty"`
	MeanField  *model.MeanField `json:"meanfield,omitempty"`
	Provenance Provenance       `json:"provenance"`
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
	return fmtNum(*v.SD)
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
	r, err := model.Solve(opts.Method, opts.Scenario, opts.Solve)
	if err != nil {
		return err
	}
	res := modelResultOf(r, opts.Scenario)
	res.Provenance = opts.Output.Cite
	return opts.Output.write(opts.IO, func(w io.Writer) error {
		switch opts.Output.Format {
		case "json":
			return writeJSON(w, res)
		case "csv":
			return modelCSV(w, res)
		}
		return modelTable(w, res)
	})
}

// modelResultOf is a model's solution as herd model reports it: the
// chain's completion with its quantiles at the reported percentiles and
// the completions it can reach.
func modelResultOf(r model.Solution, sc model.Scenario) modelResult {
	res := modelResult{Method: r.Method, Scenario: sc, Closed: r.Closed, MeanField: r.MeanField}
	res.Calls, res.Completion.modelValue = modelValue{Mean: r.Calls.Mean}, modelValue{Mean: r.Completion.Mean}
	if r.KnowsSD {
		res.Calls, res.Completion.modelValue = exactly(r.Calls.Mean, r.Calls.SD), exactly(r.Completion.Mean, r.Completion.SD)
	}
	if m := r.Markov; m != nil {
		res.Completion.Quantiles = map[string]quantileValue{}
		for _, p := range analysis.Percentiles {
			res.Completion.Quantiles[p.Name] = quantileValue{float64(m.Quantile(p.P))}
		}
		for t, p := range m.Distribution {
			if p > 0 {
				res.Completion.Distribution = append(res.Completion.Distribution, completionMass{t, p})
			}
		}
		res.Markov = &markovDetail{m.Unfinished, m.Ticks, m.States, m.PeakStates}
	}
	return res
}

func modelTable(w io.Writer, r modelResult) error {
	fmt.Fprintln(w, describe(r.Scenario))
	fmt.Fprintf(w, "method %s\n\n", r.Method)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tsd")
	fmt.Fprintf(tw, "calls\t%s\t%s\n", fmtNum(r.Calls.Mean), r.Calls.sd())
	fmt.Fprintf(tw, "completion (ticks)\t%s\t%s\n", fmtNum(r.Completion.Mean), r.Completion.sd())
	for _, p := range analysis.Percentiles {
		if q, ok := r.Completion.Quantiles[p.Name]; ok {
			fmt.Fprintf(tw, "completion %s\t%s\t\n", p.Name, fmtNum(q.Value))
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
			r.Markov.States, r.Markov.Ticks, r.Markov.PeakStates, fmtNum(r.Markov.Unfinished))
		fmt.Fprintln(w, "P(completion = t):")
		for _, m := range r.Completion.Distribution {
			fmt.Fprintf(w, "  %d\t%.6g\n", m.Completion, m.P)
		}
	case r.MeanField != nil:
		fmt.Fprintf(w, "\nexpected arrivals over %d ticks; completion is an estimate\n", len(r.MeanField.Arrivals))
	}
	return nil
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
	for _, m := range r.Completion.Distribution {
		cw.Write([]string{r.Method, "P(completion=" + strconv.Itoa(m.Completion) + ")", num(m.P), ""})
	}
	cw.Flush()
	return cw.Error()
}
