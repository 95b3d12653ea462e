package montecarlo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// normal makes the draws of rand.Rand.NormFloat64 from the same PCG, bit
// for bit, and leaves the stream where NormFloat64 leaves it. 2·10⁷ draws
// take every layer about 1.5·10⁵ times and every wedge and the tail
// thousands of times. Shown to fail by giving one layer's w one ulp more
// (every draw of that layer then differs) and by flipping wedgeBounds'
// remainder term.
func TestNormalMatchesNormFloat64(t *testing.T) {
	draws := 20_000_000
	if testing.Short() {
		draws = 2_000_000
	}
	for seed := range uint64(4) {
		a, b := rand.NewPCG(seed, 7*seed+1), rand.NewPCG(seed, 7*seed+1)
		r := rand.New(a)
		for i := range draws / 4 {
			if x, y := normal(b), r.NormFloat64(); math.Float64bits(x) != math.Float64bits(y) {
				t.Fatalf("seed %d, draw %d: normal %v, NormFloat64 %v", seed, i, x, y)
			}
		}
		if a.Uint64() != b.Uint64() {
			t.Fatalf("seed %d: the streams differ after %d draws", seed, draws/4)
		}
	}
}

// script is a Source that plays given words, then fallback for ever, and
// counts the words taken.
type script struct {
	words []uint64
	taken int
}

// fallback is a word the ziggurat accepts at once (layer 5, j = 3): a draw
// that returns its value has rejected every scripted point before it.
const fallback = 5<<32 | 3

func (s *script) Uint64() uint64 {
	s.taken++
	if s.taken <= len(s.words) {
		return s.words[s.taken-1]
	}
	return fallback
}

// both plays words to NormFloat64 and to normalRest and fails on any
// difference in the value or in the words taken.
func both(t *testing.T, what string, words ...uint64) (x float64, taken int) {
	t.Helper()
	s1, s2 := &script{words: words}, &script{words: words}
	want := rand.New(s1).NormFloat64()
	s2.taken = 1
	got := normalRest(s2, words[0])
	if math.Float64bits(got) != math.Float64bits(want) || s1.taken != s2.taken {
		t.Fatalf("%s, words %#x: normalRest %v after %d words, NormFloat64 %v after %d", what, words, got, s2.taken, want, s1.taken)
	}
	return got, s1.taken
}

// word is the ziggurat's word for layer i and signed j.
func word(i int, j int32) uint64 { return uint64(i)<<32 | uint64(uint32(j)) }

// The tables are NormFloat64's, probed at their edges with scripted words:
// x = j·w for small j (w exactly), the acceptance bound k on either side
// and for either sign (the words taken tell an accepted point from a
// rejected one), and in every wedge, at several points x, the first
// uniform that rejects (found by bisection on normalRest; NormFloat64 must
// accept just below it and reject at it, which pins f and the next
// layer's f), and random uniforms. Shown to fail by lowering one k by one
// and one f by one ulp.
func TestZigguratTablesMatchNormFloat64(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const top = 1 << 53 // the 53-bit uniform of the wedge test
	for i := range 128 {
		l := ziggurat.layer[i]
		both(t, "w", word(i, 1), 0)
		both(t, "w", word(i, -1), 0)
		if l.k() > 1 {
			for _, j := range []int64{int64(l.k()) - 1, int64(l.k())} {
				if j > math.MaxInt32 {
					continue
				}
				both(t, "k", word(i, int32(j)), 0, 0)
				both(t, "k", word(i, -int32(j)), 0, 0)
			}
		}
		if i == 0 {
			for range 2000 { // the tail
				both(t, "tail", word(0, int32(rng.Uint32())|int32(l.k())), rng.Uint64(), rng.Uint64(), rng.Uint64(), rng.Uint64())
			}
			continue
		}
		for range 16 {
			j := int32(int64(l.k()) + rng.Int64N(1<<31-int64(l.k())))
			if rng.IntN(2) == 0 {
				j = -j
			}
			accepts := func(v uint64) bool {
				s := &script{words: []uint64{v}}
				x := normalRest(s, word(i, j))
				return x == float64(j)*l.w && s.taken == 1
			}
			lo, hi := uint64(0), uint64(top) // accepts(lo); the first rejection is ≤ hi
			if !accepts(0) {
				continue // every point at this x is above the density
			}
			for hi-lo > 1 {
				if mid := lo + (hi-lo)/2; accepts(mid) {
					lo = mid
				} else {
					hi = mid
				}
			}
			both(t, "wedge below the first rejection", word(i, j), lo)
			if hi < top {
				both(t, "wedge at the first rejection", word(i, j), hi)
			}
			for range 64 {
				both(t, "wedge", word(i, j), rng.Uint64N(top))
			}
		}
	}
}

// wedgeBounds holds exp(−x²/2) between its bounds at random points of
// every wedge, and leaves math.Exp to a small part of them. Shown to fail
// by dropping the remainder term from the upper bound.
func TestWedgeBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	undecided, n := 0, 0
	for i := 1; i < 128; i++ {
		l, w := ziggurat.layer[i], &ziggurat.wedge[i]
		for range 20_000 {
			j := int64(l.k()) + rng.Int64N(1<<31-int64(l.k())+1)
			x := float64(j) * l.w
			lo, hi := wedgeBounds(w, x)
			e := math.Exp(-0.5 * x * x)
			if !(lo <= e && e <= hi) {
				t.Fatalf("layer %d, x = %v: exp(−x²/2) = %v outside [%v, %v]", i, x, e, lo, hi)
			}
			y := w.f + float32(rng.Float64())*(w.inner-w.f)
			if !(y < float32(lo)) && y < float32(hi) {
				undecided++
			}
			n++
		}
	}
	if frac := float64(undecided) / float64(n); frac > 0.05 {
		t.Errorf("the bounds leave %.1f%% of the wedge points to math.Exp, above 5%%", 100*frac)
	} else {
		t.Logf("the bounds leave %.2f%% of the wedge points to math.Exp", 100*frac)
	}
}

// pcg draws rand.PCG's outputs from the same seeds, and skipUint64 is the
// second of two outputs.
func TestPCGIsRandPCG(t *testing.T) {
	for s := range uint64(50) {
		a, b := splitmix(s), splitmix(^s)
		var p, q, v, w pcg
		p.Seed(a, b)
		q.Seed(a, b)
		v.Seed(a, b)
		w.Seed(a, b)
		r := rand.NewPCG(a, b)
		for i := range 200 {
			want := r.Uint64()
			if got := p.Uint64(); got != want {
				t.Fatalf("seed %d, output %d: pcg %x, rand.PCG %x", s, i, got, want)
			}
			var got uint64
			if v, got = v.next(); got != want {
				t.Fatalf("seed %d, output %d: next %x, rand.PCG %x", s, i, got, want)
			}
			if i%2 == 1 {
				if got := q.skipUint64(); got != want {
					t.Fatalf("seed %d, output %d: skipUint64 %x, rand.PCG %x", s, i, got, want)
				}
				if w, got = w.skip(); got != want {
					t.Fatalf("seed %d, output %d: skip %x, rand.PCG %x", s, i, got, want)
				}
			}
		}
	}
}
