#!/usr/bin/env bash
# Hostile input against the herd binary: each case is run as written under
# a 4 GB address-space limit and a timeout, and judged by what it must do:
#
#   refuse  exit 2 within 2 s of CPU at under 200 MB, the message naming a
#           flag (--name) or the file the user gave
#   run     exit 0 (a check may follow: valid JSON without NaN, files written)
#   either  run or refuse, as above
#   int     SIGINT 1.5 s after the start stops it within 1 s with exit 130
#
# Never acceptable: exit 1 for bad input, exit 3 (a panic), the Go
# runtime's "out of memory", a timeout. Prints one line per case and exits 1
# when any case fails.
#
#   scripts/hostile-cases.sh [HERD]        (default bin/herd)
#   HOSTILE_ONLY=REGEX  runs the cases whose name matches
#   HOSTILE_SLACK=F     multiplies the time limits (a loaded machine)
set -uo pipefail

herd=$(realpath "${1:-bin/herd}")
only=${HOSTILE_ONLY:-.}
slack=${HOSTILE_SLACK:-1}
work=$(mktemp -d)
trap 'chmod -R u+w "$work" 2>/dev/null; rm -rf "$work"' EXIT
cd "$work" || exit 1

fails=0
printf '%-34s %-6s %4s %7s %6s %6s  %-4s %s\n' case expect exit wall_s cpu_s MB verdict message

# hcase NAME EXPECT CHECK -- ARGS...: run herd ARGS; CHECK is a function
# called with the case's stdout file, or "-".
hcase() {
	local name=$1 expect=$2 check=$3
	shift 4
	[[ $name =~ $only ]] || return 0
	local out=$work/$name.out err=$work/$name.err tm=$work/$name.time rc wall cpu mb verdict=ok why=""
	if [[ $expect == int ]]; then
		local t0 t1 pid
		(ulimit -v 4000000; exec "$herd" "$@" >"$out" 2>"$err" </dev/null) &
		pid=$!
		sleep 1.5
		t0=$EPOCHREALTIME
		if ! kill -INT "$pid" 2>/dev/null; then
			# Ended before the signal: only a refusal or a result will do.
			wait "$pid"
			rc=$?
			wall=- cpu=- mb=-
			if ! [[ $rc =~ ^(0|2)$ ]]; then verdict=FAIL why="ended with $rc before SIGINT"; fi
			finish "$name" "$expect" "$rc" "$wall" "$cpu" "$mb" "$verdict" "$why" "$err"
			return
		fi
		local waited=0
		while kill -0 "$pid" 2>/dev/null && ((waited < 100)); do sleep 0.05; waited=$((waited + 1)); done
		t1=$EPOCHREALTIME
		if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid"; fi
		wait "$pid"
		rc=$?
		wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.2f", b-a}')
		cpu=- mb=-
		if ((rc != 130)); then verdict=FAIL why="exit $rc, want 130"; fi
		if awk -v w="$wall" -v s="$slack" 'BEGIN{exit !(w > 1*s)}'; then verdict=FAIL why="$why; stopped after ${wall}s"; fi
	else
		local target existed=1
		target=$(out_target "$@")
		[[ -n $target && ! -e $target ]] && existed=0
		(ulimit -v 4000000; exec timeout -s KILL 60 /usr/bin/time -q -f '%e %U %S %M' -o "$tm" "$herd" "$@" >"$out" 2>"$err" </dev/null)
		rc=$?
		read -r wall u s kb <"$tm" 2>/dev/null || { wall=- u=0 s=0 kb=0; }
		[[ $wall == Command ]] && read -r wall u s kb < <(tail -1 "$tm")
		cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{printf "%.2f", u+s}')
		mb=$((kb / 1024))
		if grep -q -e 'out of memory' -e '^goroutine ' -e '^panic' "$err"; then verdict=FAIL why="runtime died"; fi
		case $expect in
		refuse) want="2" ;;
		run) want="0" ;;
		either) want="0|2" ;;
		esac
		if ! [[ $rc =~ ^($want)$ ]]; then verdict=FAIL why="exit $rc, want $want"; fi
		if ((rc == 2)); then
			if awk -v c="$cpu" -v s="$slack" 'BEGIN{exit !(c > 2*s)}'; then verdict=FAIL why="$why; refused after ${cpu}s of CPU"; fi
			if ((mb > 200)); then verdict=FAIL why="$why; refused at ${mb} MB"; fi
			if ! names_input "$err" "$@"; then verdict=FAIL why="$why; names no flag or file given"; fi
			if ((!existed)) && [[ -e $target ]]; then verdict=FAIL why="$why; left $target behind"; fi
		fi
		if ((rc == 0)) && [[ $check != - ]] && ! why2=$($check "$out" 2>&1); then verdict=FAIL why="$why; $why2"; fi
	fi
	finish "$name" "$expect" "$rc" "$wall" "$cpu" "$mb" "$verdict" "$why" "$err"
}

finish() {
	local msg
	[[ $7 == FAIL ]] && fails=$((fails + 1))
	msg=$(grep -v '^ *$' "$9" | head -1 | cut -c1-150)
	printf '%-34s %-6s %4s %7s %6s %6s  %-4s %s%s\n' "$1" "$2" "$3" "$4" "$5" "$6" "$7" "${8:+[$8] }" "$msg"
}

# out_target ARGS...: the path given to --out, if any.
out_target() {
	while (($#)); do
		case $1 in
		--out) echo "${2:-}"; return ;;
		--out=*) echo "${1#--out=}"; return ;;
		esac
		shift
	done
}

# names_input ERRFILE ARGS...: the message names one of the flags given
# (--long or -x) or one of the arguments that is a path.
names_input() {
	local err=$1 a
	shift
	for a in "$@"; do
		case $a in
		--*=*) a=${a%%=*} ;;
		esac
		case $a in
		--*) grep -qF -e "$a " -e "$a:" -e "$a=" -e "$a," -e "$a)" "$err" && return 0 ;;
		-?) grep -qE -e "(^| )(--[a-z-]+|$a)[ :=,)]" "$err" && return 0 ;; # a short flag, said by its long name
		*) [[ -e $a || $a == */* ]] && grep -qF -- "$a" "$err" && return 0 ;;
		esac
	done
	return 1
}

# Checks on a run's stdout or files.
json_no_nan() {
	python3 -c '
import json, sys
def bad(c): raise ValueError("not JSON: " + c)
text = open(sys.argv[1]).read()
try:
    json.loads(text, parse_constant=bad)
except ValueError:
    for n, line in enumerate(text.splitlines(), 1):
        if line.strip():
            try:
                json.loads(line, parse_constant=bad)
            except ValueError as e:
                sys.exit("%s line %d: %s" % (sys.argv[1], n, e))
' "$1" 2>&1 | tail -1
	return "${PIPESTATUS[0]}"
}
report() { test -s "$1/report.md" && test -s "$1/figure.svg" && test -s "$1/figure.png" && json_no_nan "$1/compare.json" || { echo "no whole report in $1"; return 1; }; }
report_x() { report x; }
report_y() { report y; }
report_z() { report z; }
rows_ok() { json_no_nan "$1" && "$herd" merge "$1" >/dev/null 2>merge.err || { head -1 merge.err; return 1; }; }

# Hostile files.
mkfifo fifo
printf 'trials: 1\ngrid:\n  server: collision\n  clients: 10\n  capacity: 1\n  policy: poly\n  exponent: -1\n' >expo.yaml
head -c 100000000 /dev/zero | tr '\0' 'a' >big
{ echo 'policies:'; for i in $(seq 1000); do echo "  - policy: full"; echo "    label: p$i"; done; } >many.yaml
{ echo 'policies:'; echo '  - policy: full'; echo '    cap: 8'; echo '    cap: 16'; echo '  - policy: equal'; } >dup.yaml
printf 'policies:\n  - policy: full\n    label: "a|b"\n  - policy: equal\n    label: "c\\\\nd"\n' >pipe.yaml
printf 'trials: 5.5\ngrid:\n  clients: 10\n  capacity: 2\n  policy: full\n' >trials.yaml
printf 'seed: 18446744073709551616\ntrials: 1\ngrid:\n  clients: 10\n  capacity: 2\n  policy: full\n' >seed.yaml
printf 'trials: 1\ngrid:\n  clients: "1:1000"\n  capacity: "1:1000"\n' >million.yaml

# Acceptance 1: bounded, no runtime death.
hcase sweep-exponent-neg refuse - -- sweep --server collision -k 1 -n 10 --policy poly --exponent -1 --trials 1
hcase sweep-spec-exponent-neg refuse - -- sweep --spec expo.yaml
hcase sweep-none-served run rows_ok -- sweep --server collision -k 1 -n 20 --policy full --retries 1 --trials 20
hcase simulate-none-served run json_no_nan -- simulate --server collision -k 1 -n 20 --policy full --retries 1 --trials 20 --format json
hcase audit-none-served run json_no_nan -- audit -n 20 -k 5 --server collision --trials 3 --format json
hcase compare-no-retry run report_x -- compare -n 10 -k 10 --policy full,equal --out x
hcase compare-one-client run report_y -- compare -n 1 --policy full,equal --out y
hcase compare-horizon-1 run report_z -- compare -n 20 -k 5 --horizon 1 --out z
hcase compare-tick-0 either - -- compare -n 20 -k 5 --tick 0s --out w
hcase compare-policies-zero refuse - -- compare --policies /dev/zero --out v1
hcase compare-policies-big refuse - -- compare --policies big --out v2
hcase compare-policies-1000 refuse - -- compare --policies many.yaml --out v3
hcase sweep-spec-zero refuse - -- sweep --spec /dev/zero
hcase sweep-spec-big refuse - -- sweep --spec big
hcase merge-zero refuse - -- merge /dev/zero
hcase merge-big refuse - -- merge big
hcase merge-fifo refuse - -- merge fifo
hcase compare-policies-fifo refuse - -- compare --policies fifo --out v4
hcase sweep-spec-fifo refuse - -- sweep --spec fifo
hcase sweep-spec-million refuse - -- sweep --spec million.yaml --out million.jsonl
hcase sweep-million-points refuse - -- sweep -n 1000:1999 -k 1:1000 --trials 1 --out m2.jsonl
hcase chain-first-window either - -- model --method chain --first-window 65536
hcase chain-retries either - -- model --method chain --retries 65536
hcase chain-queue-first-window either - -- model --method chain --server queue --first-window 65536
hcase chain-queue-retries either - -- model --method chain --server queue --retries 65536
hcase meanfield-grid either - -- model --method meanfield -n 100 -k 10 --policy decorrelated --grid 65536
hcase delays-cells either - -- delays --policy decorrelated --count 200 --cells 16777216
hcase chain-queue-rate either - -- model --method chain --server queue -n 6 -k 2 --timeout 2 --policy full --rate 1

# Acceptance 2: SIGINT.
hcase int-sweep-exponent-neg int - -- sweep --server collision -k 1 -n 10 --policy poly --exponent -1 --trials 1
hcase int-merge-fifo int - -- merge fifo
hcase int-policies-fifo int - -- compare --policies fifo --out v5
hcase int-spec-fifo int - -- sweep --spec fifo
hcase int-meanfield int - -- model --method meanfield -n 100 -k 10 --policy decorrelated --grid 4096
hcase int-count-engine int - -- simulate -n 1000000000 -k 10000000 --trials 100000
hcase int-per-flight int - -- simulate -n 50 -k 5 --trials 10 --window 100ms --latency 5ms --latency-per-flight 50us --stalls 1ns,1ns
hcase int-markov int - -- model --method markov -n 3 -k 1 --cap 4 --first-window 1000
hcase int-markov-raised int - -- model --method markov -n 3 -k 1 --cap 4 --first-window 1000 --max-states 200000000

# Acceptance 4: exit statuses, messages in the user's words, spec values.
hcase markov-continuous refuse - -- model --method markov -n 10 -k 5 --window 100ms
hcase closed-retries refuse - -- model --method closed -n 10 -k 5 --retries 3
hcase chain-capacity refuse - -- model --method chain -n 10 -k 5
hcase policies-missing refuse - -- compare --policies missing.yaml --out v6
hcase spec-missing refuse - -- sweep --spec missing.yaml
hcase window-without-tick refuse - -- compare -n 10 -k 5/s --window 100ms --tick 1s --time tick --out v7
hcase occ-window refuse - -- simulate -n 10 -k 5 --window 100ms --server occ
hcase grid-point refuse - -- sweep -n 10 -k 2 --policy full --base 8 --cap 4 --trials 1
hcase spec-trials-fraction refuse - -- sweep --spec trials.yaml
hcase spec-seed-overflow refuse - -- sweep --spec seed.yaml
hcase policies-duplicate refuse - -- compare --policies dup.yaml --out v8
hcase range-inf refuse - -- sweep -n 10 -k 1:2:*Inf --trials 1
hcase sweep-timeout-range run rows_ok -- sweep --server queue -n 10 -k 2 --timeout 3:7:2 --trials 2
hcase sweep-queue-limit-range run rows_ok -- sweep --server queue -n 10 -k 2 --queue-limit 2:4 --trials 2
hcase sweep-exponent-range run rows_ok -- sweep --server collision --policy poly -n 10 -k 1 --exponent 1:2 --trials 2
hcase sweep-failure-rate-range either - -- sweep --server flaky -n 10 -k 2 --failure-rate 0.1:0.3:0.1 --trials 2
hcase sweep-latency-quantiles run rows_ok -- sweep -n 10 -k 2 --latency quantiles:0s,2ms,9ms --trials 2

# Acceptance 3 and output safety.
chmod 444 ro.jsonl 2>/dev/null || { : >ro.jsonl; chmod 444 ro.jsonl; }
hcase sweep-out-readonly refuse - -- sweep -n 10 -k 2 --trials 1 --out ro.jsonl
: >plotfile
hcase plots-out-file refuse - -- plots --out plotfile --only engine-cost
hcase plots-workers-huge refuse - -- plots --workers 2147483648 --out newplots
hcase compare-label-pipe run - -- compare --policies pipe.yaml --out lab

# Acceptance 3 as a user whom permissions bind (root ignores them): as
# root, the cases run as the user herdhostile, created when missing.
user_cases() {
	local dir=$work/user herd_as=() rc a b
	mkdir "$dir"
	if (($(id -u) == 0)); then
		id herdhostile >/dev/null 2>&1 || useradd -M -s /usr/sbin/nologin herdhostile || return 1
		chown herdhostile "$dir"
		chmod 755 "$work"
		herd_as=(runuser -u herdhostile --)
	fi
	cd "$dir" || return 1
	if [[ force-unwritable =~ $only ]]; then
		"${herd_as[@]}" sh -c 'mkdir DIR && echo keep >DIR/a && chmod 555 DIR && mkdir p && mkdir p/DIR && echo keep >p/DIR/a && chmod 555 p'
		"${herd_as[@]}" "$herd" compare -n 10 -k 2 --policy full,equal --out DIR --force >/dev/null 2>a.err
		a=$?
		"${herd_as[@]}" "$herd" compare -n 10 -k 2 --policy full,equal --out p/DIR --force >/dev/null 2>b.err
		b=$?
		local verdict=ok why=""
		[[ $(cat DIR/a 2>/dev/null) == keep && $(ls DIR) == a ]] || { verdict=FAIL why="DIR lost its files"; }
		[[ $(cat p/DIR/a 2>/dev/null) == keep && $(ls p/DIR) == a ]] || { verdict=FAIL why="$why; p/DIR lost its files"; }
		[[ $a == 2 && $b == 2 ]] || { verdict=FAIL why="$why; exits $a and $b, want 2"; }
		names_input a.err --out DIR && names_input b.err --out p/DIR || { verdict=FAIL why="$why; names no flag or file given"; }
		finish force-unwritable refuse "$a,$b" - - - "$verdict" "$why" a.err
		"${herd_as[@]}" chmod 755 DIR p
	fi
	if [[ concurrent-sweeps =~ $only ]]; then
		local verdict=ok why="" i
		for i in 1 2 3; do
			"${herd_as[@]}" "$herd" sweep -n 10:400:10 -k 2 --trials 20 --out same$i.jsonl >/dev/null 2>c$i.err &
			"${herd_as[@]}" "$herd" sweep -n 10:400:10 -k 2 --trials 20 --out same$i.jsonl >/dev/null 2>d$i.err &
			wait -n
			a=$?
			wait -n
			b=$?
			[[ $a == 0 || $b == 0 ]] || { verdict=FAIL why="$why; round $i: exits $a and $b, neither ran"; }
			# The one that finds the file locked fails (1: not a usage error).
			[[ $a =~ ^(0|1)$ && $b =~ ^(0|1)$ ]] || { verdict=FAIL why="$why; round $i: exits $a and $b"; }
			"${herd_as[@]}" "$herd" merge same$i.jsonl >/dev/null 2>m$i.err || { verdict=FAIL why="$why; round $i: $(head -1 m$i.err)"; }
		done
		cat c1.err d1.err >cd.err
		finish concurrent-sweeps either "$a,$b" - - - "$verdict" "$why" cd.err
	fi
	cd "$work" || return 1
}
user_cases

echo "$fails case(s) failed"
((fails == 0))
