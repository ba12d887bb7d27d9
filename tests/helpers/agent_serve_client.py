#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Drive `clawssh-agent serve` over its stdin/stdout as a client would
(docs/agent.md, "serve") and check what comes back.

usage: agent_serve_client.py AGENT RUNDIR SPEC NOHOLDER-DIR

RUNDIR has a running holder started with spec SPEC; NOHOLDER-DIR has
none.  Each check prints "ok: ..." or raises; exit status 0 when all
pass.
"""
import hashlib
import os
import select
import struct
import subprocess
import sys
import time

HELLO, EXEC, STARTED, EXIT, SIGNAL = 1, 2, 3, 4, 5
ERROR, DATA, EOF = 10, 11, 12
T_PROTO, T_CAP, T_SPEC, T_ARG, T_ENV, T_CWD = 1, 2, 3, 5, 6, 7
T_PID, T_CODE, T_SIGNO, T_MESSAGE = 11, 12, 13, 14
T_DIR, T_STREAM, T_BYTES = 23, 24, 25


def field(tag, val):
    """One field: u16 tag, u32 length, bytes."""
    if isinstance(val, int):
        val = struct.pack(">I", val)
    elif isinstance(val, str):
        val = val.encode()
    return struct.pack(">HI", tag, len(val)) + val


def frame(ftype, fid, *fields):
    """One frame: u32 length, u8 version, u8 type, u32 id, fields."""
    body = struct.pack(">BBI", 1, ftype, fid) + b"".join(fields)
    return struct.pack(">I", len(body)) + body


def fields_of(body):
    """The (tag, bytes) pairs of a frame's fields."""
    out, off = [], 0
    while off < len(body):
        tag, n = struct.unpack(">HI", body[off:off + 6])
        out.append((tag, body[off + 6:off + 6 + n]))
        off += 6 + n
    return out


class Serve:
    """One serve process and the frames it sends back, by request id."""

    def __init__(self, agent):
        self.p = subprocess.Popen([agent, "serve"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE)
        self.buf = b""
        self.frames = {}

    def send(self, data):
        self.p.stdin.write(data)
        self.p.stdin.flush()

    def pump(self, timeout):
        """Read what serve sends for up to timeout seconds; False at EOF."""
        r, _, _ = select.select([self.p.stdout], [], [], timeout)
        if not r:
            return True
        chunk = os.read(self.p.stdout.fileno(), 1 << 16)
        if not chunk:
            return False
        self.buf += chunk
        while len(self.buf) >= 4:
            n = struct.unpack(">I", self.buf[:4])[0]
            if len(self.buf) < 4 + n:
                break
            body = self.buf[4:4 + n]
            self.buf = self.buf[4 + n:]
            ftype, fid = body[1], struct.unpack(">I", body[2:6])[0]
            self.frames.setdefault(fid, []).append(
                (ftype, fields_of(body[6:])))
        return True

    def wait_end(self, fid, timeout=20):
        """The frames of request fid up to its EXIT or ERROR."""
        end = time.time() + timeout
        while time.time() < end:
            got = self.frames.get(fid, [])
            if any(t in (EXIT, ERROR) for t, _ in got):
                return got
            if not self.pump(0.2):
                break
        raise AssertionError("request %d: no EXIT or ERROR: %r" %
                             (fid, self.frames.get(fid)))


def run(s, fid, rundir, spec, argv, stdin=None, env=("PATH=/usr/bin:/bin",)):
    """Send an EXEC (and stdin, then its EOF)."""
    fs = [field(T_DIR, rundir)]
    if spec is not None:
        fs.append(field(T_SPEC, spec))
    fs += [field(T_ARG, a) for a in argv]
    fs += [field(T_ENV, e) for e in env]
    fs.append(field(T_CWD, "/"))
    data = frame(EXEC, fid, *fs)
    if stdin is not None:
        for i in range(0, len(stdin), 1 << 16):  # frames of 64 KiB
            data += frame(DATA, fid, field(T_STREAM, 0),
                          field(T_BYTES, stdin[i:i + (1 << 16)]))
        data += frame(EOF, fid, field(T_STREAM, 0))
    s.send(data)


def outcome(frames):
    """stdout, stderr, the EXIT's (code, signo) or the ERROR's (code, msg)."""
    out = {1: b"", 2: b""}
    eofs, res = set(), None
    for t, fs in frames:
        d = dict(fs)
        if t == DATA:
            out[struct.unpack(">I", d[T_STREAM])[0]] += d[T_BYTES]
        elif t == EOF:
            eofs.add(struct.unpack(">I", d[T_STREAM])[0])
        elif t == EXIT:
            res = ("exit",
                   struct.unpack(">I", d[T_CODE])[0] if T_CODE in d else None,
                   struct.unpack(">I", d[T_SIGNO])[0] if T_SIGNO in d
                   else None)
            assert eofs == {1, 2}, "EXIT before both EOFs: %r" % frames
        elif t == ERROR:
            res = ("error", struct.unpack(">I", d[T_CODE])[0],
                   d[T_MESSAGE].decode())
    return out[1], out[2], res


def check(what, cond, detail=""):
    if not cond:
        raise AssertionError("%s: %s" % (what, detail))
    print("ok:", what)


def main():
    agent, rundir, spec, noholder = sys.argv[1:5]
    s = Serve(agent)
    s.send(frame(HELLO, 0, field(T_PROTO, 1)))
    while 0 not in s.frames:
        assert s.pump(5), "serve ended before its HELLO"
    caps = [v for t, v in s.frames[0][0][1] if t == T_CAP]
    check("HELLO with the relay capability", b"relay" in caps, caps)

    script = 'echo out; echo err >&2; read -r x; echo "got:$x"; exit 3'
    run(s, 1, rundir, spec, ["sh", "-c", script], stdin=b"hi\n")
    o, e, r = outcome(s.wait_end(1))
    check("stdout, stderr, stdin and the exit code",
          (o, e, r) == (b"out\ngot:hi\n", b"err\n", ("exit", 3, None)),
          (o, e, r))

    for i in range(2, 42):
        run(s, i, rundir, spec, ["sh", "-c", "echo $0; exit $(($0 % 7))",
                                 str(i)], stdin=b"")
    bad = [i for i in range(2, 42)
           if outcome(s.wait_end(i)) != (("%d\n" % i).encode(), b"",
                                          ("exit", i % 7, None))]
    check("40 commands at once, each output and status its own", not bad,
          bad)

    run(s, 50, rundir, spec, ["head", "-c", "5000000", "/dev/zero"],
        stdin=b"")
    o, e, r = outcome(s.wait_end(50, 60))
    check("5 MB of output, whole", (len(o), set(o), r) ==
          (5000000, {0}, ("exit", 0, None)), (len(o), r))

    big = os.urandom(3 * 1024 * 1024)
    run(s, 51, rundir, spec, ["sha256sum"], stdin=big)
    o, e, r = outcome(s.wait_end(51, 60))
    check("3 MiB of stdin, whole", o.split()[0].decode() ==
          hashlib.sha256(big).hexdigest() and r == ("exit", 0, None), r)
    # a reader that starts late: the backlog fills, is written out in
    # pieces and the buffer's front reused (serve_exec_room)
    big = os.urandom(12 * 1024 * 1024 + 12345)
    run(s, 52, rundir, spec, ["sh", "-c", "sleep 0.5; sha256sum"],
        stdin=big)
    o, e, r = outcome(s.wait_end(52, 60))
    check("12 MiB of stdin to a late reader, whole",
          o.split()[0].decode() == hashlib.sha256(big).hexdigest() and
          r == ("exit", 0, None), r)

    # A SIGNAL right after STARTED: the holder once answered STARTED
    # before the command had its session (the signal was lost) or its
    # own signal handlers (a TERM stopped the whole sandbox).
    got = []
    for i in range(60, 70):
        run(s, i, rundir, spec, ["sleep", "4141"])
        while not any(t == STARTED for t, _ in s.frames.get(i, [])):
            assert s.pump(5), "serve ended"
        s.send(frame(SIGNAL, i, field(T_SIGNO, 15)))
        got.append(outcome(s.wait_end(i))[2])
    check("SIGNAL right after STARTED reaches the command, 10 times",
          got == [("exit", None, 15)] * 10, got)

    run(s, 70, noholder, None, ["true"])
    r = outcome(s.wait_end(70))[2]
    check("no holder: ERROR NOHOLDER", r[:2] == ("error", 1), r)

    run(s, 71, rundir, spec + "-other", ["true"])
    r = outcome(s.wait_end(71))[2]
    check("other settings: ERROR SPEC", r[:2] == ("error", 2), r)

    run(s, 72, rundir, spec, ["/nonexistent/cmd"])
    r = outcome(s.wait_end(72))[2]
    check("a missing command: status 127", r == ("exit", 127, None), r)

    run(s, 73, rundir, spec, ["sh", "-c", "sleep 4242 & exit 0"])
    r = outcome(s.wait_end(73))[2]
    check("a background child does not hold the EXIT back",
          r == ("exit", 0, None), r)

    run(s, 80, rundir, spec, ["sleep", "4343"])
    while not any(t == STARTED for t, _ in s.frames.get(80, [])):
        assert s.pump(5), "serve ended"
    s.p.stdin.close()
    s.p.wait(20)
    check("the client's EOF ends serve", s.p.returncode == 0,
          s.p.returncode)

    s = Serve(agent)
    s.send(frame(HELLO, 0, field(T_PROTO, 1)) + b"\0\0\0\2garbage")
    s.p.stdin.close()
    while s.pump(5):
        pass
    s.p.wait(20)
    r = outcome(s.frames.get(0, [])[1:])[2]
    check("garbage: an ERROR, exit 125",
          s.p.returncode == 125 and r is not None and r[1] == 4,
          (s.p.returncode, r))
    return 0


if __name__ == "__main__":
    sys.exit(main())
