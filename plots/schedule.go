package plots

import (
	"cmp"
	"slices"
)

// cost is each figure's CPU seconds at scale 1 with the default engines,
// as herd plots --cpuprofile measured them on the idle machine (its samples
// are labelled by figure), the work of a study that an earlier figure shares left out
// (completion-vs-load's sweep is calls-vs-load's). Only the order they
// give matters: Schedule starts the longest figures first, so that the
// cores stay busy with short ones at the end. A figure missing here
// counts as the cheapest.
var cost = map[string]float64{
	"recovery-vs-load":        5.6,
	"aws-calls-vs-clients":    5.1,
	"queue-metastability-map": 3.7,
	"metastability-map":       3.5,
	"calls-vs-load":           3.5,
	"sensitivity-base-cap":    1.1,
	"presets-audit":           1.1,
	"tail-convergence":        0.87,
	"queue-hysteresis":        0.45,
	"delay-waits":             0.45,
	"policy-comparison":       0.22,
	"completion-vs-load":      0.2,
	"arrivals-timeline":       0.2,
	"local-exponents":         0.17,
	"engine-cost":             0.14,
	"aws-time-vs-clients":     0.1,
}

// Schedule is figs in the order to compute them when several are drawn at
// once: the costliest first (ties in figs' order). The figures' files do
// not depend on the order.
func Schedule(figs []Figure) []Figure {
	out := slices.Clone(figs)
	slices.SortStableFunc(out, func(a, b Figure) int { return cmp.Compare(cost[b.Name], cost[a.Name]) })
	return out
}
