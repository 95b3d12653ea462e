package plots

import (
	"slices"
	"testing"
)

// Every figure has a cost to be scheduled by, every cost names a figure,
// and Schedule starts the costliest first without losing or repeating
// one.
func TestScheduleCostliestFirst(t *testing.T) {
	figs := Figures()
	for _, f := range figs {
		if _, ok := cost[f.Name]; !ok {
			t.Errorf("figure %s has no cost: Schedule would start it last", f.Name)
		}
	}
	for name := range cost {
		if _, err := Lookup(name); err != nil {
			t.Errorf("cost of %s: %v", name, err)
		}
	}
	got := Schedule(figs)
	var names, want []string
	for i, f := range got {
		names = append(names, f.Name)
		if i > 0 && cost[f.Name] > cost[got[i-1].Name] {
			t.Errorf("%s (%g CPU s) is scheduled after %s (%g CPU s)", f.Name, cost[f.Name], got[i-1].Name, cost[got[i-1].Name])
		}
	}
	for _, f := range figs {
		want = append(want, f.Name)
	}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("Schedule gave %v, want a permutation of %v", names, want)
	}
}
