#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""A file tool over JSON-RPC on the daemon's socket, no CLI process.

usage: rpc_fs.py SOCKET SANDBOX METHOD PATH RUNS [PARAMS-JSON]

Sends RUNS sequential METHOD (fs.read, fs.stat, fs.edit...) calls for
PATH, with the object PARAMS-JSON's members as more params, and prints
"median p99 max" in ms; every answer is checked (its id, a result).
"""
import json
import socket
import sys
import time


def main():
    path, sandbox, method, fpath, runs = sys.argv[1:6]
    extra = json.loads(sys.argv[6]) if len(sys.argv) > 6 else {}
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    f = s.makefile("rb")
    times = []
    for i in range(1, int(runs) + 1):
        req = {"jsonrpc": "2.0", "id": i, "method": method,
               "params": dict({"sandbox": sandbox, "path": fpath}, **extra)}
        t0 = time.perf_counter()
        s.sendall((json.dumps(req) + "\n").encode())
        while True:
            m = json.loads(f.readline() or sys.exit("connection closed"))
            if m.get("id") is not None:
                break
        times.append((time.perf_counter() - t0) * 1000)
        if m["id"] != i or "result" not in m:
            sys.exit("request %d: %s" % (i, m))
    times.sort()
    p99 = times[max(0, -(-len(times) * 99 // 100) - 1)]
    print("%.2f %.2f %.2f" % (times[len(times) // 2], p99, times[-1]))


main()
