#!/usr/bin/env bash
# Side-by-side speed of herd's per-client engine and the seed article's
# numpy simulator (section 5.1 of ../shared/seeds/000_646017d758d38312.txt)
# on the same scenario: Full Jitter, N = 100,000, k = 1,000, base 1, cap 32.
# The article's code is read from the shared seed file into a temporary
# directory at run time; it is not part of herd. Needs python3-numpy.
# Prints both rates (medians of several runs) and their ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
seed=../shared/seeds/000_646017d758d38312.txt
runs=${RUNS:-3}
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
py=$(command -v /usr/bin/python3 || command -v python3)
numpy_rate=$("$py" "$tmp/run.py" "$tmp" "$runs")
herd_rates=$(go test -run '^$' -bench 'BenchmarkClientEngine/full/N=100000/k=1000' -count "$runs" -cpu 1 ./montecarlo |
	awk '{for (i = 1; i < NF; i++) if ($(i+1) == "calls/s") print $i}' | sort -g)
herd_rate=$(echo "$herd_rates" | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}')
awk -v h="$herd_rate" -v p="$numpy_rate" 'BEGIN {
	printf "full jitter, N = 100000, k = 1000, one core, median of runs:\n"
	printf "  herd per-client engine  %8.2f M calls/s\n", h / 1e6
	printf "  seed article (numpy)    %8.2f M calls/s\n", p / 1e6
	printf "  ratio                   %8.0f x\n", h / p
}'
