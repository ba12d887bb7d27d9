#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""One JSON-RPC session on the daemon's socket, driven by a script.

usage: rpc_session.py SOCKET < SCRIPT
       rpc_session.py -- COMMAND [ARG...] < SCRIPT   (its stdin and stdout)

Each line of SCRIPT is one of
  {...}        send the request; if it has an id, read until its answer
  &{...}       send it and go on (its answer is waited for at the end)
  wait ID      read until the answer to ID
  sleep SECS   sleep
Every line the daemon sends is printed as it came.  At the end the
answers not yet read are waited for (60 s at most each), but those of
calls cancelled (notifications/cancelled); exit 1 if one never came or
the daemon closed the connection first.
"""
import json
import socket
import subprocess
import sys
import time


class Session:
    def __init__(self, args):
        self.answered = set()
        if args[0] == "--":
            self.proc = subprocess.Popen(args[1:], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE)
            self.f = self.proc.stdout
            self.write = self.proc.stdin.write
            self.flush = self.proc.stdin.flush
            return
        self.proc = None
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(args[0])
        self.s.settimeout(60)
        self.f = self.s.makefile("rb")
        self.write = self.s.sendall
        self.flush = lambda: None

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait(timeout=60)

    def wait(self, rid):
        while rid not in self.answered:
            line = self.f.readline()
            if not line:
                sys.exit("rpc_session: the daemon closed the connection "
                         "before answering %s" % rid)
            sys.stdout.write(line.decode())
            sys.stdout.flush()
            m = json.loads(line)
            if "method" not in m:
                self.answered.add(json.dumps(m.get("id")))

    def send(self, text):
        self.write(text.encode() + b"\n")
        self.flush()
        m = json.loads(text)
        return json.dumps(m["id"]) if "id" in m else None


def main():
    sess = Session(sys.argv[1:])
    pending = []
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        if line.startswith("sleep "):
            time.sleep(float(line.split()[1]))
        elif line.startswith("wait "):
            sess.wait(json.dumps(json.loads(line.split(None, 1)[1])))
        elif line.startswith("&"):
            rid = sess.send(line[1:])
            if rid is not None:
                pending.append(rid)
        else:
            rid = sess.send(line)
            if rid is not None:
                sess.wait(rid)
            m = json.loads(line)
            if m.get("method") == "notifications/cancelled":
                # a cancelled call gets no answer
                gone = json.dumps(m["params"]["requestId"])
                pending = [p for p in pending if p != gone]
    for rid in pending:
        sess.wait(rid)
    sess.close()


if __name__ == "__main__":
    main()
