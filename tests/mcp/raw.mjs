#!/usr/bin/env node
// SPDX-License-Identifier: BSD-2-Clause
// Send raw bytes to an HTTP server and print what comes back (for the
// malformed requests of tests/integration/mcp_http.sh):
//
//   node raw.mjs PORT < REQUEST
//
// Connects to 127.0.0.1:PORT, passes stdin on as it comes (without ever
// closing our side), and prints every byte the server sends until it
// closes the connection (or 30 s pass).
import net from "node:net";

const port = Number(process.argv[2]);
const sock = net.connect(port, "127.0.0.1");
const got = [];
const timer = setTimeout(() => sock.destroy(), 30000);
sock.on("connect", () => process.stdin.pipe(sock, { end: false }));
sock.on("data", (d) => got.push(d));
sock.on("error", (e) => console.error(String(e)));
sock.on("close", () => {
  clearTimeout(timer);
  process.stdout.write(Buffer.concat(got));
  process.exit(0);
});
