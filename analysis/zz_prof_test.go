package analysis

import (
	"context"
	"testing"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

func BenchmarkZZReproduceAWS(b *testing.B) {
	for b.Loop() {
		_, err := ReproduceAWS(context.Background(), model.AWSClients(), model.AWSKinds(), montecarlo.Options{Trials: 100, Seed: 1, Workers: 1}, nil)
		if err != nil {
			b.Fatal(err)
		}
	}
}
