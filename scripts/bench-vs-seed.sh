#!/usr/bin/env bash
# Side-by-side speed of herd's per-client engine and the seed article's
# numpy simulator (section 5.1 of $SHARED/seeds/000_646017d758d38312.txt,
# SHARED defaulting to ../shared) on the same scenario: Full Jitter,
# N = 100,000, k = 1,000, base 1, cap 32, both on one core (taskset -c 0).
# The article's code is read from the shared seed file into a temporary
# directory at run time; it is not part of herd and nothing is fetched.
# Needs python3-numpy. Prints both rates (medians of RUNS runs, default 3)
# and their ratio; skips with a message when the seed file or numpy is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=${SHARED:-../shared}/seeds/000_646017d758d38312.txt
runs=${RUNS:-3}
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
rates = []
for s in range(int(sys.argv[2])):
    t0 = time.perf_counter()
    calls, _, _ = simulate(100000, 1000, "full_jitter", seed=s)
    rates.append(calls / (time.perf_counter() - t0))
rates.sort()
print(rates[len(rates) // 2])
PY
numpy_rate=$(taskset -c 0 "$py" "$tmp/run.py" "$tmp" "$runs")
go test -c -o "$tmp/montecarlo.test" ./montecarlo
herd_rates=$(cd montecarlo && taskset -c 0 "$tmp/montecarlo.test" -test.run '^$' -test.bench 'BenchmarkClientEngine/full/N=100000/k=1000' -test.count "$runs" -test.cpu 1 |
	awk '{for (i = 1; i < NF; i++) if ($(i+1) == "calls/s") print $i}' | sort -g)
herd_rate=$(echo "$herd_rates" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
awk -v h="$herd_rate" -v p="$numpy_rate" 'BEGIN {
	printf "full jitter, N = 100000, k = 1000, one core, median of runs:\n"
	printf "  herd per-client engine  %8.2f M calls/s\n", h / 1e6
	printf "  seed article (numpy)    %8.2f M calls/s\n", p / 1e6
	printf "  ratio                   %8.0f x\n", h / p
}'
