#!/usr/bin/env bash
# Side-by-side speed of `herd reproduce aws` (the OCC event engine) and the
# AWS Architecture Blog's own simulator, both on one core (taskset -c 0;
# herd with GOMAXPROCS=1 --workers 1), per trial: one trial is the blog's
# whole grid once (N = 10…190 × 5 policies). The simulator is run from
# $SHARED/anchors/aws-arch-backoff-simulator (SHARED defaults to ../shared)
# with pyenv's Python 2.7.18, in a temporary directory with its trial count
# lowered to BLOG_TRIALS (default 10); it is not part of herd and nothing is
# fetched. Prints the medians of RUNS (default 3) alternating runs, by wall
# clock and by CPU time (user + system, which on a busy machine leaves out
# the turns other processes take on the core), the ratios per trial and
# whether they meet the target (TARGET, default 200x; its goal
# beyond is 300x); skips with a message when the simulator or Python 2.7
# is absent.
set -euo pipefail
cd "$(dirname "$0")/.."
sim=${SHARED:-../shared}/anchors/aws-arch-backoff-simulator/backoff_simulator.py
runs=${RUNS:-3}
blog_trials=${BLOG_TRIALS:-10}
herd_trials=${HERD_TRIALS:-100}
target=${TARGET:-200}
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

seconds() { # seconds COMMAND...: "wall cpu" seconds of COMMAND on core 0
	local TIMEFORMAT='%R %U %S' t
	t=$({ time taskset -c 0 "$@" >/dev/null 2>&1; } 2>&1)
	echo "$t" | awk '{printf "%.4f %.4f\n", $1, $2 + $3}'
}
median() { sort -g | awk '{a[NR] = $1} END {print a[int((NR + 1) / 2)]}'; }
blog_wall=() blog_cpu=() herd_wall=() herd_cpu=()
for _ in $(seq 1 "$runs"); do
	read -r w c < <(cd "$tmp" && seconds env PYENV_VERSION=2.7.18 python2 backoff_simulator.py)
	blog_wall+=("$w") blog_cpu+=("$c")
	read -r w c < <(GOMAXPROCS=1 seconds "$tmp/herd" reproduce aws --trials "$herd_trials" --workers 1 --format json --out "$tmp/herd.json")
	herd_wall+=("$w") herd_cpu+=("$c")
done
m() { printf '%s\n' "$@" | median; }
awk -v bw="$(m "${blog_wall[@]}")" -v bc="$(m "${blog_cpu[@]}")" -v hw="$(m "${herd_wall[@]}")" -v hc="$(m "${herd_cpu[@]}")" \
	-v bt="$blog_trials" -v ht="$herd_trials" -v r="$runs" -v t="$target" -v load="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
	printf "AWS blog OCC grid (N = 10..190 x 5 policies), one core, medians of %d alternating runs (load %s):\n", r, load
	printf "                                          wall                     CPU\n"
	printf "  herd reproduce aws  %4d trials  %8.2f s %9.2f ms/trial  %8.2f s %9.2f ms/trial\n", ht, hw, 1000 * hw / ht, hc, 1000 * hc / ht
	printf "  blog simulator      %4d trials  %8.2f s %9.2f ms/trial  %8.2f s %9.2f ms/trial\n", bt, bw, 1000 * bw / bt, bc, 1000 * bc / bt
	rw = (bw / bt) / (hw / ht); rc = (bc / bt) / (hc / ht)
	printf "  ratio per trial                %8.0f x                   %8.0f x\n", rw, rc
	printf "  target %dx (goal 300x): %s by wall clock, %s by CPU time\n", t, (rw >= t ? "met" : "NOT met"), (rc >= t ? "met" : "NOT met")
}'
