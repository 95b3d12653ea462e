// Package solve answers a scenario without simulating it: herd's
// analytical models, behind one entry point, Solve, that names the method
// and returns one Solution.
//
//   - ClosedForm: exact for a synchronized cohort whose waits are certain;
//     WindowClosedForm is its continuous-time counterpart.
//   - MarkovChain: exact for small cohorts, propagating the probability of
//     every state of pending clients by retry class and ticks to wait.
//   - MeanFieldModel: approximate for large cohorts, expected arrivals and
//     their fluctuations (the linear-noise approximation).
//   - QueueChainOf: exact chain of the queue server, for a cohort or
//     open-loop traffic with an outage.
//
// Each refuses, with an *Unsupported naming the reason, what it cannot
// answer. docs/models.md derives each model; herd validate measures the
// mean field's error against Monte Carlo.
package solve
