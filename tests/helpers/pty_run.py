#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Run a command on a new pseudo-terminal and drive it: the harness for
clawssh exec -t / shell tests (tests/integration/exec_tty.sh).

usage: pty_run.py [--size COLSxROWS] [--out FILE] [--modes FILE]
                  [--timeout S] [STEP...] -- COMMAND [ARG...]

Steps, in order:
  --expect REGEX   wait (at most --timeout s) until the output so far,
                   carriage returns removed, matches REGEX (Python re,
                   MULTILINE); exit 97 if it never does
  --send TEXT      write TEXT to the terminal (Python escapes: \\x03, \\n)
  --resize CxR     set the terminal's size (the kernel sends SIGWINCH)
  --sleep S        wait S seconds, reading output
Then the output is read until the command exits.  --out gets everything
it wrote (carriage returns removed); --modes gets the terminal's modes
before the command started and after it ended, one line each.  The exit
status is the command's (128+N for signal N), or 97 on a failed expect,
98 on the overall timeout.
"""
import codecs
import fcntl
import os
import re
import select
import signal
import struct
import sys
import termios
import time


def winsize(fd, spec):
    cols, rows = (int(x) for x in spec.split("x"))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))


def main(argv):
    size, out, modes, timeout, steps = "80x24", None, None, 30.0, []
    i = 0
    while i < len(argv) and argv[i] != "--":
        opt, val = argv[i], argv[i + 1]
        i += 2
        if opt == "--size":
            size = val
        elif opt == "--out":
            out = val
        elif opt == "--modes":
            modes = val
        elif opt == "--timeout":
            timeout = float(val)
        else:
            steps.append((opt, val))
    cmd = argv[i + 1:]
    master, slave = os.openpty()
    winsize(slave, size)
    before = termios.tcgetattr(slave)
    pid = os.fork()
    if pid == 0:
        # as a terminal's shell would: a background job of sh has these
        # ignored, and ^C must reach the command
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        signal.signal(signal.SIGQUIT, signal.SIG_DFL)
        os.close(master)
        os.setsid()
        fcntl.ioctl(slave, termios.TIOCSCTTY, 0)
        for fd in (0, 1, 2):
            os.dup2(slave, fd)
        if slave > 2:
            os.close(slave)
        os.execvp(cmd[0], cmd)
    buf = bytearray()
    deadline = time.monotonic() + timeout
    status = None

    def pump(wait):
        nonlocal status
        r, _, _ = select.select([master], [], [], wait)
        if r:
            try:
                data = os.read(master, 65536)
            except OSError:
                data = b""
            buf.extend(data)
            return len(data) > 0
        return True

    def text():
        return buf.replace(b"\r", b"").decode("utf-8", "replace")

    rc = None
    for opt, val in steps:
        if opt == "--expect":
            end = time.monotonic() + timeout
            while not re.search(val, text(), re.M):
                if time.monotonic() > end or not pump(0.1):
                    if not re.search(val, text(), re.M):
                        sys.stderr.write("pty_run: never saw %r in %r\n"
                                         % (val, text()))
                        rc = 97
                    break
            if rc is not None:
                break
        elif opt == "--send":
            os.write(master, codecs.decode(val, "unicode_escape")
                     .encode("latin-1"))
        elif opt == "--resize":
            winsize(slave, val)
        elif opt == "--sleep":
            end = time.monotonic() + float(val)
            while time.monotonic() < end:
                pump(0.05)
    if rc is not None:
        os.kill(pid, signal.SIGKILL)
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = st
            break
        if time.monotonic() > deadline:
            sys.stderr.write("pty_run: timed out: %r\n" % text())
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            rc = 98
            break
        pump(0.05)
    while pump(0):
        r, _, _ = select.select([master], [], [], 0)
        if not r:
            break
    after = termios.tcgetattr(slave)
    if out:
        with open(out, "w") as f:
            f.write(text())
    if modes:
        with open(modes, "w") as f:
            f.write("%r\n%r\n" % (before, after))
    if rc is not None:
        return rc
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
