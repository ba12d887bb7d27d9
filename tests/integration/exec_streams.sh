#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# Streams: 100 MiB through stdout in bounded memory, stdout and stderr kept
# apart, stdin forwarded with EOF.
. "$TESTLIB"

# Large output, checked byte for byte against the same generator here.
size=104857600
gen="yes 0123456789abcdefghijklmnopqrstuvwxyz | head -c $size"
want=$(sh -c "$gen" | sha256sum | cut -d' ' -f1)
if [ -x /usr/bin/time ]; then
	# Under ASan, freed libssh2 packets sit in a 256 MiB quarantine.
	ASAN_OPTIONS="quarantine_size_mb=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}" \
	    /usr/bin/time -f '%M' -o "$T/rss" \
	    "$CLAWSSH" exec -F "$T/ssh_config" testhost -- sh -c "$gen" |
	    sha256sum | cut -d' ' -f1 > "$T/sum"
else
	cexec testhost -- sh -c "$gen" | sha256sum | cut -d' ' -f1 > "$T/sum"
fi
expect_eq "$(cat "$T/sum")" "$want" "100 MiB stdout checksum"
if [ -f "$T/rss" ]; then
	rss=$(tail -n 1 "$T/rss")
	# Peak RSS must stay below the 100 MiB that went through (ASan's
	# shadow memory and allocator add a fixed tens of MiB).
	limit=65536
	grep -q __asan_init "$CLAWSSH" && limit=98304
	[ "$rss" -lt $limit ] || fail "peak RSS ${rss} KiB for 100 MiB output"
fi

# stdout and stderr stay separate, interleaved writes and all.
cexec testhost -- sh -c 'for i in 1 2 3; do echo out$i; echo err$i >&2; done' \
    > "$T/out" 2> "$T/err"
expect_status $? 0 "separation"
expect_eq "$(cat "$T/out" | tr '\n' ' ')" "out1 out2 out3 " "stdout only"
expect_eq "$(cat "$T/err" | tr '\n' ' ')" "err1 err2 err3 " "stderr only"

# stdin forwarded, binary-safe, and EOF ends the remote reader.
head -c 3000000 /dev/urandom > "$T/in"
cexec testhost -- cat < "$T/in" > "$T/back"
expect_status $? 0 "cat stdin"
cmp -s "$T/in" "$T/back" || fail "stdin came back different"
out=$(printf 'abc' | cexec testhost -- wc -c)
expect_eq "$(echo $out)" "3" "stdin EOF"
out=$(cexec testhost -- wc -c < /dev/null)
expect_eq "$(echo $out)" "0" "empty stdin"

# A terminal on stdin is not forwarded (the remote sees EOF at once)
# unless -i asks for it.
if command -v script >/dev/null; then
	out=$(script -qec "'$CLAWSSH' exec -F '$T/ssh_config' testhost -- wc -c" \
	    /dev/null < /dev/null | tr -d '\r')
	expect_eq "$(echo $out)" "0" "terminal stdin not forwarded"
fi
exit 0
