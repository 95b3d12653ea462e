// Package rng holds the two primitives every seeded engine draws with:
// SplitMix64's mixer, which derives independent streams' seeds, and a
// uniform float64 from a PCG stream.
package rng

import "math/rand/v2"

// Mix is SplitMix64's finalizer.
func Mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// Uniform is a float64 in [0, 1) with 53 random bits of src.
func Uniform(src *rand.PCG) float64 {
	return float64(src.Uint64()>>11) * 0x1p-53
}
