package main

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"gonum.org/v1/gonum/stat"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// network is what the live runs measured of the network, which herd's
// continuous-time model takes as parameters.
type network struct {
	spread time.Duration   // first sends uniform over [0, spread)
	trip   model.RoundTrip // the uniform law with the measured quartiles
	// The measured round trips' quartiles, mean and standard deviation.
	q25, q50, q75, mean, sd time.Duration
	// perFlight is the machine's time per way (herd's
	// --latency-per-flight) and lateness the law of the client's own time
	// between its answer and its retry's send (herd's --latency then):
	// the load model (see loadNetwork).
	perFlight time.Duration
	lateness  model.RoundTrip
	// firsts is the law of the first arrivals: their quantiles at p =
	// 0, 1/20, …, 1 over all repetitions.
	firsts model.RoundTrip
	// answers is the law of the first sends' answers back at the clients,
	// of one run (see ofRun; zero when pooled).
	answers model.RoundTrip
	// stalls are the machine's stops (see machineStalls).
	stalls model.Stalls
}

// measuredNetwork estimates the first-send spread S from the latest first
// arrival of each repetition (E[max] = S·N/(N+1) for N uniform first
// sends) and the round trip from every retry's: the uniform law with the
// measured quartiles, on [q25 − IQR/2, q75 + IQR/2] (IQR = q75 − q25,
// clamped at 0). Quartiles, not the whole sample: on a busy machine the
// scheduler stalls the whole process now and then, and a stall delays
// every request in flight together — it shifts a wave of retries without
// spreading it — while the round trips herd draws are independent per
// attempt and would spread the wave by the stalls' long tail; and the
// uniform law, because the mixture of loopback fast paths and stalled
// requests is no log-normal (its quartiles can be 100 µs and 50 ms).
func measuredNetwork(reps []repetition, clients int) network {
	var first float64
	var trips []float64
	for _, r := range reps {
		first += float64(r.firstMax) / float64(len(reps))
		for _, t := range r.trips {
			trips = append(trips, float64(t))
		}
	}
	n := network{spread: time.Duration(first * float64(clients+1) / float64(clients))}
	if len(trips) < 4 {
		return n
	}
	slices.Sort(trips)
	q := func(p float64) float64 { return math.Max(0, stat.Quantile(p, stat.Empirical, trips, nil)) }
	n.q25, n.q50, n.q75 = time.Duration(q(0.25)), time.Duration(q(0.5)), time.Duration(q(0.75))
	m, sd := stat.MeanStdDev(trips, nil)
	n.mean, n.sd = time.Duration(m), time.Duration(sd)
	n.trip = quartileLaw(trips)
	n.perFlight, n.lateness = loadNetwork(reps)
	n.firsts = firstArrivals(reps)
	n.stalls = machineStalls(reps)
	return n
}

// ofRun is the network with the first sends of one run: the law of their
// arrivals and of their answers (their quantiles), and their spread (as
// measuredNetwork's).
func (n network) ofRun(rep repetition, clients int) network {
	n.firsts = firstArrivals([]repetition{rep})
	n.answers = quantileLaw(rep.answers)
	n.spread = time.Duration(float64(rep.firstMax) * float64(clients+1) / float64(clients))
	return n
}

// machineStalls measures the machine's stops after the first wave (once
// every first send's answer was back): the gaps of at least minStall in
// which nothing at all moved (no send, decision or answer) while at least
// minStuck exchanges were in flight. Length is their mean and Every the
// time the machine ran (that many in flight, less the stops) per stop.
// Zero when there were
// fewer than 3. Most stops come in the first wave (on the idle machine's
// τ = 10 ms runs, 80–100% of the stopped time at N = 1,000), whose times
// the laws of the first arrivals and answers already hold; spread over
// the whole run as an exponential on/off machine they would bunch the
// later retries, when the machine is nearly idle and seldom stops.
func machineStalls(reps []repetition) model.Stalls {
	var n int
	var stopped, busy time.Duration
	for _, r := range reps {
		n += len(r.lateStalls)
		for _, s := range r.lateStalls {
			stopped += s.to - s.from
		}
		busy += r.lateBusy
	}
	if n < 3 || busy <= stopped {
		return model.Stalls{}
	}
	return model.Stalls{Every: ((busy - stopped) / time.Duration(n)).Round(time.Microsecond), Length: (stopped / time.Duration(n)).Round(time.Microsecond)}
}

// firstArrivals is the law of the first arrivals at the server, the
// quantiles of all repetitions' at p = i/20: the burst of N clients
// reaches the server in clumps (a few, a pause while the runtime sets up
// the connections, then most at once), which the uniform over [0, S)
// spreads evenly over the windows.
func firstArrivals(reps []repetition) model.RoundTrip {
	var xs []time.Duration
	for _, r := range reps {
		xs = append(xs, r.firsts...)
	}
	return quantileLaw(xs)
}

// quantileLaw is the quantiles: law of the times ts at p = i/20 (zero
// with fewer than 2).
func quantileLaw(ts []time.Duration) model.RoundTrip {
	xs := make([]float64, 0, len(ts))
	for _, t := range ts {
		xs = append(xs, float64(t))
	}
	if len(xs) < 2 {
		return model.RoundTrip{}
	}
	slices.Sort(xs)
	const m = model.MaxQuantiles - 1
	law := model.RoundTrip{Law: model.QuantileTrip, M: m}
	for i := range m + 1 {
		law.Q[i] = time.Duration(stat.Quantile(float64(i)/m, stat.Empirical, xs, nil)).Round(time.Microsecond)
	}
	return law
}

// quartileLaw is the uniform law with the quartiles of the sorted sample
// xs: on [q25 − IQR/2, q75 + IQR/2], clamped at 0.
func quartileLaw(xs []float64) model.RoundTrip {
	q := func(p float64) float64 { return math.Max(0, stat.Quantile(p, stat.Empirical, xs, nil)) }
	iqr := q(0.75) - q(0.25)
	lo := math.Max(0, q(0.25)-iqr/2)
	return model.RoundTrip{Law: model.UniformTrip, A: time.Duration(lo).Round(time.Microsecond), B: time.Duration(lo + 2*iqr).Round(time.Microsecond)}
}

// loadNetwork measures the load model of the round trip, from the
// network's times alone (never from the calls it predicts): one machine
// (the two cores the clients and the server share) carries every way of
// every exchange one at a time, requests before answers (see
// montecarlo.WindowEngine), each way taking P of it, so a way that begins with m other exchanges in flight takes P·(1 + m). P is
// the median over all ways of took/(1 + m): a median, because a busy
// machine's scheduler stalls the whole process now and then (ways of 200
// ms at any load) and the mean would make those the machine's speed. The
// client's own time between its answer and its next send, less the delay
// it drew (timer lateness, the library's work), is the uniform law with
// its quartiles, as measuredNetwork's round trip.
func loadNetwork(reps []repetition) (time.Duration, model.RoundTrip) {
	var per, late []float64
	for _, r := range reps {
		for _, f := range r.flights {
			per = append(per, float64(f.took)/float64(1+max(0, f.inFlight)))
		}
		for _, l := range r.lateness {
			late = append(late, float64(l))
		}
	}
	if len(per) < 4 || len(late) < 4 {
		return 0, model.RoundTrip{}
	}
	slices.Sort(per)
	slices.Sort(late)
	return time.Duration(stat.Quantile(0.5, stat.Empirical, per, nil)), quartileLaw(late)
}

// loadModel says whether herd is given the network's load model (a
// machine's time per way in flight, the clients' own time and the
// measured law of the first arrivals) rather than the measured round
// trips as one law independent of the load and first arrivals uniform
// over the measured spread.
var loadModel = true

// scenario is herd's scenario of a case: continuous time with the measured
// network, or the tick model with a tick of one window.
func scenario(cs caseSpec, net network, continuous bool) (model.Scenario, error) {
	return scenarioWith(cs, net, continuous, loadModel)
}

func scenarioWith(cs caseSpec, net network, continuous, loadModel bool) (model.Scenario, error) {
	return model.ScenarioOf(scenarioArgs(cs, net, continuous, loadModel)...)
}

// simulateCommand is the herd command line that predicts a case from the
// network: what -v prints for each run, to rerun one by hand.
func simulateCommand(cs caseSpec, net network, trials int) string {
	args := scenarioArgs(cs, net, true, loadModel)
	var b strings.Builder
	b.WriteString("herd simulate")
	for i := 0; i < len(args); i += 2 {
		if args[i+1] == "true" { // a boolean flag takes no separate value
			fmt.Fprintf(&b, " --%s", args[i])
			continue
		}
		fmt.Fprintf(&b, " --%s %s", args[i], args[i+1])
	}
	fmt.Fprintf(&b, " --trials %d --seed 1", trials)
	return b.String()
}

// scenarioArgs are herd's scenario fields and values of a case, in order.
func scenarioArgs(cs caseSpec, net network, continuous, loadModel bool) []string {
	var args []string
	set := func(f, v string) { args = append(args, f, v) }
	set("policy", cs.lib.policy)
	set("clients", strconv.Itoa(cs.clients))
	set("capacity", strconv.Itoa(cs.k))
	if cs.nginx != nil {
		set("server", "gcra")
		set("burst", strconv.Itoa(cs.nginx.burst))
		if cs.nginx.nodelay {
			set("nodelay", "true")
		}
	}
	if continuous {
		set("window", cs.window.String())
		if loadModel && net.perFlight > 0 && !net.firsts.IsZero() {
			set("first-arrivals", net.firsts.String())
			if !net.answers.IsZero() {
				set("first-answers", net.answers.String())
			}
			set("latency", net.lateness.String())
			set("latency-per-flight", net.perFlight.String())
			if !net.stalls.IsZero() {
				set("stalls", net.stalls.String())
			}
		} else {
			set("first-spread", net.spread.String())
			set("latency", net.trip.String())
		}
	} else {
		set("tick", cs.window.String())
	}
	return args
}

// predict is herd's Monte Carlo of a case.
func predict(ctx context.Context, cs caseSpec, net network, continuous bool, trials int) (analysis.Summary, error) {
	return predictWith(ctx, cs, net, continuous, loadModel, trials)
}

// predictOutcomes is predict in continuous time with every trial's
// outcome.
func predictOutcomes(ctx context.Context, cs caseSpec, net network, trials int) (analysis.Summary, []analysis.Outcome, error) {
	sc, err := scenario(cs, net, true)
	if err != nil {
		return analysis.Summary{}, nil, fmt.Errorf("%s: %w", cs, err)
	}
	return analysis.SimulateOutcomes(ctx, sc, montecarlo.Options{Trials: trials, Seed: 1})
}

func predictWith(ctx context.Context, cs caseSpec, net network, continuous, loadModel bool, trials int) (analysis.Summary, error) {
	sc, err := scenarioWith(cs, net, continuous, loadModel)
	if err != nil {
		return analysis.Summary{}, fmt.Errorf("%s: %w", cs, err)
	}
	return analysis.Simulate(ctx, sc, montecarlo.Options{Trials: trials, Seed: 1})
}
