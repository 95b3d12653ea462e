package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/stats"
)

// aloneBelow is the window under which a case is measured alone (see run).
const aloneBelow = 50 * time.Millisecond

// tolerance is how close herd's mean must be to the live mean when the
// intervals are narrower.
const tolerance = 0.05

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		os.Exit(1)
	}
}

// grid is the grid: every library at N = 200 and 1,000, k = 10 and
// 50, τ = 100 ms and 10 ms, the libraries whose runs take longest (their
// delays add up to 15 s and 51 s) first, so that cases measured at once
// finish together. The short grid is one case of each library at τ = 100
// ms that takes seconds, two for Full Jitter (about a minute and a half
// with 3 repetitions).
func grid(short bool) []caseSpec {
	var out []caseSpec
	for _, name := range []string{"retry-go", "retryablehttp", "cenkalti", "full-jitter"} {
		l, _ := libraryNamed(name)
		for _, w := range []time.Duration{100 * time.Millisecond, 10 * time.Millisecond} {
			for _, n := range []int{1000, 200} {
				for _, k := range []int{10, 50} {
					out = append(out, caseSpec{lib: l, clients: n, k: k, window: w})
				}
			}
		}
	}
	if !short {
		return out
	}
	keep := map[string]bool{
		"retry-go 200/50 τ=100ms": true, "retryablehttp 200/10 τ=100ms": true, "cenkalti 200/50 τ=100ms": true,
		"full-jitter 200/10 τ=100ms": true, "full-jitter 200/50 τ=100ms": true,
	}
	return slices.DeleteFunc(out, func(c caseSpec) bool { return !keep[c.String()] })
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("live", flag.ContinueOnError)
	fs.SetOutput(stderr)
	short := fs.Bool("short", false, "run the short grid (.ci/run's)")
	reps := fs.Int("reps", 3, "live repetitions per case")
	trials := fs.Int("trials", 1000, "herd's Monte Carlo trials per prediction")
	timeout := fs.Duration("timeout", 0, "stop everything after this long (default 40m, or 5m with -short)")
	only := fs.String("only", "", "run only the cases whose name contains this text, e.g. \"retry-go 200/10\"")
	parallel := fs.Int("parallel", 1, "cases with windows of 50 ms or more measured at once (shorter windows are always measured alone, after them); each case's repetitions run one after the other. More is faster but widens the first-send spreads and round trips (at 2, a 200/50 τ = 100 ms case measured beside retry-go 1000/10 had round trips of ~24 ms against ~2 ms alone)")
	trace := fs.String("trace", "", "write every request of every repetition to this CSV file (client send, handler entry, decision, answer and the delay drawn after it, µs from the server's first arrival)")
	load := fs.Bool("load", true, "give herd the round trip's load model (--latency-per-flight: a machine's time per way in flight, measured from the ways' times; --latency: the clients' own time between an answer and the next send); false: the measured round trips as one law independent of the load")
	replayFile := fs.String("replay", "", "judge herd again on the repetitions of this -trace file instead of running live ones (the network measured from the trace's times as a live run measures it); -only selects its cases")
	gaps := fs.Bool("gaps", false, "with -replay: print, for each case and for all together, the gaps of 2 ms or more after the first wave by the number of exchanges in flight (what the stalls' rule rests on), instead of judging herd")
	withNginx := fs.Bool("nginx", false, "run the nginx grid instead: the real libraries against a real nginx's limit_req on 127.0.0.1 (Debian's nginx, started and stopped for each run), predicted by herd's gcra server (docs/limiters.md); 8 repetitions per case, 2 with -short (and 5 of the 6 cases), unless -reps says")
	fs.StringVar(&nginxDir, "nginx-dir", "", "with -nginx: the directory under which each run's nginx keeps its configuration, pid file and logs (default: the system's temporary directory)")
	verbose := fs.Bool("v", false, "print every repetition (calls, completion in windows, give-ups, latest first arrival) and herd's prediction of each with the herd simulate command that gives it")
	if err := fs.Parse(args); err != nil {
		return err
	}
	loadModel = *load
	if *withNginx && !given(fs, "reps") { // each run is a few seconds
		*reps = map[bool]int{false: 8, true: 2}[*short]
	}
	if *timeout == 0 {
		*timeout = map[bool]time.Duration{false: 40 * time.Minute, true: 5 * time.Minute}[*short]
	}
	if *reps < 2 || *reps > 100 || *trials < 10 || *trials > 100_000 || *parallel < 1 || *parallel > 32 {
		return fmt.Errorf("-reps must be in [2, 100], -trials in [10, 100000] and -parallel in [1, 32]")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()

	if *gaps && *replayFile == "" {
		return fmt.Errorf("-gaps reads a trace: give it with -replay FILE")
	}
	if *replayFile != "" {
		return runReplay(ctx, *replayFile, *only, *trials, *verbose, *gaps, stdout, stderr)
	}
	var cases []caseSpec
	all := grid(*short)
	if *withNginx {
		all = nginxGrid(*short)
	}
	for _, cs := range all {
		if strings.Contains(cs.String(), *only) {
			cases = append(cases, cs)
		}
	}
	var traceOut *bufio.Writer
	if *trace != "" {
		f, err := os.Create(*trace)
		if err != nil {
			return err
		}
		defer f.Close()
		traceOut = bufio.NewWriter(f)
		defer traceOut.Flush()
		fmt.Fprintln(traceOut, "case,rep,client,attempt,sent_us,entered_us,decided_us,answered_us,admitted,delay_us")
	}
	rows := make([]row, len(cases))
	errs := make([]error, len(cases))
	var mu sync.Mutex // stderr
	// measureOne measures case i and says its verdict.
	measureOne := func(i int) {
		cs := cases[i]
		began := time.Now()
		var each func(repetition)
		nrep := 0
		if *verbose || traceOut != nil {
			each = func(rep repetition) {
				mu.Lock()
				defer mu.Unlock()
				nrep++
				if traceOut != nil {
					writeTrace(traceOut, cs, nrep, rep.requests)
				}
				if !*verbose {
					return
				}
				fmt.Fprintf(stderr, "  %s: %d calls, completion %s = window %d, %d gave up, latest first arrival %s\n", cs, rep.calls,
					rep.completion.Round(time.Millisecond), int(rep.completion/cs.window), rep.gaveUp, rep.firstMax.Round(time.Millisecond))
			}
		}
		var log io.Writer
		if *verbose {
			log = lockedWriter{&mu, stderr}
		}
		rows[i], errs[i] = measureCase(ctx, cs, *reps, *trials, traceOut != nil, each, log)
		mu.Lock()
		if errs[i] == nil {
			fmt.Fprintf(stderr, "%-30s %s (%s)\n", cs, rows[i].verdict(), time.Since(began).Round(time.Second))
		}
		mu.Unlock()
	}
	// measure measures the cases of indices idx, workers at once.
	measure := func(idx []int, workers int) {
		var next atomic.Int64
		var wg sync.WaitGroup
		for range min(workers, len(idx)) {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					j := int(next.Add(1)) - 1
					if j >= len(idx) || ctx.Err() != nil {
						return
					}
					measureOne(idx[j])
				}
			}()
		}
		wg.Wait()
	}
	// The cases with short windows are measured alone, after the others:
	// at τ = 10 ms another case's burst on the same two cores doubles the
	// first-send spread and the round trips (150–170 ms and ~60 ms at
	// 1,000/10, against ~70 and ~8 alone), load that herd's model of the
	// case does not have; at τ = 100 ms it moves nothing that matters.
	var together, alone []int
	for i, cs := range cases {
		if cs.window < aloneBelow {
			alone = append(alone, i)
		} else {
			together = append(together, i)
		}
	}
	measure(together, *parallel)
	measure(alone, 1)
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	failed := report(stdout, rows)
	if failed > 0 {
		return fmt.Errorf("%d of %d cases disagree with herd's continuous-time prediction", failed, len(rows))
	}
	return nil
}

// given says whether the flag name was set on the command line.
func given(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

// runReplay judges herd on every case of a trace whose name contains only,
// or with gaps prints their gaps' table instead.
func runReplay(ctx context.Context, file, only string, trials int, verbose, gaps bool, stdout, stderr io.Writer) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	cases, err := replay(f)
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	var rows []row
	var all gapTable
	matched := 0
	for _, c := range cases {
		if !strings.Contains(c.cs.String(), only) {
			continue
		}
		matched++
		if gaps {
			var g gapTable
			for _, r := range c.reps {
				g.addTable(r.lateGaps)
			}
			g.write(stdout, fmt.Sprintf("%s (%d runs)", c.cs, len(c.reps)))
			all.addTable(g)
			writeWaves(stdout, c.reps)
			continue
		}
		if len(c.reps) < 2 {
			return fmt.Errorf("%s: %s has %d repetition; judging needs at least 2", file, c.cs, len(c.reps))
		}
		var log io.Writer
		if verbose {
			log = stderr
		}
		r, err := judgeLogged(ctx, c.cs, c.reps, trials, log)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%-30s %s (replayed)\n", c.cs, r.verdict())
		rows = append(rows, r)
	}
	if matched == 0 {
		return fmt.Errorf("%s: no case matches -only %q", file, only)
	}
	if gaps {
		all.write(stdout, fmt.Sprintf("all %d cases", matched))
		return nil
	}
	if failed := report(stdout, rows); failed > 0 {
		return fmt.Errorf("%d of %d replayed cases disagree with herd's continuous-time prediction", failed, len(rows))
	}
	return nil
}

// row is one case: the live measurement and herd's predictions.
type row struct {
	cs                        caseSpec
	reps                      int
	net                       network
	calls, completion, gaveUp stats.Estimate // live; completion in ms
	// herd's continuous-time predictions of the runs, one per run from
	// the network it measured (the means over the runs), and their paired
	// differences from the live runs (herd − live).
	herdCalls, herdCompletion, herdGave stats.Estimate
	diffCalls, diffCompletion           stats.Estimate
	// byHerd is the 95% interval that herd itself puts on the live runs'
	// mean of calls and of completion: the central 95% of the law of the
	// mean of one of herd's trials per run, each with its run's network
	// (meanInterval). The paired differences' t-interval estimates that
	// spread from the few runs alone, and it is too narrow when the runs
	// happened to miss a rare mode that herd rightly gives: at retry-go
	// 200/10 τ = 10 ms a 4th attempt puts completion 400 ms later, in 3 of
	// 5 runs recorded on one day and none of 8 on another, and herd gives it
	// in a fifth to two thirds of the trials, by run.
	byHerdCalls, byHerdCompletion *stats.Interval
	// zCalls and zCompletion are the runs' paired differences in herd's
	// standard deviations, (live − herd's mean of the run)/(herd's SD of
	// one run with its network): were herd's law of one run right, their
	// spread would be 1 (see dispersion).
	zCalls, zCompletion stats.Moments
	tickCompletion      float64 // herd's tick model, ms
	// oneLaw is herd's continuous-time calls and completion (ms) with the
	// round trips as one law independent of the load, beside the load
	// model's (when -load).
	oneLawCalls, oneLawCompletion float64
	unaligned                     int
}

func measureCase(ctx context.Context, cs caseSpec, reps, trials int, trace bool, each func(repetition), log io.Writer) (row, error) {
	var rs []repetition
	for range reps {
		rep, err := runRepetition(ctx, cs, trace)
		if err != nil {
			return row{cs: cs, reps: reps}, err
		}
		rs = append(rs, rep)
		if each != nil {
			each(rep)
		}
	}
	return judgeLogged(ctx, cs, rs, trials, log)
}

// lockedWriter writes under mu (the cases measured at once share stderr).
type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// judge sets a case's row from its repetitions (live or replayed): the
// live means, and herd's prediction of each run, paired with it.
//
// Each run's burst of first sends reaches the server in its own clumps (a
// few arrivals, a pause while the runtime sets up connections, then most at
// once, at a different moment in each run): within a run the first arrivals
// are strongly dependent, and with k per window what a run's first wave
// gets through is min(arrivals, k) summed over the windows, a concave
// function of the clumps. Pooling every run's first arrivals into one law
// and drawing them independently spreads the clumps evenly over the windows
// and lets through more than any run did (at 200/50 τ = 10 ms, 0.72–0.83 of
// the live calls). The answers to the burst come back in a clump of their
// own (at 1000/10 τ = 10 ms, 80% of them within 15 ms while the arrivals
// took 50), which keeps the first retries bunched. So herd predicts each
// run from that run's first arrivals and first answers (their quantiles)
// with the rest of the network pooled over the runs, and
// the case is judged on the paired differences herd − live: their mean is
// herd's mean less the live mean, and their 95% interval is the combined
// interval of the acceptance (the variation of the bursts is in both, and
// cancels in the pairs).
func judge(ctx context.Context, cs caseSpec, rs []repetition, trials int) (row, error) {
	return judgeLogged(ctx, cs, rs, trials, nil)
}

// judgeLogged is judge that, with log, says for each run herd's command
// line and its prediction beside the live run.
func judgeLogged(ctx context.Context, cs caseSpec, rs []repetition, trials int, log io.Writer) (row, error) {
	var calls, completion, gaveUp stats.Moments
	r := row{cs: cs, reps: len(rs)}
	for _, rep := range rs {
		calls.Add(float64(rep.calls))
		completion.Add(float64(rep.completion) / 1e6)
		gaveUp.Add(float64(rep.gaveUp))
		r.unaligned += rep.unaligned
	}
	r.calls, r.completion, r.gaveUp = calls.Estimate(), completion.Estimate(), gaveUp.Estimate()
	r.net = measuredNetwork(rs, cs.clients)
	var hc, hm, hg, dc, dm stats.Moments
	var oc, om [][]float64 // herd's trials of each run (see row.byHerd)
	for _, rep := range rs {
		s, out, err := predictOutcomes(ctx, cs, r.net.ofRun(rep, cs.clients), trials)
		if err != nil {
			return r, err
		}
		var c, m []float64
		for _, o := range out { // the trials herd's summary counts
			if !o.Censored {
				c, m = append(c, o.Calls), append(m, o.Completion)
			}
		}
		oc, om = append(oc, c), append(om, m)
		if s.Calls == nil {
			return r, fmt.Errorf("%s: herd's trials were all censored", cs)
		}
		hc.Add(s.Calls.Mean)
		hm.Add(s.Completion.Mean)
		if s.GaveUp != nil {
			hg.Add(s.GaveUp.Mean)
		} else {
			hg.Add(0)
		}
		if log != nil {
			fmt.Fprintf(log, "  %s run %d: live %d calls, completion %.1f ms; herd %.1f calls, completion %.1f ms (p50 %.1f): %s\n", cs, hc.N(),
				rep.calls, float64(rep.completion)/1e6, s.Calls.Mean, s.Completion.Mean, s.Completion.Quantiles["p50"].Value, simulateCommand(cs, r.net.ofRun(rep, cs.clients), trials))
		}
		dc.Add(s.Calls.Mean - float64(rep.calls))
		dm.Add(s.Completion.Mean - float64(rep.completion)/1e6)
		if s.Calls.SD > 0 {
			r.zCalls.Add((float64(rep.calls) - s.Calls.Mean) / s.Calls.SD)
		}
		if s.Completion.SD > 0 {
			r.zCompletion.Add((float64(rep.completion)/1e6 - s.Completion.Mean) / s.Completion.SD)
		}
	}
	r.herdCalls, r.herdCompletion, r.herdGave = hc.Estimate(), hm.Estimate(), hg.Estimate()
	r.diffCalls, r.diffCompletion = dc.Estimate(), dm.Estimate()
	r.byHerdCalls, r.byHerdCompletion = meanInterval(oc), meanInterval(om)
	if loadModel {
		o, err := predictWith(ctx, cs, r.net, true, false, trials)
		if err != nil {
			return r, err
		}
		if o.Calls != nil {
			r.oneLawCalls, r.oneLawCompletion = o.Calls.Mean, o.Completion.Mean
		}
	}
	if cs.nginx != nil { // limiters run in continuous time only
		return r, nil
	}
	t, err := predict(ctx, cs, r.net, false, trials)
	if err != nil {
		return r, err
	}
	if t.Completion != nil {
		r.tickCompletion = t.Completion.Mean * float64(cs.window) / 1e6
	}
	return r, nil
}

func writeTrace(w io.Writer, cs caseSpec, rep int, rs []request) {
	us := func(d time.Duration) int64 { return d.Microseconds() }
	for _, r := range rs {
		delay := int64(-1)
		if r.delay >= 0 {
			delay = us(r.delay)
		}
		fmt.Fprintf(w, "%s,%d,%d,%d,%d,%d,%d,%d,%t,%d\n", cs, rep, r.client, r.attempt,
			us(r.sent), us(r.entered), us(r.decided), us(r.answered), r.admitted, delay)
	}
}

// agrees says whether herd's mean is within tolerance of the live one, or
// the two agree within either of two 95% intervals where that is wider
// than 5%: the t-interval of their paired differences (diff, herd − live)
// holds 0, or the one herd itself puts on the live runs' mean (byHerd, see
// row) holds the live mean.
func agrees(live, herd, diff stats.Estimate, byHerd *stats.Interval) bool {
	if live.Mean == 0 {
		return herd.Mean == 0
	}
	d := math.Abs(herd.Mean - live.Mean)
	return d <= tolerance*math.Abs(live.Mean) || d <= halfWidth(diff) ||
		byHerd != nil && byHerd[0] <= live.Mean && live.Mean <= byHerd[1]
}

// dispersion measures the rows' paired differences in herd's standard
// deviations (row.zCalls or zCompletion, by pick), sᵢ a case's standard
// deviation of them: pooled, √(Σ (nᵢ − 1)·sᵢ² / Σ (nᵢ − 1)), with the 95%
// range it would have were herd's law of one run right (the normal law's:
// √(χ²_df/df), df = Σ (nᵢ − 1)); and the cases' median sᵢ, with the median
// it would have then for the median case's runs (√(median of χ²_m/m), m =
// n − 1: 0.83 with 3 runs). Above them the live runs differ from herd's
// predictions of them more than herd's trials do, and herd's intervals on
// one run are too narrow. ok is false with fewer than 2 degrees of
// freedom.
func dispersion(rows []row, pick func(row) stats.Moments) (d spread, ok bool) {
	var ss float64
	var sds []float64
	var ns []int
	for _, r := range rows {
		m := pick(r)
		e := m.Estimate()
		if e.N >= 2 {
			ss += float64(e.N-1) * e.SD * e.SD
			d.df += e.N - 1
			sds, ns = append(sds, e.SD), append(ns, e.N)
		}
	}
	if d.df < 2 {
		return d, false
	}
	chi := distuv.ChiSquared{K: float64(d.df)}
	d.pooled, d.lo, d.hi = math.Sqrt(ss/float64(d.df)), math.Sqrt(chi.Quantile(0.025)/float64(d.df)), math.Sqrt(chi.Quantile(0.975)/float64(d.df))
	slices.Sort(sds)
	slices.Sort(ns)
	m := float64(ns[len(ns)/2] - 1)
	d.median, d.nullMedian = sds[len(sds)/2], math.Sqrt(distuv.ChiSquared{K: m}.Quantile(0.5)/m)
	return d, true
}

// spread is what dispersion measures.
type spread struct {
	pooled, lo, hi     float64
	df                 int
	median, nullMedian float64
}

// zSD is a case's standard deviation of its paired differences in herd's
// standard deviations (see dispersion).
func zSD(m stats.Moments) string {
	if e := (&m).Estimate(); e.N >= 2 {
		return fmt.Sprintf("%.1f", e.SD)
	}
	return "—"
}

// byInterval counts the rows' measures (calls, completion) whose herd mean
// is not within tolerance of the live one, which their intervals judge.
func byInterval(rows []row) int {
	n := 0
	for _, r := range rows {
		for _, m := range [][2]stats.Estimate{{r.calls, r.herdCalls}, {r.completion, r.herdCompletion}} {
			if m[0].Mean != 0 && math.Abs(m[1].Mean-m[0].Mean) > tolerance*math.Abs(m[0].Mean) {
				n++
			}
		}
	}
	return n
}

func halfWidth(e stats.Estimate) float64 {
	if e.CI95 == nil {
		return 0
	}
	return (e.CI95[1] - e.CI95[0]) / 2
}

func (r row) ok() bool {
	return agrees(r.calls, r.herdCalls, r.diffCalls, r.byHerdCalls) && agrees(r.completion, r.herdCompletion, r.diffCompletion, r.byHerdCompletion)
}

func (r row) verdict() string {
	if r.ok() {
		return "agrees"
	}
	return "DISAGREES"
}

func ratio(herd, live stats.Estimate) string {
	if live.Mean == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f", herd.Mean/live.Mean)
}

// pm is an estimate by herd's one precision rule, "316.65 ± 0.58".
func pm(e stats.Estimate) string { return render.Estimate(&e) }

// pmBy is a paired difference with its t-interval, and herd's own
// interval on the live mean (see row.byHerd).
func pmBy(diff stats.Estimate, byHerd *stats.Interval) string {
	herd := "—"
	if byHerd != nil {
		herd = render.Interval(byHerd)
	}
	return render.Text.Signed(diff.Mean, diff.CI95) + ", herd's " + herd
}

func stallText(s model.Stalls) string {
	if s.IsZero() {
		return "none"
	}
	return fmt.Sprintf("%s every %s", s.Length, s.Every)
}

func oneLaw(r row) string {
	if r.oneLawCalls == 0 || r.calls.Mean == 0 || r.completion.Mean == 0 {
		return "—"
	}
	return fmt.Sprintf("%.3f, %.3f", r.oneLawCalls/r.calls.Mean, r.oneLawCompletion/r.completion.Mean)
}

// report prints one line per case and returns the number that disagree.
func report(w io.Writer, rows []row) int {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "case\treps\tspread\tround trip quartiles; mean ± sd\tper flight; own time; stalls\tcalls live\tcalls herd\tratio\therd − live\tcompletion ms live\tcompletion ms herd\tratio\therd − live\tin windows live / herd / tick model\tgave up live / herd\tone law: calls, completion ratio\tpaired sd in herd's sd: calls, completion\tverdict")
	failed := 0
	for _, r := range rows {
		if !r.ok() {
			failed++
		}
		win := float64(r.cs.window) / 1e6
		ms := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/1e6) }
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s/%s/%s; %s ± %s ms\t%s; %s; %s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%.0f / %.0f / %.0f\t%.1f / %.1f\t%s\t%s, %s\t%s\n",
			r.cs, r.reps, r.net.spread.Round(time.Millisecond), ms(r.net.q25), ms(r.net.q50), ms(r.net.q75), ms(r.net.mean), ms(r.net.sd), r.net.perFlight.Round(time.Microsecond), r.net.lateness, stallText(r.net.stalls),
			pm(r.calls), pm(r.herdCalls), ratio(r.herdCalls, r.calls), pmBy(r.diffCalls, r.byHerdCalls),
			pm(r.completion), pm(r.herdCompletion), ratio(r.herdCompletion, r.completion), pmBy(r.diffCompletion, r.byHerdCompletion),
			r.completion.Mean/win, r.herdCompletion.Mean/win, r.tickCompletion/win,
			r.gaveUp.Mean, r.herdGave.Mean, oneLaw(r), zSD(r.zCalls), zSD(r.zCompletion), r.verdict())
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%d of %d cases agree: herd's continuous-time mean within %.0f%% of the live mean, or within the wider of two 95%% intervals: the t-interval of the runs' paired differences (herd predicts each run from its own first arrivals) and the interval herd itself puts on the runs' mean (the central 95%% of its law, one of herd's trials per run); on calls and completion.\n",
		len(rows)-failed, len(rows), 100*tolerance)
	if m := byInterval(rows); m > 0 {
		fmt.Fprintf(w, "%d of the %d measures (calls, completion) were judged by their intervals, not within %.0f%%: were herd exactly right, each of those would disagree by chance up to 5%% of the time, %.1f of them expected, at least one with probability up to %.2f.\n",
			m, 2*len(rows), 100*tolerance, 0.05*float64(m), 1-math.Pow(0.95, float64(m)))
	}
	for _, d := range []struct {
		name string
		pick func(row) stats.Moments
	}{{"calls", func(r row) stats.Moments { return r.zCalls }}, {"completion", func(r row) stats.Moments { return r.zCompletion }}} {
		if s, ok := dispersion(rows, d.pick); ok {
			fmt.Fprintf(w, "The runs' %s scatter about herd's prediction of each with a standard deviation of %.2f of herd's standard deviation of one run, the cases' median (%.2f were herd's law right); pooled, %.2f (%.2f–%.2f were herd's law right, %d degrees of freedom).\n",
				d.name, s.median, s.nullMedian, s.pooled, s.lo, s.hi, s.df)
		}
	}
	fmt.Fprintln(w, "Round trips and first-send spreads are measured on this machine and are herd's parameters; on a busy machine they are noisy.")
	return failed
}

// writeWaves prints each run's waves of rejected requests (see wave).
func writeWaves(w io.Writer, reps []repetition) {
	for i, r := range reps {
		if len(r.waves) == 0 {
			continue
		}
		fmt.Fprintf(w, "  run %d, rejected requests by attempt: decided over / answered within (5–95%%):", i+1)
		for _, v := range r.waves {
			fmt.Fprintf(w, " %d: %d, %.1f / %.1f ms;", v.attempt+1, v.rejected, float64(v.decided)/1e6, float64(v.answered)/1e6)
		}
		fmt.Fprintln(w)
	}
}
