#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# examples/ci-offload.sh works end to end: ships a git tree, runs its
# `make test` remotely, and passes the status back.
. "$TESTLIB"
top_srcdir=${top_srcdir:?make check sets it}
command -v git >/dev/null && command -v make >/dev/null || exit 77

mkdir -p "$T/bin" "$T/proj"
ln -s "$CLAWSSH" "$T/bin/clawssh"
cp "$T/ssh_config" "$HOME/.ssh/config"
cd "$T/proj" || fail "cd"
git init -q .
printf 'test:\n\t@test "$$(cat data.txt)" = "expected"\n\t@echo tests-ran\n' \
    > Makefile
echo expected > data.txt
git add Makefile data.txt
out=$(PATH="$T/bin:$PATH" sh "$top_srcdir/examples/ci-offload.sh" \
    testhost "$T/remote-ci")
expect_status $? 0 "offloaded make test"
expect_match "$out" "tests-ran" "make test output"
[ -e "$T/remote-ci" ] && fail "remote CI directory not cleaned up"

echo wrong > data.txt
git add data.txt
PATH="$T/bin:$PATH" sh "$top_srcdir/examples/ci-offload.sh" testhost \
    "$T/remote-ci" >/dev/null 2>&1
status=$?
[ $status -ne 0 ] || fail "a failing make test reported success"
exit 0
