#!/usr/bin/env node
// SPDX-License-Identifier: BSD-2-Clause
// Check `clawssh serve --mcp --listen` (MCP Streamable HTTP, 2025-06-18)
// with the official TypeScript SDK client's StreamableHTTPClientTransport
// (see tests/integration/mcp_http.sh):
//
//   node http.mjs CHECK URL TOKEN-FILE
//
// CHECK is one of:
//   tools     a session: tools/list, exec, write_file + read_file; two
//             clients at once (the same JSON-RPC ids in both); DELETE
//             ends a session and its id is then unknown (404)
//   badtoken  a wrong token and no token: the client cannot connect (401)
//   progress  a long, silent exec with a progressToken: notifications
//             arrive on the request's event stream
//   cancel    a cancelled exec: prints the remote command's marker for
//             the shell test to look for (it checks the process is gone)
// Prints a JSON summary; exits 1 on any mismatch, 2 on bad usage.
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const CALL_TIMEOUT_MS = 120000;
const [check_name, url, token_file] = process.argv.slice(2);
if (!check_name || !url || !token_file) {
  console.error("usage: node http.mjs CHECK URL TOKEN-FILE");
  process.exit(2);
}
const TOKEN = readFileSync(token_file, "utf8").trim();

const checks = [];
function check(name, ok, detail) {
  checks.push({ name, ok: Boolean(ok), ...(ok ? {} : { detail }) });
  return Boolean(ok);
}

// A connected client (its transport in .transport) sending token.
async function connect(token = TOKEN) {
  const headers = token === null ? {} : { Authorization: `Bearer ${token}` };
  const transport = new StreamableHTTPClientTransport(new URL(url),
    { requestInit: { headers } });
  const client = new Client({ name: "clawssh-mcp-http", version: "1.0.0" });
  await client.connect(transport);
  client.transport_ = transport;
  return client;
}

async function call(client, name, args, opts = {}) {
  return client.callTool({ name, arguments: args }, undefined,
    { timeout: CALL_TIMEOUT_MS, ...opts });
}

async function tools() {
  const a = await connect();
  const sid = a.transport_.sessionId;
  check("session id given", typeof sid === "string" && sid.length >= 16, sid);
  const { tools } = await a.listTools();
  const names = tools.map((t) => t.name);
  check("tools listed", names.includes("exec") && names.includes("read_file"),
    names);
  let r = await call(a, "exec", { command: "echo over-http" });
  check("exec over HTTP", r.structuredContent?.exitCode === 0 &&
    r.structuredContent?.stdout === "over-http\n", r);
  r = await call(a, "write_file", { path: "http.txt", content: "via http\n" });
  check("write_file", !r.isError, r);
  r = await call(a, "read_file", { path: "http.txt" });
  check("read_file", r.structuredContent?.content === "via http\n", r);
  // A second client at the same time: its ids are the same as a's.
  const b = await connect();
  check("sessions differ", b.transport_.sessionId !== sid,
    b.transport_.sessionId);
  const [ra, rb] = await Promise.all([
    call(a, "exec", { command: "sleep 1; echo a" }),
    call(b, "exec", { command: "echo b" }),
  ]);
  check("answers go to their own client",
    ra.structuredContent?.stdout === "a\n" &&
    rb.structuredContent?.stdout === "b\n", { ra, rb });
  await b.transport_.terminateSession();
  check("DELETE ended the session", b.transport_.sessionId === undefined,
    b.transport_.sessionId);
  const res = await fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json",
      Accept: "application/json, text/event-stream", "Mcp-Session-Id": sid,
      "MCP-Protocol-Version": "2025-06-18",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "ping" }),
  });
  check("ping by hand in the live session", res.status === 200 &&
    JSON.stringify(await res.json()) ===
    '{"jsonrpc":"2.0","id":7,"result":{}}', res.status);
  await a.transport_.terminateSession();
  const gone = await fetch(url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json",
      Accept: "application/json", "Mcp-Session-Id": sid,
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 8, method: "ping" }),
  });
  check("an ended session is unknown (404)", gone.status === 404, gone.status);
  await a.close();
  await b.close();
}

async function badtoken() {
  for (const [what, tok] of [["wrong", "x".repeat(64)], ["none", null]]) {
    let err = null;
    try {
      const c = await connect(tok);
      await c.close();
    } catch (e) {
      err = e;
    }
    check(`${what} token refused (401)`, err?.code === 401,
      { code: err?.code, message: String(err) });
  }
}

async function progress() {
  const c = await connect();
  const seen = [];
  const r = await call(c, "exec", { command: "sleep 4; echo done" },
    { onprogress: (p) => seen.push(p) });
  check("exec ran", r.structuredContent?.exitCode === 0 &&
    r.structuredContent?.stdout === "done\n", r);
  check("progress notifications over SSE", seen.length >= 2 &&
    seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress),
    seen);
  await c.close();
}

async function cancel() {
  const c = await connect();
  const marker = process.env.SPEC_MARKER ?? "351";
  const ac = new AbortController();
  const p = call(c, "exec", { argv: ["sleep", marker] }, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 3000));
  ac.abort("test cancels");
  let aborted = false;
  try {
    await p;
  } catch {
    aborted = true;
  }
  check("call aborted", aborted, "answered");
  // Stay connected while the shell test looks for the process: the
  // server must stop it on the cancellation alone.
  await new Promise((r) => setTimeout(r, 16000));
  const r = await call(c, "exec", { command: "echo alive" });
  check("server lives on", r.structuredContent?.stdout === "alive\n", r);
  await c.close();
}

const CHECKS = { tools, badtoken, progress, cancel };

let fatal = null;
try {
  if (!CHECKS[check_name]) throw new Error(`unknown check ${check_name}`);
  await CHECKS[check_name]();
} catch (e) {
  fatal = String(e?.stack ?? e);
}
const failed = checks.filter((c) => !c.ok);
const summary = {
  check: check_name,
  ok: !fatal && failed.length === 0 && checks.length > 0,
  checks: checks.length,
  failed,
  ...(fatal ? { error: fatal } : {}),
};
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
