// SPDX-License-Identifier: BSD-2-Clause
// OpenClaw plugin "clawssh": registers the sandbox backend "clawssh"
// (agents.defaults.sandbox.backend = "clawssh").  Plain ESM, no build.
import { registerSandboxBackend } from "openclaw/plugin-sdk/sandbox";
import { BACKEND_ID, createFactory, createManager, resolveWorkdir } from
    "./src/backend.js";
import { resolveConfig } from "./src/config.js";
import { ClawsshRpc } from "./src/rpc.js";

export default {
	id: BACKEND_ID,
	name: "clawssh sandbox",
	description: "Sandbox backend that runs OpenClaw's tools in clawssh " +
	    "sandboxes on SSH hosts",
	register(api) {
		const cfg = resolveConfig(api.pluginConfig);
		let rpc = null;
		// One connection per process, opened on first use.
		const getRpc = () => (rpc ??= new ClawsshRpc({
			clawssh: cfg.clawssh,
			socket: cfg.socket,
			config: cfg.config,
		}));
		const unregister = registerSandboxBackend(BACKEND_ID, {
			factory: createFactory(getRpc, cfg),
			manager: createManager(getRpc, cfg),
			resolveWorkdir,
		});
		api.lifecycle?.registerRuntimeLifecycle?.({
			id: "clawssh-sandbox-cleanup",
			cleanup: ({ reason, sessionKey, runId }) => {
				if (sessionKey !== undefined || runId !== undefined)
					return;
				if (reason === "disable" || reason === "restart") {
					unregister();
					rpc?.close();
					rpc = null;
				}
			},
		});
	},
};
