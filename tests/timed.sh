#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# The test driver's wrapper around every test: it runs the test under a
# time limit (CLAWSSH_TEST_TIMEOUT seconds, 900 by default) so that one
# hung test fails with a message instead of stalling the whole suite, and
# it writes the test's duration at the end of its log.
limit=${CLAWSSH_TEST_TIMEOUT:-900}
start=$(date +%s)
timeout -k 20 "$limit" "$@"
status=$?
took=$(($(date +%s) - start))
case $status in
124|137)
	echo "timed.sh: $1 did not finish within $limit s; stopped it" >&2
	status=1 ;;
esac
echo "timed.sh: $1 took $took s (status $status)"
exit $status
