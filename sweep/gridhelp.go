package sweep

import (
	"strings"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/policy"
)

// gridHelp says what each grid field's values are, with an example where
// the syntax is not a number's.
var gridHelp = map[string]string{
	"clients": "clients N", "capacity": "capacity k", "server": "server models (those a cohort runs on; herd simulate --rate plays the others)",
	"policy": "retry policies", "base": "base delays", "cap": "caps", "fixed-delay": "fixed delays",
	"rounding": "roundings", "first-window": "first-request windows W", "horizon": "horizons (0: automatic)",
	"retries": "retry limits (0: none; default: each preset's own)", "tick": "real tick lengths, e.g. 100ms,1s",
	"max-elapsed": "elapsed-time limits, e.g. 30s:120s:30s (default: each preset's own)",
	"time":        "time models (tick, continuous)", "window": "continuous-time windows, e.g. 10ms,100ms",
	"first-spread":       "continuous-time first-send spreads, e.g. 0s:50ms:10ms",
	"first-arrivals":     "continuous-time laws of the first arrivals separated by semicolons, e.g. uniform:0s,50ms;quantiles:0s,5ms,40ms",
	"first-answers":      "continuous-time laws of the first answers (with first-arrivals) separated by semicolons, e.g. quantiles:40ms,60ms,70ms",
	"stalls":             "continuous-time stalls of the machine EVERY,LENGTH separated by semicolons, e.g. 40ms,8ms;20ms,8ms",
	"latency-per-flight": "continuous-time latencies per way in flight, e.g. 0s:100us:25us",
	"exponent":           "exponents r of the poly window policy",
	"queue-limit":        "queue server's queue limits (0: unbounded)",
	"timeout":            "queue server's timeouts in ticks (0: none)",
	"burst":              "limiter bursts (token-bucket's size, gcra's burst)",
	"nodelay":            "gcra's nodelay",
	"latency":            "continuous-time round trips, e.g. 0s:8ms:2ms, or laws separated by semicolons: uniform:2ms,8ms;lognormal:5ms,2ms",
}

// GridUsage is a grid field's help: its values, as a comma list of values
// and ranges, or of the names it takes.
func GridUsage(field string) string {
	enums := map[string]string{"server": strings.Join(model.CohortServerNames(), ","), "policy": strings.Join(policy.Names(policy.Kinds()), ",") + " or library presets (herd presets lists them)",
		"rounding": strings.Join(policy.RoundingNames(), ","), "time": strings.Join(model.TimeNames(), ","), "nodelay": "true,false"}
	if names, ok := enums[field]; ok {
		return gridHelp[field] + ": a comma list of " + names
	}
	return gridHelp[field] + ": a comma list of values and ranges lo:hi[:step|:*factor]"
}
