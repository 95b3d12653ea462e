package model

import (
	"fmt"
	"math"
)

// MaxLayers and MaxLayerAttempts bound a stack so that ∏ attempts stays a
// number a simulation can reach.
const (
	MaxLayers        = 16
	MaxLayerAttempts = 100
)

// ValidateStack checks a stack of layers (attempts per layer, top first)
// and a bottom failure probability.
func ValidateStack(p float64, attempts []int) error {
	if len(attempts) < 1 || len(attempts) > MaxLayers {
		return &FieldError{Flag: "layers", Valid: fmt.Sprintf("an integer in [1, %d]", MaxLayers), Got: fmt.Sprint(len(attempts))}
	}
	for _, a := range attempts {
		if a < 1 || a > MaxLayerAttempts {
			return &FieldError{Flag: "attempts", Valid: fmt.Sprintf("an integer in [1, %d] per layer", MaxLayerAttempts), Got: fmt.Sprint(a)}
		}
	}
	if !Finite(p) || p < 0 || p > 1 {
		return &FieldError{Flag: "failure", Valid: "a probability in [0, 1]", Got: fmt.Sprint(p)}
	}
	return nil
}

// Amplification is the expected number of calls that reach the bottom of a
// stack of layers per top-level request, when layer j (top first) makes up
// to attempts[j] tries of its call to the layer below and stops at the
// first success, and each call to the bottom fails independently with
// probability p. A try at any layer fails only when every try below it
// failed, so the stack behaves as one client making A = ∏ attempts[j]
// tries of the bottom call in sequence: the bottom sees a truncated
// geometric number of calls, with mean (1 − p^A)/(1 − p), which is A when
// p = 1. With three tries at each of five layers, A = 3⁵ = 243.
func Amplification(p float64, attempts []int) float64 {
	a := TotalAttempts(attempts)
	if p >= 1 {
		return a
	}
	if p <= 0 {
		return 1
	}
	// (1 − p^A)/(1 − p) with A possibly huge: p^A underflows to 0 cleanly.
	return -math.Expm1(a*math.Log(p)) / (1 - p)
}

// TotalAttempts is ∏ attempts[j] as a float64 (it can exceed any int).
func TotalAttempts(attempts []int) float64 {
	a := 1.0
	for _, x := range attempts {
		a *= float64(x)
	}
	return a
}

// StackFailure is the probability that a top-level request fails: every one
// of the A bottom calls failed, p^A.
func StackFailure(p float64, attempts []int) float64 {
	return math.Pow(p, TotalAttempts(attempts))
}
