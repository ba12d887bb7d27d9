// SPDX-License-Identifier: BSD-2-Clause
// Per tool call cost of OpenClaw's sandbox backends, as OpenClaw's tools
// pay it: exec = buildExecSpec, spawn the argv it returns (stdin left
// open, as OpenClaw's supervisor does), wait, finalizeExec; write and
// read = the backend's file bridge.  Run by bench/openclaw.sh, which
// starts the sshd; prints one JSON object of medians (ms).
//
//   node openclaw-bench.mjs OPENCLAW_DIR REPO SETTINGS.json
import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [ocDir, repo, settingsPath] = process.argv.slice(2);
const S = JSON.parse(fs.readFileSync(settingsPath, "utf8"));
const sdk = await import(pathToFileURL(path.join(ocDir,
    "dist/plugin-sdk/sandbox.js")));
const { createFactory } = await import(pathToFileURL(path.join(repo,
    "integrations/openclaw/src/backend.js")));
const { resolveConfig } = await import(pathToFileURL(path.join(repo,
    "integrations/openclaw/src/config.js")));
const { ClawsshRpc } = await import(pathToFileURL(path.join(repo,
    "integrations/openclaw/src/rpc.js")));

function baseCfg(backend) {
	return {
		backend,
		scope: "agent",
		workspaceAccess: "rw",
		docker: { env: {}, binds: [] },
		ssh: {
			target: S.sshTarget,
			command: "ssh",
			workspaceRoot: S.sshRoot,
			identityFile: S.identityFile,
			knownHostsFile: S.knownHostsFile,
			strictHostKeyChecking: true,
			updateHostKeys: false,
		},
	};
}

async function makeHandle(factory, backend, ws, key) {
	fs.mkdirSync(ws, { recursive: true });
	fs.writeFileSync(path.join(ws, "seed.txt"), "seed\n");
	const handle = await factory({ cfg: baseCfg(backend), scopeKey: key,
	    sessionKey: key, workspaceDir: ws, agentWorkspaceDir: ws });
	const bridge = handle.createFsBridge({ sandbox: {
		workspaceDir: ws, agentWorkspaceDir: ws, workspaceAccess: "rw",
		containerName: handle.runtimeId, containerWorkdir: handle.workdir,
		docker: {}, backend: handle,
	} });
	return { handle, bridge };
}

async function execOnce(handle, command) {
	const spec = await handle.buildExecSpec({ command, workdir:
	    handle.workdir, env: { PATH: "/usr/local/bin:/usr/bin:/bin",
	    HOME: handle.workdir, OPENCLAW_SHELL: "exec" }, usePty: false });
	const out = await new Promise((resolve, reject) => {
		const p = spawn(spec.argv[0], spec.argv.slice(1), { env: spec.env,
		    cwd: spec.cwd, stdio: ["pipe", "pipe", "pipe"] });
		let o = "";
		let e = "";
		p.stdout.on("data", (d) => { o += d; });
		p.stderr.on("data", (d) => { e += d; });
		p.on("error", reject);
		p.on("close", (code) => code === 0 ? resolve(o) :
		    reject(new Error(`exec exit ${code}: ${e}`)));
	});
	await handle.finalizeExec?.({ status: "completed", exitCode: 0,
	    timedOut: false, token: spec.finalizeToken });
	return out;
}

async function time(fn) {
	const t0 = process.hrtime.bigint();
	await fn();
	return Number(process.hrtime.bigint() - t0) / 1e6;
}

function median(a) {
	const s = [...a].sort((x, y) => x - y);
	const m = s.length >> 1;
	return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

async function measure(name, sb, runs) {
	const r = { exec: [], write: [], read: [] };
	// Warm up: the first call seeds or connects.
	if ((await execOnce(sb.handle, "echo warm")).trim() !== "warm")
		throw new Error(`${name}: exec output`);
	for (let i = 0; i < runs; i++) {
		const body = `line ${i}\n`.repeat(64);
		r.exec.push(await time(async () => {
			if ((await execOnce(sb.handle, `echo run-${i}`)).trim() !==
			    `run-${i}`)
				throw new Error(`${name}: exec output`);
		}));
		r.write.push(await time(() => sb.bridge.writeFile({ filePath:
		    `bench/f${i}.txt`, data: body })));
		r.read.push(await time(async () => {
			const d = await sb.bridge.readFile({ filePath:
			    `bench/f${i}.txt` });
			if (d.toString() !== body)
				throw new Error(`${name}: read back`);
		}));
	}
	return { runs, exec: median(r.exec), write: median(r.write),
	    read: median(r.read) };
}

const result = {};
for (const mode of ["remote", "mirror"]) {
	const cfg = resolveConfig({ host: "testhost", sshConfig: S.sshConfig,
	    clawssh: S.clawssh, mode, runtime: S.runtime, remoteRoot:
	    S.clawsshRoot });
	const rpc = new ClawsshRpc({ clawssh: cfg.clawssh });
	const sb = await makeHandle(createFactory(() => rpc, cfg), "clawssh",
	    path.join(S.dir, `ws-${mode}`), `agent:bench-${mode}`);
	result[`clawssh-${mode}`] = await measure(`clawssh-${mode}`, sb, S.runs);
	rpc.close();
}
const sshSb = await makeHandle(sdk.getSandboxBackendFactory("ssh"), "ssh",
    path.join(S.dir, "ws-ssh"), "agent:bench-ssh");
result.ssh = await measure("ssh", sshSb, S.sshRuns);
console.log(JSON.stringify(result));
