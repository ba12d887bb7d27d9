// SPDX-License-Identifier: BSD-2-Clause
// OpenClaw's sandbox file bridge on clawssh's file tools: read, write,
// stat and list are the daemon's fs.read / fs.write / fs.stat / fs.ls
// (the sandbox's canonical copy: the local workspace in mirror mode, the
// host's in remote mode, each confined by clawssh: pathguard here, the
// step jail there); mkdirp, remove and rename, which the API has no
// method for, are one small shell script run in the sandbox through the
// same connection.
//
// A remote-mode sandbox with containment (bwrap) reads, writes and stats
// with such a script too, in the sandbox's own persistent environment as
// its identity: the same view the step jail of fs.* gives (docs/file-
// tools.md: a link can reach only what the sandbox's command could), but
// without starting a jail per call (60 ms against 100-150 ms here).
// Mirror mode keeps fs.* (the local copy, through pathguard), and so does
// runtime none, where fs.*'s component-wise link check is all there is.
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
	constructor({ rpc, cfg, id, sandbox, inSandbox }) {
		this.rpc = rpc;
		this.inSandbox = inSandbox === true;
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
		if (this.inSandbox)
			return { data: await this.readInSandbox(rel, maxBytes, signal),
			    canonicalPath: containerPath(rel), workspaceRelativePath: rel };
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

	// readInSandbox REL MAXBYTES: a regular file's bytes (at most
	// MAXBYTES + 1 of them: more is an error).
	async readInSandbox(rel, maxBytes, signal) {
		const r = await this.shell('if [ ! -f "$1" ]; then ' +
		    '[ -e "$1" ] || [ -L "$1" ] && exit 45; exit 44; fi\n' +
		    'if [ "$2" = - ]; then exec cat -- "$1"; fi\n' +
		    'exec head -c "$2" -- "$1"', [rel, maxBytes === undefined ? "-" :
		    String(maxBytes + 1)], { signal, allowFailure: true });
		if (r.code === 44)
			throw enoent(containerPath(rel));
		if (r.code === 45)
			throw new Error(`Sandbox read failed: not a regular file: ${
			    containerPath(rel)}`);
		if (r.code !== 0)
			throw new Error(`Sandbox read failed (${r.code}): ${
			    r.stderr.toString("utf8").trim()}`);
		if (maxBytes !== undefined && r.stdout.length > maxBytes)
			throw new Error(`Sandbox file exceeds ${maxBytes} bytes: ${
			    containerPath(rel)}`);
		return r.stdout;
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
		if (this.inSandbox) {
			// A temporary beside the target (a name clawssh's sync
			// ignores), made exclusively, then renamed over it; an
			// existing file keeps its mode.
			await this.shell('d=$(dirname -- "$1") && mkdir -p -- "$d" && ' +
			    't=$(mktemp -- "$d/.clawssh-tmp-oc.XXXXXXXX") || exit 1\n' +
			    'trap \'rm -f -- "$t"\' EXIT\n' +
			    'cat > "$t" || exit 1\n' +
			    'if [ -f "$1" ]; then chmod --reference="$1" -- "$t" ' +
			    '2>/dev/null; else chmod 644 -- "$t"; fi\n' +
			    'mv -f -- "$t" "$1" && trap - EXIT', [rel],
			    { stdin: buf, signal });
			return;
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
		if (this.inSandbox) {
			const s = await this.shell('[ -e "$1" ] || [ -L "$1" ] || ' +
			    'exit 44\nLC_ALL=C exec stat -c "%F|%s|%Y" -- "$1"',
			    [rel === "" ? "." : rel], { signal, allowFailure: true });
			if (s.code === 44)
				return null;
			if (s.code !== 0)
				throw new Error(`Sandbox stat failed: ${
				    s.stderr.toString("utf8").trim()}`);
			const [k = "", size = "0", mt = "0"] = s.stdout.toString("utf8")
			    .trim().split("|");
			return { type: kind(k), size: Number(size), mtimeMs:
			    Number(mt) * 1000 };
		}
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
