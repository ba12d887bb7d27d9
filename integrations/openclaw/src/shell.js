// SPDX-License-Identifier: BSD-2-Clause
// A shell script run in the sandbox through the daemon's JSON-RPC exec.
import { commonParams } from "./config.js";

// runShell RPC CFG ID {script, args, stdin, allowFailure, signal}: run a
// shell script in the sandbox through the daemon; {stdout, stderr, code}.
export async function runShell(rpc, cfg, id, params, extra = {}) {
	const out = { stdout: [], stderr: [] };
	const stdin = params.stdin === undefined ? undefined :
	    Buffer.isBuffer(params.stdin) ? params.stdin :
	    Buffer.from(params.stdin, "utf8");
	const req = {
		...commonParams(cfg),
		sandbox: id,
		argv: ["sh", "-c", params.script, "openclaw-sandbox-fs",
		    ...(params.args ?? [])],
		...extra,
	};
	if (stdin && stdin.length > 0)
		req.stdin_base64 = stdin.toString("base64");
	const r = await rpc.call("exec", req, {
		signal: params.signal,
		onOutput: (o) => {
			const chunk = o.data_base64 !== undefined ?
			    Buffer.from(o.data_base64, "base64") :
			    Buffer.from(o.data ?? "", "utf8");
			(o.stream === "stderr" ? out.stderr : out.stdout).push(chunk);
		},
	});
	const res = {
		stdout: Buffer.concat(out.stdout),
		stderr: Buffer.concat(out.stderr),
		code: r?.exit_status ?? 1,
	};
	if (res.code !== 0 && !params.allowFailure) {
		const msg = res.stderr.toString("utf8").trim() ||
		    `sandbox command exited with code ${res.code}`;
		throw Object.assign(new Error(msg), res);
	}
	return res;
}
