package stats

import (
	"math"
	"testing"
)

// The two one-sided tests confirm an estimate that is exactly right,
// refuse one a couple of the source's standard errors off (which a z test
// at 99.9% would call agreement), and need exact equality where neither
// side varies.
func TestEquivalent(t *testing.T) {
	m := PowerMultiple(0.05, 0.95)
	if math.Abs(m-(1.6448536+1.9599640)) > 1e-6 {
		t.Fatalf("PowerMultiple(0.05, 0.95) = %v, want z(0.95) + z(0.975) = 3.6048", m)
	}
	article := Published{Mean: 100, SD: 10, N: 25} // its standard error is 2
	precise := func(mean float64) Estimate { return Estimate{Mean: mean, SD: 1, N: 10_000} }
	for _, c := range []struct {
		name string
		e    Estimate
		want bool
	}{
		{"on the article's mean", precise(100), true},
		// 3.8 + 1.645·2.0 = 7.09 < 7.21.
		{"3.8 below, its interval inside the margin", precise(96.2), true},
		// 4 + 3.29 > 7.21, though |z| = 2 passes a z test at 99.9%.
		{"4 above, its interval past the margin", precise(104), false},
		{"three standard errors off", precise(106), false},
	} {
		got := Equivalent(c.e, article, m)
		if math.Abs(got.Margin-2*m) > 1e-12 {
			t.Errorf("%s: margin %v, want %v", c.name, got.Margin, 2*m)
		}
		if got.Equivalent != c.want {
			t.Errorf("%s: equivalent = %v, want %v", c.name, got.Equivalent, c.want)
		}
	}
	exact := Published{Mean: 150, SD: 0, N: 30}
	if !Equivalent(Exact(150), exact, m).Equivalent {
		t.Error("equal values without variance: not equivalent")
	}
	if Equivalent(Exact(151), exact, m).Equivalent {
		t.Error("different values without variance: equivalent")
	}
}
