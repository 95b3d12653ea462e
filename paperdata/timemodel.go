package paperdata

import (
	"context"
	"fmt"

	"github.com/herdlab/herd/analysis"
	"github.com/herdlab/herd/model"
)

// timeModelSection plays the README's practitioner scenario, 2,000 clients
// with retry-go's defaults against a limiter of 50 requests per 100 ms, in
// continuous time (the window server) and in the tick model with ticks of
// the window's length: the threats to validity cite the give-ups of both to
// show that a headline belongs to its time model.
func timeModelSection(ctx context.Context, cfg Config, d *doc) error {
	opt := cfg.options(1000)
	base := []string{"clients", "2000", "capacity", "50/100ms", "policy", "retry-go-v4"}
	gaveUp := map[string]float64{}
	for _, v := range []struct{ name, tick string }{{"continuous", ""}, {"tick", "100ms"}} {
		kv := base
		if v.tick != "" {
			kv = append(append([]string(nil), base...), "tick", v.tick)
		}
		sc, err := model.ScenarioOf(kv...)
		if err != nil {
			return err
		}
		if sc.InContinuousTime() != (v.tick == "") {
			return fmt.Errorf("%s: continuous time %v", v.name, sc.InContinuousTime())
		}
		s, err := analysis.Simulate(ctx, sc, opt)
		if err != nil {
			return err
		}
		if s.Censored > 0 || s.GaveUp == nil {
			return fmt.Errorf("%s: %d censored trials", v.name, s.Censored)
		}
		d.set("time.retrygo."+v.name, est(*s.GaveUp, 0))
		gaveUp[v.name] = s.GaveUp.Mean
	}
	ratio := gaveUp["continuous"] / gaveUp["tick"]
	// The text says the two differ severalfold.
	if cfg.full() && !(ratio >= 2) {
		return stale("retry-go's give-ups in continuous time are %.2f times the tick model's, not severalfold", ratio)
	}
	d.set("time.retrygo.trials", num(float64(opt.Trials), 0))
	d.set("time.retrygo.ratio", num(ratio, 1))
	return nil
}
