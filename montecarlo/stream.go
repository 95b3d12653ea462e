package montecarlo

import (
	"hash/fnv"
	"math"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/herdlab/herd/internal/rng"
	"github.com/herdlab/herd/model"
)

func splitmix(x uint64) uint64 { return rng.Mix(x) }

// environment hashes the parts of a scenario that are not the policy: the
// stream depends on them, so policies compared on one scenario share it.
func environment(sc model.Scenario) uint64 {
	h := fnv.New64a()
	for _, v := range []int{sc.Clients, sc.Capacity, int(sc.Server), sc.FirstWindow} {
		h.Write(strconv.AppendInt(nil, int64(v), 10))
		h.Write([]byte{0})
	}
	return h.Sum64()
}

// Stream is the random stream of trial i of a scenario under a seed.
func Stream(seed uint64, sc model.Scenario, i int) *rand.PCG {
	env := environment(sc)
	return rand.NewPCG(splitmix(seed^splitmix(env)), splitmix(env^splitmix(uint64(i)+0x632be59bd9b4e019)))
}

func uniform(src *rand.PCG) float64 { return rng.Uniform(src) }

// below is an unbiased integer in [0, n), by Lemire's multiply-and-reject.
func below(src *rand.PCG, n uint64) uint64 {
	hi, lo := bits.Mul64(src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(src.Uint64(), n)
		}
	}
	return hi
}

// normal is a standard normal draw from src: the very draw, and the very
// consumption of src, of rand.New(src).NormFloat64(), called on the
// concrete PCG so that the common case inlines into the OCC engine's hop
// instead of going through rand.Rand's Source interface on every word.
//
// The method is Marsaglia and Tsang's ziggurat ("The Ziggurat Method for
// Generating Random Variables", J. Stat. Softw. 5(8), 2000) with 128
// layers, as math/rand/v2 uses it: one 64-bit word u gives a signed 32-bit
// j (its low half) and a layer i (bits 32…38); x = j·w[i] is accepted at
// once when |j| < k[i], which is the case for about 99% of the words.
// The rest (normalRest) is the wedge test of layer i > 0 and the tail
// beyond r of the base layer. The tables are built by zigguratTables from
// the paper's recurrence; TestNormalMatchesNormFloat64 checks them and the
// draws against NormFloat64.
func normal(src *rand.PCG) float64 {
	u := src.Uint64()
	j := int32(u)
	l := &ziggurat.layer[u>>32&0x7f]
	if uint32(j)+l.off < l.span { // |j| < k
		return float64(j) * l.w
	}
	return normalRest(src, u)
}

// zigguratR is the paper's r for 128 layers, where the tail begins, and
// zigguratV the area of each layer.
const (
	zigguratR = 3.442619855899
	zigguratV = 9.91256303526217e-3
)

// zigguratLayer is what the common case reads of a layer: the scale w from
// j to x (a float32, widened) and the acceptance bound k on |j| as one
// unsigned comparison: −k < j < k iff uint32(j) + k − 1 < 2k − 1 (off and
// span; both 0 when k = 0, which accepts nothing).
type zigguratLayer struct {
	w         float64
	off, span uint32
}

// k is the layer's acceptance bound on |j|.
func (l zigguratLayer) k() uint32 { return (l.span + 1) / 2 }

// bound sets the layer's acceptance bound to k < 2³¹.
func (l *zigguratLayer) bound(k uint32) {
	if k > 0 {
		l.off, l.span = k-1, 2*k-1
	}
}

// zigguratWedge is what the wedge test reads of layer i: f = exp(−x²/2)
// at its outer edge and inner = f at the next layer's (i−1), as float32,
// the test's own numbers; and, for the bounds that decide most wedge
// points without an exponential (see wedgeBounds), the outer edge b =
// 2³¹·w, exp(−b²/2) and e = exp(smax)/6, smax the largest (b² − x²)/2 of
// the layer's wedge points.
type zigguratWedge struct {
	f, inner   float32
	b, phiB, e float64
}

var ziggurat = zigguratTables()

// zigguratTables builds the layers by the paper's recurrence: from the
// outermost edge x = r inwards, each next edge x′ solves
// v = x·(exp(−x′²/2) − exp(−x²/2)); the layers keep w and f as float32 and
// k truncated to an integer, as the reference tables do.
func zigguratTables() (z struct {
	layer [128]zigguratLayer
	wedge [128]zigguratWedge
}) {
	const m = 1 << 31
	x := zigguratR
	q := zigguratV / math.Exp(-0.5*x*x)
	z.layer[0].bound(uint32(x / q * m))
	z.layer[0].w = float64(float32(q / m))
	z.wedge[0].f = 1
	z.layer[127].w, z.wedge[127].f = float64(float32(x/m)), float32(math.Exp(-0.5*x*x))
	for i := 126; i >= 1; i-- {
		inner := math.Sqrt(-2 * math.Log(zigguratV/x+math.Exp(-0.5*x*x)))
		z.layer[i+1].bound(uint32(inner / x * m))
		x = inner
		z.layer[i].w, z.wedge[i].f = float64(float32(x/m)), float32(math.Exp(-0.5*x*x))
	}
	for i := 1; i < 128; i++ {
		l, w := z.layer[i], &z.wedge[i]
		w.inner = z.wedge[i-1].f
		w.b = m * l.w
		a := float64(l.k()) * l.w // the smallest |x| of a wedge point
		w.phiB = math.Exp(-0.5 * w.b * w.b)
		w.e = math.Exp((w.b*w.b-a*a)/2) / 6 * (1 + 1e-9) // rounded well up
	}
	return z
}

// wedgeMargin is far above the rounding error of the bounds and of
// math.Exp (about 10⁻¹⁵ here) and far below a wedge's height (above 10⁻³).
const wedgeMargin = 1e-12

// wedgeBounds bounds exp(−x²/2) for a point x of layer i's wedge,
// |x| ≤ b: with s = (b² − x²)/2 ≥ 0, exp(−x²/2) = exp(−b²/2)·eˢ and
// 1 + s + s²/2 ≤ eˢ ≤ 1 + s + s²/2 + eˢᵐᵃˣ·s³/6 (Taylor with Lagrange's
// remainder), less and more a margin that covers every rounding. The
// layers are thin, so s is small and the bounds are close: they decide
// all but a few percent of the wedge points, and only those need
// math.Exp.
func wedgeBounds(w *zigguratWedge, x float64) (lo, hi float64) {
	s := (w.b*w.b - x*x) / 2
	p := 1 + s + s*s/2
	return w.phiB*p - wedgeMargin, w.phiB*(p+w.e*s*s*s) + wedgeMargin
}

// normalRest finishes a normal draw whose first word u the ziggurat did
// not accept at once; it loops, as the whole draw does, until a point is
// accepted. src is an interface here, off the hot path, so that the tests
// can script the words.
func normalRest(src rand.Source, u uint64) float64 {
	// float53 is rand.Rand.Float64: the low 53 bits of a word.
	float53 := func() float64 { return float64(src.Uint64()<<11>>11) / (1 << 53) }
	for {
		j := int32(u)
		i := u >> 32 & 0x7f
		l := &ziggurat.layer[i]
		x := float64(j) * l.w
		if uint32(j)+l.off < l.span { // |j| < k
			return x
		}
		if i == 0 { // the tail beyond r, by Marsaglia's exponential rejection
			for {
				x = -math.Log(float53()) * (1 / zigguratR)
				y := -math.Log(float53())
				if y+y >= x*x {
					break
				}
			}
			if j > 0 {
				return zigguratR + x
			}
			return -zigguratR - x
		}
		// The wedge between layer i's rectangle and the density: x is
		// accepted when y < float32(exp(−x²/2)), y uniform on the wedge's
		// height. Rounding to float32 keeps order, so y below the rounded
		// lower bound accepts and y at or above the rounded upper bound
		// rejects, exactly as the exponential would decide.
		w := &ziggurat.wedge[i]
		y := w.f + float32(float53())*(w.inner-w.f)
		lo, hi := wedgeBounds(w, x)
		if y < float32(lo) || y < float32(hi) && y < float32(math.Exp(-0.5*x*x)) {
			return x
		}
		u = src.Uint64()
	}
}

// pcg is math/rand/v2's PCG, the same state, seeding and outputs, with a
// step that skips an output for the price of one step (skipUint64): the
// window engine's clients draw a round trip that a fixed law makes
// certain, and the draw must still be consumed. TestPCGIsRandPCG checks it
// against rand.PCG.
type pcg struct{ hi, lo uint64 }

// The LCG of rand.PCG: state = state·mul + inc (mod 2¹²⁸), and two steps
// at once, state·mul² + inc·(mul + 1).
const (
	pcgMulHi = 2549297995355413924
	pcgMulLo = 4865540595714422341
	pcgIncHi = 6364136223846793005
	pcgIncLo = 1442695040888963407
)

var pcgMul2Hi, pcgMul2Lo, pcgInc2Hi, pcgInc2Lo = pcgTwoSteps()

// pcgTwoSteps is mul² and inc·(mul + 1) modulo 2¹²⁸.
func pcgTwoSteps() (mHi, mLo, iHi, iLo uint64) {
	mul := func(aHi, aLo, bHi, bLo uint64) (uint64, uint64) {
		hi, lo := bits.Mul64(aLo, bLo)
		return hi + aHi*bLo + aLo*bHi, lo
	}
	mHi, mLo = mul(pcgMulHi, pcgMulLo, pcgMulHi, pcgMulLo)
	hi, lo := mul(pcgIncHi, pcgIncLo, pcgMulHi, pcgMulLo)
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	return mHi, mLo, hi, lo
}

func (p *pcg) Seed(seed1, seed2 uint64) { p.hi, p.lo = seed1, seed2 }

// Uint64 is rand.PCG's next output: one step, then DXSM.
func (p *pcg) Uint64() uint64 {
	hi, lo := bits.Mul64(p.lo, pcgMulLo)
	hi += p.hi*pcgMulLo + p.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	p.hi, p.lo = hi, lo
	return dxsm(hi, lo)
}

// skipUint64 is the output after the next one, which it skips.
func (p *pcg) skipUint64() uint64 {
	hi, lo := bits.Mul64(p.lo, pcgMul2Lo)
	hi += p.hi*pcgMul2Lo + p.lo*pcgMul2Hi
	lo, c := bits.Add64(lo, pcgInc2Lo, 0)
	hi, _ = bits.Add64(hi, pcgInc2Hi, c)
	p.hi, p.lo = hi, lo
	return dxsm(hi, lo)
}

// next and skip are Uint64 and skipUint64 on a value, the state after and
// the output, so that a hot loop keeps the state in registers (the pointer
// forms stay small enough to inline into uniform).
func (p pcg) next() (pcg, uint64) {
	hi, lo := bits.Mul64(p.lo, pcgMulLo)
	hi += p.hi*pcgMulLo + p.lo*pcgMulHi
	lo, c := bits.Add64(lo, pcgIncLo, 0)
	hi, _ = bits.Add64(hi, pcgIncHi, c)
	return pcg{hi, lo}, dxsm(hi, lo)
}

func (p pcg) skip() (pcg, uint64) {
	hi, lo := bits.Mul64(p.lo, pcgMul2Lo)
	hi += p.hi*pcgMul2Lo + p.lo*pcgMul2Hi
	lo, c := bits.Add64(lo, pcgInc2Lo, 0)
	hi, _ = bits.Add64(hi, pcgInc2Hi, c)
	return pcg{hi, lo}, dxsm(hi, lo)
}

func dxsm(hi, lo uint64) uint64 {
	const cheapMul = 0xda942042e4dd58b5
	hi ^= hi >> 32
	hi *= cheapMul
	hi ^= hi >> 48
	return hi * (lo | 1)
}

// uniform is a float64 in [0, 1), as the package's uniform draws it.
func (p *pcg) uniform() float64 { return float64(p.Uint64()>>11) * 0x1p-53 }
