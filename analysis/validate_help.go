package analysis

// ValidationHelp is each model's check in herd validate, said for its
// help: the model and what it must meet against Monte Carlo.
func ValidationHelp() [][2]string {
	return [][2]string{
		{"closed", "must equal every trial (calls, completion, latency distribution)."},
		{"markov", "the exact means must lie within the Monte Carlo means' Bonferroni-corrected interval (family-wise 99.9% over all statistical checks) and the Monte Carlo law of completion must pass a chi-square test against the chain's at the same level."},
		{"meanfield", "calls within 0.5% and completion within 2% of Monte Carlo for full, equal and decorrelated at N = 1,000, 10,000, 100,000 and N/k = 3, 10, 30, 100 (but decorrelated at 100,000 and 3, too dispersed to resolve quickly): a check passes when the whole 95% interval of the relative error lies within the bound (an equivalence test; passing all is evidence at level 5% that all are within it). Trials come in two stages: a pilot sizes the run so that the interval is about half the bound wide. The completion error must shrink as N grows at N/k = 10 (k = 1, 10, 100, 1000; full and equal). herd model quotes these errors as the validity of a mean-field result."},
		{"chain", "the queue server's exact chain against the queue engine on 15 small cohorts (calls, completion, wasted work, law of completion) and 9 small open-loop systems with an outage (the probability of recovering within the horizon, useful and wasted work, the law of the queue's length at its longest), with the markov checks' Bonferroni intervals and chi-square."},
		{"service-chain", "the service server's exact continuous-time chain (one worker, a waiting room of at most 5, exponential service and timeouts, immediate retries) against the service engine on 6 runs of 1,000 s: the long-run rates of goodput, wasted work, timeouts, rejections and sends after 50 s, within the same Bonferroni intervals."},
	}
}
