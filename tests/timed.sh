#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The test driver's wrapper around every test: it runs the test under a
# time limit (CLAWSSH_TEST_TIMEOUT seconds, 900 by default) so that one
# hung test fails with a message instead of stalling the whole suite, and
# it writes the test's duration at the end of its log.  Shortly before
# the limit it writes the process tree into the log, so that a hang
# shows where it waits.
limit=${CLAWSSH_TEST_TIMEOUT:-900}
start=$(date +%s)
before=$((limit > 30 ? limit - 15 : limit))
(
	trap 'kill $! 2>/dev/null; exit 0' TERM	# $! is set by the fork
	sleep "$before" >/dev/null 2>&1 &
	wait $! || exit 0
	echo "timed.sh: $1 still running after $before s; the processes:"
	ps -eo pid,ppid,pgid,etime,stat,wchan:24,args --forest 2>&1 |
	    awk 'index($0, " [") == 0 { print substr($0, 1, 300) }'
	# the ends of the logs its own processes write (--log FILE), and
	# of the err file beside them
	ps -eo pid=,ppid=,args= 2>/dev/null | awk -v top=$$ '
	{ pp[$1] = $2; a[$1] = $0 }
	END {
		for (p in a) {
			for (q = p; q != "" && q != 1 && q != top; q = pp[q])
				;
			if (q != top)
				continue
			n = split(a[p], w, " ")
			for (i = 1; i < n; i++)
				if (w[i] == "--log")
					print w[i + 1]
		}
	}' | sort -u | while read -r log; do
		for f in "$log" "$(dirname "$log")/err"; do
			[ -f "$f" ] || continue
			echo "timed.sh: the end of $f:"
			tail -n 80 "$f" | cut -c1-300
		done
	done
) >&2 &
watcher=$!
timeout -k 20 "$limit" "$@"
status=$?
kill "$watcher" 2>/dev/null
took=$(($(date +%s) - start))
case $status in
124|137)
	echo "timed.sh: $1 did not finish within $limit s; stopped it" >&2
	status=1 ;;
esac
echo "timed.sh: $1 took $took s (status $status)"
exit $status
