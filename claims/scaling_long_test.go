//go:build long

package claims

import "testing"

// Every rung of the committed scaling study, the OCC rungs near N = 10⁴
// included (minutes of CPU), is what RunRung computes now.
func TestCommittedScalingAtScale(t *testing.T) {
	checkCommittedScaling(t, 1<<30)
}
