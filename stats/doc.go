// Package stats holds the statistics of herd: values that carry their
// uncertainty, and the tests that compare them. It knows nothing of
// scenarios or engines; every other package reports through it.
//
//   - Estimate is a mean with its standard deviation, sample size and 95%
//     Student-t interval (Interval; Exact for a model's certain value).
//     Moments folds values one at a time into an Estimate, and into a
//     paired Difference (significant when its interval excludes 0) when the
//     values are differences of trials on common random numbers.
//   - Quantile is a quantile with its interval: QuantileOf and
//     QuantileOfSorted give exact distribution-free order-statistic
//     intervals (OrderStatisticRanks) for a quantity measured once per
//     trial; LatencyCDF pools per-client latencies, whose values within one
//     trial are dependent, with Woodruff intervals from trial-clustered
//     standard errors. Percentiles are the levels herd reports.
//   - Share is a proportion with its exact Clopper–Pearson interval
//     (NewShare).
//   - ChiSquare is Pearson's goodness-of-fit test of a histogram against a
//     law; Agree is a z test of an estimate against a Published mean ± sd,
//     which can only fail to find a difference, and Equivalent the two
//     one-sided tests that show the two within a margin (PowerMultiple).
//
// Every interval is at level Confidence (95%); TQuantile is its Student-t
// critical value.
package stats
