package reproduce

import (
	"context"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

// BenchmarkReproduceAWS is `herd reproduce aws` at its defaults: 19 client
// counts × 5 policies × 100 trials, on every core. The budget is
// 1 s per op on 2 cores.
func BenchmarkReproduceAWS(b *testing.B) {
	opt := montecarlo.Options{Trials: 100, Seed: 1}
	for b.Loop() {
		if _, err := ReproduceAWS(context.Background(), model.AWSClients(), model.AWSKinds(), opt, nil); err != nil {
			b.Fatal(err)
		}
	}
}
