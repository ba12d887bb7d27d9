#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Each libFuzzer target ('make fuzz': the JSON-RPC parser, the host's
# watch frames and replies, the tar stream reader, the agent's frame
# codec, the HTTP message reader, the host's answers to the process,
# file tool and sandbox listing steps, the Slurm and Kubernetes answers)
# built with ASan and UBSan and run for FUZZ_SECONDS (default 15) from
# its checked-in corpus.  A crash, leak or sanitizer report fails
# the test and leaves the input in the test's directory.  Skipped
# without clang and its libFuzzer runtime (scripts/install-deps.sh
# installs both).
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}

command -v clang >/dev/null 2>&1 ||
    { echo "SKIP: clang is not installed"; exit 77; }
printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n)'\
'{ (void)d; (void)n; return 0; }\n' > "$T/probe.c"
clang -fsanitize=fuzzer "$T/probe.c" -o "$T/probe" 2>"$T/probe.err" ||
    { echo "SKIP: no libFuzzer runtime: $(cat "$T/probe.err")"; exit 77; }
builddir=$(dirname "$CLAWSSH")
make -s -C "$builddir" fuzz > "$T/build.log" 2>&1 ||
    fail "make fuzz: $(tail -20 "$T/build.log")"
secs=${FUZZ_SECONDS:-15}
for t in jsonrpc:corpus remote:corpus_remote tarstream:corpus_tar \
    agent_frame:corpus_agent http_msg:corpus_http host_reply:corpus_host \
    provider:corpus_provider; do
	name=${t%%:*}
	corpus="$top_srcdir/tests/fuzz/${t#*:}"
	mkdir -p "$T/new-$name"
	"$builddir/tests/fuzz/fuzz_$name" -max_total_time="$secs" \
	    -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
	    -artifact_prefix="$T/$name-" "$T/new-$name" "$corpus" \
	    > "$T/$name.log" 2>&1 ||
	    fail "fuzz_$name found a problem:
$(grep -A30 'ERROR\|SUMMARY\|Test unit written' "$T/$name.log" | head -60)"
	echo "fuzz_$name: $(grep -m1 'stat::number_of_executed_units' \
	    "$T/$name.log" | sed 's/.*: *//') runs in ${secs} s, clean"
done
exit 0
