package paperdata

import (
	"math"
	"testing"

	"github.com/herdlab/herd/stats"
)

// The equivalence test confirms a herd that is exactly right, refuses one
// that is a few of the article's standard errors off, and needs exact
// equality where neither side varies.
func TestEquivalence(t *testing.T) {
	if m := equivalenceMultiple(); math.Abs(m-(1.6448536+1.9599640)) > 1e-6 {
		t.Fatalf("margin multiple %v, want z(0.95) + z(0.975) = 3.6048", m)
	}
	article := stats.Published{Mean: 100, SD: 10, N: 25} // its standard error is 2
	precise := func(mean float64) stats.Estimate { return stats.Estimate{Mean: mean, SD: 1, N: 10_000} }
	for _, c := range []struct {
		name string
		herd stats.Estimate
		want bool
	}{
		{"herd on the article's mean", precise(100), true},
		// 1.9 standard errors off: 3.8 + 1.645·2.0 = 7.1 < 7.2.
		{"herd 3.8 below, inside the margin with its interval", precise(96.2), true},
		// 2 standard errors off: 4 + 3.3 > 7.2, though a z test at 99.9% would not reject.
		{"herd 4 above, its interval reaching past the margin", precise(104), false},
		{"herd three standard errors off", precise(106), false},
	} {
		got, margin := equivalence(c.herd, article)
		if math.Abs(margin-2*equivalenceMultiple()) > 1e-12 {
			t.Errorf("%s: margin %v, want %v", c.name, margin, 2*equivalenceMultiple())
		}
		if got != c.want {
			t.Errorf("%s: equivalent = %v, want %v", c.name, got, c.want)
		}
	}
	exact := stats.Published{Mean: 150, SD: 0, N: 30}
	if ok, _ := equivalence(stats.Exact(150), exact); !ok {
		t.Error("equal values without variance: not equivalent")
	}
	if ok, _ := equivalence(stats.Exact(151), exact); ok {
		t.Error("different values without variance: equivalent")
	}
}
