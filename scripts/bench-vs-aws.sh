#!/usr/bin/env bash
# Side-by-side speed of `herd reproduce aws` (the OCC event engine) and the
# AWS Architecture Blog's own simulator, both on one core (taskset -c 0;
# herd with GOMAXPROCS=1 --workers 1), per trial: one trial is the blog's
# whole grid once (N = 10…190 × 5 policies). The simulator is run from
# $SHARED/anchors/aws-arch-backoff-simulator (SHARED defaults to ../shared)
# with pyenv's Python 2.7.18, in a temporary directory with its trial count
# lowered to BLOG_TRIALS (default 10); it is not part of herd and nothing is
# fetched. Prints the medians of RUNS (default 3) alternating runs and the
# ratio; skips with a message when the simulator or Python 2.7 is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${SHARED:-../shared}/anchors/aws-arch-backoff-simulator/backoff_simulator.py
runs=${RUNS:-3}
blog_trials=${BLOG_TRIALS:-10}
herd_trials=${HERD_TRIALS:-100}
if [ ! -f "$sim" ]; then
	echo "bench-vs-aws: skipped: the blog's simulator is not at $sim (set SHARED to the folder holding anchors/)"
	exit 0
fi
py() { PYENV_VERSION=2.7.18 python2 "$@"; }
if ! py -c 'import sys; assert sys.version_info[:2] == (2, 7)' 2>/dev/null; then
	echo "bench-vs-aws: skipped: the simulator needs Python 2.7 (pyenv's 2.7.18 as python2)"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Its 100 trials per point (and the division by them) become blog_trials.
sed "s/xrange(0, 100)/xrange(0, $blog_trials)/; s|tm/100, stats.calls/100|tm/$blog_trials, stats.calls/$blog_trials|" \
	"$sim" >"$tmp/backoff_simulator.py"
if ! grep -q "xrange(0, $blog_trials)" "$tmp/backoff_simulator.py" ||
	! grep -q "stats.calls/$blog_trials" "$tmp/backoff_simulator.py"; then
	echo "bench-vs-aws: the simulator's trial loop is not where this script expects it; not timing it"
	exit 1
fi
go build -o "$tmp/herd" ./cmd/herd

seconds() { # seconds COMMAND...: wall time of COMMAND on core 0
	local t0 t1
	t0=$(date +%s.%N)
	taskset -c 0 "$@" >/dev/null
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.4f\n", b - a}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
blog=() herd=()
for _ in $(seq 1 "$runs"); do
	blog+=("$(cd "$tmp" && seconds env PYENV_VERSION=2.7.18 python2 backoff_simulator.py)")
	herd+=("$(GOMAXPROCS=1 seconds "$tmp/herd" reproduce aws --trials "$herd_trials" --workers 1 --format json --out "$tmp/herd.json")")
done
b=$(printf '%s\n' "${blog[@]}" | median)
h=$(printf '%s\n' "${herd[@]}" | median)
awk -v b="$b" -v h="$h" -v bt="$blog_trials" -v ht="$herd_trials" -v r="$runs" 'BEGIN {
	printf "AWS blog OCC grid (N = 10..190 x 5 policies), one core, median of %d runs:\n", r
	printf "  herd reproduce aws  %8.2f s for %4d trials  %9.2f ms/trial\n", h, ht, 1000 * h / ht
	printf "  blog simulator      %8.2f s for %4d trials  %9.2f ms/trial\n", b, bt, 1000 * b / bt
	printf "  ratio               %8.0f x per trial\n", (b / bt) / (h / ht)
}'
