// SPDX-License-Identifier: BSD-2-Clause
// One persistent JSON-RPC 2.0 connection to the clawssh daemon's control
// socket (docs/protocol.md): one JSON value per line, answers matched by
// id, exec output as exec.output notifications.  The daemon is started
// (`clawssh serve --detach`) when nothing listens on the socket.
import { spawn } from "node:child_process";
import net from "node:net";
import os from "node:os";
import path from "node:path";

export const RPC_DENIED = -32001;
export const RPC_REMOTE_FAILED = -32002;

// socketPath: where clawssh's commands look for the daemon (mux_socket_path
// in src/ssh/mux_client.c), unless the plugin config names one.
export function socketPath(configured, env = process.env) {
	if (configured)
		return configured;
	if (env.CLAWSSH_DAEMON_SOCKET?.startsWith("/"))
		return env.CLAWSSH_DAEMON_SOCKET;
	if (env.XDG_RUNTIME_DIR?.startsWith("/"))
		return path.join(env.XDG_RUNTIME_DIR, "clawssh", "control.sock");
	return `/tmp/clawssh-${os.userInfo().uid}/control.sock`;
}

// An error answered by the daemon, with its JSON-RPC code.
export class RpcError extends Error {
	constructor(method, error) {
		super(`clawssh ${method}: ${error?.message ?? "failed"}`);
		this.name = "RpcError";
		this.rpcCode = error?.code;
		this.rpcMessage = error?.message ?? "";
	}
}

export class ClawsshRpc {
	// opts: {clawssh, socket, config}: the binary that starts a daemon,
	// the socket, the clawssh config file passed to that daemon.
	constructor(opts) {
		this.opts = opts;
		this.sock = null;
		this.connecting = null;
		this.nextId = 1;
		this.pending = new Map();
		this.buf = "";
	}

	async connectOnce(file) {
		return await new Promise((resolve, reject) => {
			const s = net.createConnection(file);
			s.once("connect", () => {
				s.removeAllListeners("error");
				resolve(s);
			});
			s.once("error", reject);
		});
	}

	async startDaemon(file) {
		const args = ["serve", "--detach", "--socket", file];
		if (this.opts.config)
			args.push("--config", this.opts.config);
		await new Promise((resolve, reject) => {
			const p = spawn(this.opts.clawssh, args, { stdio: ["ignore",
			    "ignore", "pipe"] });
			let err = "";
			p.stderr.on("data", (d) => { err += d; });
			p.on("error", reject);
			p.on("exit", (code) => {
				// A second daemon racing ours is refused: fine.
				if (code === 0 || /already|running/.test(err))
					resolve();
				else
					reject(new Error(`clawssh serve --detach: ${err.trim() ||
					    `exit ${code}`}`));
			});
		});
	}

	async connect() {
		const file = socketPath(this.opts.socket);
		let s;
		try {
			s = await this.connectOnce(file);
		} catch (e) {
			if (e.code !== "ENOENT" && e.code !== "ECONNREFUSED")
				throw e;
			await this.startDaemon(file);
			s = await this.connectOnce(file);
		}
		s.setEncoding("utf8");
		s.unref();
		s.on("data", (d) => this.onData(d));
		s.on("close", () => this.onClose());
		s.on("error", () => {});
		this.sock = s;
	}

	async ensure() {
		if (this.sock)
			return;
		this.connecting ??= this.connect().finally(() => {
			this.connecting = null;
		});
		await this.connecting;
	}

	onData(d) {
		this.buf += d;
		let nl;
		while ((nl = this.buf.indexOf("\n")) >= 0) {
			const line = this.buf.slice(0, nl);
			this.buf = this.buf.slice(nl + 1);
			if (line.trim() !== "")
				this.onMessage(line);
		}
	}

	onMessage(line) {
		let m;
		try {
			m = JSON.parse(line);
		} catch {
			return;
		}
		if (m.method === "exec.output") {
			const p = this.pending.get(m.params?.id);
			p?.onOutput?.(m.params);
			return;
		}
		const p = this.pending.get(m.id);
		if (!p)
			return;
		this.pending.delete(m.id);
		this.refresh();
		if (m.error)
			p.reject(new RpcError(p.method, m.error));
		else
			p.resolve(m.result);
	}

	onClose() {
		this.sock = null;
		this.buf = "";
		const gone = [...this.pending.values()];
		this.pending.clear();
		for (const p of gone)
			p.reject(new Error(`clawssh ${p.method}: the clawssh daemon ` +
			    "went away"));
	}

	// Keep the process alive only while calls are in flight.
	refresh() {
		if (!this.sock)
			return;
		if (this.pending.size > 0)
			this.sock.ref();
		else
			this.sock.unref();
	}

	// call METHOD PARAMS [{onOutput, signal}]: the result, or an RpcError.
	// An aborted signal closes the connection's interest in the call: the
	// daemon stops a call whose client is gone only when the client
	// disconnects, so an abort drops the whole connection (the next call
	// opens a new one) and the remote command is stopped.
	async call(method, params, opts = {}) {
		opts.signal?.throwIfAborted();
		await this.ensure();
		const id = this.nextId++;
		const line = JSON.stringify({ jsonrpc: "2.0", id, method, params }) +
		    "\n";
		return await new Promise((resolve, reject) => {
			const onAbort = () => {
				if (!this.pending.has(id))
					return;
				this.pending.delete(id);
				reject(opts.signal.reason ?? new Error("aborted"));
				this.sock?.destroy();
			};
			this.pending.set(id, {
				method,
				onOutput: opts.onOutput,
				resolve: (r) => {
					opts.signal?.removeEventListener("abort", onAbort);
					resolve(r);
				},
				reject: (e) => {
					opts.signal?.removeEventListener("abort", onAbort);
					reject(e);
				},
			});
			opts.signal?.addEventListener("abort", onAbort, { once: true });
			this.refresh();
			this.sock.write(line);
		});
	}

	close() {
		this.sock?.destroy();
		this.sock = null;
	}
}
