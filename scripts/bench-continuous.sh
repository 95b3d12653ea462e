#!/usr/bin/env bash
# The continuous-time engine against the per-client tick engine on the same
# service (BenchmarkContinuousVsTick: N = 20,000, 100 per 100 ms window,
# full jitter and retry-go-v4, the tick model with --tick 100ms; and the
# window engine held to its event heap), one core, the three alternating
# COUNT times (default 5) in one invocation. It prints
# the median calls/s of each, per second of wall clock and per second of
# CPU (which, on a busy machine, leaves out the turns other processes take
# on the core), and the ratio tick/continuous of the medians, which the
# target (TARGET, default 1.5) bounds. The raw output is kept in OUT when
# it is set.
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-5}
target=${TARGET:-1.5}
out=${OUT:-$(mktemp)}
GOMAXPROCS=1 ${GO:-go} test -run '^$' -bench 'ContinuousVsTick' -cpu 1 -count "$count" ./montecarlo >"$out"
awk -v target="$target" '
function median(list,   n, a, i, j, t) {
	n = split(list, a, " ")
	for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] + 0 > a[j] + 0; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
	return n % 2 ? a[(n+1)/2] : (a[n/2] + a[n/2+1]) / 2
}
/^BenchmarkContinuousVsTick\// {
	split($1, name, "/"); policy = name[2]; engine = name[3]; sub(/-[0-9]+$/, "", engine)
	for (i = 3; i < NF; i++) {
		if ($(i+1) == "calls/s") wall[policy, engine] = wall[policy, engine] " " $i
		if ($(i+1) == "calls/cpu-s") cpu[policy, engine] = cpu[policy, engine] " " $i
	}
	if (!(policy in seen)) { seen[policy] = 1; order[++np] = policy }
}
END {
	printf "%-12s %-8s %14s %14s\n", "policy", "engine", "calls/s", "calls/cpu-s"
	bad = 0
	for (p = 1; p <= np; p++) {
		pol = order[p]
		for (e = 1; e <= 3; e++) {
			eng = e == 1 ? "window" : e == 2 ? "clients" : "events"
			if (!((pol, eng) in wall)) continue
			w[eng] = median(wall[pol, eng]); c[eng] = median(cpu[pol, eng])
			printf "%-12s %-8s %14.4g %14.4g\n", pol, eng, w[eng], c[eng]
		}
		rw = w["clients"] / w["window"]; rc = c["clients"] / c["window"]
		printf "%-12s ratio tick/continuous of the medians: %.2f (wall), %.2f (CPU); target ≤ %s\n", pol, rw, rc, target
		if (rc > target) bad = 1
	}
	if (bad) print "target not met"; else print "target met"
}' "$out"
