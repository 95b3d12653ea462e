package solve

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// MeanFieldOptions tune the mean-field recursion.
type MeanFieldOptions struct {
	// Grid is the number of cells of decorrelated's previous-delay
	// dimension over [base, cap] (refined so that no cell straddles a
	// rounding boundary). 0 chooses it: the grid doubles from DefaultGrid
	// until the expected calls change by less than GridTolerance (relative)
	// or it reaches MaxChosenGrid.
	Grid int
	// GridTolerance is the relative change of the expected calls at which
	// a doubling grid stops. 0 means DefaultGridTolerance.
	GridTolerance float64
	// Tail stops the recursion once fewer than Tail clients are expected
	// to be pending. 0 means 1e-9.
	Tail float64
	// Context ends a long recursion (nil: none); it is polled every tick
	// and every cell.
	Context context.Context
}

// MeanFieldMemory is the most the mean-field recursion may take: a cohort
// whose series or covariance ring would not fit is refused before the
// recursion allocates.
const MeanFieldMemory = 512 << 20

// meanFieldFits refuses a scenario whose recursion would outgrow
// MeanFieldMemory. It keeps 3 + classes floats per tick (Arrivals,
// ArrivalsSD, Pending, ByClass) and runs at least ⌈N/k⌉ ticks (no tick
// serves more than k) up to the horizon, appends doubling the storage at
// worst; its covariance ring takes ring² floats.
func meanFieldFits(sc model.Scenario, classes, ring int) error {
	series := int64(2 * 8 * (3 + classes))
	ticks := min(int64(sc.EffectiveHorizon()), int64(sc.Clients)/int64(sc.Capacity)+1)
	square := 8 * float64(ring) * float64(ring)
	if need := float64(series*ticks) + square; need <= MeanFieldMemory {
		return nil
	}
	if square > MeanFieldMemory/2 {
		return &model.FieldError{Flag: "cap", Valid: fmt.Sprintf("a cap whose longest wait keeps meanfield's %d × %d covariance ring (%.1f GiB) within its budget of %d MiB; lower --cap or use simulate", ring, ring, square/(1<<30), MeanFieldMemory>>20), Got: fmt.Sprint(sc.Policy.Cap)}
	}
	most := MeanFieldMemory / series * int64(sc.Capacity)
	return &model.FieldError{Flag: "clients", Valid: fmt.Sprintf("at most about %d at --capacity %d for meanfield, whose %d per-tick series over at least ⌈N/k⌉ = %d ticks would need %.1f GiB, over its budget of %d MiB; raise --capacity, lower --clients or --horizon, or use simulate --engine counts",
		most, sc.Capacity, 3+classes, ticks, float64(series*ticks)/(1<<30), MeanFieldMemory>>20), Got: fmt.Sprint(sc.Clients)}
}

// DefaultGrid is the coarsest grid decorrelated's previous delay gets, and
// MaxChosenGrid the finest the doubling goes to.
const (
	DefaultGrid   = 64
	MaxChosenGrid = 4096
)

// DefaultGridTolerance bounds the discretisation error of decorrelated's
// expected calls. The transitions between cells are averaged exactly over
// the source cell; what is left is that a client's previous delay is not
// uniform within its cell, an error that shrinks about as the cell width
// (first order: the density of the previous delay has kinks, at 3·base and
// at the images of the atoms). Under first-order convergence the change
// between a grid and its double is about the error of the finer one
// (measured: at most 0.9 times it, TestDecorrelatedGridError), so stopping
// once the change is below 2·10⁻⁴ keeps the error near 0.02%, under the
// 0.05% allowed for it.
const DefaultGridTolerance = 2e-4

// MeanField is the mean-field approximation of a large cohort.
type MeanField struct {
	Scenario model.Scenario `json:"scenario"`
	Calls    float64        `json:"calls"` // expected calls
	// Completion is E[completion] under the law Distribution.
	Completion float64 `json:"completion"`
	// Distribution[t] is the mean field's probability that completion is t
	// (see completionLaw).
	Distribution []float64 `json:"distribution"`
	// Arrivals[t] is the expected number of arrivals at tick t and
	// ArrivalsSD[t] its linear-noise standard deviation; ByClass[c][t]
	// splits Arrivals by Classes[c].
	Arrivals   []float64   `json:"arrivals"`
	ArrivalsSD []float64   `json:"arrivals_sd"`
	ByClass    [][]float64 `json:"by_class,omitempty"`
	Classes    []string    `json:"classes,omitempty"`
	// Pending[t] is the expected number of clients not yet served when
	// tick t begins.
	Pending []float64 `json:"pending"`
	// Unfinished is the expected number of clients still pending when the
	// recursion stopped (at the horizon, or below Options.Tail).
	Unfinished float64 `json:"unfinished"`
	// Grid is decorrelated's number of previous-delay cells, and GridChange
	// the relative change of the expected calls from half as many cells
	// (0 when the grid was given and not doubled).
	Grid       int     `json:"grid,omitempty"`
	GridChange float64 `json:"grid_change,omitempty"`
}

// Quantile is the smallest completion t with P(completion ≤ t) ≥ p.
func (m MeanField) Quantile(p float64) int {
	cum := 0.0
	for t, q := range m.Distribution {
		cum += q
		if cum >= p*(1-1e-12) {
			return t
		}
	}
	return len(m.Distribution) - 1
}

// MeanFieldModel follows expected numbers instead of clients, and the
// fluctuations around them to second order. The expected arrivals λ_c(t) of
// each retry class c are pushed forward: the expected failures of a tick
// are E[g(M)], with g the server's rule ((M − k)⁺ for capacity, M·1{M > k}
// for collision) and the arrivals M drawn from countLaw with mean
// Σ_c λ_c(t) and the variance of the linear-noise approximation; they are
// split over classes in proportion to λ_c(t) — every arrival is equally
// likely to fail — and each class's failures spread over later ticks by
// the exact law of its rounded wait (Rounding.Waits). Decorrelated replaces
// the retry class by the previous delay, discretised into cells (the atoms
// prev = base and prev = cap are exact) with transitions averaged over each
// cell.
//
// The linear-noise approximation carries the covariance of the arrivals
// booked for the next ticks: a tick's failures respond to its arrivals by
// their regression β = Cov(g(M), M)/Var(M), and they spread over their
// waits multinomially. It makes tick 0 exact (M = N when the first window
// is 1), and it keeps the anticorrelation of ticks that share a cohort (the
// failures of tick 0 split between ticks 1 and 2: one takes what the other
// does not), which decides the law of completion (see completionLaw).
//
// It is not exact: fluctuations are followed to second order and the
// counts' laws are matched to two moments. It is meant for large N, where
// arrivals concentrate around their means; herd validate measures its
// error against Monte Carlo.
func MeanFieldModel(sc model.Scenario, opt MeanFieldOptions) (MeanField, error) {
	if err := sc.Validate(); err != nil {
		return MeanField{}, err
	}
	if err := modelled(MethodMeanField, sc); err != nil {
		return MeanField{}, err
	}
	if opt.Tail <= 0 {
		opt.Tail = 1e-9
	}
	ctx := opt.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if sc.Policy.Kind != policy.Decorrelated {
		return meanField(ctx, sc, classFlow(sc), opt.Tail)
	}
	if err := movesFit(sc, max(opt.Grid, DefaultGrid)); err != nil {
		return MeanField{}, err
	}
	if opt.Grid > 0 {
		fl, err := decorrelatedFlow(ctx, sc, opt.Grid)
		if err != nil {
			return MeanField{}, err
		}
		r, err := meanField(ctx, sc, fl, opt.Tail)
		r.Grid = opt.Grid
		return r, err
	}
	tol := opt.GridTolerance
	if tol <= 0 {
		tol = DefaultGridTolerance
	}
	// Only the expected calls decide the doubling, so the law of completion
	// (most of a recursion's cost) is worked out for the grid returned
	// alone.
	fl, err := decorrelatedFlow(ctx, sc, DefaultGrid)
	if err != nil {
		return MeanField{}, err
	}
	run, err := recurse(ctx, sc, fl, opt.Tail)
	run.r.Grid = DefaultGrid
	if err != nil {
		return run.r, err
	}
	for g := 2 * DefaultGrid; g <= MaxChosenGrid && run.finished() && movesFit(sc, g) == nil; g *= 2 {
		fl, err := decorrelatedFlow(ctx, sc, g)
		if err != nil {
			return run.r, err
		}
		fine, err := recurse(ctx, sc, fl, opt.Tail)
		fine.r.Grid = g
		fine.r.GridChange = math.Abs(fine.r.Calls/run.r.Calls - 1)
		if err != nil {
			return fine.r, err
		}
		run = fine
		if run.r.GridChange < tol {
			break
		}
	}
	return run.finish()
}

// meanField runs the recursion over a flow of classes.
func meanField(ctx context.Context, sc model.Scenario, fl flow, tail float64) (MeanField, error) {
	run, err := recurse(ctx, sc, fl, tail)
	if err != nil {
		return run.r, err
	}
	return run.finish()
}

// fieldRun is a recursion run to its end, its law of completion gathered
// tick by tick but not yet worked out (finish).
type fieldRun struct {
	r       MeanField
	cl      completionLaw
	pending float64 // expected clients pending when the recursion stopped
	tick    int     // the tick it stopped at
}

// finished says whether the cohort finished: finish reports no error.
func (f *fieldRun) finished() bool { return f.pending <= 0.5 }

// finish works out the law of completion and its mean, and refuses a
// cohort that does not finish.
func (f *fieldRun) finish() (MeanField, error) {
	r := f.r
	le := f.cl.atMost(r.Scenario.Clients, r.Scenario.FirstWindow)
	r.Distribution = make([]float64, len(le))
	for i, p := range le {
		prev := 0.0
		if i > 0 {
			prev = le[i-1]
		}
		r.Distribution[i] = p - prev
		r.Completion += 1 - p
	}
	if !f.finished() {
		return r, &Unsupported{Method: "meanfield", Reason: fmt.Sprintf(
			"%.3g clients are still expected to be pending at the horizon (tick %d): the cohort does not finish", f.pending, f.tick)}
	}
	return r, nil
}

// recurse runs the recursion over a flow of classes; its error is only
// that the scenario does not fit (meanFieldFits).
func recurse(ctx context.Context, sc model.Scenario, fl flow, tail float64) (fieldRun, error) {
	r := MeanField{Scenario: sc, Classes: fl.names}
	nc := len(fl.names)
	ring := max(sc.FirstWindow, fl.maxWait) + 1
	if err := meanFieldFits(sc, nc, ring); err != nil {
		return fieldRun{r: r}, err
	}
	lam := make([][]float64, nc) // lam[c][t mod ring]
	for c := range lam {
		lam[c] = make([]float64, ring)
	}
	// cov[a][b] is the covariance of the arrivals booked for the ticks in
	// slots a and b; link[a] the covariance of the last linked tick's
	// arrivals with those booked in slot a.
	cov := make([][]float64, ring)
	for a := range cov {
		cov[a] = make([]float64, ring)
	}
	link := make([]float64, ring)
	linkVar := 0.0
	r.ByClass = make([][]float64, nc)
	n := float64(sc.Clients)
	w := float64(sc.FirstWindow)
	for t := range sc.FirstWindow { // multinomial first sends
		lam[fl.first][t] = n / w
		for u := range sc.FirstWindow {
			cov[t][u] = -n / (w * w)
		}
		cov[t][t] += n / w
	}
	g := func(m int) int {
		return m - sc.Served(m)
	}
	cl := completionLaw{maxWait: fl.maxWait, bins: newLatentBins()}
	pending := n
	horizon := sc.EffectiveHorizon()
	q := make([]float64, fl.maxWait+1) // the next wait of this tick's failures
	after := make([]int, fl.maxWait+1) // after[w] is the slot of tick t + w
	row := make([]float64, ring)
	t := 0
	for ; pending > tail && t < horizon; t++ {
		if err := ctx.Err(); err != nil {
			return fieldRun{r: r}, err
		}
		slot := t % ring
		total := 0.0
		for c := range nc {
			total += lam[c][slot]
			r.ByClass[c] = append(r.ByClass[c], lam[c][slot])
		}
		v := math.Max(0, cov[slot][slot])
		r.Arrivals = append(r.Arrivals, total)
		r.ArrivalsSD = append(r.ArrivalsSD, math.Sqrt(v))
		r.Pending = append(r.Pending, pending)
		r.Calls += total
		copy(row, cov[slot])
		for a := range cov {
			cov[slot][a], cov[a][slot] = 0, 0
		}
		if total > 0 {
			m := newCountLaw(total, v)
			var mean, mv, fail, fv, fm float64
			for i, p := range m.P {
				x, f := float64(m.Lo+i), float64(g(m.Lo+i))
				mean += p * x
				fail += p * f
				fm += p * f * x
				fv += p * f * f
			}
			for i, p := range m.P {
				d := float64(m.Lo+i) - mean
				mv += p * d * d
			}
			fv -= fail * fail
			fm -= fail * mean
			beta := 0.0
			if mv > 0 {
				beta = fm / mv
			}
			fail = math.Min(fail, total) // the law's mean is total up to rounding
			pending -= total - fail
			clear(q)
			for w := range after { // (t + w) mod ring, as w < ring
				if after[w] = slot + w; after[w] >= ring {
					after[w] -= ring
				}
			}
			for c := range nc {
				if lam[c][slot] == 0 {
					continue // it would add zeros
				}
				x := fail * lam[c][slot] / total
				share := lam[c][slot] / total
				for _, mv := range fl.moves[c] {
					if x > 0 {
						lam[mv.dest][after[mv.wait]] += x * mv.p
					}
					q[mv.wait] += share * mv.p
				}
			}
			rho := 0.0
			if linkVar > 0 && v > 0 {
				rho = link[slot] / math.Sqrt(linkVar*v)
			}
			if cl.add(t, m, g, q, rho) {
				copy(link, row) // row[slot] is v
				linkVar = v
			}
			// Y'_d = Y_d + S_d: S the failures F spread multinomially by q,
			// with Cov(F, Y_e) = β·Cov(M, Y_e).
			if fail > 0 {
				linked := link[slot]
				for d := 1; d < ring; d++ {
					a := (t + d) % ring
					qd := at(q, d)
					link[a] += beta * qd * linked
					for e := 1; e < ring; e++ {
						b := (t + e) % ring
						qe := at(q, e)
						cov[a][b] += beta*(qd*row[b]+qe*row[a]) + qd*qe*(fv-fail)
					}
					cov[a][a] += fail * qd
				}
			}
		}
		link[slot] = 0
		for c := range nc {
			lam[c][slot] = 0
		}
	}
	r.Unfinished = pending
	return fieldRun{r: r, cl: cl, pending: pending, tick: t}, nil
}

// at is x[i], or 0 beyond x.
func at(x []float64, i int) float64 {
	if i < len(x) {
		return x[i]
	}
	return 0
}

// flow says where the failures of each class go: a failure of class c
// moves to class dest after wait ticks with probability p, for each move
// {dest, wait, p} of moves[c].
type flow struct {
	names   []string
	first   int // the class of first attempts
	maxWait int
	moves   [][]move
}

type move struct {
	dest, wait int
	p          float64
}

// classFlow is the flow of policies whose law depends on the retry number:
// classes as in MarkovChain.
func classFlow(sc model.Scenario) flow {
	laws := sc.RetryClasses()
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
	fl.moves = make([][]move, len(laws))
	for c := range laws {
		dest := min(c+1, len(laws)-1)
		for i, p := range laws[c].P {
			if p > 0 {
				fl.moves[c] = append(fl.moves[c], move{dest, laws[c].Min + i, p})
			}
		}
	}
	return fl
}

// decorrelatedFlow discretises the previous delay. Cell 0 is the atom
// prev = base (where every client starts), the last cell the atom
// prev = cap, and the cells between cover (base, cap) with at most grid
// cells, refined at every rounding boundary so that each cell has one
// wait. A client in a cell is taken as uniform over it: its next delay
// min(cap, U(base, 3·prev)) falls in each cell with the probability
// averaged over the cell (exactly, see cellMass), which is second-order
// accurate in the cell width.
func decorrelatedFlow(ctx context.Context, sc model.Scenario, grid int) (flow, error) {
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
	// src[c] is the range of prev in cell c, a point for the atoms.
	src := [][2]float64{{base, base}}
	wait := []int{sc.Rounding.Ticks(base)}
	for i := range cells {
		fl.names = append(fl.names, fmt.Sprintf("prev in [%.4g, %.4g)", edges[i], edges[i+1]))
		src = append(src, [2]float64{edges[i], edges[i+1]})
		wait = append(wait, sc.Rounding.Ticks((edges[i]+edges[i+1])/2))
	}
	fl.names = append(fl.names, fmt.Sprintf("prev = %g (cap)", limit))
	src = append(src, [2]float64{limit, limit})
	wait = append(wait, sc.Rounding.Ticks(limit))
	fl.moves = make([][]move, len(src))
	for c, x := range src {
		if err := ctx.Err(); err != nil {
			return flow{}, err
		}
		var out []move
		total := 0.0
		for i := range cells {
			if edges[i] >= 3*x[1] {
				break
			}
			if m := cellMass(x[0], x[1], base, edges[i], edges[i+1]); m > 0 {
				out = append(out, move{i + 1, wait[i+1], m})
				total += m
			}
		}
		if 3*x[1] > limit {
			m := cellMass(x[0], x[1], base, limit, math.Inf(1))
			out = append(out, move{capCell, wait[capCell], m})
			total += m
		}
		for i := range out { // the masses sum to 1 up to rounding
			out[i].p /= total
		}
		fl.moves[c] = out
	}
	return fl, nil
}

// movesFit refuses a decorrelated flow whose transitions would outgrow
// MeanFieldMemory before it is built: its cells (the grid's and one per
// rounding boundary between base and cap, and the two atoms) each move to
// at most every cell, 24 bytes a move.
func movesFit(sc model.Scenario, grid int) error {
	p := sc.Policy
	bounds := float64(sc.Rounding.Ticks(p.Cap)) - float64(sc.Rounding.Ticks(p.Base))
	cells := float64(grid) + math.Max(0, bounds) + 2
	if need := 24 * cells * cells; need <= MeanFieldMemory {
		return nil
	}
	most := int(math.Sqrt(MeanFieldMemory/24)) - 2
	if float64(grid) > bounds {
		return &model.FieldError{Flag: "grid", Valid: fmt.Sprintf("an integer in [1, %d] with --cap %g: the mean field moves between every two of its cells, whose number squared must fit its budget of %d MiB", max(1, most-int(bounds)), p.Cap, MeanFieldMemory>>20), Got: fmt.Sprint(grid)}
	}
	return &model.FieldError{Flag: "cap", Valid: fmt.Sprintf("within about %d ticks of --base for meanfield with decorrelated, which moves between cells cut at every tick from base to cap, whose number squared must fit its budget of %d MiB; lower --cap or use simulate", most-grid, MeanFieldMemory>>20), Got: fmt.Sprint(p.Cap)}
}

// cellMass is the probability that U(base, 3·prev) falls in [e0, e1),
// averaged over prev uniform on [a, b] (prev = a when b = a). With y = 3·prev
// the probability is (clamp(y, e0, e1) − e0)/(y − base), whose integral is
// y − (e0 − base)·ln(y − base) on [e0, e1] and (e1 − e0)·ln(y − base) above.
func cellMass(a, b, base, e0, e1 float64) float64 {
	y0, y1 := 3*a, 3*b
	if y1-y0 < 1e-9*y1 { // a point, or a cell too thin to integrate
		y := (y0 + y1) / 2
		return (math.Max(e0, math.Min(y, e1)) - e0) / (y - base)
	}
	l := func(y float64) float64 { return math.Log(y - base) }
	s := 0.0
	if lo, hi := math.Max(y0, e0), math.Min(y1, e1); hi > lo {
		s += hi - lo - (e0-base)*(l(hi)-l(lo))
	}
	if lo := math.Max(y0, e1); y1 > lo && !math.IsInf(e1, 1) {
		s += (e1 - e0) * (l(y1) - l(lo))
	}
	return s / (y1 - y0)
}
