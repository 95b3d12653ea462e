package virtual

import (
	"context"
	"fmt"
	"hash/fnv"
	"io"
	mrand "math/rand"
	"math/rand/v2"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/herdlab/herd/internal/render"
	"github.com/herdlab/herd/stats"
)

// Grid is a check's cases and trials.
type Grid struct {
	Clients []int
	Windows []time.Duration
	// PerWindow is the capacity: k = N/PerWindow calls per window.
	PerWindow int
	// Trials and HerdTrials are the virtual trials and herd's per case, by
	// clients; a library with Slow set plays half the virtual trials.
	Trials, HerdTrials map[int]int
	// Only, when not empty, keeps the libraries of these presets.
	Only []string
}

// Cases are the grid's cases, library by library.
func (g Grid) Cases() []Case {
	var cs []Case
	for _, lib := range Libraries() {
		if len(g.Only) > 0 && !contains(g.Only, lib.Preset) {
			continue
		}
		for _, n := range g.Clients {
			for _, tau := range g.Windows {
				cs = append(cs, Case{Lib: lib, N: n, K: n / g.PerWindow, Tau: tau})
			}
		}
	}
	return cs
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if x == y {
			return true
		}
	}
	return false
}

// Result is one case judged.
type Result struct {
	Case
	Herd, Virtual       Sample
	Calls, Done, GaveUp Mean
	KS                  KS
	Agree               bool
}

// seed is trial i's seed of a case, from the case alone (not from the
// cases run before it).
func (c Case) seed(i int) uint64 {
	h := fnv.New64a()
	fmt.Fprintf(h, "%s/%d", c, i)
	return h.Sum64()
}

// setup seeds the library's source for a trial (inside its bubble).
func (c Case) setup(seed uint64) func() {
	switch c.Lib.Source {
	case MathRand:
		return func() { mrand.Seed(int64(seed)) }
	case AWSReader:
		return func() { awsReader = chacha{rand.NewChaCha8(seedBytes(seed))} }
	}
	return nil
}

func seedBytes(seed uint64) (b [32]byte) {
	for i := range 8 {
		b[i] = byte(seed >> (8 * i))
	}
	return b
}

// chacha is a seeded stream read as bytes.
type chacha struct{ r *rand.ChaCha8 }

func (c chacha) Read(b []byte) (int, error) { return c.r.Read(b) }

// Run plays a case's virtual trials, in trial order; trials of a library
// drawing from a process-wide source it seeds run one at a time, others
// side by side.
func Run(t *testing.T, c Case, trials int) Sample {
	out := make([]Trial, trials)
	workers := 1
	if !c.Lib.Source.Shared() {
		workers = runtime.GOMAXPROCS(0)
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for range workers {
		wg.Go(func() {
			for i := range next {
				out[i] = Play(t, c.N, c.K, c.Tau, c.Trip(), c.Lib.Env, c.setup(c.seed(i)))
			}
		})
	}
	for i := range trials {
		next <- i
	}
	close(next)
	wg.Wait()
	var s Sample
	for _, tr := range out {
		s.addTrial(tr)
	}
	return s
}

// Summary is the last check's last line, "A of M agree".
var Summary string

// Check runs every case of g, writes a table per library and a last line
// "A of M agree" (kept in Summary), and returns the results.
func Check(t *testing.T, g Grid, w io.Writer) []Result {
	cases := g.Cases()
	alpha, z := levels(4 * len(cases))
	fmt.Fprintf(w, "virtual-time check: %d cases, each test at level %.2g (%g over %d tests), means within %g%% or %.2f standard errors of their difference\n",
		len(cases), alpha, FamilyAlpha, 4*len(cases), 100*Relative, z)
	var results []Result
	for i, c := range cases {
		h, err := Predict(context.Background(), c, g.HerdTrials[c.N], 1)
		if err != nil {
			t.Fatalf("%s: %v", c, err)
		}
		trials := g.Trials[c.N]
		if c.Lib.Slow {
			trials /= 2
		}
		v := Run(t, c, trials)
		r := Result{Case: c, Herd: h, Virtual: v,
			Calls:  compareMeans("calls", h.Calls, v.Calls, z),
			Done:   compareMeans("completion", h.Completion, v.Completion, z),
			GaveUp: compareMeans("gave up", h.GaveUp, v.GaveUp, z),
			KS:     ksTest(h.Completion, v.Completion, alpha)}
		r.Agree = r.Calls.Agree && r.Done.Agree && r.GaveUp.Agree && r.KS.Agree && h.Censored == 0
		results = append(results, r)
		if i+1 == len(cases) || cases[i+1].Lib.Preset != c.Lib.Preset {
			table(w, results[len(results)-countLib(results, c.Lib.Preset):])
		}
	}
	agree := 0
	for _, r := range results {
		if r.Agree {
			agree++
		}
	}
	Summary = fmt.Sprintf("%d of %d agree", agree, len(results))
	fmt.Fprintln(w, Summary)
	return results
}

func countLib(rs []Result, preset string) int {
	n := 0
	for _, r := range rs {
		if r.Lib.Preset == preset {
			n++
		}
	}
	return n
}

// table writes one library's results.
func table(w io.Writer, rs []Result) {
	lib := rs[0].Lib
	fmt.Fprintf(w, "\n%s — %s; jitter source: %s", lib.Preset, lib.Name, lib.Source)
	if lib.Trip > 0 {
		fmt.Fprintf(w, "; round trip τ/%g", 1/lib.Trip)
	}
	fmt.Fprintln(w)
	tb := render.NewTable(
		render.Column{Name: "N", Right: true}, render.Column{Name: "k/τ", Right: true},
		render.Column{Name: "trials", Right: true},
		render.Column{Name: "calls herd", Right: true}, render.Column{Name: "virtual", Right: true},
		render.Column{Name: "completion s herd", Right: true}, render.Column{Name: "virtual", Right: true},
		render.Column{Name: "gave up herd", Right: true}, render.Column{Name: "virtual", Right: true},
		render.Column{Name: "KS p", Right: true}, render.Column{Name: "verdict"})
	for _, r := range rs {
		verdict := "agree"
		if !r.Agree {
			verdict = "DISAGREE:"
			for _, m := range []Mean{r.Calls, r.Done, r.GaveUp} {
				if !m.Agree {
					verdict += fmt.Sprintf(" %s %+.3g beyond %.3g;", m.Name, m.Diff, m.Tol)
				}
			}
			if !r.KS.Agree {
				verdict += fmt.Sprintf(" KS D %.3f;", r.KS.D)
			}
			if r.Herd.Censored > 0 {
				verdict += fmt.Sprintf(" herd censored %d;", r.Herd.Censored)
			}
		}
		tb.Add(fmt.Sprint(r.N), fmt.Sprintf("%d/%s", r.K, r.Tau), fmt.Sprintf("%d/%d", len(r.Virtual.Calls), len(r.Herd.Calls)),
			est(r.Calls.Herd, 1), est(r.Calls.Virtual, 1),
			est(r.Done.Herd, 1e-3), est(r.Done.Virtual, 1e-3),
			est(r.GaveUp.Herd, 1), est(r.GaveUp.Virtual, 1),
			fmt.Sprintf("%.3f", r.KS.P), verdict)
	}
	tb.Text(w, 240)
}

// est prints a mean with its 95% interval, scaled by f.
func est(e stats.Estimate, f float64) string {
	e = e.Scaled(f)
	return render.Estimate(&e)
}
