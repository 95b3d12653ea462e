package claims

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/herdlab/herd/analysis"
)

// Evaluate with the run's cache and claims side by side gives the bytes of
// an uncached run of one claim at a time: the cache hands out what playing
// a scenario again gives, and each claim's verdict depends on its own runs
// alone. (The broken cache addresses of analysis.TestCacheIsUncachedBytes
// make this fail too.)
func TestEvaluateCachedIsUncached(t *testing.T) {
	if testing.Short() {
		t.Skip("plays the seed claims twice")
	}
	o := Options{Trials: 30, Seed: 2, Origin: "seed"}
	cached, err := Evaluate(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	o.Workers = 1
	uncached, err := Evaluate(analysis.WithCache(context.Background(), nil), o)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := json.Marshal(cached)
	b, _ := json.Marshal(uncached)
	if string(a) != string(b) {
		t.Errorf("cached, side by side:\n%s\nuncached, one at a time:\n%s", a, b)
	}
}
