#!/usr/bin/env node
// SPDX-License-Identifier: BSD-2-Clause
// Check one MCP 2025-06-18 behaviour of `clawssh serve --mcp` with the
// official TypeScript SDK client (see tests/integration/mcp_spec.sh):
//
//   node spec.mjs CHECK COMMAND [ARG...]
//
// CHECK is one of:
//   denied    policy denies fs.write: write_file is not listed, and a call
//             of it is a tool result with isError (not a JSON-RPC error)
//   schemas   every tool has an outputSchema and annotations; each call
//             returns structuredContent (the SDK validates it)
//   binary    a file of every byte 0..255 round-trips as base64
//   big       20 MiB of exec output: the result is cut and says so, the
//             client lives on, and read_output returns every byte
//   progress  a long, silent exec with a progressToken gets progress
//             notifications
//   cancel    a cancelled exec: prints the remote command's marker for
//             the shell test to look for (it checks the process is gone)
// Prints a JSON summary; exits 1 on any mismatch, 2 on bad usage.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const CALL_TIMEOUT_MS = 120000;
const [check_name, command, ...args] = process.argv.slice(2);
if (!check_name || !command) {
  console.error("usage: node spec.mjs CHECK COMMAND [ARG...]");
  process.exit(2);
}

const checks = [];
function check(name, ok, detail) {
  checks.push({ name, ok: Boolean(ok), ...(ok ? {} : { detail }) });
  return Boolean(ok);
}

function text(result) {
  return (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("");
}

const transport = new StdioClientTransport({
  command,
  args,
  env: Object.fromEntries(
    Object.entries(process.env).filter(([, v]) => v !== undefined)),
  stderr: "inherit",
});
const client = new Client({ name: "clawssh-mcp-spec", version: "1.0.0" });

async function call(name, args, opts = {}) {
  return client.callTool({ name, arguments: args }, undefined,
    { timeout: CALL_TIMEOUT_MS, ...opts });
}

// What each tool does to the sandbox: [readOnly, destructive, idempotent].
const HINTS = {
  exec: [false, true, false],
  read_file: [true, false, true],
  write_file: [false, true, true],
  edit_file: [false, true, false],
  apply_patch: [false, true, false],
  list_dir: [true, false, true],
  stat: [true, false, true],
  process_start: [false, true, false],
  process_poll: [true, false, false],
  process_log: [true, false, true],
  process_wait: [true, false, true],
  process_write: [false, true, false],
  process_kill: [false, true, true],
  process_list: [true, false, true],
  sync_push: [false, true, true],
  sync_pull: [false, true, true],
  read_output: [true, false, true],
};

async function denied() {
  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  check("write_file not listed", !names.includes("write_file"), names);
  check("read_file still listed", names.includes("read_file"), names);
  let r, err = null;
  try {
    r = await call("write_file", { path: "denied.txt", content: "x" });
  } catch (e) {
    err = e;
  }
  check("denied call is a tool result", err === null,
    err && { code: err.code, message: err.message });
  if (r) {
    check("denied call has isError", r.isError === true, r);
    check("denial names the rule", /policy\.deny\[0\]/.test(text(r)),
      text(r));
  }
  r = await call("exec", { command: "test ! -e denied.txt" });
  check("denied write did not happen", r.structuredContent?.exitCode === 0,
    r);
}

async function schemas() {
  const { tools } = await client.listTools();
  for (const t of tools) {
    check(`${t.name} has an outputSchema`,
      t.outputSchema?.type === "object", t.outputSchema);
    const want = HINTS[t.name];
    const a = t.annotations ?? {};
    check(`${t.name} annotations`, want &&
      a.readOnlyHint === want[0] && a.destructiveHint === want[1] &&
      a.idempotentHint === want[2], { want, got: a });
  }
  check("every tool checked", tools.length === Object.keys(HINTS).length,
    tools.map((t) => t.name));
  const sc = async (name, a) => {
    const r = await call(name, a);
    check(`${name} structuredContent`,
      r.structuredContent && typeof r.structuredContent === "object" &&
      !r.isError, r);
    return r;
  };
  let r = await sc("exec", { command: "echo out; echo err >&2; exit 0" });
  const s = r.structuredContent ?? {};
  check("exec fields", s.exitCode === 0 && s.signal === null &&
    s.stdout === "out\n" && s.stderr === "err\n" && s.truncated === false,
    s);
  check("exec text for old clients", text(r).includes("out") &&
    text(r).includes("[exit status 0]"), text(r));
  r = await call("exec", { command: "exit 3" });
  check("exec exit 3", r.isError === true &&
    r.structuredContent?.exitCode === 3, r);
  r = await call("exec", { command: "kill -TERM $$" });
  check("exec killed by a signal", r.structuredContent?.signal === "TERM" &&
    r.structuredContent?.exitCode === null, r);
  const path = `spec-${process.pid}.txt`;
  r = await sc("write_file", { path, content: "one\ntwo\n" });
  check("write_file bytes", r.structuredContent?.bytes === 8, r);
  r = await sc("read_file", { path });
  check("read_file fields", r.structuredContent?.content === "one\ntwo\n" &&
    r.structuredContent?.encoding === "utf-8" &&
    text(r) === "one\ntwo\n", r);
  await sc("edit_file", { path, old: "two", new: "three" });
  await sc("apply_patch", { patch: `--- a/${path}\n+++ b/${path}\n` +
    "@@ -1,2 +1,2 @@\n one\n-three\n+four\n" });
  r = await sc("read_file", { path });
  check("patched", r.structuredContent?.content === "one\nfour\n", r);
  r = await sc("stat", { path });
  check("stat fields", r.structuredContent?.size === 9, r);
  r = await sc("list_dir", {});
  check("list_dir entries", Array.isArray(r.structuredContent?.entries) &&
    r.structuredContent.entries.some((e) => e.name === path), r);
  r = await sc("process_start", { command: "echo bg; sleep 300" });
  const h = r.structuredContent?.handle;
  check("process_start handle", /^p[0-9a-f]{8}$/.test(h ?? ""), r);
  await sc("process_list", {});
  await sc("process_poll", { handle: h });
  await sc("process_log", { handle: h });
  await sc("process_write", { handle: h, data: "x\n" });
  await sc("process_kill", { handle: h, signal: "KILL" });
  r = await sc("process_wait", { handle: h, timeout: 30 });
  check("process_wait state", r.structuredContent?.state === "killed", r);
  await sc("sync_push", {});
  await sc("sync_pull", {});
}

async function binary() {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  const b64 = bytes.toString("base64");
  let r = await call("write_file", { path: "bytes.bin", content: b64,
    encoding: "base64" });
  check("write_file base64", !r.isError && r.structuredContent?.bytes === 256,
    r);
  r = await call("exec", { command: "od -An -tu1 -v bytes.bin | wc -w" });
  check("remote file holds 256 bytes",
    r.structuredContent?.stdout.trim() === "256", r);
  r = await call("read_file", { path: "bytes.bin" });
  check("read_file of binary is base64",
    r.structuredContent?.encoding === "base64" &&
    r.structuredContent?.content === b64, r);
  const dec = Buffer.from(r.structuredContent?.content ?? "", "base64");
  check("every byte value round-trips", dec.equals(bytes), dec.length);
  r = await call("read_file", { path: "bytes.bin", offset: 250, limit: 6 });
  check("read_file range of binary",
    r.structuredContent?.content ===
    bytes.subarray(250).toString("base64"), r);
  r = await call("write_file", { path: "t.txt", content: "plain" });
  r = await call("read_file", { path: "t.txt", encoding: "base64" });
  check("read_file base64 when asked",
    r.structuredContent?.encoding === "base64" &&
    r.structuredContent?.content === Buffer.from("plain").toString("base64"),
    r);
  let refused;
  try {
    r = await call("write_file", { path: "bad.bin", content: "not base64!",
      encoding: "base64" });
    refused = r.isError === true;
  } catch (e) {
    refused = e?.code === -32602 && /base64/.test(e.message);
  }
  check("bad base64 refused (invalid arguments)", refused, r);
}

async function big() {
  const n = 2400000;	// seq 1 n: 20.6 MiB
  let want = "";
  for (let i = 1; i <= n; i++) want += `${i}\n`;
  let r = await call("exec", { command: `seq 1 ${n}; echo done >&2` });
  const s = r.structuredContent ?? {};
  check("big exec answered", !r.isError, text(r).slice(0, 200));
  check("truncated said", s.truncated === true, { ...s, stdout: undefined });
  check("stdout cut", typeof s.stdout === "string" &&
    s.stdout.length <= 1024 * 1024 && want.startsWith(s.stdout),
    s.stdout?.length);
  check("sizes said", s.stdoutBytes === want.length && s.stderrBytes === 5, s);
  check("stderr whole", s.stderr === "done\n", s.stderr);
  check("output id", typeof s.outputId === "string", s.outputId);
  r = await call("exec", { command: "echo alive" });
  check("client lives on", r.structuredContent?.stdout === "alive\n", r);
  let got = "", offset = 0;
  for (let i = 0; i < 100 && offset < want.length; i++) {
    r = await call("read_output", { id: s.outputId, stream: "stdout",
      offset });
    const c = r.structuredContent;
    if (r.isError || !c) {
      check("read_output", false, text(r));
      break;
    }
    got += c.content;
    offset += Buffer.byteLength(c.content);
    if (c.eof) break;
  }
  check("read_output returns every byte", got === want,
    { got: got.length, want: want.length });
}

async function progress() {
  const seen = [];
  // Silent for 4 s: progress must not wait for output.
  const r = await call("exec", { command: "sleep 4; echo done" },
    { onprogress: (p) => seen.push(p) });
  check("exec ran", r.structuredContent?.exitCode === 0, r);
  check("progress notifications", seen.length >= 2 &&
    seen.every((p, i) => i === 0 || p.progress > seen[i - 1].progress),
    seen);
}

async function cancel() {
  const marker = process.env.SPEC_MARKER ?? "351";
  const ac = new AbortController();
  const p = call("exec", { argv: ["sleep", marker] }, { signal: ac.signal });
  await new Promise((r) => setTimeout(r, 3000));
  ac.abort("test cancels");
  let aborted = false;
  try {
    await p;
  } catch {
    aborted = true;
  }
  check("call aborted", aborted, "answered");
  // Stay connected while the shell test looks for the process (it gives
  // up after 8 s): the server must stop it on the cancellation alone.
  await new Promise((r) => setTimeout(r, 16000));
  const r = await call("exec", { command: "echo alive" });
  check("server lives on", r.structuredContent?.stdout === "alive\n", r);
}

const CHECKS = { denied, schemas, binary, big, progress, cancel };

let fatal = null;
try {
  if (!CHECKS[check_name]) throw new Error(`unknown check ${check_name}`);
  await client.connect(transport);
  await CHECKS[check_name]();
} catch (e) {
  fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
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
