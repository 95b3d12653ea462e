package analysis

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/montecarlo"
)

func TestScratch(t *testing.T) {
	sc := model.Default()
	sc.Clients, sc.Capacity = 100, 100
	for _, server := range []string{"capacity", "reject0.05", "collision"} {
		for _, ctl := range []model.Controls{{}, {Bucket: model.DefaultBucket(model.BrookerBucket)}, {Bucket: model.DefaultBucket(model.AWSBucket)}, {Breaker: model.DefaultBreaker()}, {MaxAttempts: 3}} {
			for _, rho := range []float64{0.5, 0.8} {
				for _, out := range []int{0, 20, 100} {
					s := sc
					tr := model.Traffic{Rate: rho * 100, Ticks: 2000, OutageStart: 100, OutageLength: out}
					switch server {
					case "collision":
						s.Server = model.Collision
					case "reject0.05":
						tr.RejectCost = 0.05
					}
					t0 := time.Now()
					r, err := SimulateTraffic(context.Background(), s, tr, ctl, montecarlo.Options{Trials: 10, Seed: 1})
					if err != nil {
						t.Fatal(err)
					}
					rt := 0.0
					if r.RecoveryTicks != nil {
						rt = r.RecoveryTicks.Mean
					}
					fmt.Printf("%-10s %-16s rho=%.1f out=%3d rec=%2d/10 t=%6.1f load=%.2f served=%.3f gaveup=%.0f  %v\n", server, ctl, rho, out, r.Recovered.Count, rt, r.Load.Mean, r.ServedShare.Mean, r.GaveUp.Mean, time.Since(t0).Round(time.Millisecond))
				}
			}
		}
	}
}
