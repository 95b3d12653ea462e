package montecarlo

import (
	"hash/fnv"
	"math/bits"
	"math/rand/v2"
	"strconv"

	"github.com/herdlab/herd/model"
)

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

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

// uniform is a float64 in [0, 1) with 53 random bits.
func uniform(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}

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
