package reproduce

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"github.com/herdlab/herd/service"
	"github.com/herdlab/herd/stats"
)

// Collapse experiments are published retry storms on the service server
// (service.Run): Brooker's simple_collapse_sim, happy-simulator's GC
// collapse and DesCartes' metastable retry storm. Each row is one variant
// of one experiment, played for many trials, and judged by a reading of
// its source's words decided before any run (Reading, in each setting;
// docs/servers.md gives the sources' words).

// Sources of the collapse experiments.
const (
	BrookerCollapseSource = "github.com/mbrooker/simulator_example simple_collapse_sim/sim.py"
	GCCollapseSource      = "github.com/adamfilli/happy-simulator examples/queuing/gc_caused_collapse.py"
	DesCartesSource       = "github.com/rupakm/DesCartes des-core/examples/metastable_retry_storm.rs"
)

// Expectation is what a source's claim says of one row.
type Expectation int

const (
	// NoClaim: the source says nothing of this row.
	NoClaim Expectation = iota
	// SomeCollapse: runs can stay collapsed after the trigger is gone: the
	// claim holds when the collapsed share's interval is above 0, fails
	// when it lies under 5%.
	SomeCollapse
	// AllCollapse: it never recovers: holds when the interval lies above
	// 90%, fails when it lies under 90%.
	AllCollapse
	// Recovers: it comes back: holds when the interval lies under 10%,
	// fails when it lies above 10%.
	Recovers
)

// CollapseSetting is one row: its run and how it is judged.
type CollapseSetting struct {
	Experiment string
	Variant    string  // no-backoff, backoff, no-retry
	Shape      string  // Brooker's spike or ramp
	Arrivals   string  // even or poisson
	PauseS     float64 // GC pause, seconds (0: none)
	Retries    int
	Spike      *bool // DesCartes: with the spike or without
	Run        service.Run
	// Goodput (successes per second) and amplification ((new requests +
	// retries decided)/new requests) are measured over these windows, in
	// seconds.
	GoodputFrom, GoodputTo float64
	AmpFrom, AmpTo         float64
	// A run has collapsed when its goodput over the goodput window is
	// under CollapseGoodput (> 0), else when it has not recovered within
	// RecoverWithin seconds of the trigger's end (0: by the load's end).
	CollapseGoodput float64
	RecoverWithin   float64
	Claim, Reading  string
	Expect          Expectation
	// Published is a value the source's own code gives for the
	// amplification (0: none), held to within 5%.
	Published float64
}

// CollapseRow is one row's result.
type CollapseRow struct {
	Experiment string   `json:"experiment"`
	Variant    string   `json:"variant,omitempty"`
	Shape      string   `json:"shape,omitempty"`
	Arrivals   string   `json:"arrivals,omitempty"`
	PauseS     *float64 `json:"pause_s,omitempty"`
	Retries    *int     `json:"retries,omitempty"`
	Spike      *bool    `json:"spike,omitempty"`
	Trials     int      `json:"trials"`
	// Collapsed has Wilson's 95% interval.
	Collapsed     stats.Share    `json:"collapsed"`
	Amplification stats.Estimate `json:"amplification"`
	Goodput       stats.Estimate `json:"goodput"`
	// Recovery is the time from the trigger's end to recovery, over the
	// runs that recovered (Recovered of them).
	Recovery stats.Estimate `json:"recovery_s"`
	// Before counts the runs already in a storm when the trigger came:
	// an attempt timed out in each 1 s bin of the 5 s before it (shown
	// where the arrivals are random).
	Before    *stats.Share `json:"collapsed_before_trigger,omitempty"`
	Recovered int          `json:"recovered"`
	Published float64      `json:"published_amplification,omitempty"`
	Claim     string       `json:"claim"`
	Reading   string       `json:"reading"`
	Verdict   string       `json:"verdict"`
}

// PlayCollapse plays one setting.
func PlayCollapse(ctx context.Context, s CollapseSetting, opt service.Options) (CollapseRow, error) {
	row := CollapseRow{Experiment: s.Experiment, Variant: s.Variant, Shape: s.Shape, Arrivals: s.Arrivals, Spike: s.Spike,
		Trials: opt.Trials, Published: s.Published, Claim: s.Claim, Reading: s.Reading}
	retries := s.Retries
	row.Retries = &retries
	if s.Experiment == "gc-collapse" {
		p := s.PauseS
		row.PauseS = &p
	}
	if s.Run.Deterministic() {
		// Every trial would be the same run: one decides, exactly.
		opt.Trials = 1
		row.Trials = 1
	}
	var amp, good, rec stats.Moments
	collapsed, before := 0, 0
	bin := s.Run.BinLength().Seconds()
	trig := s.Run.TriggerEnd.Seconds()
	err := service.RunTrials(ctx, s.Run, opt, func(t *service.Trial) error {
		g := t.Window(bin, s.GoodputFrom, s.GoodputTo)
		gp := float64(g.Successes) / (s.GoodputTo - s.GoodputFrom)
		good.Add(gp)
		a := t.Window(bin, s.AmpFrom, s.AmpTo)
		if a.Starts > 0 {
			amp.Add(float64(a.Starts+a.Retries) / float64(a.Starts))
		}
		late := !t.Recovered || s.RecoverWithin > 0 && t.RecoveredAt-trig > s.RecoverWithin
		if s.CollapseGoodput > 0 && gp < s.CollapseGoodput || s.CollapseGoodput == 0 && late {
			collapsed++
		}
		storm := true
		for from := s.Run.TriggerStart.Seconds() - 5; from < s.Run.TriggerStart.Seconds()-0.5; from++ {
			storm = storm && t.Window(bin, from, from+1).Timeouts > 0
		}
		if storm {
			before++
		}
		if t.Recovered {
			rec.Add(t.RecoveredAt - trig)
		}
		return nil
	})
	if err != nil {
		return CollapseRow{}, err
	}
	row.Collapsed = stats.Wilson(collapsed, opt.Trials)
	row.Amplification, row.Goodput, row.Recovery, row.Recovered = amp.Estimate(), good.Estimate(), rec.Estimate(), rec.N()
	if row.Trials == 1 && s.Run.Deterministic() {
		row.Collapsed.CI95 = stats.Interval{row.Collapsed.Value, row.Collapsed.Value}
		row.Amplification, row.Goodput = stats.Exact(row.Amplification.Mean), stats.Exact(row.Goodput.Mean)
		if row.Recovered == 1 {
			row.Recovery = stats.Exact(row.Recovery.Mean)
		}
	}
	if s.Arrivals == "poisson" && s.Experiment == "gc-collapse" {
		b := stats.Wilson(before, opt.Trials)
		row.Before = &b
	}
	row.Verdict = verdictOf(s, row)
	return row, nil
}

func verdictOf(s CollapseSetting, r CollapseRow) string {
	lo, hi := r.Collapsed.CI95[0], r.Collapsed.CI95[1]
	pick := func(holds, fails bool) string {
		switch {
		case holds:
			return "holds"
		case fails:
			return "fails"
		}
		return "inconclusive"
	}
	v := "no claim"
	switch s.Expect {
	case SomeCollapse:
		v = pick(lo > 0, hi < 0.05)
	case AllCollapse:
		v = pick(lo > 0.9, hi < 0.9)
	case Recovers:
		v = pick(hi < 0.1, lo > 0.1)
	}
	if s.Published > 0 {
		ok := math.Abs(r.Amplification.Mean-s.Published) <= 0.05*s.Published
		switch {
		case v == "no claim":
			v = pick(ok, !ok)
		case v == "holds" && !ok:
			v = "fails"
		}
	}
	return v
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Brooker's simple_collapse_sim: one server whose every request starts at
// once (no queue) and takes 1 s + 0.01 s·(requests in service, itself
// included), fixed when it starts; Exp(0.1 s) network each way; clients
// that time out 3 s after each send and make 3 attempts, retrying at once
// or after his jittered backoff (U(0, 20 s), then U(0, 40 s): full jitter
// with base 10 s doubling); Poisson arrivals over 80 s.
func brookerRun(shape, variant string) service.Run {
	run := service.Run{
		Server: service.Server{Workers: 0, Room: -1,
			Service: service.Law{Trip: model.RoundTrip{A: time.Second}}, Slope: 10 * time.Millisecond,
			Timeout: 3 * time.Second, Network: service.Law{Exp: true, Mean: 100 * time.Millisecond}},
		Duration: 80 * time.Second, Attempts: 3, Policy: policy.Policy{Kind: policy.None, Base: 1, Cap: 1},
		TriggerStart: 20 * time.Second, TriggerEnd: 25 * time.Second, RecoveredBacklog: 100,
	}
	if shape == "spike" {
		run.Load = service.Load{{Rate: 40}, {At: 20 * time.Second, Rate: 80}, {At: 25 * time.Second, Rate: 40}}
	} else {
		run.Load = service.Load{{Rate: 40}, {At: 25 * time.Second, Rate: 80, Ramp: true}, {At: 75 * time.Second, Rate: 0, Ramp: true}}
		run.TriggerStart, run.TriggerEnd = 0, 75*time.Second
	}
	switch variant {
	case "backoff":
		run.Policy = policy.Policy{Kind: policy.Full, Base: 10, Cap: 40}
	case "no-retry":
		run.Attempts = 1
	}
	return run
}

// BrookerCollapse is the experiment's six rows.
func BrookerCollapse() []CollapseSetting {
	var out []CollapseSetting
	for _, shape := range []string{"spike", "ramp"} {
		for _, v := range []string{"no-backoff", "backoff", "no-retry"} {
			s := CollapseSetting{Experiment: "brooker-collapse", Variant: v, Shape: shape, Arrivals: "poisson", Retries: 2,
				Run: brookerRun(shape, v), GoodputFrom: 60, GoodputTo: 80, AmpFrom: 60, AmpTo: 80, CollapseGoodput: 20,
				Claim:   `"the simple combination of timeout and retry, even with backoff, leads to unstable system behavior in open systems" (sim.py)`,
				Reading: "collapsed: goodput over [60 s, 80 s) under 20/s, half the base load of 40/s (the spike ended at 25 s); the claim holds when runs stay collapsed (the share's interval above 0), fails when the interval lies under 5%",
				Expect:  SomeCollapse}
			if v == "no-retry" {
				s.Retries = 0
				s.Claim = "without retries the system follows its load (the source blames the retries)"
				s.Reading = "collapsed as above; the claim holds when the collapsed share's interval lies under 10%"
				s.Expect = Recovers
			}
			if shape == "ramp" {
				s.AmpFrom, s.AmpTo = 50, 70
				s.GoodputFrom, s.GoodputTo = 50, 70
				s.CollapseGoodput = (s.Run.Load.Integral(70) - s.Run.Load.Integral(50)) / 20 / 2
				s.Reading = "amplification: (new requests + retries decided)/new requests over [50 s, 70 s), as his per-second counts give it; collapsed: goodput over [50 s, 70 s) under half the new requests' rate there"
				s.Expect = NoClaim
				switch v {
				case "no-backoff":
					s.Published, s.Claim = 3.62, "his script gives amplification 3.62 over [50 s, 70 s) without backoff (10 runs)"
				case "backoff":
					s.Published, s.Claim = 4.28, "his script gives amplification 4.28 over [50 s, 70 s) with backoff (10 runs)"
				default:
					s.Claim = "none: his script gives no amplification for the ramp without retries; the row is herd's, for comparison"
				}
			}
			out = append(out, s)
		}
	}
	return out
}

// happy-simulator's GC collapse: new requests 1/7 s apart (or Poisson at
// 7/s) for 60 s and 10 s of drain, one FIFO worker with an unbounded
// queue, constant 100 ms service, no network, 500 ms timeout from the
// send, 3 retries 50 ms after each timeout; the server serves abandoned
// requests, and an abandoned attempt's answer serves its request while
// the client waits on a later attempt; one pause at 30 s.
func gcRun(arrivals service.Arrivals, pause float64, retries int) service.Run {
	return service.Run{
		Server: service.Server{Workers: 1, Room: -1, Service: service.Law{Trip: model.RoundTrip{A: 100 * time.Millisecond}},
			Timeout: 500 * time.Millisecond, LateSuccess: true,
			Pauses: []service.Pause{{At: 30 * time.Second, Length: seconds(pause)}}},
		Load: service.Load{{Rate: 7}}, Arrivals: arrivals, Duration: 60 * time.Second, Drain: 10 * time.Second,
		Attempts: retries + 1, Policy: policy.Policy{Kind: policy.Fixed, Base: 1, Cap: 1, FixedDelay: 0.05},
		TriggerStart: 30 * time.Second, TriggerEnd: 30*time.Second + seconds(pause), RecoveredBacklog: 1,
	}
}

// GCCollapse is the experiment's rows: even and Poisson arrivals ×
// pauses of 0.45, 0.5 and 1 s × 3 retries and none.
func GCCollapse() []CollapseSetting {
	var out []CollapseSetting
	for _, arr := range []service.Arrivals{service.Even, service.Poisson} {
		for _, retries := range []int{3, 0} {
			for _, pause := range []float64{0.45, 0.5, 1} {
				s := CollapseSetting{Experiment: "gc-collapse", Variant: "no-backoff", Arrivals: arr.String(), PauseS: pause, Retries: retries,
					Run: gcRun(arr, pause, retries), AmpFrom: 0, AmpTo: 70,
					Reading: "recovered: at a 1 s bin's end after the pause, before the load stops at 60 s, nothing waits (at most the one request in service) and no attempt timed out in the bin; collapsed: never recovered"}
				s.GoodputFrom, s.GoodputTo = 30+pause, 60
				switch {
				case retries == 0:
					s.Variant = "no-retry"
					s.Claim, s.Expect = `"Without retries: System experiences brief latency spikes during GC but returns to steady state" (gc_caused_collapse.py)`, Recovers
				case pause > 0.5:
					s.Claim, s.Expect = `"GC pause exceeding client timeout triggers non-recoverable metastable collapse"; "System never recovers" (gc_caused_collapse.py)`, AllCollapse
				default:
					s.Claim, s.Expect = "a pause no longer than the timeout (the source's condition is a pause exceeding it) does not trigger the collapse", Recovers
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// DesCartes' metastable retry storm as its description gives it: M/M/1
// with λ = 9.3/s and μ = 10/s, a waiting room of 100 (besides the one in
// service), a 4 s timeout from the send, 3 immediate retries, a send that
// finds the room full dropped for good, a 30/s spike over [120 s, 125 s),
// 400 s in all.
func descartesRun(spike bool) service.Run {
	run := service.Run{
		Server: service.Server{Workers: 1, Room: 100, RejectFinal: true,
			Service: service.Law{Exp: true, Mean: 100 * time.Millisecond}, Timeout: 4 * time.Second},
		Load: service.Load{{Rate: 9.3}}, Duration: 400 * time.Second, Attempts: 4,
		Policy:       policy.Policy{Kind: policy.None, Base: 1, Cap: 1},
		TriggerStart: 120 * time.Second, TriggerEnd: 125 * time.Second, RecoveredBacklog: 20,
	}
	if spike {
		run.Load = service.Load{{Rate: 9.3}, {At: 120 * time.Second, Rate: 30}, {At: 125 * time.Second, Rate: 9.3}}
	}
	return run
}

// DescartesStorm is the experiment's rows, with the spike and without.
func DescartesStorm() []CollapseSetting {
	var out []CollapseSetting
	for _, spike := range []bool{true, false} {
		sp := spike
		s := CollapseSetting{Experiment: "descartes-storm", Variant: "no-backoff", Arrivals: "poisson", Retries: 3, Spike: &sp,
			Run: descartesRun(spike), GoodputFrom: 125, GoodputTo: 400, AmpFrom: 0, AmpTo: 400, RecoverWithin: 60,
			Claim:   `"Even after an external workload spike ends, retries can keep the effective offered load high" (metastable_retry_storm.rs)`,
			Reading: "recovered: within 60 s of the spike's end (its monitor's recovery_time_limit) a 1 s bin ends with at most 20 requests at the server (the M/M/1 mean is 13.3) and no timeout in it; collapsed: not recovered; the claim holds when the collapsed share's interval is above 0",
			Expect:  SomeCollapse}
		if !spike {
			s.Claim = "the spike is the trigger: without it the system stays up"
			s.Reading = "judged as with the spike, from 125 s; the claim holds when the collapsed share's interval lies under 10%"
			s.Expect = Recovers
		}
		out = append(out, s)
	}
	return out
}

// Collapse names the collapse experiments and their settings.
func Collapse(name string) ([]CollapseSetting, error) {
	switch name {
	case "brooker-collapse":
		return BrookerCollapse(), nil
	case "gc-collapse":
		return GCCollapse(), nil
	case "descartes-storm":
		return DescartesStorm(), nil
	}
	return nil, fmt.Errorf("no collapse experiment %q", name)
}

// PlayCollapses plays every setting in order.
func PlayCollapses(ctx context.Context, settings []CollapseSetting, opt service.Options, progress func(done, total int)) ([]CollapseRow, error) {
	var rows []CollapseRow
	for i, s := range settings {
		r, err := PlayCollapse(ctx, s, opt)
		if err != nil {
			return nil, err
		}
		rows = append(rows, r)
		if progress != nil {
			progress(i+1, len(settings))
		}
	}
	return rows, nil
}
