package analysis

import (
	"fmt"

	"github.com/herdlab/herd/model"
	"github.com/herdlab/herd/solve"
)

// SolutionValidity is the validity of an analytical model's solution of
// sc, with its warnings: the closed form is exact, the exact chain's is
// MarkovValidity, the queue chain's QueueChainValidity and the mean
// field's MeanFieldValidity.
func SolutionValidity(r solve.Solution, sc model.Scenario) (Validity, []string) {
	switch {
	case r.Closed != nil:
		return ExactValidity(), nil
	case r.Markov != nil:
		return MarkovValidity(*r.Markov)
	case r.Chain != nil:
		return QueueChainValidity(*r.Chain)
	case r.MeanField != nil:
		return MeanFieldValidity(sc)
	}
	return Validity{}, nil
}

// QueueChainValidity is the validity of the queue chain's result: exact,
// or conditional on the mass the chain did not follow — unfinished when it
// stopped, overflowed past its bounds, and cut (the Poisson tail and
// pruning, once above 1e-6) — with a warning for each.
func QueueChainValidity(r solve.QueueChain) (Validity, []string) {
	lost := r.Unfinished + r.Overflow
	if r.Truncated > 1e-6 {
		lost += r.Truncated
	}
	if lost <= 1e-12 {
		return ExactValidity(), nil
	}
	var warn []string
	if r.Unfinished > 1e-12 {
		warn = append(warn, fmt.Sprintf("%.4g of the probability is unfinished when the chain stops (tick %d): the moments and law of completion are conditional on finishing by then", r.Unfinished, r.Ticks))
	}
	if r.Overflow > 1e-12 {
		warn = append(warn, fmt.Sprintf("%.4g of the probability passed the chain's bounds (--max-backlog %d, --max-queue %d) and left it, not recovered; the moments are over the paths still in the chain", r.Overflow, r.Options.MaxBacklog, r.Options.MaxQueue))
	}
	if r.Truncated > 1e-6 {
		warn = append(warn, fmt.Sprintf("%.4g of the probability was cut (the Poisson tail and states below 1e-9)", r.Truncated))
	}
	return Validity{Kind: ValidityConditional, Unfinished: lost}, warn
}
