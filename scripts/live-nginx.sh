#!/usr/bin/env bash
# make live-nginx: real retry libraries (retry-go, go-retryablehttp,
# cenkalti/backoff) against a real nginx's limit_req on 127.0.0.1, judged
# against herd's gcra server (docs/limiters.md). Installs Debian's
# nginx-light when nginx is missing (as root; without starting its
# service). The live harness starts one nginx per run in the foreground,
# with its configuration, pid file and logs in a directory of its own
# under a temporary directory made here, and stops it after the run; the
# trap stops any nginx whose pid file is still there and removes the
# directory, however the script ends.
# Usage: scripts/live-nginx.sh [live flags, e.g. -short or -reps 5 -v]
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
	if [ "$(id -u)" != 0 ]; then
		echo "live-nginx: nginx is not installed; as root: apt-get install nginx-light" >&2
		exit 1
	fi
	apt-get update -qq
	# policy-rc.d refuses to start Debian's nginx service on port 80.
	own_policy=
	if [ ! -e /usr/sbin/policy-rc.d ]; then
		printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
		chmod +x /usr/sbin/policy-rc.d
		own_policy=1
	fi
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx-light >/dev/null
	if [ -n "$own_policy" ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
dir=$(mktemp -d -t herd-live-nginx.XXXXXX)
chmod 755 "$dir" # nginx's worker reads the file it serves under it
stop_nginx() {
	for pidfile in "$dir"/*/nginx.pid; do
		[ -e "$pidfile" ] || continue
		pid=$(cat "$pidfile")
		# Only an nginx master whose pid file is ours.
		ours() { [ -n "$pid" ] && grep -qa "$dir" "/proc/$pid/cmdline" 2>/dev/null; }
		if ours; then
			kill -QUIT "$pid" 2>/dev/null || true
			for _ in 1 2 3 4 5 6 7 8 9 10; do ours || break; sleep 0.5; done
			if ours; then kill -KILL "$pid" 2>/dev/null || true; fi
		fi
	done
	rm -rf "$dir"
}
trap stop_nginx EXIT
cd live
go run . -nginx -nginx-dir "$dir" "$@"
