// Package claims holds the published statements about retries that herd
// checks, and the one vocabulary of its verdicts on them.
//
//   - A Verdict is holds, fails, holds-only-when (always with its
//     condition) or inconclusive (the intervals at the trial budget cannot
//     decide); verdicts are decided at DecisionLevel (99.9%), while the
//     Evidence behind them is shown with 95% intervals.
//   - A Claim is a statement with its source, exact quote, the model it was
//     made in (ModelCapacity: the seed article's tick server, or ModelOCC:
//     the AWS blog's optimistic-concurrency row) and the rule that decides
//     it. The registry (All) holds the blog's and the seed articles'
//     claims; EvaluateControls checks the claims about retry controls,
//     layered retries and metastability, which have one model only.
//   - A Lab runs the simulations a claim needs once each and caches them,
//     so that policies are compared trial by trial on common random
//     numbers (analysis.Outcomes, analysis.CompareOutcomes); an undecided
//     point is rerun with more trials, and a verdict that switches over the
//     client grid gets its crossover by bisection (a Finding per model).
//   - Every threshold turns a source's words into a number and is read
//     from the words alone (approxSame, slight, much, …); the Check of each
//     claim says which and why. A quote that is not the source's exact
//     words is flagged Paraphrase; where the seed article's own table
//     contradicts its words, the Finding's Note says so.
//   - The growth claims are judged by one rule, GrowthRule, from the local
//     exponents of the scaling study (study.ScalingStudy, RunScaling):
//     doublings of N up to where the delays sit at the cap. Its OCC rungs
//     cost minutes, so a run at seed 1 is committed (data/scaling.json,
//     Committed) and a test checks that it is what the code computes.
//   - Every growth or stability verdict is judged from the trend over
//     successive doublings (trend.go): it fails only when the evidence
//     does not move toward the claim, and is inconclusive: pre-asymptotic
//     when it does; a Θ claim is judged against competing forms and names
//     those the data rejects.
//   - EvaluateContention checks the classic results on backoff in
//     contention resolution (Bender et al.'s batch makespans under the
//     window policies of policy.ContentionKinds, Håstad et al.'s stability
//     of stations with queues) by ContentionRule, on the collision server
//     with k = 1; `herd claims --source contention` runs them, and the
//     default run of every source leaves them out for time.
//   - Evaluate runs the registry in each claim's own model and in the other
//     and returns a Result per claim, saying whether the verdict transfers;
//     a growth claim's Finding names its regime ("for N ≥ …") and carries
//     its local exponents, and every Result its key evidence.
package claims
