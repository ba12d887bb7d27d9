// SPDX-License-Identifier: BSD-2-Clause
// The clawssh sandbox backend: get-or-create by OpenClaw's scope key,
// commands through `clawssh exec` (which OpenClaw's process supervisor
// runs, so background/yield/poll/kill and timeouts are OpenClaw's own),
// everything else over one JSON-RPC connection to the clawssh daemon.
import fs from "node:fs/promises";
import path from "node:path";
import { commonArgs, commonParams, configLabel } from "./config.js";
import { splitEnv } from "./env.js";
import { ClawsshFsBridge } from "./fs-bridge.js";
import { CONTAINER_ROOT, toRelative } from "./paths.js";
import { RpcError } from "./rpc.js";
import { runShell } from "./shell.js";

export const BACKEND_ID = "clawssh";
const SKILLS_DIR = ".openclaw/sandbox-skills";

// isNoSuchSandbox ERR: the daemon said the sandbox is not there.
export function isNoSuchSandbox(e) {
	return e instanceof RpcError && /no (such )?sandbox|not found/i.test(
	    e.rpcMessage);
}

// provisionParams: sandbox.provision's params for OpenClaw's request.
function provisionParams(cfg, params) {
	const p = {
		...commonParams(cfg),
		host: cfg.host,
		scope: params.cfg.scope === "shared" || params.cfg.scope === "agent" ?
		    params.cfg.scope : "session",
		key: params.scopeKey,
		workspace: path.resolve(params.workspaceDir),
		// OpenClaw's "none" already gives the sandbox a workspace copy
		// of its own (workspaceDir): clawssh may write it.
		access: params.cfg.workspaceAccess === "ro" ? "ro" : "rw",
		mode: cfg.mode,
	};
	if (cfg.runtime)
		p.runtime = cfg.runtime;
	if (cfg.network)
		p.network = cfg.network;
	if (cfg.remoteRoot)
		p.remote_root = cfg.remoteRoot;
	if (cfg.from)
		p.from = cfg.from;
	if (cfg.memory)
		p.memory = cfg.memory;
	return p;
}

// listFiles DIR: every regular file below DIR, as posix paths relative
// to it (links and other kinds are left out, as OpenClaw's upload does
// not follow them either).
async function listFiles(dir, rel = "") {
	const out = [];
	let ents;
	try {
		ents = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
	} catch {
		return out;
	}
	for (const e of ents) {
		const r = rel ? `${rel}/${e.name}` : e.name;
		if (e.isDirectory())
			out.push(...await listFiles(dir, r));
		else if (e.isFile())
			out.push(r);
	}
	return out;
}

class ClawsshSandbox {
	constructor(rpc, cfg, params, sandbox) {
		this.rpc = rpc;
		this.cfg = cfg;
		this.params = params;
		this.sandbox = sandbox;
		this.id = sandbox.id;
		// runtime none runs in the host directory itself: /workspace
		// is only a name clawssh's file tools and --cwd understand.
		this.contained = sandbox.runtime !== "none";
	}

	// refreshSkills: OpenClaw materialises the skills a sandbox may use
	// in skillsWorkspaceDir and expects them at
	// /workspace/.openclaw/sandbox-skills (as its ssh backend uploads
	// them).  Where that directory is that place in the local workspace
	// a mirror sandbox gets them with the next sync; otherwise they are
	// written through the file tools, after the old copy is removed.
	async refreshSkills() {
		const p = this.params;
		if (p.cfg.workspaceAccess !== "rw" || !p.skillsWorkspaceDir)
			return;
		const local = path.resolve(p.skillsWorkspaceDir);
		if (this.sandbox.mode !== "remote" && local === path.resolve(
		    p.workspaceDir, SKILLS_DIR))
			return;
		const files = await listFiles(local);
		await runShell(this.rpc, this.cfg, this.id, {
			script: 'rm -rf -- "$1" && mkdir -p -- "$1"',
			args: [SKILLS_DIR],
		});
		for (const f of files) {
			const data = await fs.readFile(path.join(local, f));
			await this.rpc.call("fs.write", {
				...commonParams(this.cfg),
				sandbox: this.id,
				path: `${SKILLS_DIR}/${f}`,
				content_base64: data.toString("base64"),
			});
		}
	}

	// execArgv: `clawssh exec -s ID ...` for one OpenClaw command.
	execSpec({ command, workdir, env, usePty }) {
		const rel = toRelative(this.params.workspaceDir, workdir ??
		    CONTAINER_ROOT);
		const e = { ...env };
		if (!this.contained && e.HOME === CONTAINER_ROOT)
			delete e.HOME;
		const { passed, exported } = splitEnv(e);
		const argv = [this.cfg.clawssh, "exec", ...commonArgs(this.cfg),
		    "-s", this.id];
		if (rel !== "")
			argv.push("--cwd", rel);
		for (const k of Object.keys(passed))
			argv.push("--env", k);
		argv.push(usePty ? "-tt" : "-T", "--", "sh", "-c",
		    exported + command);
		const childEnv = { ...process.env, ...passed };
		if (this.cfg.socket)
			childEnv.CLAWSSH_DAEMON_SOCKET = this.cfg.socket;
		return { argv, env: childEnv, cwd: this.params.workspaceDir,
		    stdinMode: "pipe-open" };
	}

	// validateWorkdir: the directory exists in the sandbox's canonical
	// copy (mirror: the local one; remote: the host's).
	async validateWorkdir(workdir) {
		let rel;
		try {
			rel = toRelative(this.params.workspaceDir, workdir);
		} catch {
			return null;
		}
		if (rel === "")
			return CONTAINER_ROOT;
		try {
			const st = await this.rpc.call("fs.stat", {
			    ...commonParams(this.cfg), sandbox: this.id, path: rel });
			return st?.type === "dir" || st?.type === "directory" ?
			    `${CONTAINER_ROOT}/${rel}` : null;
		} catch {
			return null;
		}
	}

	asHandle() {
		const label = configLabel(this.cfg);
		return {
			id: BACKEND_ID,
			runtimeId: this.id,
			runtimeLabel: `${this.id} (${this.sandbox.target ??
			    this.cfg.host})`,
			workdir: CONTAINER_ROOT,
			env: this.params.cfg.docker?.env,
			configLabel: label,
			configLabelKind: "Host",
			workdirValidation: "backend",
			validateWorkdir: (w) => this.validateWorkdir(w),
			workdirRoots: [CONTAINER_ROOT],
			buildExecSpec: async (p) => {
				this.params.assertRuntimeCurrent?.();
				return {
					...this.execSpec(p),
					assertCurrent: this.params.assertRuntimeCurrent,
				};
			},
			runShellCommand: (p) => runShell(this.rpc, this.cfg, this.id, p),
			createFsBridge: ({ sandbox }) => new ClawsshFsBridge({
				rpc: this.rpc,
				cfg: this.cfg,
				id: this.id,
				sandbox,
				inSandbox: this.sandbox.mode === "remote" &&
				    this.contained,
			}),
		};
	}
}

// createFactory GETRPC CFG: OpenClaw's backend factory.
export function createFactory(getRpc, cfg) {
	return async (params) => {
		if ((params.cfg.docker?.binds?.length ?? 0) > 0)
			throw new Error("The clawssh sandbox backend does not support " +
			    "sandbox.docker.binds.");
		if (!cfg.host)
			throw new Error("The clawssh sandbox backend needs " +
			    "plugins.entries.clawssh.config.host (an ssh_config Host " +
			    "or [user@]host[:port]).");
		const rpc = getRpc();
		const sandbox = await rpc.call("sandbox.provision",
		    provisionParams(cfg, params));
		params.assertRuntimeCurrent?.();
		const s = new ClawsshSandbox(rpc, cfg, params, sandbox);
		await s.refreshSkills();
		return s.asHandle();
	};
}

// createManager GETRPC CFG: `openclaw sandbox list/explain/recreate` and
// prune ask it whether a sandbox runs and remove it.
export function createManager(getRpc, cfg) {
	const label = configLabel(cfg);
	return {
		async describeRuntime({ entry }) {
			try {
				const st = await getRpc().call("sandbox.status", {
				    ...commonParams(cfg), sandbox: entry.containerName });
				return {
					running: st?.state === undefined ||
					    /^(up|running|ready|ok)/i.test(String(st.state)),
					actualConfigLabel: label,
					configLabelMatch: entry.image === label,
				};
			} catch (e) {
				if (!isNoSuchSandbox(e))
					throw e;
				return { running: false, actualConfigLabel: label,
				    configLabelMatch: entry.image === label };
			}
		},
		async removeRuntime({ entry }) {
			try {
				await getRpc().call("sandbox.destroy", {
				    ...commonParams(cfg), sandbox: entry.containerName });
			} catch (e) {
				if (!isNoSuchSandbox(e))
					throw e;
			}
		},
	};
}

export function resolveWorkdir() {
	return CONTAINER_ROOT;
}
