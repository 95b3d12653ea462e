// Package config reads the retry configurations users already write and
// maps each to herd's policy and controls with its source's semantics:
//
//   - a gRPC service config's methodConfig[].retryPolicy and
//     retryThrottling (gRFC A6): policy grpc-a6 and gRPC retry throttling;
//   - an Envoy route's retry_policy and a cluster's circuit_breakers
//     retry_budget: policy envoy as Envoy's code draws the back-off (or
//     envoy-docs, the router docs' reading, with Options.Envoy), and the
//     budget's decisions on a wave of simultaneous failures
//     (control.EnvoyBudget);
//   - the AWS shared config file's retry_mode and max_attempts: preset
//     aws-go-v2-2026 and the aws-2026 retry quota;
//   - resilience4j's retry instances, Polly v8's RetryStrategyOptions and
//     client-go's wait.Backoff: policies resilience4j, polly (or
//     polly-decorrelated) and client-go.
//
// The format is told by the file's fields; what a file cannot carry (an
// unknown field is refused) comes in Options. Each Reading keeps a row per
// field read, with the source's name and herd's equivalent, for the table
// herd prints; a field herd does not know, or cannot play, is refused with
// exit 2, naming the file, the line and the field. Files are read through
// internal/infile (regular files, at most MaxFile bytes).
package config
