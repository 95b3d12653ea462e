#!/usr/bin/env bash
# Side-by-side speed of herd's per-client engine and the seed article's
# numpy simulator (section 5.1 of $SHARED/seeds/000_646017d758d38312.txt,
# SHARED defaulting to ../shared) on the same scenario: Full Jitter,
# N = 100,000, k = 1,000, base 1, cap 32, both on one core (taskset -c 0).
# The article's code is read from the shared seed file into a temporary
# directory at run time; it is not part of herd and nothing is fetched.
# Needs python3-numpy. The two alternate RUNS times (default 5), each run
# one trial of the article's code (seeds 0, 1, …) and one second of
# BenchmarkClientEngine; it prints the medians of both rates, per second of
# wall clock and per second of CPU (which, on a busy machine, leaves out
# the turns other processes take on the core), their ratios and whether
# they meet the target (TARGET, default 250x). Skips with a
# message when the seed file or numpy is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${SHARED:-../shared}/seeds/000_646017d758d38312.txt
runs=${RUNS:-5}
target=${TARGET:-250}
if [ ! -f "$seed" ]; then
	echo "bench-vs-seed: skipped: the seed article is not at $seed (set SHARED to the folder holding seeds/)"
	exit 0
fi
py=$(command -v /usr/bin/python3 || command -v python3)
if ! "$py" -c 'import numpy' 2>/dev/null; then
	echo "bench-vs-seed: skipped: the article's code needs numpy ($py; Debian's python3-numpy)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The simulator is the block from "import numpy" to its return statement.
awk '/^import numpy as np/{on=1} on{print} on&&/return total_calls/{exit}' "$seed" >"$tmp/seedsim.py"
cat >"$tmp/run.py" <<'PY'
import sys, time
sys.path.insert(0, sys.argv[1])
from seedsim import simulate
s = int(sys.argv[2])
w0, c0 = time.perf_counter(), time.process_time()
calls, _, _ = simulate(100000, 1000, "full_jitter", seed=s)
w1, c1 = time.perf_counter(), time.process_time()
print(calls / (w1 - w0), calls / (c1 - c0))
PY
go test -c -o "$tmp/montecarlo.test" ./montecarlo
metric() { awk -v m="$1" '{for (i = 1; i < NF; i++) if ($(i+1) == m) print $i}'; }
numpy_wall=() numpy_cpu=() herd_wall=() herd_cpu=()
for s in $(seq 0 $((runs - 1))); do
	read -r w c < <(taskset -c 0 "$py" "$tmp/run.py" "$tmp" "$s")
	numpy_wall+=("$w") numpy_cpu+=("$c")
	out=$(cd montecarlo && GOMAXPROCS=1 taskset -c 0 "$tmp/montecarlo.test" -test.run '^$' \
		-test.bench 'BenchmarkClientEngine/full/N=100000/k=1000' -test.benchtime 1s -test.cpu 1)
	herd_wall+=("$(echo "$out" | metric calls/s)") herd_cpu+=("$(echo "$out" | metric calls/cpu-s)")
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
awk -v hw="$(median "${herd_wall[@]}")" -v hc="$(median "${herd_cpu[@]}")" \
	-v pw="$(median "${numpy_wall[@]}")" -v pc="$(median "${numpy_cpu[@]}")" \
	-v r="$runs" -v t="$target" -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	printf "full jitter, N = 100000, k = 1000, one core, medians of %d alternating runs (load %s):\n", r, load
	printf "                          per wall second   per CPU second\n"
	printf "  herd per-client engine  %8.2f M calls/s  %8.2f M calls/s\n", hw / 1e6, hc / 1e6
	printf "  seed article (numpy)    %8.2f M calls/s  %8.2f M calls/s\n", pw / 1e6, pc / 1e6
	printf "  ratio                   %8.0f x          %8.0f x\n", hw / pw, hc / pc
	printf "  target %dx: %s by wall clock, %s by CPU time\n", t, (hw / pw >= t ? "met" : "NOT met"), (hc / pc >= t ? "met" : "NOT met")
}'
