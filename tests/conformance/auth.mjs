// SPDX-License-Identifier: BSD-2-Clause
// Preloaded (node --import) into the MCP conformance runner, which has no
// option for credentials: every HTTP request it makes, by fetch or by
// undici, carries "Authorization: Bearer TOKEN", TOKEN read from the file
// $CLAWSSH_MCP_TOKEN_FILE.  The server checks nothing else differently.
import { readFileSync } from "node:fs";
import { Agent, setGlobalDispatcher } from "undici";

const auth = `Bearer ${readFileSync(process.env.CLAWSSH_MCP_TOKEN_FILE,
  "utf8").trim()}`;

// The headers of a dispatch (object, [k, v, ...] or [[k, v], ...]) with
// ours added unless one is there.
function withAuth(h) {
  if (h == null) return { authorization: auth };
  if (Array.isArray(h)) {
    const pairs = Array.isArray(h[0]) ? h :
      h.reduce((a, v, i) => (i % 2 ? a[a.length - 1].push(v) : a.push([v]), a), []);
    if (pairs.some(([k]) => String(k).toLowerCase() === "authorization")) return h;
    return [...pairs.flat(), "authorization", auth];
  }
  if (Object.keys(h).some((k) => k.toLowerCase() === "authorization")) return h;
  return { ...h, authorization: auth };
}

setGlobalDispatcher(new Agent().compose((dispatch) => (opts, handler) =>
  dispatch({ ...opts, headers: withAuth(opts.headers) }, handler)));
