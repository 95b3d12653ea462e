#!/usr/bin/env bash
# make slurm-check: runs deploy/slurm on a real Slurm cluster of one node on
# localhost and checks that the merged sweep is byte for byte the unsharded
# `herd sweep` of the same spec, also after tasks are requeued by hand.
#
# As root it installs Debian's slurm-wlm and munge, writes a one-node
# slurm.conf and a munge key into a temporary directory (no cgroups:
# proctrack/linuxproc, task/none, so it runs in a container), starts munged,
# slurmctld and slurmd on ports of their own, then:
#   1. runs deploy/slurm/submit.sh (the four-task array and the merge that
#      depends on it) and, while task 1 runs with rows written, requeues it
#      (scontrol requeue): killed mid-shard, it reruns with --resume;
#   2. compares results/sweep.jsonl with an unsharded herd sweep;
#   3. cuts task 3's finished shard to half its rows and half a row (what a
#      kill in the middle of a write leaves), requeues that finished task,
#      merges again with deploy/slurm/merge.sbatch, and compares again.
# Every wait is bounded (SLURM_CHECK_TIMEOUT seconds in all, default 600;
# the check needs about 40 s of CPU, 2–3 minutes on a busy 2-core machine),
# every daemon it started is stopped on exit, and the last line says PASS
# or FAIL. SPEC overrides the spec (default deploy/sweep.yaml);
# SLURM_CHECK_KEEP=1 keeps the temporary directory (logs, results).
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$PWD
started=$SECONDS
deadline=$((SECONDS + ${SLURM_CHECK_TIMEOUT:-600}))
reason="stopped before the end"

say() { echo "slurm-check: $*"; }
fail() {
	reason=$*
	exit 1
}

if [ "$(id -u)" != 0 ]; then
	echo "slurm-check: FAIL: needs root (it installs slurm-wlm and munge and starts their daemons)"
	exit 1
fi

say "installing slurm-wlm and munge (Debian)"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends slurm-wlm munge >/dev/null

tmp=$(mktemp -d /tmp/herd-slurm-check.XXXXXX)
chmod 700 "$tmp"
mkdir -p "$tmp"/{bin,log,state,spool,munge,work/deploy/slurm}
pids=() # of the daemons this script started, in start order

# stop ends the jobs, then every daemon this script started (the newest
# first), and checks that none is left; finish prints the verdict.
stop() {
	if [ -n "${SLURM_CONF:-}" ] && squeue -h >/dev/null 2>&1; then
		scancel --quiet --user=root 2>/dev/null || true
		for _ in $(seq 1 30); do
			[ -z "$(squeue -h -o %i -t running,completing,configuring 2>/dev/null)" ] && break
			sleep 0.5
		done
	fi
	local i pid
	for ((i = ${#pids[@]} - 1; i >= 0; i--)); do
		pid=${pids[i]}
		kill -TERM "$pid" 2>/dev/null || continue
		for _ in $(seq 1 30); do
			kill -0 "$pid" 2>/dev/null || break
			sleep 0.5
		done
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	# A job's slurmstepd outlives slurmd: ours have a file of $tmp open.
	for pid in $(strays); do kill -KILL "$pid" 2>/dev/null && sleep 0.5; done
	local left=""
	for pid in "${pids[@]}" $(strays); do
		kill -0 "$pid" 2>/dev/null && left="$left $pid"
	done
	if [ -n "$left" ]; then
		reason="daemons still running:$left"
		return 1
	fi
}

# strays: processes of this check's jobs (slurmstepd, herd) still running.
strays() {
	local p
	for p in /proc/[0-9]*; do
		if [ "$(readlink "$p/exe" 2>/dev/null)" = "$tmp/bin/herd" ] ||
			{ [ "$(cat "$p/comm" 2>/dev/null)" = slurmstepd ] && ls -l "$p/fd" 2>/dev/null | grep -q "$tmp/"; }; then
			echo "${p#/proc/}"
		fi
	done
}

finish() {
	local rc=$?
	trap - EXIT
	set +e
	stop || rc=1
	if [ "$rc" != 0 ]; then
		for f in "$tmp"/log/*.log "$tmp"/work/results/*.log; do
			[ -s "$f" ] && { echo "---- ${f#"$tmp"/}"; tail -n 15 "$f"; }
		done
	fi
	if [ "${SLURM_CHECK_KEEP:-}" = 1 ]; then
		say "kept $tmp"
	else
		rm -rf "$tmp"
	fi
	if [ "$rc" = 0 ]; then
		echo "slurm-check: PASS ($((SECONDS - started)) s: merged shards byte-identical to the unsharded sweep, also after two requeues; every daemon stopped)"
	else
		echo "slurm-check: FAIL: $reason"
	fi
	exit "$rc"
}
trap finish EXIT
trap 'reason="interrupted"; exit 1' INT TERM

# wait_until DESCRIPTION COMMAND...: polls COMMAND until it succeeds, or
# fails the check at the deadline.
wait_until() {
	local what=$1
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$deadline" ] || fail "timed out waiting for $what"
		sleep 0.5
	done
}

free_port() { # the first port from $1 on that nothing listens on
	local p=$1
	while (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; do p=$((p + 1)); done
	echo "$p"
}

say "building herd"
go build -o "$tmp/bin/herd" ./cmd/herd
export HERD=$tmp/bin/herd
cp deploy/slurm/submit.sh deploy/slurm/sweep.sbatch deploy/slurm/merge.sbatch "$tmp/work/deploy/slurm/"
cp "${SPEC:-deploy/sweep.yaml}" "$tmp/work/deploy/sweep.yaml"
unset SPEC

# munge, on a socket of its own with a key of its own.
mungekey --create --keyfile="$tmp/munge/munge.key"
chmod 400 "$tmp/munge/munge.key"
socket=$tmp/munge/munge.socket
munged --foreground --force --key-file="$tmp/munge/munge.key" --socket="$socket" \
	--pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/munged.seed" \
	--log-file="$tmp/log/munged.log" >>"$tmp/log/munged.out" 2>&1 &
pids+=($!)
munge_ok() { munge -n -S "$socket" 2>/dev/null | unmunge -S "$socket" >/dev/null 2>&1; }
wait_until "munged" munge_ok

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/^MemTotal:/ {print int($2 / 1024)}' /proc/meminfo)
ctld_port=$(free_port 16817)
slurmd_port=$(free_port $((ctld_port + 1)))
export SLURM_CONF=$tmp/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=herdcheck
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$socket
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
SlurmdParameters=config_overrides
ReturnToService=2
MinJobAge=3600
KillWait=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=check Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF

say "starting slurmctld and slurmd ($host, $cpus CPUs, ports $ctld_port and $slurmd_port)"
slurmctld -D -f "$SLURM_CONF" >>"$tmp/log/slurmctld.out" 2>&1 &
pids+=($!)
slurmd -D -f "$SLURM_CONF" -N "$host" >>"$tmp/log/slurmd.out" 2>&1 &
pids+=($!)
idle() { [ "$(sinfo -h -N -n "$host" -o %t 2>/dev/null)" = idle ]; }
wait_until "the node to be idle in sinfo" idle

# state JOB: the job's (or array task's) state, e.g. RUNNING or COMPLETED.
state() { squeue -h -t all -j "$1" -o %T 2>/dev/null | head -n 1; }
# done_ok JOB: true once JOB completed; fails the check if it ended otherwise.
done_ok() {
	local s
	s=$(state "$1")
	case $s in
	COMPLETED) return 0 ;;
	FAILED | CANCELLED | TIMEOUT | NODE_FAIL | OUT_OF_MEMORY | BOOT_FAIL | DEADLINE | PREEMPTED)
		fail "job $1 ended $s" ;;
	esac
	if [ "$s" = PENDING ] && squeue -h -j "$1" -o %r | grep -q DependencyNeverSatisfied; then
		fail "job $1's dependency can never be satisfied"
	fi
	return 1
}
# requeue TASK: scontrol requeue, then lift the begin time Slurm sets on a
# requeued job (minutes away) once it is pending again.
restarts() { scontrol -o show job "$1" | sed -n 's/.* Restarts=\([0-9]*\).*/\1/p'; }
requeue() {
	local before
	before=$(restarts "$1")
	scontrol requeue "$1"
	# A running task is killed first (COMPLETING, REQUEUED), then pends.
	requeued() { [ "$(restarts "$1")" -gt "$before" ] && [[ $(state "$1") =~ ^(PENDING|RUNNING|COMPLETED)$ ]]; }
	wait_until "$1's requeue" requeued "$1"
	if [ "$(state "$1")" = PENDING ]; then
		scontrol update JobId="$1" StartTime=now || true
	fi
}
rows() { if [ -f "$1" ]; then wc -l <"$1"; else echo 0; fi; }
# kept T: how many points task T's (last) run found done, from herd's
# "resuming …: K of shard …" line in the task's log.
kept() { sed -n 's/^resuming .*: \([0-9]*\) of shard .*/\1/p' "$results/slurm-${array}_$1.log" | tail -n 1; }

cd "$tmp/work"
results=$tmp/work/results
say "submitting deploy/slurm/submit.sh"
merge=$(deploy/slurm/submit.sh | awk '{print $NF}')
array=$(squeue -h -t all --name=herd-sweep -o %F | sort -u | head -n 1)
[ -n "$array" ] && [ -n "$merge" ] || fail "submit.sh submitted no array and merge"
say "array job $array (tasks 0-3), merge job $merge"

# Requeue task 1 while it runs with a few rows written (or, on a machine
# fast enough to finish it first, once it has finished).
running_with_rows() {
	[ "$(rows "$results/shard-1.jsonl")" -ge 5 ] || [ "$(state "${array}_1")" = COMPLETED ]
}
wait_until "task 1 to write rows" running_with_rows
was=$(state "${array}_1")
at=$(rows "$results/shard-1.jsonl")
requeue "${array}_1"
say "requeued task ${array}_1 ($was) with $at rows written"
wait_until "the merge" done_ok "$merge"
for t in 0 1 2 3; do done_ok "${array}_$t" || fail "task $t is $(state "${array}_$t") but the merge ran"; done
k=$(kept 1)
[ "${k:-0}" -ge "$at" ] || fail "requeued task 1 did not resume from its $at rows (its log: ${k:-no resuming line})"
say "task 1 reran and resumed with $k of its points done"

say "unsharded herd sweep of the same spec"
"$HERD" sweep --spec deploy/sweep.yaml --out "$tmp/whole.jsonl" 2>"$tmp/log/whole.log"
cmp "$results/sweep.jsonl" "$tmp/whole.jsonl" || fail "the merged file differs from the unsharded sweep"
say "merged file byte-identical to the unsharded sweep ($(rows "$tmp/whole.jsonl") rows)"

# Cut task 3's shard as a kill mid-write would, and requeue the finished task.
shard=$results/shard-3.jsonl
cp "$shard" "$tmp/shard-3.full"
total=$(rows "$shard")
keep=$((total / 2))
{
	head -n "$keep" "$tmp/shard-3.full"
	sed -n "$((keep + 1))p" "$tmp/shard-3.full" | head -c 100
} >"$shard"
rm "$results/sweep.jsonl"
requeue "${array}_3"
say "cut shard 3 to $keep of $total rows and half a row; requeued finished task ${array}_3"
wait_until "task 3 again" done_ok "${array}_3"
[ "$(kept 3)" = "$keep" ] || fail "requeued task 3 did not resume from its $keep whole rows (its log: $(kept 3))"
cmp "$shard" "$tmp/shard-3.full" || fail "the resumed shard 3 differs from its first run"
merge2=$(sbatch --parsable --dependency=afterok:"${array}_3" deploy/slurm/merge.sbatch)
wait_until "the second merge" done_ok "$merge2"
cmp "$results/sweep.jsonl" "$tmp/whole.jsonl" || fail "after the requeue the merged file differs from the unsharded sweep"
say "after the requeue: task 3 resumed from $keep rows to its first bytes; merge byte-identical again"
