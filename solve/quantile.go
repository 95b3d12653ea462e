package solve

// CompletionQuantile is the smallest completion t with P(completion ≤ t |
// finished) ≥ p under the law dist (dist[t] is the probability of
// completion t; what it lacks from 1 is the mass that did not finish): the
// same order-statistic convention as the Monte Carlo quantiles. The last
// completion when rounding leaves p out of reach; -1 for an empty law.
func CompletionQuantile(dist []float64, p float64) int {
	finished := 0.0
	for _, q := range dist {
		finished += q
	}
	cum := 0.0
	for t, q := range dist {
		cum += q
		if cum >= p*finished*(1-1e-12) {
			return t
		}
	}
	return len(dist) - 1
}

// Quantile is the queue chain's completion quantile (CompletionQuantile of
// its Distribution): for a cohort in which no client can give up.
func (q QueueChain) Quantile(p float64) int { return CompletionQuantile(q.Distribution, p) }

// CompletionQuantile is the solution's completion quantile, where its model
// gives the law of completion: the exact chain, the queue chain when no
// client can give up, and the mean field; ok is false for the others.
func (s Solution) CompletionQuantile(p float64) (t int, ok bool) {
	switch {
	case s.Markov != nil:
		return s.Markov.Quantile(p), true
	case s.Chain != nil && s.Chain.Distribution != nil:
		return s.Chain.Quantile(p), true
	case s.MeanField != nil:
		return s.MeanField.Quantile(p), true
	}
	return 0, false
}
