package sweep

import "testing"

// Every axis sweep's help documents as a range or a law takes one.
func TestDocumentedAxesTakeRanges(t *testing.T) {
	for _, c := range []struct {
		grid Grid
		want int
	}{
		{Grid{"server": "queue", "timeout": "3:7:2"}, 3},
		{Grid{"server": "queue", "queue-limit": "2:4"}, 3},
		{Grid{"server": "collision", "policy": "poly", "exponent": "1:2:0.5"}, 3},
		{Grid{"latency": "quantiles:0s,2ms,9ms"}, 1},
		{Grid{"latency": "quantiles:0s,2ms,9ms;uniform:1ms,2ms"}, 2},
	} {
		axes, err := c.grid.axes()
		if err != nil {
			t.Errorf("%v: %v", c.grid, err)
			continue
		}
		n := 1
		for _, a := range axes {
			n *= len(a.values)
		}
		if n != c.want {
			t.Errorf("%v: %d points, want %d", c.grid, n, c.want)
		}
	}
}

// A range with an infinite end or step is refused, naming the field.
func TestInfiniteRangesRefused(t *testing.T) {
	for _, text := range []string{"1:2:*Inf", "1:Inf", "1:2:+Inf", "-Inf:2"} {
		if _, err := (Grid{"base": text}).axes(); err == nil {
			t.Errorf("--base %s: accepted", text)
		}
	}
}
