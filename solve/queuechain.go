package solve

import (
	"context"
	"fmt"
	"math"

	"github.com/herdlab/herd/control"
	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
	"gonum.org/v1/gonum/stat/distuv"
)

// MethodChain is the exact chain of the queue server, as herd model
// --method spells it.
const MethodChain = "chain"

// QueueChainOptions bound the queue chain's work and say where it cuts
// what has no bound.
type QueueChainOptions struct {
	// MaxStates is the most states at one tick; a system that needs more is
	// refused with the count it reached. 0 means DefaultMaxStates.
	MaxStates int
	// Tail stops a cohort's chain once the probability that a trial is
	// still running is at most Tail (reported as Unfinished); 0 runs to the
	// horizon.
	Tail float64
	// ArrivalTail cuts the Poisson number of new requests per tick where
	// its upper tail falls below it; the mass cut is reported as
	// Truncated. 0 means 1e-10.
	ArrivalTail float64
	// MaxBacklog and MaxQueue bound open-loop traffic's state: a path whose
	// live requests pass MaxBacklog, or whose queue passes MaxQueue, leaves
	// the chain into an absorbing overflow state (reported as Overflow),
	// the chain's counterpart of a trial that collapsed. 0 means
	// DefaultChainBacklog and DefaultChainQueue.
	MaxBacklog, MaxQueue int
	// Prune drops, at the end of each tick, the states of open-loop traffic
	// whose probability is below it (a Poisson tail makes many states of
	// negligible mass); the mass dropped joins Truncated. 0 means 1e-9;
	// a negative value keeps every state.
	Prune float64
	// Tolerance is the total-variation change between two ticks below which
	// the law of open-loop traffic without an outage counts as stationary.
	// 0 means 1e-10.
	Tolerance float64
}

// Defaults of QueueChainOptions.
const (
	DefaultChainBacklog = 40
	DefaultChainQueue   = 80
)

// QueueChain is the exact law of a small system on the queue server: a
// cohort (Traffic nil) or open-loop traffic with an outage (see
// QueueChainOf).
type QueueChain struct {
	Scenario model.Scenario `json:"scenario"`
	Open     bool           `json:"open_loop"`
	// Traffic, Controls and Options are what the chain was asked to follow
	// (Options with its defaults filled in).
	Traffic  *model.Traffic    `json:"-"`
	Controls control.Controls  `json:"-"`
	Options  QueueChainOptions `json:"-"`
	// Moments over the paths that end (a cohort's finished trials) or, in
	// open-loop traffic, over those still in the chain at the last tick:
	// calls, successful completions (Useful), abandoned requests served
	// (Wasted; a cohort's include those still queued when it finishes),
	// attempts timed out, sends rejected, requests given up, and
	// completion (last success + 1).
	Calls, Useful, Wasted, TimedOut, Rejected, GaveUp, Completion Moment
	// Distribution[t] is the probability that a cohort finishes with
	// completion t (the last success + 1; 0 when every client gave up).
	Distribution []float64 `json:"distribution,omitempty"`
	// Unfinished is the probability that a cohort's trial is still running
	// when the chain stops (at the horizon, or at Tail).
	Unfinished float64 `json:"unfinished"`
	// Open-loop traffic: Recovery[d] is the probability of recovering first
	// d ticks after the outage's end (the engine's rule: backlog and queue
	// both at most the recovered backlog, nobody giving up that tick);
	// Recovered its sum within the traffic's ticks, RecoveryTicks its mean
	// and sd given recovery.
	Recovery      []float64 `json:"recovery,omitempty"`
	Recovered     float64   `json:"recovered"`
	RecoveryTicks Moment    `json:"recovery_ticks"`
	// Overflow is the probability of having left the chain's bounds
	// (MaxBacklog, MaxQueue) by the last tick, and Truncated the mass cut
	// from the Poisson tail (ArrivalTail) and pruned (Prune); both are 0
	// for a cohort. Every probability the chain reports is exact to within
	// Truncated.
	Overflow  float64 `json:"overflow"`
	Truncated float64 `json:"truncated"`
	// Stationary is open-loop traffic's stationary goodput, when there is
	// no outage and the law stopped changing within the ticks.
	Stationary *Stationary `json:"stationary,omitempty"`
	// Series: for each tick t, the expected queue length after it, useful
	// and wasted completions in it, and live requests after it (finished
	// cohorts count 0); QueueLaw[t][q] is the probability that the queue
	// holds q requests after tick t (q ≤ MaxQueue).
	QueueMean, UsefulAt, WastedAt, BacklogMean []float64   `json:"-"`
	QueueLaw                                   [][]float64 `json:"-"`
	Ticks                                      int         `json:"ticks"`       // ticks propagated
	States                                     int         `json:"states"`      // states visited, summed over ticks
	PeakStates                                 int         `json:"peak_states"` // the most states at one tick
	// Bound is an a-priori bound on the states of one tick.
	Bound float64 `json:"state_bound"`
}

// Stationary is the long-run goodput of open-loop traffic.
type Stationary struct {
	Tick    int     `json:"tick"`    // the first tick whose law changed by less than the tolerance
	Change  float64 `json:"change"`  // that total-variation change
	Goodput float64 `json:"goodput"` // expected useful completions per tick then
	Queue   float64 `json:"queue"`   // expected queue length then
}

// The quantities a path carries, as exact moments.
const (
	qCalls = iota
	qUseful
	qWasted
	qTimedOut
	qRejected
	qGaveUp
	qLast // the tick of the last success
	quantities
)

// path is the probability of a set of paths with the mean and the
// probability-weighted squared deviations of each quantity along them
// (merged by the parallel-variance rule, as markov.go's mass).
type path struct {
	p        float64
	mean, m2 [quantities]float64
}

func (a *path) merge(b path) {
	if b.p == 0 {
		return
	}
	p := a.p + b.p
	for i := range a.mean {
		d := b.mean[i] - a.mean[i]
		a.m2[i] += b.m2[i] + d*d*a.p*b.p/p
		a.mean[i] += d * b.p / p
	}
	a.p = p
}

func (a path) moment(i int) Moment {
	if a.p == 0 {
		return Moment{}
	}
	return Moment{Mean: a.mean[i], SD: math.Sqrt(math.Max(0, a.m2[i]/a.p))}
}

// QueueChainOf propagates the exact law of a small system on the queue
// server tick by tick, following model.Queue's order of events. tr nil is
// the cohort of sc; otherwise open-loop traffic (Poisson arrivals of mean
// tr.Rate, the outage at tr.OutageCapacity) for tr.Ticks ticks. Of the
// controls only the attempt limit applies (buckets and breakers hold state
// per client, which the chain does not follow).
//
// A state at the start of a tick is: S, the abandoned requests at the head
// of the queue (they are always at its head, see Queue); the live queued
// requests by age a = 1…T−1 (sent a ticks ago) and retry class; the
// requests in backoff by ticks until they send and retry class; and, in
// open-loop traffic, whether the system has recovered yet. Without a
// timeout the live queue is a count alone (a queued request is served
// whatever its class). Within a tick's sends the order is uniformly
// random, so whoever a limit rejects or a partial service reaches within
// one age is a multivariate hypergeometric draw over the classes, and the
// losers of a class spread over their waits multinomially. Classes are
// retryClasses', or the retry numbers 0…R with a retry limit R (the
// smaller of --retries and --max-attempts − 1; class R gives up).
//
// It refuses decorrelated (unless its wait is certain), presets whose
// delay depends on their previous draw, an elapsed-time limit, buckets and
// breakers, a first window with open-loop traffic, CollapseBacklog, and
// systems whose state space passes MaxStates at some tick (naming it).
//
// It stops with ctx's error when ctx ends (between two ticks).
func QueueChainOf(ctx context.Context, sc model.Scenario, tr *model.Traffic, ctl control.Controls, opt QueueChainOptions) (QueueChain, error) {
	if err := sc.Validate(); err != nil {
		return QueueChain{}, err
	}
	no := func(format string, a ...any) (QueueChain, error) {
		return QueueChain{}, &Unsupported{Method: MethodChain, Reason: fmt.Sprintf(format, a...)}
	}
	if sc.InContinuousTime() {
		return no("the queue server is a model in whole ticks, not in continuous time; the chain follows ticks")
	}
	if !sc.Queues() {
		return no("the chain follows the queue server (--server queue); for the %s server use markov", sc.Server)
	}
	p := sc.Policy
	switch {
	case p.MaxElapsed > 0:
		return no("clients give up after %v elapsed, a real-time limit the chain does not follow; use simulate", p.MaxElapsed)
	case p.Stateful() && p.Kind != policy.Decorrelated:
		return no("preset %s draws each delay from its previous draw, a continuous state the chain does not follow; use simulate", p.Kind)
	case len(ctl.List()) > 0:
		return no("%s hold state per client, which the chain does not follow; of the controls it takes --max-attempts; use simulate", ctl)
	}
	if err := ctl.ValidateFor(sc); err != nil {
		return QueueChain{}, err
	}
	if tr != nil {
		if err := tr.Validate(sc); err != nil {
			return QueueChain{}, err
		}
		if len(tr.Steps) > 0 {
			return no("the chain takes one rate of new requests; use simulate for traffic whose rate steps")
		}
		if tr.CollapseBacklog > 0 {
			return no("--collapse-backlog stops trials on a rule of the engine's; the chain bounds open-loop traffic by its own --max-backlog")
		}
	}
	switch {
	case tr != nil && tr.Drain:
		return no("--drain plays on after the last tick without new requests, which the chain does not; it follows --ticks")
	case tr == nil && sc.Clients > math.MaxUint16:
		return no("a cohort of %d clients is far beyond the exact chain (it counts up to %d per cell); use simulate", sc.Clients, math.MaxUint16)
	case tr != nil && tr.StartCohort && sc.Clients > math.MaxUint16:
		return no("--start-cohort with %d clients is far beyond the exact chain; use simulate", sc.Clients)
	case opt.MaxBacklog > math.MaxUint16 || opt.MaxBacklog < 0:
		return QueueChain{}, &model.FieldError{Flag: "max-backlog", Valid: fmt.Sprintf("0 (the default) or an integer in [1, %d]", math.MaxUint16), Got: fmt.Sprint(opt.MaxBacklog)}
	case opt.MaxQueue > math.MaxUint16 || opt.MaxQueue < 0:
		return QueueChain{}, &model.FieldError{Flag: "max-queue", Valid: fmt.Sprintf("0 (the default) or an integer in [1, %d]", math.MaxUint16), Got: fmt.Sprint(opt.MaxQueue)}
	}
	most := opt.MaxStates
	if most <= 0 {
		most = DefaultMaxStates
	}
	if w := sc.FirstWindow; tr == nil && multisets(w-1, sc.Clients) > float64(most) {
		return QueueChain{}, &Unsupported{Method: MethodChain, Limit: true, Reason: fmt.Sprintf("the first sends spread over --first-window %d ticks make %.3g states at tick 0, more than the limit of %d (--max-states); use a smaller --first-window or N, or simulate", w, multisets(w-1, sc.Clients), most)}
	}
	if err := sizeQueueChain(sc, ctl); err != nil {
		return QueueChain{}, err
	}
	ch, err := newQueueChain(sc, tr, ctl, opt)
	if err != nil {
		return no("%v", err)
	}
	if why := ch.neverFinishes(); why != "" {
		return QueueChain{}, model.Usagef("this cohort never finishes, so the chain refuses it before following it: %s", why)
	}
	return ch.run(ctx)
}

// chainTickBytes bounds the memory of one tick's states of the queue
// chain (two ticks are alive at once, and open-loop traffic builds a tick
// whole before pruning it), so that a system beyond the chain's reach is
// refused within seconds and a few hundred megabytes.
const chainTickBytes = 64 << 20

// stateBytes estimates what one state of n cells takes in a tick: its key
// (2 bytes a cell), the key's index entry and string header, and its path.
func stateBytes(n int) int64 { return 2*int64(n) + 200 }

// sizeQueueChain refuses, before anything is allocated, a chain whose
// state vector alone is beyond chainTickBytes: a state has a cell per
// retry class and tick of backoff (and of age in the queue), and the
// enumeration keeps a vector per class. It names the flag that sets the
// class count (--retries, --max-attempts) or the longest wait (--cap).
func sizeQueueChain(sc model.Scenario, ctl control.Controls) error {
	limit, flag, got := sc.Policy.Retries, "retries", sc.Policy.Retries
	if a := ctl.MaxAttempts; a > 0 && (limit == 0 || a-1 < limit) {
		limit, flag, got = a-1, "max-attempts", a
	}
	classes := float64(limit + 1)
	if limit == 0 {
		classes = float64(max(1, sc.Policy.Classes()))
	}
	waits := math.Max(float64(sc.FirstWindow), sc.Policy.MaxDelay()+1) // rounding adds at most a tick
	ages := float64(max(1, sc.Queue.Timeout-1))
	// The enumeration's vectors: classes of (ages + waits)·classes cells,
	// 2 bytes each.
	need := func(c float64) float64 { return 2 * c * (2 + (ages+waits)*c) }
	if !(need(classes) > chainTickBytes) {
		return nil
	}
	most := math.Floor(math.Sqrt(chainTickBytes / (2 * (ages + waits))))
	switch {
	case limit > 0 && most >= 2:
		top := int(most) - 1 // classes 0…R
		if flag == "max-attempts" {
			top++
		}
		return &model.FieldError{Flag: flag, Valid: fmt.Sprintf("at most %d for --method chain with this policy: the chain keeps a cell per retry class and tick of wait (up to %.3g ticks), and %d classes would need %.3g GiB for one state's successors, over its budget of %d MiB; use simulate", top, waits, limit+1, need(classes)/(1<<30), chainTickBytes>>20), Got: fmt.Sprint(got)}
	default:
		return &Unsupported{Method: MethodChain, Limit: true, Reason: fmt.Sprintf("waits of up to %.3g ticks (--cap %g) over %.0f retry classes make a state of %.3g cells, beyond the chain's budget of %d MiB a tick; use a smaller --cap or simulate", waits, sc.Policy.Cap, classes, 2+(ages+waits)*classes, chainTickBytes>>20)}
	}
}

// qchain holds what the propagation needs.
type qchain struct {
	sc       model.Scenario
	tr       *model.Traffic
	ctl      control.Controls
	opt      QueueChainOptions
	T, C, D  int
	laws     []policy.Waits // laws[c]: the wait after a failure in class c
	dest     []int          // the class a failure in class c moves to
	giveUp   int            // the class whose failure gives up; −1: none
	arrivals []float64
	cut      float64 // Poisson mass beyond arrivals
	// layout of a state vector
	live, back, flag, n int
	// overflowed is set when a count would not fit its 16 bits.
	overflowed bool
	// scratch, one per level of the enumeration
	sendBuf, admBuf, rejBuf, failBuf, wholeBuf []int
	blocks                                     [][]int
	nextBuf, nxBuf                             []uint16
	placeBuf                                   [][]uint16
}

func newQueueChain(sc model.Scenario, tr *model.Traffic, ctl control.Controls, opt QueueChainOptions) (*qchain, error) {
	if opt.MaxStates <= 0 {
		opt.MaxStates = DefaultMaxStates
	}
	if opt.ArrivalTail <= 0 {
		opt.ArrivalTail = 1e-10
	}
	if opt.MaxBacklog <= 0 {
		opt.MaxBacklog = DefaultChainBacklog
	}
	if opt.MaxQueue <= 0 {
		opt.MaxQueue = DefaultChainQueue
	}
	if opt.Prune == 0 {
		opt.Prune = 1e-9
	}
	if opt.Tolerance <= 0 {
		opt.Tolerance = 1e-10
	}
	ch := &qchain{sc: sc, tr: tr, ctl: ctl, opt: opt, T: sc.Queue.Timeout, giveUp: -1}
	limit := sc.Policy.Retries
	if a := ctl.MaxAttempts; a > 0 && (limit == 0 || a-1 < limit) {
		limit = a - 1
	}
	switch {
	case limit == 0 && ctl.MaxAttempts == 1:
		ch.laws, ch.dest, ch.giveUp = []policy.Waits{{Min: 1, P: []float64{1}}}, []int{0}, 0
	case sc.Policy.Kind == policy.Decorrelated:
		w, ok := sc.DecorrelatedWaits()
		if !ok {
			return nil, fmt.Errorf("decorrelated's delay depends on the previous unrounded delay, a continuous quantity the chain does not discretise; use simulate")
		}
		if limit > 0 {
			for range limit + 1 {
				ch.laws = append(ch.laws, policy.Waits{Min: w, P: []float64{1}})
			}
		} else {
			ch.laws = []policy.Waits{{Min: w, P: []float64{1}}}
		}
	case limit > 0:
		for c := range limit + 1 {
			ch.laws = append(ch.laws, sc.RetryWaits(c+1))
		}
	default:
		ch.laws = sc.RetryClasses()
	}
	ch.C = len(ch.laws)
	if ch.dest == nil {
		for c := range ch.C {
			ch.dest = append(ch.dest, min(c+1, ch.C-1))
		}
		if limit > 0 {
			ch.giveUp = limit
		}
	}
	ch.D = sc.FirstWindow
	for _, l := range ch.laws {
		ch.D = max(ch.D, l.Max())
	}
	if tr != nil {
		if sc.FirstWindow > 1 {
			return nil, fmt.Errorf("open-loop traffic has no first window")
		}
		pois := distuv.Poisson{Lambda: tr.Rate}
		for a := 0; ; a++ {
			ch.arrivals = append(ch.arrivals, pois.Prob(float64(a)))
			if pois.Survival(float64(a)) < opt.ArrivalTail {
				ch.cut = pois.Survival(float64(a))
				break
			}
		}
	}
	// Layout: [S | live queue | backoff | recovered].
	ch.live = 1
	liveCells := 1 // the count of live queued requests, without a timeout
	if ch.T > 0 {
		liveCells = (ch.T - 1) * ch.C
	}
	ch.back = ch.live + liveCells
	ch.flag = ch.back + ch.D*ch.C
	ch.n = ch.flag + 1
	ch.sendBuf, ch.admBuf, ch.rejBuf, ch.failBuf = make([]int, ch.C), make([]int, ch.C), make([]int, ch.C), make([]int, ch.C)
	ch.wholeBuf = make([]int, ch.C)
	ch.blocks = make([][]int, max(1, ch.T))
	for i := range ch.blocks {
		ch.blocks[i] = make([]int, ch.C)
	}
	ch.nextBuf, ch.nxBuf = make([]uint16, ch.n), make([]uint16, ch.n)
	ch.placeBuf = make([][]uint16, ch.C)
	for i := range ch.placeBuf {
		ch.placeBuf[i] = make([]uint16, ch.n)
	}
	return ch, nil
}

// neverFinishes says why a cohort can never finish, or "" when this rule
// cannot tell. It covers a cohort that sends at tick 0 into an unbounded
// queue with a timeout T and clients that never give up. At tick T the
// N − kT attempts not served by then have timed out: Q = N − kT abandoned
// requests are queued and as many clients wait. A waiting client sends
// again within L = T − 1 + D ticks of its last send (D its largest wait),
// so every L ticks bring at least N − kT sends. A request finds at least Q
// ahead of it and is served in time only if fewer than kT are, and Q falls
// by at most k a tick. So if N − kT ≥ k(T + L − 1), Q stays at least kT
// through the next L ticks and is no smaller after them (N − kT ≥ kL):
// by induction nobody is ever served again.
func (ch *qchain) neverFinishes() string {
	sc := ch.sc
	n, k, T := sc.Clients, sc.Capacity, ch.T
	if ch.tr != nil || ch.giveUp >= 0 || sc.Queue.Limit > 0 || T == 0 || sc.FirstWindow > 1 {
		return ""
	}
	d := 1
	for _, l := range ch.laws {
		d = max(d, l.Max())
	}
	L := T - 1 + d
	stuck := int64(n) - int64(k)*int64(T)
	if stuck < int64(k)*int64(T+L-1) {
		return ""
	}
	return fmt.Sprintf("all %d clients send at tick 0 and the server completes %s a tick, so the %d attempts it has not completed within the %d-tick timeout time out and stay queued as abandoned work. "+
		"Each of those %d clients sends again within %s of its last send (timeout %d − 1 + largest wait %d), so every %s bring at least %d sends against at most %d completions: "+
		"the queue never again holds fewer than %s when a client sends, every later attempt times out before it is served, and no client gives up (no --retries or --max-attempts). "+
		"A retry limit, a queue limit (--queue-limit), a longer --timeout or fewer clients may let it finish; herd simulate plays it to the horizon",
		n, plural(k, "request"), stuck, T, stuck, plural(L, "tick"), T, d, plural(L, "tick"), stuck, k*L, plural(k*T, "request"))
}

// plural is n and a noun, in the plural unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// cell indices
func (ch *qchain) liveAt(a, c int) int { return ch.live + (a-1)*ch.C + c }
func (ch *qchain) backAt(d, c int) int { return ch.back + d*ch.C + c }

// queued is the queue's length in a state; pending its live requests.
func (ch *qchain) queued(st []uint16) int {
	q := 0
	for i := 0; i < ch.back; i++ {
		q += int(st[i])
	}
	return q
}

func (ch *qchain) pending(st []uint16) int {
	q := 0
	for i := ch.live; i < ch.flag; i++ {
		q += int(st[i])
	}
	return q
}

// qstates is one tick's law: state vectors (as strings of 2-byte counts)
// and their paths.
type qstates struct {
	index map[string]int
	keys  []string
	acc   []path
	// last[i], kept for a cohort whose clients can give up, is the law of
	// the tick of the last success over the paths into state i (-1: none
	// yet): there the trial can end on a give-up, after its last success.
	last []map[int]float64
	key  []byte // scratch
	// bytes estimates the states' memory (stateBytes each); budget, when
	// positive, is the most it may reach.
	bytes, budget int64
}

func newQStates() qstates { return qstates{index: map[string]int{}} }

// add merges path a into state st and returns the state's index.
func (s *qstates) add(st []uint16, a path, limit int) (int, error) {
	b := s.key[:0]
	for _, c := range st {
		b = append(b, byte(c>>8), byte(c))
	}
	s.key = b
	i, ok := s.index[string(b)]
	if !ok {
		if len(s.keys) >= limit {
			return 0, fmt.Errorf("the state space exceeds the limit of %d states at one tick (a larger --max-states may reach further)", limit)
		}
		if s.bytes += stateBytes(len(st)); s.budget > 0 && s.bytes > s.budget {
			return 0, fmt.Errorf("the states of one tick exceed %d MiB (%d states of %d cells)", s.budget>>20, len(s.keys), len(st))
		}
		i = len(s.keys)
		s.keys = append(s.keys, string(b))
		s.acc = append(s.acc, path{})
		if s.last != nil {
			s.last = append(s.last, map[int]float64{})
		}
		s.index[s.keys[i]] = i
	}
	s.acc[i].merge(a)
	return i, nil
}

func (ch *qchain) decode(key string, st []uint16) {
	for i := range st {
		st[i] = uint16(key[2*i])<<8 | uint16(key[2*i+1])
	}
}

// delta is what one transition adds to a path's quantities.
type delta struct {
	calls, useful, wasted, timedOut, rejected, gaveUp int
}

// initial is tick 0's law: a cohort's clients in class 0 spread uniformly
// over the first window, or an empty open-loop system.
func (ch *qchain) initial() qstates {
	s := newQStates()
	if ch.tr == nil && ch.giveUp >= 0 {
		s.last = []map[int]float64{}
	}
	start := path{p: 1}
	start.mean[qLast] = -1
	if ch.tr != nil {
		st := make([]uint16, ch.n)
		if ch.tr.StartCohort { // every client's first request at tick 0
			st[ch.backAt(0, 0)] = uint16(ch.sc.Clients)
		}
		_, _ = s.add(st, start, math.MaxInt)
		return s
	}
	w := ch.sc.FirstWindow
	pw := make([]float64, w)
	for i := range pw {
		pw[i] = 1 / float64(w)
	}
	spread(ch.sc.Clients, policy.Waits{Min: 0, P: pw}, func(counts []int, q float64) {
		st := make([]uint16, ch.n)
		for d, c := range counts {
			st[ch.backAt(d, 0)] = uint16(c)
		}
		a := start
		a.p = q
		i, _ := s.add(st, a, math.MaxInt)
		if s.last != nil {
			s.last[i][-1] += q
		}
	})
	return s
}

// step enumerates the successors of state st through tick t, calling out
// with each successor, its probability and what it adds. The vectors it
// passes are scratch, valid during the call.
func (ch *qchain) step(st []uint16, t int, out func(next []uint16, q float64, d delta)) {
	C := ch.C
	s := ch.sendBuf
	fresh := []float64{1}
	if ch.tr != nil {
		fresh = ch.arrivals
	}
	qlen := ch.queued(st)
	for a, pa := range fresh {
		if pa == 0 {
			continue
		}
		m := 0
		for c := range C {
			s[c] = int(st[ch.backAt(0, c)])
			m += s[c]
		}
		s[0] += a
		m += a
		adm := m
		if l := ch.sc.Queue.Limit; l > 0 {
			adm = max(0, min(m, l-qlen))
		}
		d := delta{calls: m, rejected: m - adm}
		if adm == m {
			clear(ch.rejBuf)
			ch.serve(st, t, s, ch.rejBuf, pa, d, out)
			continue
		}
		hypergeometric(s, m-adm, func(rej []int, q float64) {
			for c := range C {
				ch.admBuf[c] = s[c] - rej[c]
			}
			copy(ch.rejBuf, rej)
			ch.serve(st, t, ch.admBuf, ch.rejBuf, pa*q, d, out)
		})
	}
}

// serve is steps 3 to 5 of a tick once the admitted sends (per class) and
// the rejected ones are known.
func (ch *qchain) serve(st []uint16, t int, admitted, rejected []int, q float64, d delta, out func([]uint16, float64, delta)) {
	C, T := ch.C, ch.T
	c := ch.sc.Capacity
	if ch.tr != nil {
		c = ch.tr.CapacityAt(c, t)
	}
	next := ch.nextBuf
	clear(next)
	S := int(st[0])
	w := min(S, c)
	d.wasted = w
	rem := c - w
	S -= w
	if T == 0 {
		q0 := int(st[ch.live])
		s0 := min(q0, rem)
		admTot := 0
		for _, x := range admitted {
			admTot += x
		}
		s1 := min(admTot, rem-s0)
		d.useful = s0 + s1
		next[0] = uint16(S)
		next[ch.live] = uint16(q0 - s0 + admTot - s1)
		ch.fail(st, next, rejected, q, d, out)
		return
	}
	// Blocks of live requests, oldest first: ages T−1 … 1, then this
	// tick's admissions (age 0).
	blocks := ch.blocks
	for a := 1; a < T; a++ {
		for cl := range C {
			blocks[a][cl] = int(st[ch.liveAt(a, cl)])
		}
	}
	copy(blocks[0], admitted)
	partial := -1
	for a := T - 1; a >= 0; a-- {
		size := 0
		for _, x := range blocks[a] {
			size += x
		}
		if size == 0 {
			continue
		}
		if rem >= size {
			rem -= size
			d.useful += size
			clear(blocks[a])
			continue
		}
		if rem > 0 {
			partial = a
		}
		break
	}
	finish := func(q float64, d delta) {
		// Step 4: the oldest live block still queued times out.
		old := blocks[T-1]
		failed := ch.failBuf
		timedOut := 0
		for cl := range C {
			failed[cl] = rejected[cl] + old[cl]
			timedOut += old[cl]
		}
		d.timedOut = timedOut
		if S+timedOut > math.MaxUint16 {
			ch.overflowed = true
			return
		}
		nx := ch.nxBuf
		copy(nx, next)
		nx[0] = uint16(S + timedOut)
		for a := 0; a+1 < T; a++ {
			for cl := range C {
				nx[ch.liveAt(a+1, cl)] = uint16(blocks[a][cl])
			}
		}
		ch.fail(st, nx, failed, q, d, out)
	}
	if partial < 0 {
		finish(q, d)
		return
	}
	r := rem
	whole := append(ch.wholeBuf[:0], blocks[partial]...)
	hypergeometric(whole, r, func(served []int, p float64) {
		for cl := range C {
			blocks[partial][cl] = whole[cl] - served[cl]
		}
		e := d
		e.useful += r
		finish(q*p, e)
	})
}

// fail is step 5: the failed requests of each class give up or spread over
// their waits; the backoff shifts by one tick.
func (ch *qchain) fail(st, next []uint16, failed []int, q float64, d delta, out func([]uint16, float64, delta)) {
	C := ch.C
	for dd := 1; dd < ch.D; dd++ {
		for c := range C {
			next[ch.backAt(dd-1, c)] = st[ch.backAt(dd, c)]
		}
	}
	next[ch.flag] = st[ch.flag]
	if ch.giveUp >= 0 {
		d.gaveUp = failed[ch.giveUp]
		failed[ch.giveUp] = 0
	}
	var place func(c int, nx []uint16, q float64)
	place = func(c int, nx []uint16, q float64) {
		for c < C && failed[c] == 0 {
			c++
		}
		if c == C {
			out(nx, q, d)
			return
		}
		law := ch.laws[c]
		y := ch.placeBuf[c]
		spread(failed[c], law, func(counts []int, r float64) {
			copy(y, nx)
			for i, n := range counts {
				y[ch.backAt(law.Min+i-1, ch.dest[c])] += uint16(n)
			}
			place(c+1, y, q*r)
		})
	}
	place(0, next, q)
}

// run propagates the chain.
func (ch *qchain) run(ctx context.Context) (QueueChain, error) {
	sc, tr, opt := ch.sc, ch.tr, ch.opt
	res := QueueChain{Scenario: sc, Open: tr != nil, Traffic: tr, Controls: ch.ctl, Options: opt}
	res.Bound = ch.bound()
	horizon := sc.EffectiveHorizon()
	end, threshold := 0, 0
	if tr != nil {
		horizon = tr.Ticks
		end, threshold = tr.OutageEnd(), tr.RecoveryBacklog(sc.Capacity)
	}
	noGiveUp := ch.giveUp < 0
	var done path // finished cohort paths
	var rec path  // recovery times (mean[0]) of recovered paths
	cur := ch.initial()
	unfinished := 1.0
	st := make([]uint16, ch.n)
	// Open-loop states are pruned at the end of each tick, so a tick may
	// hold more while it is built than the limit allows after.
	building := opt.MaxStates
	if tr != nil && opt.Prune > 0 {
		building = 8 * opt.MaxStates
	}
	t := 0
	for ; len(cur.keys) > 0 && t < horizon; t++ {
		if tr == nil && opt.Tail > 0 && unfinished <= opt.Tail {
			break
		}
		if err := ctx.Err(); err != nil {
			return QueueChain{}, err
		}
		res.States += len(cur.keys)
		res.PeakStates = max(res.PeakStates, len(cur.keys))
		next := newQStates()
		next.budget = chainTickBytes
		if cur.last != nil {
			next.last = []map[int]float64{}
		}
		law := make([]float64, opt.MaxQueue+1)
		var qm, um, wm, bm float64
		var err error
		for i, key := range cur.keys {
			if err := ctx.Err(); err != nil { // a tick may hold many states
				return QueueChain{}, err
			}
			ch.decode(key, st)
			a := cur.acc[i]
			ch.step(st, t, func(nx []uint16, q float64, d delta) {
				if err != nil {
					return
				}
				b := a
				b.p *= q
				for j := range b.m2 {
					b.m2[j] *= q
				}
				b.mean[qCalls] += float64(d.calls)
				b.mean[qUseful] += float64(d.useful)
				b.mean[qWasted] += float64(d.wasted)
				b.mean[qTimedOut] += float64(d.timedOut)
				b.mean[qRejected] += float64(d.rejected)
				b.mean[qGaveUp] += float64(d.gaveUp)
				if d.useful > 0 {
					b.mean[qLast], b.m2[qLast] = float64(t), 0
				}
				ql, live := ch.queued(nx), ch.pending(nx)
				qm += b.p * float64(ql)
				um += b.p * float64(d.useful)
				wm += b.p * float64(d.wasted)
				bm += b.p * float64(live)
				if ql <= opt.MaxQueue {
					law[ql] += b.p
				}
				if tr == nil {
					if live == 0 { // finished: what is still queued is served later, wasted
						b.mean[qWasted] += float64(nx[0])
						switch {
						case noGiveUp: // the last client leaves on a success
							addMass(&res.Distribution, t+1, b.p)
						case d.useful > 0:
							addMass(&res.Distribution, t+1, b.p)
						default:
							for l, p := range cur.last[i] {
								addMass(&res.Distribution, l+1, p*q)
							}
						}
						done.merge(b)
						unfinished -= b.p
						return
					}
				} else {
					if live > opt.MaxBacklog || ql > opt.MaxQueue {
						res.Overflow += b.p
						return
					}
					if nx[ch.flag] == 0 && t >= end && live <= threshold && ql <= threshold && d.gaveUp == 0 {
						nx[ch.flag] = 1
						dt := t + 1 - end
						for len(res.Recovery) <= dt {
							res.Recovery = append(res.Recovery, 0)
						}
						res.Recovery[dt] += b.p
						r := path{p: b.p}
						r.mean[0] = float64(dt)
						rec.merge(r)
					}
				}
				var j int
				if j, err = next.add(nx, b, building); err != nil || next.last == nil {
					return
				}
				if d.useful > 0 {
					next.last[j][t] += b.p
					return
				}
				for l, p := range cur.last[i] {
					next.last[j][l] += p * q
				}
			})
			if ch.overflowed {
				err = fmt.Errorf("more than %d abandoned requests queued", math.MaxUint16)
			}
			if err != nil {
				return res, &Unsupported{Method: MethodChain, Reason: fmt.Sprintf("propagating tick %d: %v (a priori at most %.3g states); use a smaller system or simulate", t, err, res.Bound)}
			}
		}
		res.QueueMean = append(res.QueueMean, qm)
		res.UsefulAt = append(res.UsefulAt, um)
		res.WastedAt = append(res.WastedAt, wm)
		res.BacklogMean = append(res.BacklogMean, bm)
		res.QueueLaw = append(res.QueueLaw, law)
		if tr != nil && opt.Prune > 0 {
			next = next.prune(opt.Prune)
		}
		if len(next.keys) > opt.MaxStates {
			return res, &Unsupported{Method: MethodChain, Reason: fmt.Sprintf("tick %d has %d states, more than the limit of %d (a priori at most %.3g); use a smaller system, simulate, or a larger --max-states", t, len(next.keys), opt.MaxStates, res.Bound)}
		}
		if tr != nil && tr.OutageLength == 0 && res.Stationary == nil {
			if change := variation(cur, next); change < opt.Tolerance {
				res.Stationary = &Stationary{Tick: t, Change: change, Goodput: um, Queue: qm}
			}
		}
		cur = next
	}
	res.Ticks = t
	if tr != nil {
		res.Truncated = 1
		var all path
		for _, a := range cur.acc {
			all.merge(a)
		}
		res.Truncated = math.Max(0, 1-all.p-res.Overflow)
		done = all
		for _, p := range res.Recovery {
			res.Recovered += p
		}
		res.RecoveryTicks = rec.moment(0)
	} else {
		for _, a := range cur.acc {
			res.Unfinished += a.p
		}
		if done.p == 0 {
			return res, &Unsupported{Method: MethodChain, Reason: fmt.Sprintf("no trial finishes within %d ticks", t)}
		}
	}
	res.Calls, res.Useful, res.Wasted = done.moment(qCalls), done.moment(qUseful), done.moment(qWasted)
	res.TimedOut, res.Rejected, res.GaveUp = done.moment(qTimedOut), done.moment(qRejected), done.moment(qGaveUp)
	last := done.moment(qLast)
	res.Completion = Moment{Mean: last.Mean + 1, SD: last.SD}
	if res.Distribution != nil {
		var comp mass
		for c, p := range res.Distribution {
			comp.merge(mass{p: p, mean: float64(c)})
		}
		res.Completion = Moment{Mean: comp.mean, SD: math.Sqrt(comp.m2 / comp.p)}
	}
	return res, nil
}

// addMass adds p to (*d)[t], growing d as needed.
func addMass(d *[]float64, t int, p float64) {
	for len(*d) <= t {
		*d = append(*d, 0)
	}
	(*d)[t] += p
}

// prune keeps the states of probability at least p.
func (s qstates) prune(p float64) qstates {
	kept := newQStates()
	for i, k := range s.keys {
		if s.acc[i].p >= p {
			kept.index[k] = len(kept.keys)
			kept.keys = append(kept.keys, k)
			kept.acc = append(kept.acc, s.acc[i])
		}
	}
	return kept
}

// variation is the total-variation distance between two ticks' laws.
func variation(a, b qstates) float64 {
	d := 0.0
	for i, k := range a.keys {
		pb := 0.0
		if j, ok := b.index[k]; ok {
			pb = b.acc[j].p
		}
		d += math.Abs(a.acc[i].p - pb)
	}
	for j, k := range b.keys {
		if _, ok := a.index[k]; !ok {
			d += b.acc[j].p
		}
	}
	return d / 2
}

// bound is an a-priori bound on one tick's states: the ways to place the
// live requests (the cohort's N, or MaxBacklog) over the live cells, times
// the abandoned requests the queue can hold, times the recovered bit.
func (ch *qchain) bound() float64 {
	cells := ch.flag - ch.live
	n := ch.sc.Clients
	heads := float64(ch.sc.Clients)*float64(ch.sc.EffectiveHorizon())/float64(max(1, ch.T)) + 1
	flags := 1.0
	if ch.tr != nil {
		n = ch.opt.MaxBacklog
		heads, flags = float64(ch.opt.MaxQueue+1), 2
	}
	if ch.T == 0 {
		heads = 1
	}
	if l := ch.sc.Queue.Limit; l > 0 {
		heads = math.Min(heads, float64(l+1))
	}
	return multisets(cells, n) * heads * flags
}
