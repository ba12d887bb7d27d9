// SPDX-License-Identifier: BSD-2-Clause
// OpenClaw's sandbox file bridge on clawssh's file tools: read, write,
// stat and list are the daemon's fs.read / fs.write / fs.stat / fs.ls
// (the sandbox's canonical copy: the local workspace in mirror mode, the
// host's in remote mode, each confined by clawssh: pathguard here, the
// step jail there); mkdirp, remove and rename, which the API has no
// method for, are one small shell script run in the sandbox through the
// same connection.
import { commonParams } from "./config.js";
import { runShell } from "./shell.js";
import { CONTAINER_ROOT, containerPath, toRelative } from "./paths.js";
import { RpcError } from "./rpc.js";

const PROTECTED = [".openclaw/sandbox-skills"];

function enoent(p) {
	return Object.assign(new Error(`Sandbox file not found: ${p}`),
	    { code: "ENOENT" });
}

function isMissing(e) {
	return e instanceof RpcError && /no such file|not found|does not exist/i
	    .test(e.rpcMessage);
}

// mtimeMs: fs.stat's mtime (seconds, or a date text) in milliseconds.
function mtimeMs(v) {
	if (typeof v === "number")
		return v > 1e12 ? v : v * 1000;
	const n = Number(v);
	if (Number.isFinite(n))
		return n > 1e12 ? n : n * 1000;
	const t = Date.parse(String(v ?? "").replace(/^(\S+) (\S+)/, "$1T$2"));
	return Number.isFinite(t) ? t : 0;
}

function kind(t) {
	if (t === "dir" || t === "directory")
		return "directory";
	if (t === "file" || t === "regular file" || t === "regular")
		return "file";
	return "other";
}

export class ClawsshFsBridge {
	constructor({ rpc, cfg, id, sandbox }) {
		this.rpc = rpc;
		this.cfg = cfg;
		this.id = id;
		this.sandbox = sandbox;
		this.workspaceDir = sandbox.workspaceDir;
	}

	get pathMappings() {
		return [{ hostRoot: this.workspaceDir, containerRoot: CONTAINER_ROOT }];
	}

	rel(filePath, cwd) {
		return toRelative(this.workspaceDir, filePath, cwd);
	}

	resolvePath({ filePath, cwd }) {
		const rel = this.rel(filePath, cwd);
		return { relativePath: rel, containerPath: containerPath(rel) };
	}

	// writable REL ACTION: refuse a read-only workspace and the skills
	// OpenClaw materialises for the sandbox.
	writable(rel, action) {
		const ro = this.sandbox.workspaceAccess === "ro" ||
		    PROTECTED.some((p) => rel === p || rel.startsWith(`${p}/`));
		if (ro)
			throw new Error(`Sandbox path is read-only; cannot ${action}: ${
			    containerPath(rel)}`);
		if (rel === "")
			throw new Error(`Invalid sandbox entry target: ${CONTAINER_ROOT}`);
	}

	call(method, params, signal) {
		return this.rpc.call(method, { ...commonParams(this.cfg), sandbox:
		    this.id, ...params }, { signal });
	}

	shell(script, args, opts = {}) {
		return runShell(this.rpc, this.cfg, this.id, { script, args,
		    ...opts });
	}

	async readFileWithSource({ filePath, cwd, signal, maxBytes }) {
		if (maxBytes !== undefined && (!Number.isSafeInteger(maxBytes) ||
		    maxBytes < 0))
			throw new RangeError("Sandbox file read limit must be a " +
			    "non-negative safe integer.");
		const rel = this.rel(filePath, cwd);
		if (rel === "")
			throw new Error(`Invalid sandbox entry target: ${CONTAINER_ROOT}`);
		const p = { path: rel };
		if (maxBytes !== undefined)
			p.limit = maxBytes + 1;
		let r;
		try {
			r = await this.call("fs.read", p, signal);
		} catch (e) {
			if (isMissing(e))
				throw enoent(containerPath(rel));
			throw e;
		}
		const data = r.content_base64 !== undefined ?
		    Buffer.from(r.content_base64, "base64") :
		    Buffer.from(r.content ?? "", "utf8");
		if (maxBytes !== undefined && data.length > maxBytes)
			throw new Error(`Sandbox file exceeds ${maxBytes} bytes: ${
			    containerPath(rel)}`);
		return { data, canonicalPath: containerPath(rel),
		    workspaceRelativePath: rel };
	}

	async readFile(params) {
		return (await this.readFileWithSource(params)).data;
	}

	async readDirectory({ filePath, cwd, signal }) {
		const rel = this.rel(filePath, cwd);
		const r = await this.call("fs.ls", { path: rel === "" ? "." : rel },
		    signal);
		return (r.entries ?? []).map((e) => ({ name: e.name,
		    isDirectory: kind(e.type) === "directory" }));
	}

	async writeFile({ filePath, cwd, data, encoding, mkdir, signal }) {
		const rel = this.rel(filePath, cwd);
		this.writable(rel, "write files");
		const buf = Buffer.isBuffer(data) ? data : Buffer.from(data,
		    encoding ?? "utf8");
		if (mkdir === false) {
			const parent = rel.includes("/") ? rel.replace(/\/[^/]*$/, "") :
			    "";
			if (parent !== "" && (await this.stat({ filePath: parent,
			    signal }))?.type !== "directory")
				throw enoent(containerPath(parent));
		}
		await this.call("fs.write", { path: rel, content_base64:
		    buf.toString("base64") }, signal);
	}

	async mkdirp({ filePath, cwd, signal }) {
		const rel = this.rel(filePath, cwd);
		if (rel === "")
			return;
		this.writable(rel, "create directories");
		await this.shell('mkdir -p -- "$1"', [rel], { signal });
	}

	async remove({ filePath, cwd, recursive, force, signal }) {
		const rel = this.rel(filePath, cwd);
		this.writable(rel, "remove files");
		const r = await this.shell(
		    'if [ ! -e "$1" ] && [ ! -L "$1" ]; then exit 44; fi\n' +
		    'if [ "$2" = 1 ]; then rm -rf -- "$1"; ' +
		    'elif [ -d "$1" ] && [ ! -L "$1" ]; then rmdir -- "$1"; ' +
		    'else rm -f -- "$1"; fi', [rel, recursive ? "1" : "0"],
		    { signal, allowFailure: true });
		if (r.code === 44) {
			if (force === false)
				throw new Error("Sandbox path not found; cannot remove " +
				    `files: ${containerPath(rel)}`);
			return;
		}
		if (r.code !== 0)
			throw new Error(`Sandbox remove failed for ${containerPath(rel)}: ${
			    r.stderr.toString("utf8").trim()}`);
	}

	async rename({ from, to, cwd, signal }) {
		const a = this.rel(from, cwd);
		const b = this.rel(to, cwd);
		this.writable(a, "rename files");
		this.writable(b, "rename files");
		await this.shell('d=$(dirname -- "$2") && mkdir -p -- "$d" && ' +
		    'mv -f -- "$1" "$2"', [a, b], { signal });
	}

	async stat({ filePath, cwd, signal }) {
		const rel = this.rel(filePath, cwd);
		let r;
		try {
			r = await this.call("fs.stat", { path: rel === "" ? "." : rel },
			    signal);
		} catch (e) {
			if (isMissing(e))
				return null;
			throw e;
		}
		return { type: kind(r.type), size: Number(r.size ?? 0),
		    mtimeMs: mtimeMs(r.mtime) };
	}
}
