#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Sequential JSON-RPC calls of several methods on the daemon's socket.

usage: rpc_ops.py SOCKET SANDBOX HANDLE RUNS

For each method: RUNS calls one after another (no CLI process of the
caller's), every answer checked (a result, not an error), then one line
"METHOD MEDIAN P99" in milliseconds.
"""
import json
import socket
import sys
import time


def main():
    path, box, handle, runs = sys.argv[1], sys.argv[2], sys.argv[3], \
        int(sys.argv[4])
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    f = s.makefile("rb")
    calls = [
        ("exec", {"sandbox": box, "no_sync": True, "argv": ["/bin/true"]}),
        ("fs.stat", {"sandbox": box, "path": "f.txt"}),
        ("sandbox.sshConfig", {"sandbox": box}),
        ("process.poll", {"sandbox": box, "handle": handle}),
        ("process.list", {"sandbox": box}),
        ("sandbox.status", {"sandbox": box}),
        ("process.start", {"sandbox": box, "argv": ["/bin/true"]}),
    ]
    n = 0
    for method, params in calls:
        times = []
        for _ in range(runs):
            n += 1
            t0 = time.perf_counter()
            s.sendall((json.dumps({"jsonrpc": "2.0", "id": n,
                                   "method": method,
                                   "params": params}) + "\n").encode())
            while True:
                line = f.readline()
                if not line:
                    sys.exit("the daemon closed the connection")
                m = json.loads(line)
                if m.get("id") == n:
                    break
            times.append((time.perf_counter() - t0) * 1000)
            if "error" in m:
                sys.exit("%s: %s" % (method, m["error"]))
        times.sort()
        p99 = times[max(0, -(-len(times) * 99 // 100) - 1)]
        print("%s %.2f %.2f" % (method, times[len(times) // 2], p99))


main()
