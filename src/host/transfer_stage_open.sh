#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# A push's staged unpacking (sync/transfer_stage.c), after
# transfer_stage_clean.sh, with s the new stage's name set: fail()
# removes the stage; the stage's lock taken (flock, where there is one),
# the stage and its t/ made, q the option that keeps GNU tar's -v names
# literal.  The tar of the stream into $s/t follows, then
# transfer_stage_move.sh.
# shellcheck disable=SC2154,SC2034 # s: set before; q: for the tar after
fail() { rm -rf -- "$s" "$s.lock"; exit 1; }
exec 9>"$s.lock" || fail
if command -v flock >/dev/null 2>&1; then flock -n 9; fi
mkdir -m 700 -- "$s" && mkdir -- "$s/t" || fail
q=; case $(tar --version 2>/dev/null) in *GNU*) q=--quoting-style=literal;; esac
