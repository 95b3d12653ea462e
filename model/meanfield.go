package model

import (
	"fmt"
	"math"
	"slices"
)

// MeanFieldOptions tune the mean-field recursion.
type MeanFieldOptions struct {
	// Grid is the number of cells of decorrelated's previous-delay
	// dimension over [base, cap] (refined so that no cell straddles a
	// rounding boundary). 0 means DefaultGrid.
	Grid int
	// Tail stops the recursion once fewer than Tail clients are expected
	// to be pending. 0 means 1e-9.
	Tail float64
	// MaxMemory bounds the per-tick series (Arrivals, Pending, ByClass);
	// 0 means DefaultMeanFieldMemory.
	MaxMemory int64
}

// DefaultMeanFieldMemory is the most the mean-field series may take: a
// cohort that cannot finish in fewer ticks is refused before the recursion
// allocates.
const DefaultMeanFieldMemory = 512 << 20

// meanFieldFits refuses a scenario whose series would outgrow the budget.
// The recursion keeps 2 + classes floats per tick, and it runs at least
// ⌈N/k⌉ ticks (no tick serves more than k) up to the horizon; appends may
// double the storage once more.
func meanFieldFits(sc Scenario, classes int, budget int64) error {
	if budget <= 0 {
		budget = DefaultMeanFieldMemory
	}
	ticks := min(int64(sc.EffectiveHorizon()), int64(sc.Clients)/int64(sc.Capacity)+1)
	need := 2 * 8 * int64(2+classes) * ticks
	if need <= budget {
		return nil
	}
	most := budget / (2 * 8 * int64(2+classes)) * int64(sc.Capacity)
	return &FieldError{Flag: "clients", Valid: fmt.Sprintf("at most about %d at --capacity %d for meanfield, whose %d per-tick series over at least ⌈N/k⌉ = %d ticks would need %.1f GiB, over its budget of %d MiB; raise --capacity, lower --clients or --horizon, or use simulate --engine counts",
		most, sc.Capacity, 2+classes, ticks, float64(need)/(1<<30), budget>>20), Got: fmt.Sprint(sc.Clients)}
}

// DefaultGrid is decorrelated's default number of previous-delay cells.
const DefaultGrid = 64

// MeanField is the mean-field approximation of a large cohort.
type MeanField struct {
	Scenario Scenario `json:"scenario"`
	Calls    float64  `json:"calls"` // expected calls
	// Completion estimates E[completion] as Σ_t P(someone is pending at
	// tick t), with the number pending taken as Poisson of its expected
	// value.
	Completion float64 `json:"completion"`
	// Arrivals[t] is the expected number of arrivals at tick t; ByClass[c][t]
	// splits it by Classes[c].
	Arrivals []float64   `json:"arrivals"`
	ByClass  [][]float64 `json:"by_class,omitempty"`
	Classes  []string    `json:"classes,omitempty"`
	// Pending[t] is the expected number of clients not yet served when
	// tick t begins.
	Pending []float64 `json:"pending"`
	// Unfinished is the expected number of clients still pending when the
	// recursion stopped (at the horizon, or below Options.Tail).
	Unfinished float64 `json:"unfinished"`
	Grid       int     `json:"grid,omitempty"` // decorrelated's previous-delay cells
}

// MeanFieldModel follows expected numbers instead of clients. The expected
// arrivals λ_c(t) of each retry class c are pushed forward: the arrivals M
// of tick t are taken as Binomial(P, λ/P), where P is the expected number
// of pending clients and λ = Σ_c λ_c(t) — so tick 0 (M = P = N when the
// first window is 1) is exact and a sparse tick is nearly Poisson. The
// expected failures E[(M − k)⁺] (capacity) or E[M·1{M > k}] (collision)
// are split over classes in proportion to λ_c(t) — every arrival is
// equally likely to fail — and each class's failures spread over later
// ticks by the exact law of its rounded wait (Rounding.Waits). Decorrelated
// replaces the retry class by the previous delay, discretised into Grid
// cells represented by their midpoints (the atoms prev = base and
// prev = cap are exact).
//
// It is not exact: it ignores the correlations between ticks (a tick that
// served few leaves more for the next) and the binomial is an assumption.
// It is meant for large N, where the law of large numbers makes arrivals
// concentrate around their means; the relative error of its expected calls
// shrinks as N grows at fixed N/k.
func MeanFieldModel(sc Scenario, opt MeanFieldOptions) (MeanField, error) {
	if err := sc.Validate(); err != nil {
		return MeanField{}, err
	}
	if err := modelled(MethodMeanField, sc); err != nil {
		return MeanField{}, err
	}
	if opt.Grid <= 0 {
		opt.Grid = DefaultGrid
	}
	if opt.Tail <= 0 {
		opt.Tail = 1e-9
	}
	var fl flow
	if sc.Policy.Kind == Decorrelated {
		fl = decorrelatedFlow(sc, opt.Grid)
	} else {
		fl = classFlow(sc)
	}
	nc := len(fl.names)
	if err := meanFieldFits(sc, nc, opt.MaxMemory); err != nil {
		return MeanField{}, err
	}
	r := MeanField{Scenario: sc, Classes: fl.names}
	if sc.Policy.Kind == Decorrelated {
		r.Grid = opt.Grid
	}
	ring := max(sc.FirstWindow, fl.maxWait) + 1
	lam := make([][]float64, nc) // lam[c][t mod ring]
	for c := range lam {
		lam[c] = make([]float64, ring)
	}
	r.ByClass = make([][]float64, nc)
	n := float64(sc.Clients)
	for t := range sc.FirstWindow {
		lam[fl.first][t] = n / float64(sc.FirstWindow)
	}
	pending := n
	horizon := sc.EffectiveHorizon()
	var surv float64 // Σ_t P(pending at tick t > 0)
	fail := make([]float64, nc)
	t := 0
	for ; pending > opt.Tail && t < horizon; t++ {
		slot := t % ring
		total := 0.0
		for c := range nc {
			total += lam[c][slot]
			r.ByClass[c] = append(r.ByClass[c], lam[c][slot])
		}
		r.Arrivals = append(r.Arrivals, total)
		r.Pending = append(r.Pending, pending)
		surv += -math.Expm1(-pending)
		r.Calls += total
		if total > 0 {
			f := failures(sc.Server, sc.Capacity, pending, total)
			pending -= total - f
			for c := range nc {
				fail[c] = f * lam[c][slot] / total
			}
			for c := range nc {
				if fail[c] > 0 {
					fl.spread(c, fail[c], func(dest, wait int, x float64) {
						lam[dest][(t+wait)%ring] += x
					})
				}
			}
		}
		for c := range nc {
			lam[c][slot] = 0
		}
	}
	r.Unfinished = pending
	r.Completion = surv
	if pending > 0.5 {
		return r, &Unsupported{Method: "meanfield", Reason: fmt.Sprintf(
			"%.3g clients are still expected to be pending at the horizon (tick %d): the cohort does not finish", pending, t)}
	}
	return r, nil
}

// failures is the expected number of the arrivals of a tick that fail,
// with the arrivals M ~ Binomial(n, λ/n) for n pending clients (n real: the
// probabilities extend through the gamma function).
func failures(server Server, k int, n, lambda float64) float64 {
	fk := float64(k)
	if n <= fk || lambda <= 0 {
		return 0
	}
	p := lambda / n
	if p >= 1-1e-12 { // everyone pending arrives: M = λ
		if server == Collision {
			if lambda > fk {
				return lambda
			}
			return 0
		}
		return math.Max(0, lambda-fk)
	}
	// E[min(M, k)] = k − Σ_{j<k} (k − j) P(M = j) and, for collision,
	// E[M·1{M ≤ k}] = Σ_{j≤k} j P(M = j).
	logOdds := math.Log(p) - math.Log1p(-p)
	lp := n * math.Log1p(-p) // log P(M = 0)
	below, atMost := 0.0, 0.0
	for j := 0; j <= k; j++ {
		if j > 0 {
			lp += math.Log((n-float64(j-1))/float64(j)) + logOdds
		}
		q := math.Exp(lp)
		if j < k {
			below += (fk - float64(j)) * q
		}
		atMost += float64(j) * q
	}
	if server == Collision {
		return math.Max(0, lambda-atMost)
	}
	return math.Max(0, lambda-(fk-below))
}

// flow says where the failures of each class go: spread(c, x, add) calls
// add(dest, wait, share) for the x failures of class c.
type flow struct {
	names   []string
	first   int // the class of first attempts
	maxWait int
	spread  func(c int, x float64, add func(dest, wait int, x float64))
}

// classFlow is the flow of policies whose law depends on the retry number:
// classes as in MarkovChain.
func classFlow(sc Scenario) flow {
	laws := sc.retryClasses()
	fl := flow{}
	for c := range laws {
		name := fmt.Sprintf("retry %d", c)
		if c == 0 {
			name = "first attempt"
		}
		if c == len(laws)-1 && c > 0 {
			name = fmt.Sprintf("retry ≥ %d", c)
		}
		fl.names = append(fl.names, name)
		fl.maxWait = max(fl.maxWait, laws[c].Max())
	}
	fl.spread = func(c int, x float64, add func(int, int, float64)) {
		dest := min(c+1, len(laws)-1)
		for i, p := range laws[c].P {
			if p > 0 {
				add(dest, laws[c].Min+i, x*p)
			}
		}
	}
	return fl
}

// decorrelatedFlow discretises the previous delay. Cell 0 is the atom
// prev = base (where every client starts), the last cell the atom
// prev = cap, and the cells between cover (base, cap) with at most grid
// cells, refined at every rounding boundary so that each cell has one
// wait.
func decorrelatedFlow(sc Scenario, grid int) flow {
	p := sc.Policy
	base, limit := p.Base, p.Cap
	edges := []float64{base}
	for i := 1; i < grid; i++ {
		edges = append(edges, base+(limit-base)*float64(i)/float64(grid))
	}
	for t := sc.Rounding.Ticks(base); t <= sc.Rounding.Ticks(limit); t++ {
		_, hi := sc.Rounding.Interval(t)
		if hi > base && hi < limit {
			edges = append(edges, hi)
		}
	}
	edges = append(edges, limit)
	slices.Sort(edges)
	edges = slices.Compact(edges)
	cells := len(edges) - 1 // continuous cells 1…cells
	capCell := cells + 1
	fl := flow{first: 0, maxWait: sc.Rounding.Ticks(limit)}
	fl.names = append(fl.names, fmt.Sprintf("prev = %g (first)", base))
	rep := []float64{base}
	wait := []int{sc.Rounding.Ticks(base)}
	for i := range cells {
		fl.names = append(fl.names, fmt.Sprintf("prev in [%.4g, %.4g)", edges[i], edges[i+1]))
		mid := (edges[i] + edges[i+1]) / 2
		rep = append(rep, mid)
		wait = append(wait, sc.Rounding.Ticks(mid))
	}
	fl.names = append(fl.names, fmt.Sprintf("prev = %g (cap)", limit))
	rep = append(rep, limit)
	wait = append(wait, sc.Rounding.Ticks(limit))
	// trans[c] lists (dest cell, probability) of the next delay for a
	// client whose previous delay is rep[c]: min(cap, U(base, 3·rep[c])).
	type to struct {
		dest int
		p    float64
	}
	trans := make([][]to, len(rep))
	for c, x := range rep {
		hi := 3 * x
		width := hi - base
		for i := range cells {
			a, b := edges[i], math.Min(edges[i+1], hi)
			if b > a {
				trans[c] = append(trans[c], to{i + 1, (b - a) / width})
			}
		}
		if hi > limit {
			trans[c] = append(trans[c], to{capCell, (hi - limit) / width})
		}
	}
	fl.spread = func(c int, x float64, add func(int, int, float64)) {
		for _, tr := range trans[c] {
			add(tr.dest, wait[tr.dest], x*tr.p)
		}
	}
	return fl
}
