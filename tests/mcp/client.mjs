#!/usr/bin/env node
// SPDX-License-Identifier: BSD-2-Clause
// Drive an MCP server (e.g. `clawssh serve --mcp -s ID`) with the official
// TypeScript SDK over stdio: list the tools, then write, read and edit a
// file, run commands and background processes.  Prints a JSON summary on
// stdout; exits 1 on any mismatch, 2 on bad usage.
//
//   node client.mjs COMMAND [ARG...]
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const EXPECTED_TOOLS = [
  "exec", "read_file", "write_file", "edit_file", "apply_patch", "list_dir",
  "stat", "process_start", "process_poll", "process_log", "process_wait",
  "process_write",
  "process_kill", "process_list", "sync_push", "sync_pull",
];
const CALL_TIMEOUT_MS = 120000;

const [command, ...args] = process.argv.slice(2);
if (!command) {
  console.error("usage: node client.mjs COMMAND [ARG...]");
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

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

const transport = new StdioClientTransport({
  command,
  args,
  env: Object.fromEntries(
    Object.entries(process.env).filter(([, v]) => v !== undefined)),
  stderr: "inherit",
});
const client = new Client({ name: "clawssh-mcp-test", version: "1.0.0" });

async function call(name, args) {
  return client.callTool({ name, arguments: args }, undefined,
    { timeout: CALL_TIMEOUT_MS });
}

// The handle of a process_start result.
function handleOf(result) {
  if (result.structuredContent?.handle)
    return result.structuredContent.handle;
  const m = /p[0-9a-f]{8}/.exec(text(result));
  return m ? m[0] : null;
}

// Poll until the process has exited; return all output seen and the text.
async function waitExit(handle) {
  let output = "";
  for (let i = 0; i < 50; i++) {
    const r = await call("process_poll", { handle });
    const t = text(r);
    if (r.isError) return { error: t };
    const sc = r.structuredContent;
    output += sc?.output ?? t.replace(/\n?\[[^\]]*\]$/, "");
    // Any state but running is final: exited, killed, lost.
    const marker = /\[([a-z]+)(, exit status -?\d+)?\]$/.exec(t);
    const state = sc?.state ?? marker?.[1] ?? "";
    if (state !== "" && state !== "running")
      return { output, text: t, state };
    await sleep(200);
  }
  return { error: "still running after 50 polls" };
}

async function main() {
  await client.connect(transport);
  const info = client.getServerVersion();
  check("initialize", info?.name === "clawssh", info);

  const { tools } = await client.listTools();
  const names = tools.map((t) => t.name);
  for (const want of EXPECTED_TOOLS)
    check(`tools/list has ${want}`, names.includes(want), names);
  check("tools have object schemas",
    tools.every((t) => t.inputSchema?.type === "object" &&
      typeof t.description === "string"),
    tools.filter((t) => t.inputSchema?.type !== "object").map((t) => t.name));

  const path = `mcp-client-${process.pid}.txt`;
  let r = await call("write_file", { path, content: "hello\nworld\n" });
  check("write_file", !r.isError, text(r));
  r = await call("read_file", { path });
  check("read_file", !r.isError && text(r) === "hello\nworld\n", text(r));
  r = await call("edit_file", { path, old: "world", new: "there" });
  check("edit_file", !r.isError, text(r));
  r = await call("read_file", { path });
  check("read_file after edit", text(r) === "hello\nthere\n", text(r));
  r = await call("stat", { path });
  check("stat", !r.isError && text(r).includes(path), text(r));
  r = await call("list_dir", {});
  check("list_dir", !r.isError && text(r).includes(path), text(r));

  r = await call("exec", { command: `cat ${path}` });
  check("exec cat", !r.isError &&
    text(r) === "hello\nthere\n[exit status 0]", text(r));
  r = await call("exec", { argv: ["sh", "-c", "echo out; exit 3"] });
  check("exec exit 3", r.isError === true &&
    text(r).includes("out") && text(r).endsWith("[exit status 3]"), text(r));
  r = await call("exec", {
    argv: ["sh", "-c", 'printf "%s" "$MCP_TEST_VAR"'],
    env: { MCP_TEST_VAR: "v-$(not expanded)" },
  });
  check("exec env", !r.isError && text(r).startsWith("v-$(not expanded)"),
    text(r));
  r = await call("exec", { command: "cat", stdin: "from stdin" });
  check("exec stdin", text(r).startsWith("from stdin"), text(r));

  r = await call("process_start", { command: "cat", name: "mcpcat" });
  const cat = handleOf(r);
  check("process_start", !r.isError && cat, text(r));
  if (cat) {
    r = await call("process_write", { handle: cat, data: "ping\n", eof: true });
    check("process_write", !r.isError, text(r));
    const done = await waitExit(cat);
    check("process_poll output", !done.error && done.state === "exited" &&
      done.output.includes("ping"), done);
    r = await call("process_log", { handle: cat, tail: 10 });
    check("process_log", !r.isError && text(r).includes("ping"), text(r));
  }
  r = await call("process_start", { argv: ["sleep", "300"] });
  const sleeper = handleOf(r);
  check("process_start sleep", !r.isError && sleeper, text(r));
  if (sleeper) {
    r = await call("process_list", {});
    check("process_list", !r.isError && text(r).includes(sleeper), text(r));
    r = await call("process_kill", { handle: sleeper, signal: "KILL" });
    check("process_kill", !r.isError, text(r));
    const done = await waitExit(sleeper);
    check("process killed", !done.error && done.state === "killed", done);
  }

  r = await call("read_file", { path: `${path}.missing` });
  check("read_file missing is an error", r.isError === true, text(r));
  let refused;
  try {
    r = await call("no_such_tool", {});
    refused = r.isError === true;
  } catch (e) {
    refused = e?.code === -32602;
  }
  check("unknown tool refused", refused, "accepted");
  try {
    r = await call("exec", { command: "true", sandbox: "czzzzzzzzzzzz" });
    refused = r.isError === true;
  } catch (e) {
    refused = e?.code === -32602;
  }
  check("sandbox argument refused", refused, "accepted");

  await call("exec", { argv: ["rm", "-f", path] });
}

let fatal = null;
try {
  await main();
} catch (e) {
  fatal = String(e?.stack ?? e);
} finally {
  await client.close().catch(() => {});
}
const failed = checks.filter((c) => !c.ok);
const summary = {
  server: command,
  ok: !fatal && failed.length === 0,
  checks: checks.length,
  failed,
  ...(fatal ? { error: fatal } : {}),
};
console.log(JSON.stringify(summary, null, 2));
process.exit(summary.ok ? 0 : 1);
