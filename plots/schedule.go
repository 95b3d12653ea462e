package plots

import (
	"cmp"
	"slices"
)

// cost is each figure's CPU seconds at scale 1 with the default engines,
// as herd plots --cpuprofile measured them (its samples are labelled by
// figure), the work of a study that an earlier figure shares left out
// (completion-vs-load's sweep is calls-vs-load's). Only the order they
// give matters: Schedule starts the longest figures first, so that the
// cores stay busy with short ones at the end. A figure missing here
// counts as the cheapest.
var cost = map[string]float64{
	"metastability-map":       31.4,
	"queue-metastability-map": 17.8,
	"recovery-vs-load":        13.6,
	"aws-calls-vs-clients":    8.8,
	"calls-vs-load":           7.7,
	"sensitivity-base-cap":    3.4,
	"queue-hysteresis":        2.4,
	"presets-audit":           1.8,
	"tail-convergence":        0.9,
	"delay-waits":             0.45,
	"policy-comparison":       0.32,
	"completion-vs-load":      0.3,
	"arrivals-timeline":       0.25,
	"local-exponents":         0.19,
	"engine-cost":             0.16,
	"aws-time-vs-clients":     0.13,
}

// Schedule is figs in the order to compute them when several are drawn at
// once: the costliest first (ties in figs' order). The figures' files do
// not depend on the order.
func Schedule(figs []Figure) []Figure {
	out := slices.Clone(figs)
	slices.SortStableFunc(out, func(a, b Figure) int { return cmp.Compare(cost[b.Name], cost[a.Name]) })
	return out
}
