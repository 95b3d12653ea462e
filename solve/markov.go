package solve

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// MarkovOptions bound the exact chain's work.
type MarkovOptions struct {
	// MaxStates is the most states the chain may hold at one tick; a
	// scenario that needs more is refused with the count it reached.
	// 0 means DefaultMaxStates.
	MaxStates int
	// Tail stops the chain once the probability that a trial is still
	// running is at most Tail (the collision server decays geometrically
	// and would otherwise run to the horizon); the mass left is reported as
	// Unfinished. 0 runs to the horizon, which is exact.
	Tail float64
	// Context ends a long propagation (nil: none); the chain looks at it
	// between states, so a cancel stops it within milliseconds.
	Context context.Context
}

// DefaultMaxStates keeps the chain to a few hundred megabytes and, more
// to the point, makes a cohort beyond its reach fail within seconds (the
// states of one tick are built before the count can exceed the limit);
// herd model --max-states raises it.
const DefaultMaxStates = 250_000

// Markov is the exact law of a small scenario's outcome.
type Markov struct {
	Scenario model.Scenario `json:"scenario"`
	// Calls and Completion are the mean and standard deviation over the
	// trials that finish (those the Monte Carlo engine does not censor).
	Calls      Moment `json:"calls"`
	Completion Moment `json:"completion"`
	// Distribution[t] is the probability that a trial finishes with
	// completion t (last success at tick t−1).
	Distribution []float64 `json:"distribution"`
	// Unfinished is the probability that a trial is still running when the
	// chain stops: at the horizon (then it is the censoring probability) or
	// once it falls to MarkovOptions.Tail.
	Unfinished float64 `json:"unfinished"`
	Ticks      int     `json:"ticks"`      // ticks propagated
	States     int     `json:"states"`     // states visited, summed over ticks
	PeakStates int     `json:"peakStates"` // the most states at one tick
}

// Moment is an exact mean and standard deviation.
type Moment struct {
	Mean float64 `json:"mean"`
	SD   float64 `json:"sd"`
}

// Finished is the probability that a trial finishes before the chain stops.
func (m Markov) Finished() float64 {
	s := 0.0
	for _, p := range m.Distribution {
		s += p
	}
	return s
}

// Quantile is the smallest completion t with P(completion ≤ t | finished)
// ≥ p, the same order-statistic convention as the Monte Carlo quantiles.
func (m Markov) Quantile(p float64) int { return CompletionQuantile(m.Distribution, p) }

// MarkovChain propagates the exact probability of every state of a small
// scenario, tick by tick, from tick 0 until every trial has finished (or
// the horizon). A state is the multiset of pending clients, each described
// by its retry class and the ticks until it sends; classes are retry
// numbers whose future is the same (retries n ≥ L − 1 all fail into the
// wait law of retry L, see retryClasses), and served clients leave the
// state. At a tick with m arrivals of which a_c are of class c, the
// capacity server's k winners are a uniform k-subset, so the losers per
// class are multivariate hypergeometric; the collision server fails all m
// when m > k. Each loser of class c draws its wait independently from the
// exact law of Ticks(δ) for retry c + 1 (Rounding.Waits), so the losers
// of a class spread over waits multinomially. Calls are followed as exact
// first and second moments carried along with each state's probability.
//
// It covers none, fixed, expo, full and equal on both servers, any
// rounding and first window. Decorrelated is refused unless its wait is
// certain: its law depends on the previous unrounded delay, a continuous
// quantity that the chain does not discretise.
func MarkovChain(sc model.Scenario, opt MarkovOptions) (Markov, error) {
	if err := sc.Validate(); err != nil {
		return Markov{}, err
	}
	if opt.MaxStates <= 0 {
		opt.MaxStates = DefaultMaxStates
	}
	no := func(format string, a ...any) (Markov, error) {
		return Markov{}, &Unsupported{Method: "markov", Reason: fmt.Sprintf(format, a...)}
	}
	tooLarge := func(format string, a ...any) (Markov, error) {
		return Markov{}, &Unsupported{Method: "markov", Reason: fmt.Sprintf(format, a...), Limit: true}
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if err := modelled(MethodMarkov, sc); err != nil {
		return Markov{}, err
	}
	var laws []policy.Waits
	if sc.Policy.Kind == policy.Decorrelated {
		w, ok := sc.DecorrelatedWaits()
		if !ok {
			return no("decorrelated's delay depends on the previous unrounded delay, a continuous quantity the exact chain does not discretise; use meanfield or simulate")
		}
		laws = []policy.Waits{{Min: w, P: []float64{1}}}
	} else {
		laws = sc.RetryClasses()
	}
	ch := chain{sc: sc, laws: laws, classes: len(laws)}
	depth := sc.FirstWindow
	for _, l := range laws {
		depth = max(depth, l.Max())
	}
	cells := depth * ch.classes
	bound := multisets(cells, sc.Clients)
	if cells > math.MaxUint16 {
		return tooLarge("a state has %d cells (classes × ticks of wait), more than the chain encodes (%d); the state space is up to %.3g states; use meanfield, a smaller --cap or --first-window",
			cells, math.MaxUint16, bound)
	}
	if w := sc.FirstWindow; multisets(w-1, sc.Clients) > float64(opt.MaxStates) {
		return tooLarge("the first sends spread over --first-window %d ticks make %.3g states at tick 0, more than the limit of %d (--max-states); use a smaller --first-window or N, or meanfield",
			w, multisets(w-1, sc.Clients), opt.MaxStates)
	}
	if lb := ch.firstTickStates(); lb > float64(opt.MaxStates) {
		return tooLarge("the state space has at least %.3g states at tick 1 (at most %.3g in all), more than the limit of %d (--max-states); use a smaller N or meanfield",
			lb, bound, opt.MaxStates)
	}
	if fan, tick := ch.secondWave(); fan > float64(opt.MaxStates) && tick < sc.EffectiveHorizon() {
		return tooLarge("the likeliest state at tick %d has %.3g successors, more than the limit of %d states at one tick (--max-states; at most %.3g states in all); use a smaller N or meanfield",
			tick, fan, opt.MaxStates, bound)
	}
	m := Markov{Scenario: sc}
	var calls mass // of the finished trials
	cur, err := ch.initial(ctx)
	if err != nil {
		return Markov{}, err
	}
	horizon := sc.EffectiveHorizon()
	unfinished := 1.0
	t := 0
	for ; len(cur.keys) > 0 && t < horizon; t++ {
		if opt.Tail > 0 && unfinished <= opt.Tail {
			break
		}
		m.States += len(cur.keys)
		m.PeakStates = max(m.PeakStates, len(cur.keys))
		next := newStates()
		for i, key := range cur.keys {
			if err := ctx.Err(); err != nil {
				return Markov{}, err
			}
			done, err := ch.step(key, cur.acc[i], &next, opt.MaxStates)
			if err != nil {
				return tooLarge("propagating tick %d: %v (a priori at most %.3g states); use a smaller N, meanfield, or a larger --max-states", t, err, bound)
			}
			if done.p > 0 {
				for len(m.Distribution) <= t+1 {
					m.Distribution = append(m.Distribution, 0)
				}
				m.Distribution[t+1] += done.p
				calls.merge(done)
				unfinished -= done.p
			}
		}
		cur = next
	}
	m.Ticks = t
	for _, a := range cur.acc {
		m.Unfinished += a.p // summed, not 1 − Σ finished, to avoid cancellation
	}
	f := m.Finished()
	if f == 0 {
		return no("no trial finishes within %d ticks (probability of finishing 0)", t)
	}
	m.Calls = Moment{Mean: calls.mean, SD: math.Sqrt(calls.m2 / calls.p)}
	var comp mass
	for c, p := range m.Distribution {
		comp.merge(mass{p: p, mean: float64(c)})
	}
	m.Completion = Moment{Mean: comp.mean, SD: math.Sqrt(comp.m2 / comp.p)}
	return m, nil
}

// multisets is the number of multisets of at most n items over c kinds,
// C(c + n, n): an a-priori bound on the chain's states.
func multisets(c, n int) float64 {
	lg, _ := math.Lgamma(float64(c + n + 1))
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(c + 1))
	return math.Exp(lg - a - b)
}

// chain holds what the propagation needs about a scenario.
type chain struct {
	sc      model.Scenario
	laws    []policy.Waits // laws[c]: the wait of a class-c client that fails
	classes int            // L
}

// A state is its pending clients' cells, d·L + class with d the ticks until
// the client sends, sorted, as 2 bytes each: the clients sending now come
// first.
type states struct {
	index map[string]int
	keys  []string
	acc   []mass
	bytes int64 // the keys' bytes and each state's overhead, estimated
}

// maxTickBytes bounds one tick's states in memory (two ticks are alive at
// once): a state's key takes 2 bytes per pending client, so a large N
// fills memory long before DefaultMaxStates states.
const maxTickBytes = 256 << 20

func newStates() states { return states{index: map[string]int{}} }

func (s *states) add(key []byte, q float64, calls mass, limit int) error {
	i, ok := s.index[string(key)]
	if !ok {
		if len(s.keys) >= limit {
			return fmt.Errorf("the state space exceeds the limit of %d states at one tick", limit)
		}
		if s.bytes += int64(len(key)) + 96; s.bytes > maxTickBytes {
			return fmt.Errorf("the states of one tick exceed %d MiB (%d states of %d pending clients, 2 bytes each)", maxTickBytes>>20, len(s.keys), len(key)/2)
		}
		i = len(s.keys)
		s.keys = append(s.keys, string(key))
		s.acc = append(s.acc, mass{})
		s.index[s.keys[i]] = i
	}
	s.acc[i].merge(calls.scale(q))
	return nil
}

// mass is a probability with the mean and the probability-weighted sum of
// squared deviations of the calls made on the paths that carry it. Merging
// masses by the parallel-variance rule keeps a zero variance exactly zero,
// which raw moments E[X²] − E[X]² would not.
type mass struct{ p, mean, m2 float64 }

func (a mass) scale(q float64) mass { return mass{a.p * q, a.mean, a.m2 * q} }

func (a *mass) merge(b mass) {
	if b.p == 0 {
		return
	}
	p := a.p + b.p
	d := b.mean - a.mean
	a.m2 += b.m2 + d*d*a.p*b.p/p
	a.mean += d * b.p / p
	a.p = p
}

// encode sorts a copy of cells (callers share their backing arrays) into
// a key.
func encode(cells []uint16) []byte {
	sorted := slices.Clone(cells)
	slices.Sort(sorted)
	b := make([]byte, 2*len(sorted))
	for i, c := range sorted {
		b[2*i], b[2*i+1] = byte(c>>8), byte(c)
	}
	return b
}

func decode(key string) []uint16 {
	c := make([]uint16, len(key)/2)
	for i := range c {
		c[i] = uint16(key[2*i])<<8 | uint16(key[2*i+1])
	}
	return c
}

// initial is tick 0's law: every client at class 0, its first send spread
// uniformly (multinomially) over ticks 0…W−1.
func (ch *chain) initial(ctx context.Context) (states, error) {
	s := newStates()
	var err error
	n := 0
	w := ch.sc.FirstWindow
	p := make([]float64, w)
	for i := range p {
		p[i] = 1 / float64(w)
	}
	spreadWhile(ch.sc.Clients, policy.Waits{Min: 0, P: p}, func(counts []int, q float64) bool {
		if n++; n%4096 == 0 {
			if err = ctx.Err(); err != nil {
				return false
			}
		}
		var cells []uint16
		for d, n := range counts {
			for range n {
				cells = append(cells, uint16(d*ch.classes))
			}
		}
		_ = s.add(encode(cells), q, mass{p: 1}, math.MaxInt)
		return true
	})
	return s, err
}

// firstTickStates is the number of states at tick 1 of a synchronized
// cohort, a lower bound on the largest tick's: the N − k losers of tick 0
// (all N on the collision server) spread over the support of the first
// retry's wait.
func (ch *chain) firstTickStates() float64 {
	losers := ch.sc.Clients - ch.sc.Served(ch.sc.Clients)
	if losers <= 0 || ch.sc.FirstWindow > 1 {
		return 1
	}
	return multisets(len(ch.laws[0].P)-1, losers)
}

// secondWave is the fan-out of a state the chain is sure to reach and
// step, and its tick, for a synchronized cohort (W = 1): the N − k losers
// of tick 0 (all N on the collision server, when N > k) spread over the
// first retry's wait, and in the likeliest outcome the mode of a binomial
// share of them — those on its likeliest wait — arrives together; its
// losers spread over the second retry's wait. Every state of that tick
// with those arrivals has at least this many successors, so a fan-out
// beyond the limit is a refusal known before tick 1 is built, which for a
// large N takes seconds and hundreds of megabytes.
func (ch *chain) secondWave() (float64, int) {
	sc := ch.sc
	losers := func(m int) int { return m - sc.Served(m) }
	first := losers(sc.Clients)
	if sc.FirstWindow > 1 || first == 0 {
		return 1, 0
	}
	w := ch.laws[0]
	best := 0
	for i, p := range w.P {
		if p > w.P[best] {
			best = i
		}
	}
	together := int(math.Floor(float64(first+1) * w.P[best])) // a mode of Bin(first, P)
	lose := losers(min(together, first))
	if lose == 0 {
		return 1, 0
	}
	return multisets(len(ch.laws[min(1, ch.classes-1)].P)-1, lose), w.Min + best
}

// step propagates one state through tick t into next and returns the
// mass of the trials that finish at this tick.
func (ch *chain) step(key string, a mass, next *states, limit int) (mass, error) {
	cells := decode(key)
	L := ch.classes
	k := ch.sc.Capacity
	arrive := make([]int, L)
	m := 0
	for m < len(cells) && int(cells[m]) < L {
		arrive[cells[m]]++
		m++
	}
	rest := cells[m:]
	for i := range rest {
		rest[i] -= uint16(L)
	}
	calls := a
	calls.mean += float64(m)
	var done mass
	var err error
	emit := func(lose []int, q float64) {
		if err != nil {
			return
		}
		pending := len(rest)
		for _, l := range lose {
			pending += l
		}
		if pending == 0 {
			done.merge(calls.scale(q))
			return
		}
		// The losers' placements from this one state are distinct states
		// of the next tick: more of them than the limit refuses the chain
		// before they are enumerated (a large cohort's first retries).
		if fan := ch.fanout(lose); fan > float64(limit) {
			err = fmt.Errorf("one state has %.3g successors, more than the limit of %d states at one tick", fan, limit)
			return
		}
		ch.place(lose, 0, slices.Clip(rest), q, func(c []uint16, r float64) {
			if err == nil {
				err = next.add(encode(c), r, calls, limit)
			}
		})
	}
	switch {
	case m <= k:
		emit(make([]int, L), 1)
	case ch.sc.Served(m) == 0:
		emit(arrive, 1)
	default:
		hypergeometric(arrive, m-k, emit)
	}
	return done, err
}

// fanout is the number of ways the losers of each class fall on the
// support of their wait: the distinct successors place enumerates.
func (ch *chain) fanout(lose []int) float64 {
	f := 1.0
	for c, n := range lose {
		if n > 0 {
			f *= multisets(len(ch.laws[c].P)-1, n)
		}
	}
	return f
}

// place spreads the losers of classes c, c+1, … over their waits; a loser
// of class c goes to class min(c+1, L−1) and, after this tick's shift,
// sends in w − 1 ticks.
func (ch *chain) place(lose []int, c int, cells []uint16, q float64, out func([]uint16, float64)) {
	for c < len(lose) && lose[c] == 0 {
		c++
	}
	if c == len(lose) {
		out(cells, q)
		return
	}
	law := ch.laws[c]
	dest := min(c+1, ch.classes-1)
	spread(lose[c], law, func(counts []int, r float64) {
		next := slices.Clip(cells)
		for i, n := range counts {
			d := law.Min + i - 1
			for range n {
				next = append(next, uint16(d*ch.classes+dest))
			}
		}
		ch.place(lose, c+1, next, q*r, out)
	})
}

// spread enumerates the multinomial ways n independent clients fall on the
// support of w: counts[i] clients on w.Min + i, with their probability. It
// draws the counts as successive binomials, count i ~ Bin(left, P[i]/(P[i] +
// … + P[last])).
func spread(n int, w policy.Waits, out func(counts []int, q float64)) {
	spreadWhile(n, w, func(counts []int, q float64) bool { out(counts, q); return true })
}

// spreadWhile is spread that stops as soon as out returns false.
func spreadWhile(n int, w policy.Waits, out func(counts []int, q float64) bool) {
	counts := make([]int, len(w.P))
	tail := make([]float64, len(w.P)+1) // tail[i] = P[i] + … + P[last]
	for i := len(w.P) - 1; i >= 0; i-- {
		tail[i] = tail[i+1] + w.P[i]
	}
	var rec func(i, left int, q float64) bool
	rec = func(i, left int, q float64) bool {
		if left == 0 {
			for j := i; j < len(counts); j++ {
				counts[j] = 0
			}
			return out(counts, q)
		}
		if i == len(counts)-1 {
			counts[i] = left
			return out(counts, q)
		}
		p := w.P[i] / tail[i]
		if p <= 0 {
			counts[i] = 0
			return rec(i+1, left, q)
		}
		for x := 0; x <= left; x++ {
			b := binomialPMF(left, x, math.Min(p, 1))
			if b == 0 {
				continue
			}
			counts[i] = x
			if !rec(i+1, left-x, q*b) {
				return false
			}
		}
		return true
	}
	rec(0, n, 1)
}

// hypergeometric enumerates the ways to pick `lose` losers uniformly among
// the arrivals, a[c] of class c: lose[c] of class c with probability
// Π C(a_c, l_c) / C(m, lose).
func hypergeometric(a []int, lose int, out func(l []int, q float64)) {
	m := 0
	for _, x := range a {
		m += x
	}
	total := lchoose(m, lose)
	l := make([]int, len(a))
	var rec func(c, left, avail int, lq float64)
	rec = func(c, left, avail int, lq float64) {
		if c == len(a)-1 {
			if left > a[c] {
				return
			}
			l[c] = left
			out(l, math.Exp(lq+lchoose(a[c], left)-total))
			return
		}
		avail -= a[c] // arrivals of the classes after c
		for x := max(0, left-avail); x <= min(a[c], left); x++ {
			l[c] = x
			rec(c+1, left-x, avail, lq+lchoose(a[c], x))
		}
	}
	rec(0, lose, m, 0)
}

func lchoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

func binomialPMF(n, x int, p float64) float64 {
	switch {
	case p == 1:
		if x == n {
			return 1
		}
		return 0
	case p == 0:
		if x == 0 {
			return 1
		}
		return 0
	}
	return math.Exp(lchoose(n, x) + float64(x)*math.Log(p) + float64(n-x)*math.Log1p(-p))
}
