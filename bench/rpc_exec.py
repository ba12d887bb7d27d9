#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""JSON-RPC exec on the daemon's socket, without a CLI process of ours.

usage: rpc_exec.py SOCKET SANDBOX RUNS INFLIGHT TOTAL

Prints two lines: the latency of RUNS sequential `exec /bin/true` calls
(median and p99, ms), and the rate of TOTAL calls kept INFLIGHT at once
(execs/s), every answer checked (its id, exit status 0).
"""
import json
import socket
import sys
import time


def conn(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    return s, s.makefile("rb")


def request(i, sandbox):
    return (json.dumps({"jsonrpc": "2.0", "id": i, "method": "exec",
                        "params": {"sandbox": sandbox, "no_sync": True,
                                   "argv": ["/bin/true"]}}) + "\n").encode()


def answer(f):
    """The next response (notifications skipped): (id, exit status)."""
    while True:
        line = f.readline()
        if not line:
            sys.exit("the daemon closed the connection")
        m = json.loads(line)
        if "id" not in m or m.get("id") is None:
            continue
        if "error" in m:
            sys.exit("request %s failed: %s" % (m["id"], m["error"]))
        return m["id"], m["result"]["exit_status"]


def sequential(path, sandbox, runs):
    s, f = conn(path)
    times = []
    for i in range(1, runs + 1):
        t0 = time.perf_counter()
        s.sendall(request(i, sandbox))
        rid, st = answer(f)
        times.append((time.perf_counter() - t0) * 1000)
        if rid != i or st != 0:
            sys.exit("request %d: id %s status %s" % (i, rid, st))
    times.sort()
    p99 = times[max(0, -(-len(times) * 99 // 100) - 1)]
    print("sequential %.2f %.2f" % (times[len(times) // 2], p99))


def inflight(path, sandbox, depth, total):
    s, f = conn(path)
    sent = done = 0
    t0 = time.perf_counter()
    while sent < min(depth, total):
        sent += 1
        s.sendall(request(sent, sandbox))
    seen = set()
    while done < total:
        rid, st = answer(f)
        if st != 0 or rid in seen:
            sys.exit("request %s: status %s (or answered twice)" % (rid, st))
        seen.add(rid)
        done += 1
        if sent < total:
            sent += 1
            s.sendall(request(sent, sandbox))
    rate = total / (time.perf_counter() - t0)
    print("inflight %d %.1f" % (depth, rate))


def main():
    path, sandbox = sys.argv[1], sys.argv[2]
    runs, depth, total = map(int, sys.argv[3:6])
    sequential(path, sandbox, runs)
    inflight(path, sandbox, depth, total)


main()
