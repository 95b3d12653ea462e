package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// chainFlags are the queue chain's bounds.
type chainFlags struct {
	maxBacklog, maxQueue int
}

func (f *chainFlags) register(c *cobra.Command) {
	fs := c.Flags()
	fs.IntVar(&f.maxBacklog, "max-backlog", solve.DefaultChainBacklog, fmt.Sprintf("chain, open loop: live requests beyond which a path leaves the chain as overflowed (1…%d)", 65535))
	fs.IntVar(&f.maxQueue, "max-queue", solve.DefaultChainQueue, fmt.Sprintf("chain, open loop: queue length beyond which a path leaves the chain as overflowed (1…%d)", 65535))
}

// chainDetail is what the queue chain adds to herd model's JSON.
type chainDetail struct {
	OpenLoop      bool              `json:"open_loop"`
	Traffic       *chainTraffic     `json:"traffic,omitempty"`
	Controls      string            `json:"controls"`
	Useful        modelValue        `json:"useful"`
	Wasted        modelValue        `json:"wasted"`
	TimedOut      modelValue        `json:"timed_out"`
	Rejected      modelValue        `json:"rejected"`
	GaveUp        modelValue        `json:"gave_up"`
	Unfinished    float64           `json:"unfinished"`
	Recovered     *float64          `json:"recovered,omitempty"`
	RecoveryTicks *modelValue       `json:"recovery_ticks,omitempty"`
	Overflow      float64           `json:"overflow"`
	MaxBacklog    int               `json:"max_backlog,omitempty"`
	MaxQueue      int               `json:"max_queue,omitempty"`
	Truncated     float64           `json:"truncated"`
	Stationary    *solve.Stationary `json:"stationary,omitempty"`
	// Per tick: expected queue length after it, useful and wasted
	// completions in it, live requests after it.
	QueueMean   []float64 `json:"queue_mean"`
	Goodput     []float64 `json:"goodput"`
	WastedAt    []float64 `json:"wasted_series"`
	BacklogMean []float64 `json:"backlog_mean"`
	Ticks       int       `json:"ticks"`
	States      int       `json:"states"`
	PeakStates  int       `json:"peak_states"`
	StateBound  float64   `json:"state_bound"`
}

type chainTraffic struct {
	Rate           float64 `json:"rate"`
	Ticks          int     `json:"ticks"`
	OutageStart    int     `json:"outage_start"`
	OutageLength   int     `json:"outage"`
	OutageCapacity int     `json:"outage_capacity"`
	Recovered      int     `json:"recovered_backlog"`
}

// options puts the queue chain's traffic, controls and bounds into
// opts.Solve, and refuses them with another method.
func (f *chainFlags) options(fs *pflag.FlagSet, opts *modelOptions, traffic *trafficFlags, controls *controlFlags) error {
	mode, tr, _, err := traffic.traffic(fs, opts.Scenario)
	if err != nil {
		return err
	}
	ctl, err := controls.controls(fs, opts.Scenario)
	if err != nil {
		return err
	}
	if opts.Method != solve.MethodChain {
		for _, n := range []string{"max-backlog", "max-queue"} {
			if fs.Changed(n) {
				return usageError{fmt.Errorf("--%s needs --method chain", n)}
			}
		}
		if mode != cohortRun || ctl.Active() {
			return usageError{fmt.Errorf("open-loop traffic and retry controls need --method chain (the other models follow a cohort without controls)")}
		}
		return nil
	}
	if mode == closedRun {
		return usageError{fmt.Errorf("--loop closed: the chain follows a cohort or open-loop traffic (--rate)")}
	}
	if mode == openRun {
		opts.Solve.Traffic = &tr
	}
	opts.Solve.Controls = ctl
	opts.Solve.Chain = solve.QueueChainOptions{MaxBacklog: f.maxBacklog, MaxQueue: f.maxQueue, Tail: 1e-12}
	return nil
}

// chainResult fills herd model's result from the queue chain.
func chainResult(res *modelResult, r solve.QueueChain, sc model.Scenario) {
	for t, p := range r.Distribution {
		if p > 0 {
			res.Completion.Distribution = append(res.Completion.Distribution, completionMass{t, p})
		}
	}
	d := &chainDetail{OpenLoop: r.Open, Controls: r.Controls.String(),
		Useful: exactly(r.Useful.Mean, r.Useful.SD), Wasted: exactly(r.Wasted.Mean, r.Wasted.SD),
		TimedOut: exactly(r.TimedOut.Mean, r.TimedOut.SD), Rejected: exactly(r.Rejected.Mean, r.Rejected.SD),
		GaveUp: exactly(r.GaveUp.Mean, r.GaveUp.SD), Unfinished: r.Unfinished, Overflow: r.Overflow, Truncated: r.Truncated,
		Stationary: r.Stationary, QueueMean: r.QueueMean, Goodput: r.UsefulAt, WastedAt: r.WastedAt, BacklogMean: r.BacklogMean,
		Ticks: r.Ticks, States: r.States, PeakStates: r.PeakStates, StateBound: r.Bound}
	if tr := r.Traffic; tr != nil {
		d.MaxBacklog, d.MaxQueue = r.Options.MaxBacklog, r.Options.MaxQueue
		d.Traffic = &chainTraffic{tr.Rate, tr.Ticks, tr.OutageStart, tr.OutageLength, tr.OutageCapacity, tr.RecoveryBacklog(sc.Capacity)}
		rec := r.Recovered
		d.Recovered = &rec
		if rec > 0 {
			v := exactly(r.RecoveryTicks.Mean, r.RecoveryTicks.SD)
			d.RecoveryTicks = &v
		}
	}
	res.Chain = d
}

func chainTable(w io.Writer, r modelResult) {
	d := r.Chain
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	over := "finished trials"
	if d.OpenLoop {
		over = "paths still in the chain at the last tick"
	}
	fmt.Fprintf(tw, "\nmoments over %s\tmean\tsd\n", over)
	for _, row := range []struct {
		name string
		v    modelValue
	}{{"useful completions", d.Useful}, {"wasted work (abandoned requests served)", d.Wasted}, {"attempts timed out", d.TimedOut},
		{"sends rejected (queue full)", d.Rejected}, {"requests given up", d.GaveUp}} {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", row.name, render.Number(row.v.Mean), row.v.sd())
	}
	tw.Flush()
	if d.OpenLoop {
		t := d.Traffic
		fmt.Fprintf(w, "\nopen loop: %g new requests/tick (λ/k = %.3g) for %d ticks; %s; controls: %s\n",
			t.Rate, t.Rate/float64(r.Scenario.Capacity), t.Ticks, render.OutagePhrase(t.OutageStart, t.OutageLength, t.OutageCapacity), d.Controls)
		fmt.Fprintf(w, "P(recovered within the horizon) = %.6g", *d.Recovered)
		if d.RecoveryTicks != nil {
			fmt.Fprintf(w, "; recovery time given recovery %s ± %s ticks", render.Number(d.RecoveryTicks.Mean), d.RecoveryTicks.sd())
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

func chainCSV(cw *csv.Writer, r modelResult) {
	d := r.Chain
	num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, row := range []struct {
		name string
		v    modelValue
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
