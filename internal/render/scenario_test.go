package render

import (
	"strings"
	"testing"

	"github.com/herdlab/herd/model"
)

// A scenario given in real units says its policy's delays in real units;
// a tick scenario keeps them in ticks.
func TestDescribeSaysDelaysInTheScenariosUnits(t *testing.T) {
	for _, c := range []struct {
		kv   []string
		want string
	}{
		{[]string{"capacity", "50/100ms", "policy", "full"}, "policy full (base 100ms, cap 3.2s)"},
		{[]string{"capacity", "500/s", "policy", "full:base=100ms,cap=10s,retries=9"}, "policy full (base 100ms, cap 10s), gives up after 9 retries"},
		{[]string{"capacity", "10/100ms", "policy", "fixed", "fixed-delay", "2"}, "policy fixed (delay 200ms)"},
		{[]string{"capacity", "10", "policy", "full"}, "policy full (base 1, cap 32)"},
	} {
		sc, err := model.ScenarioOf(c.kv...)
		if err != nil {
			t.Fatal(err)
		}
		if got := Describe(sc); !strings.Contains(got, c.want) {
			t.Errorf("%v: %q, want it to say %q", c.kv, got, c.want)
		}
	}
}
