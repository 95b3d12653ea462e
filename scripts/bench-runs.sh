#!/usr/bin/env bash
# How long `herd claims` (WHAT=claims) or `herd plots --cite=false --out DIR` (WHAT=plots,
# what make plots runs) takes after the build: medians of RUNS runs
# (default 3) of wall and CPU seconds (user + sys), the load average before
# each run, and the ratio against the numbers before the run cache (issue
# 16: claims ~48 s, plots ~36 s wall on an idle 2-core machine; 76 and 127
# CPU s measured here, at a load of 12–16 on 2 cores). Then one run with
# --no-cache (every scenario played each time it is asked for, one run's
# points as the cache would) must give the same bytes, or the script
# fails. CHECK=0 skips that run. The targets on an idle 2-core machine:
# claims ≤ 10 s, plots ≤ 15 s.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:?usage: bench-runs.sh claims|plots}
runs=${RUNS:-3}
herd=${HERD:-bin/herd}
case $what in
claims) before_wall=48 before_cpu=76 target=10 ;;
plots) before_wall=36 before_cpu=127 target=15 ;;
*) echo "bench-runs: claims or plots, got $what" >&2; exit 2 ;;
esac
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
play() { # play OUT [extra flags]: one run into OUT, its times appended to $tmp/times
	local out=$1; shift
	local load; load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo '?')
	local t0 t1 c0 c1
	t0=$(date +%s.%N)
	if [ "$what" = claims ]; then
		( TIMEFORMAT='%U %S'; time "$herd" claims --format json "$@" >"$out" ) 2>"$tmp/cpu"
	else
		mkdir -p "$out"
		( TIMEFORMAT='%U %S'; time "$herd" plots --cite=false --out "$out" "$@" >/dev/null 2>"$tmp/log" ) 2>"$tmp/cpu"
	fi
	t1=$(date +%s.%N)
	read -r u s <"$tmp/cpu"
	echo "$(echo "$t1 - $t0" | bc -l) $(echo "$u + $s" | bc -l) $load"
}
: >"$tmp/times"
for i in $(seq "$runs"); do
	play "$tmp/out$i" | tee -a "$tmp/times" | awk -v i="$i" -v w="$what" '{printf "%s run %d: %.1f s wall, %.1f CPU s, load %s\n", w, i, $1, $2, $3}'
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wall=$(cut -d' ' -f1 "$tmp/times" | median)
cpu=$(cut -d' ' -f2 "$tmp/times" | median)
awk -v w="$what" -v wall="$wall" -v cpu="$cpu" -v bw="$before_wall" -v bc="$before_cpu" -v t="$target" -v n="$(nproc)" 'BEGIN {
	printf "%s: median %.1f s wall, %.1f CPU s (%d CPUs); before: %g s wall idle, %g CPU s; ratio %.2fx wall, %.2fx CPU; target %g s wall on an idle 2-core machine (CPU/2 = %.1f s)\n",
		w, wall, cpu, n, bw, bc, bw / wall, bc / cpu, t, cpu / 2 }'
if [ "${CHECK:-1}" != 0 ]; then
	play "$tmp/uncached" --no-cache | awk -v w="$what" '{printf "%s --no-cache: %.1f s wall, %.1f CPU s, load %s\n", w, $1, $2, $3}'
	if [ "$what" = claims ]; then # the cite line names the command, which differs by --no-cache
		for f in "$tmp/out1" "$tmp/uncached"; do grep -v '"command"\|"cite"' "$f" >"$f.cmp"; mv "$f.cmp" "$f"; done
	fi
	if diff -r "$tmp/out1" "$tmp/uncached" >/dev/null; then
		echo "$what: cached and uncached runs are byte-identical"
	else
		echo "$what: the cached run differs from the uncached one" >&2
		exit 1
	fi
fi
