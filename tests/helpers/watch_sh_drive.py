#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Drive the host watcher script (src/host/watch.sh) as the daemon does.

watch_sh_drive.py SENTINEL-PREFIX SHELL... SCRIPT, from the workspace:
runs SHELL... SCRIPT SENTINEL-PREFIX and checks the daemon's protocol
(src/daemon/daemon_watch.c): "Watches established.", then a change made
before a take ("T TOKEN") comes before the take's sentinel event, a
listing ("L TOKEN", paths, an empty line) comes framed on stderr with
status 0 (WATCH_LIST_FAILS=1: a find without -files0-from, a status and
no record), and stdin's end ends the script.  Exit 0, or 1 saying what
went wrong.
"""
import os
import select
import subprocess
import sys
import time

TOKEN = "0123456789abcdef0123456789abcdef"


def fail(msg):
    print("watch.sh: " + msg)
    sys.exit(1)


def read_until(fd, buf, done, what, limit=10.0):
    """Read fd into buf (a bytearray) until done(buf) or limit seconds."""
    end = time.monotonic() + limit
    while not done(buf):
        left = end - time.monotonic()
        if left <= 0 or not select.select([fd], [], [], left)[0]:
            fail("no " + what + " in time; got " + repr(bytes(buf[-300:])))
        chunk = os.read(fd, 65536)
        if not chunk:
            fail("ended before " + what + "; got " + repr(bytes(buf[-300:])))
        buf += chunk


def main():
    prefix, cmd = sys.argv[1], sys.argv[2:]
    p = subprocess.Popen(cmd + [prefix], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out, err = bytearray(), bytearray()
    read_until(p.stdout.fileno(), out,
               lambda b: b"Watches established.\n" in b, "first line")
    del out[:out.index(b"Watches established.\n") + 21]
    with open("drv_new.txt", "w") as f:
        f.write("new\n")
    p.stdin.write(("T %s\n" % TOKEN).encode())
    p.stdin.flush()
    read_until(p.stdout.fileno(), out,
               lambda b: ("/" + TOKEN + "\n").encode() in b, "sentinel")
    before = out[:out.index(("/" + TOKEN + "\n").encode())]
    if b" ./drv_new.txt\n" not in before:
        fail("the change is not before the sentinel: " + repr(bytes(out)))
    p.stdin.write(("L %s\ndrv_new.txt\nsrc\n\n" % TOKEN).encode())
    p.stdin.flush()
    end = ("\0\0clawssh-end %s " % TOKEN).encode()
    read_until(p.stderr.fileno(), err,
               lambda b: end in b and b"\n" in b[b.index(end):], "listing")
    head = ("clawssh-list %s\n" % TOKEN).encode()
    at = err.find(head)
    if at < 0:
        fail("no listing head: " + repr(bytes(err[:300])))
    body = err[at + len(head):err.index(end)]
    status = err[err.index(end) + len(end):].split(b"\n")[0]
    if os.environ.get("WATCH_LIST_FAILS"):
        # a find without -files0-from: a status, and no record
        if status == b"0" or b"\0" in body:
            fail("listing without GNU find: status %r, %r" %
                 (status, bytes(body[:300])))
    elif status != b"0":
        fail("listing status " + repr(status))
    elif b" drv_new.txt\0" not in body or b"d 700 " not in body:
        fail("listing lacks what it was asked: " + repr(bytes(body[:300])))
    os.unlink("drv_new.txt")
    p.stdin.close()
    try:
        p.wait(10)
    except subprocess.TimeoutExpired:
        p.kill()
        fail("did not end with its stdin")
    return 0


if __name__ == "__main__":
    sys.exit(main())
