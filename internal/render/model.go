package render

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/herdlab/herd/stats"
)

// ModelResult is the JSON document of herd model; calls and completion
// carry no interval because they are exact (or, for meanfield, a model's
// value).
type ModelResult struct {
	Method     string           `json:"method"`
	Scenario   model.Scenario   `json:"scenario"`
	Calls      ModelValue       `json:"calls"`
	Completion ModelCompletion  `json:"completion"`
	Closed     *solve.Closed    `json:"closed,omitempty"`
	Markov     *MarkovDetail    `json:"markov,omitempty"`
	MeanField  *solve.MeanField `json:"meanfield,omitempty"`
	Chain      *ChainDetail     `json:"chain,omitempty"`
	// Validity says whether the values are exact, exact given finishing by
	// the horizon, or approximate with the error herd validate measured.
	Validity   analysis.Validity `json:"validity"`
	Warnings   []string          `json:"warnings,omitempty"`
	Provenance Provenance        `json:"provenance"`
}

// ModelValue is a model's mean; SD is given where the model knows it
// (closed and markov), and left out for the mean field.
type ModelValue struct {
	Mean float64  `json:"mean"`
	SD   *float64 `json:"sd,omitempty"`
}

func (v ModelValue) sd() string {
	if v.SD == nil {
		return "—"
	}
	return Number(*v.SD)
}

func exactly(mean, sd float64) ModelValue { return ModelValue{Mean: mean, SD: &sd} }

type ModelCompletion struct {
	ModelValue
	Quantiles    map[string]QuantileValue `json:"quantiles,omitempty"`
	Distribution []CompletionMass         `json:"distribution,omitempty"`
}

type QuantileValue struct {
	Value float64 `json:"value"`
}

type CompletionMass struct {
	Completion int     `json:"completion"`
	P          float64 `json:"p"`
}

type MarkovDetail struct {
	Unfinished float64 `json:"unfinished"`
	Ticks      int     `json:"ticks"`
	States     int     `json:"states"`
	PeakStates int     `json:"peak_states"`
}

// NewModelResult is a model's solution as herd model reports it: the
// completion's quantiles at the reported percentiles where the model gives
// its law, the completions the chains can reach, and every result's
// validity with its warnings.
func NewModelResult(r solve.Solution, sc model.Scenario) ModelResult {
	res := ModelResult{Method: r.Method, Scenario: sc, Closed: r.Closed, MeanField: r.MeanField}
	res.Calls, res.Completion.ModelValue = ModelValue{Mean: r.Calls.Mean}, ModelValue{Mean: r.Completion.Mean}
	if r.KnowsSD {
		res.Calls, res.Completion.ModelValue = exactly(r.Calls.Mean, r.Calls.SD), exactly(r.Completion.Mean, r.Completion.SD)
	}
	if _, ok := r.CompletionQuantile(0.5); ok {
		res.Completion.Quantiles = map[string]QuantileValue{}
		for _, p := range stats.Percentiles {
			t, _ := r.CompletionQuantile(p.P)
			res.Completion.Quantiles[p.Name] = QuantileValue{float64(t)}
		}
	}
	if m := r.Markov; m != nil {
		for t, p := range m.Distribution {
			if p > 0 {
				res.Completion.Distribution = append(res.Completion.Distribution, CompletionMass{t, p})
			}
		}
		res.Markov = &MarkovDetail{m.Unfinished, m.Ticks, m.States, m.PeakStates}
	}
	if r.Chain != nil {
		chainResult(&res, *r.Chain, sc)
	}
	res.Validity, res.Warnings = analysis.SolutionValidity(r, sc)
	return res
}

// Table writes the result as text.
func (r ModelResult) Table(w io.Writer, _ int) error {
	fmt.Fprintln(w, Describe(r.Scenario))
	fmt.Fprintf(w, "method %s\n\n", r.Method)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tmean\tsd")
	fmt.Fprintf(tw, "calls\t%s\t%s\n", Number(r.Calls.Mean), r.Calls.sd())
	fmt.Fprintf(tw, "completion (ticks)\t%s\t%s\n", Number(r.Completion.Mean), r.Completion.sd())
	for _, p := range stats.Percentiles {
		if q, ok := r.Completion.Quantiles[p.Name]; ok {
			fmt.Fprintf(tw, "completion %s\t%s\t\n", p.Name, Number(q.Value))
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
			r.Markov.States, r.Markov.Ticks, r.Markov.PeakStates, Number(r.Markov.Unfinished))
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
		r.chainTable(w)
	}
	fmt.Fprintln(w, "\nvalidity: "+DescribeValidity(r.Validity))
	for _, warn := range r.Warnings {
		fmt.Fprintln(w, "\nwarning: "+warn)
	}
	return nil
}

// DescribeValidity says a result's validity in a sentence.
func DescribeValidity(v analysis.Validity) string {
	switch v.Kind {
	case analysis.ValidityExact:
		return "exact"
	case analysis.ValidityConditional:
		return fmt.Sprintf("conditional (exact given that the trial finishes by the horizon); unfinished probability %s", Number(v.Unfinished))
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
			where, Brief(n.Scenario), n.Trials, n.Seed, e(v.CallsError), e(v.CompletionError))
	}
	return s
}

// CSV writes the result as rows of method, metric, mean and sd.
func (r ModelResult) CSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	cw.Write([]string{"method", "metric", "mean", "sd"})
	sd := func(v ModelValue) string {
		if v.SD == nil {
			return ""
		}
		return num(*v.SD)
	}
	cw.Write([]string{r.Method, "calls", num(r.Calls.Mean), sd(r.Calls)})
	cw.Write([]string{r.Method, "completion", num(r.Completion.Mean), sd(r.Completion.ModelValue)})
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
		r.chainCSV(cw)
	}
	cw.Flush()
	return cw.Error()
}

// ChainDetail is what the queue chain adds to herd model's JSON.
type ChainDetail struct {
	OpenLoop      bool              `json:"open_loop"`
	Traffic       *ChainTraffic     `json:"traffic,omitempty"`
	Controls      string            `json:"controls"`
	Useful        ModelValue        `json:"useful"`
	Wasted        ModelValue        `json:"wasted"`
	TimedOut      ModelValue        `json:"timed_out"`
	Rejected      ModelValue        `json:"rejected"`
	GaveUp        ModelValue        `json:"gave_up"`
	Unfinished    float64           `json:"unfinished"`
	Recovered     *float64          `json:"recovered,omitempty"`
	RecoveryTicks *ModelValue       `json:"recovery_ticks,omitempty"`
	Overflow      float64           `json:"overflow"`
	MaxBacklog    int               `json:"max_backlog,omitempty"`
	MaxQueue      int               `json:"max_queue,omitempty"`
	Truncated     float64           `json:"truncated"`
	Stationary    *solve.Stationary `json:"stationary,omitempty"`
	// Per tick: expected queue length after it, useful and wasted
	// completions in it, live requests after it.
	QueueMean   []float64       `json:"queue_mean"`
	Goodput     []float64       `json:"goodput"`
	WastedAt    []float64       `json:"wasted_series"`
	BacklogMean []float64       `json:"backlog_mean"`
	Ticks       int             `json:"ticks"`
	States      int             `json:"states"`
	PeakStates  int             `json:"peak_states"`
	StateBound  analysis.Number `json:"state_bound"` // null when the bound overflows a float
}

type ChainTraffic struct {
	Rate           float64 `json:"rate"`
	Ticks          int     `json:"ticks"`
	OutageStart    int     `json:"outage_start"`
	OutageLength   int     `json:"outage"`
	OutageCapacity int     `json:"outage_capacity"`
	Recovered      int     `json:"recovered_backlog"`
}

// chainResult fills herd model's result from the queue chain.
func chainResult(res *ModelResult, r solve.QueueChain, sc model.Scenario) {
	for t, p := range r.Distribution {
		if p > 0 {
			res.Completion.Distribution = append(res.Completion.Distribution, CompletionMass{t, p})
		}
	}
	d := &ChainDetail{OpenLoop: r.Open, Controls: r.Controls.String(),
		Useful: exactly(r.Useful.Mean, r.Useful.SD), Wasted: exactly(r.Wasted.Mean, r.Wasted.SD),
		TimedOut: exactly(r.TimedOut.Mean, r.TimedOut.SD), Rejected: exactly(r.Rejected.Mean, r.Rejected.SD),
		GaveUp: exactly(r.GaveUp.Mean, r.GaveUp.SD), Unfinished: r.Unfinished, Overflow: r.Overflow, Truncated: r.Truncated,
		Stationary: r.Stationary, QueueMean: r.QueueMean, Goodput: r.UsefulAt, WastedAt: r.WastedAt, BacklogMean: r.BacklogMean,
		Ticks: r.Ticks, States: r.States, PeakStates: r.PeakStates, StateBound: analysis.Number(r.Bound)}
	if tr := r.Traffic; tr != nil {
		d.MaxBacklog, d.MaxQueue = r.Options.MaxBacklog, r.Options.MaxQueue
		d.Traffic = &ChainTraffic{tr.Rate, tr.Ticks, tr.OutageStart, tr.OutageLength, tr.OutageCapacity, tr.RecoveryBacklog(sc.Capacity)}
		rec := r.Recovered
		d.Recovered = &rec
		if rec > 0 {
			v := exactly(r.RecoveryTicks.Mean, r.RecoveryTicks.SD)
			d.RecoveryTicks = &v
		}
	}
	res.Chain = d
}

func (r ModelResult) chainTable(w io.Writer) {
	d := r.Chain
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	over := "finished trials"
	if d.OpenLoop {
		over = "paths still in the chain at the last tick"
	}
	fmt.Fprintf(tw, "\nmoments over %s\tmean\tsd\n", over)
	for _, row := range []struct {
		name string
		v    ModelValue
	}{{"useful completions", d.Useful}, {"wasted work (abandoned requests served)", d.Wasted}, {"attempts timed out", d.TimedOut},
		{"sends rejected (queue full)", d.Rejected}, {"requests given up", d.GaveUp}} {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row.name, Number(row.v.Mean), row.v.sd())
	}
	tw.Flush()
	if d.OpenLoop {
		t := d.Traffic
		fmt.Fprintf(w, "\nopen loop: %g new requests/tick (λ/k = %.3g) for %d ticks; %s; controls: %s\n",
			t.Rate, t.Rate/float64(r.Scenario.Capacity), t.Ticks, OutagePhrase(t.OutageStart, t.OutageLength, t.OutageCapacity), d.Controls)
		fmt.Fprintf(w, "P(recovered within the horizon) = %.6g", *d.Recovered)
		if d.RecoveryTicks != nil {
			fmt.Fprintf(w, "; recovery time given recovery %s ± %s ticks", Number(d.RecoveryTicks.Mean), d.RecoveryTicks.sd())
		}
		fmt.Fprintf(w, "\nP(overflowed the chain's bounds: backlog > %d or queue > %d) = %.3g; mass cut (Poisson tail, pruning) %.2g\n",
			d.MaxBacklog, d.MaxQueue, d.Overflow, d.Truncated)
		if s := d.Stationary; s != nil {
			fmt.Fprintf(w, "stationary from tick %d (change %.2g): goodput %.6g/tick, queue %.6g\n", s.Tick, s.Change, s.Goodput, s.Queue)
		}
	} else if d.Unfinished > 0 {
		fmt.Fprintf(w, "\nunfinished probability %.3g (still running when the chain stopped)\n", d.Unfinished)
	}
	fmt.Fprintf(w, "%d states visited over %d ticks (at most %d at once; a priori at most %.3g)\n", d.States, d.Ticks, d.PeakStates, d.StateBound)
	if len(r.Completion.Distribution) > 0 {
		fmt.Fprintln(w, "P(completion = t):")
		for _, m := range r.Completion.Distribution {
			fmt.Fprintf(w, "  %d\t%.6g\n", m.Completion, m.P)
		}
	}
}

func (r ModelResult) chainCSV(cw *csv.Writer) {
	d := r.Chain
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range []struct {
		name string
		v    ModelValue
	}{{"useful", d.Useful}, {"wasted", d.Wasted}, {"timed_out", d.TimedOut}, {"rejected", d.Rejected}, {"gave_up", d.GaveUp}} {
		cw.Write([]string{r.Method, row.name, num(row.v.Mean), num(*row.v.SD)})
	}
	if d.Recovered != nil {
		cw.Write([]string{r.Method, "recovered", num(*d.Recovered), ""})
	}
	cw.Write([]string{r.Method, "overflow", num(d.Overflow), ""})
	for t, q := range d.QueueMean {
		cw.Write([]string{r.Method, "queue_mean(t=" + strconv.Itoa(t) + ")", num(q), ""})
	}
}
