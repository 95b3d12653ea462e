//go:build long

package claims

import "testing"

// The OCC rungs of the committed scaling study above those the default
// run recomputes (TestCommittedScalingIsCurrent), up to N near 10⁴
// (minutes of CPU), are what RunRung computes now: with it, every rung.
func TestCommittedScalingAtScale(t *testing.T) {
	checkCommittedScaling(t, func(m string, clients int) bool { return m == ModelOCC && clients > smallOCCRung })
}
