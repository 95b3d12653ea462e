#!/usr/bin/env bash
# Runs a fixed corpus of herd commands with --format json and writes each
# one's output, provenance removed, into DIR: a refactoring keeps every
# number, verdict, policy and server name, and diff -r of two DIRs says so.
#   scripts/behaviour-corpus.sh BINARY DIR
# (make behaviour BASE=REV builds REV and HEAD and compares them.)
set -euo pipefail
bin=$1 dir=$2
mkdir -p "$dir"
strip() { python3 "$(dirname "$0")/strip-provenance.py"; }

n=0
run() {
	n=$((n + 1))
	name=$(printf '%03d' "$n")
	{ echo "# herd ${*//$dir/DIR}"; } >"$dir/$name.cmd"
	set +e
	"$bin" "$@" 2>"$dir/$name.err" | strip >"$dir/$name.json"
	echo "exit ${PIPESTATUS[0]}" >>"$dir/$name.cmd"
	set -e
}
S="--trials 40 --seed 7 --format json"
# simulate: every server, time model and engine
run simulate -n 100 -k 10 $S
run simulate -n 100 -k 10 --engine clients $S
run simulate -n 100 -k 10 --engine counts --policy equal $S
run simulate -n 100 -k 10 --policy decorrelated $S
run simulate -n 200 -k 10 --policy expo --rounding floor $S
run simulate -n 50 -k 5 --policy fixed --fixed-delay 3 --first-window 4 $S
run simulate -n 20 -k 4 --server collision --policy full $S
run simulate -n 64 -k 1 --server collision --policy poly --exponent 2 --base 1 --cap 4096 $S
run simulate -n 64 -k 1 --server collision --policy loglog $S
run simulate -n 64 -k 1 --server collision --policy sawtooth $S
run simulate -n 50 --server occ --policy full $S
run simulate -n 50 --server occ --policy decorrelated $S
run simulate --server flaky --failure-rate 0.5 --rate 10 -k 1000000 --outage 0 --bucket brooker-sim --ticks 300 $S
run simulate --server flaky --failure-rate 0.5 --loop closed --think-time 10 -k 1000000 --outage 0 --max-attempts 4 --policy expo --base 10 --cap 1 --ticks 300 $S
run simulate -n 30 -k 3 --server queue --timeout 4 --queue-limit 20 --policy full $S
run simulate -n 30 -k 3 --server queue --timeout 4 $S --policy equal --engine default
run simulate -k 5 --rate 3 --clients 200 --outage-start 20 --outage 10 --ticks 200 $S
run simulate -k 5 --rate 3 --clients 200 --server queue --timeout 5 --outage-start 20 --outage 10 --ticks 200 $S
run simulate -k 5 --rate 3 --clients 200 --retry-budget --outage-start 20 --outage 10 --ticks 200 $S
run simulate -k 5 --rate 3 --clients 200 --bucket aws --ticks 200 $S
run simulate -k 5 --rate 3 --clients 200 --breaker --outage-start 20 --outage 10 --ticks 200 $S
run simulate -k 5 --clients 50 --loop closed --think-time 3 --outage-start 20 --outage 10 --ticks 200 $S
run simulate -n 200 -k 10 --policy retry-go-v4 --tick 100ms $S
run simulate -n 200 -k 10 --policy aws-go-v2-2026 --tick 100ms $S
run simulate -n 200 -k 10 --policy full --tick 100ms --max-elapsed 10s $S
run simulate -n 200 -k 10 --window 100ms $S
run simulate -n 200 -k 10 --window 100ms --latency 5ms $S
run simulate -n 200 -k 10 --window 100ms --latency uniform:2ms,8ms --first-spread 50ms --policy retry-go-v4 $S
run simulate -n 200 -k 10 --window 10ms --latency lognormal:3ms,1ms --policy retryablehttp-default $S
run simulate -n 200 -k 10 --window 10ms --latency quantiles:1ms,2ms,5ms --latency-per-flight 25us --stalls 100ms,3ms --policy cenkalti-v4 $S
run simulate -n 200 -k 10 --window 100ms --latency 1ms --policy expo $S
run simulate -n 100 -k 10 --retries 3 --arrivals $S
# model: every method
run model --method closed -n 100 -k 10 --policy expo --format json
run model --method closed -n 100 -k 10 --policy fixed --fixed-delay 2 --format json
run model --method markov -n 8 -k 2 --policy full --format json
run model --method markov -n 6 -k 2 --policy equal --cap 8 --format json
run model --method meanfield -n 100000 -k 1000 --policy equal --format json
run model --method meanfield -n 10000 -k 100 --policy full --format json
run model --method meanfield -n 10000 -k 100 --policy decorrelated --format json
run model --method chain --server queue -n 6 -k 2 --timeout 2 --policy full --format json
run model --method chain --server queue -k 1 --rate 0.5 --ticks 100 --outage-start 3 --outage 4 --timeout 2 --queue-limit 4 --policy none --max-attempts 2 --format json
run model --method closed -n 100 -k 10 --policy expo --window 100ms --format json
run simulate -n 20 -k 10 --policy none --retries 3 $S
run simulate -n 30 -k 3 --server queue --timeout 4 --queue-limit 20 --policy full --max-attempts 3 $S
run model --method markov -n 5 -k 1 --server collision --policy full --cap 8 --horizon 60 --format json
run simulate -n 100 -k 10 --policy grpc-retry --window 50ms --latency 2ms $S
run simulate -n 100 -k 10 --window 100ms --first-arrivals quantiles:0s,10ms,30ms --first-answers quantiles:1ms,12ms,40ms $S
run compare -n 200 -k 10 --policy full,equal --trials 20 --seed 1 --out "$dir/compare-out"
# compare prints prose; its numbers are in compare.json
strip <"$dir/compare-out/compare.json" >"$dir/$name.json"
rm -rf "$dir/compare-out"
# reproductions, delays, presets, sweep
run reproduce seed --trials 200 --seed 3 --format json
run reproduce aws --trials 20 --seed 3 --format json
run delays --policy full --format json
run delays --policy retry-go-v4 --tick 100ms --format json
run delays --policy decorrelated --cap 64 --format json
run presets --format json
run sweep -n 50,100 -k 10 --policy full,equal,decorrelated --trials 20 --seed 2
run sweep -n 20 -k 2:4 --server queue --timeout 3 --trials 10 --seed 2
run sweep -n 100 -k 10 --rounding half-even,floor --policy expo,retry-go-v4 --tick 100ms --trials 10 --seed 2
run audit -n 200 -k 10 --trials 20 --seed 4 --format json
echo "$n commands into $dir"
