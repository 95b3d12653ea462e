// Package study holds the studies that herd's figures, claims and paper
// share, each defined once with its grid, its trials at full scale and a
// Run method: LoadStudy, SensitivityStudy, TailStudy, AuditStudy and
// ScalingStudy (the doublings of N whose LocalExponent judges the growth
// claims). Beside them: RunAudit ranks the textbook policies and every
// library preset on one thundering herd; RunningQuantiles follows tail
// quantiles as trials accumulate; Metastability, RecoveryVersusLoad,
// QueueMetastability and Hysteresis map when an outage leaves a service
// stuck; FirstWindowEffect and Amplify study first-request windows and
// stacked retry layers. Every run goes through package analysis, and so
// shares its cache.
package study
