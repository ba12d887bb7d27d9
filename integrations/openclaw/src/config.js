// SPDX-License-Identifier: BSD-2-Clause
// The plugin's config (plugins.entries.clawssh.config), checked once.
const STRINGS = ["host", "sshConfig", "clawssh", "config", "stateDir",
    "socket", "remoteRoot", "from", "memory"];
const ENUMS = {
	mode: ["mirror", "remote"],
	runtime: ["bwrap", "none"],
	network: ["none", "host"],
};
const KNOWN = new Set([...STRINGS, ...Object.keys(ENUMS)]);

// resolveConfig RAW: {host, sshConfig, clawssh, config, stateDir, socket,
// mode, runtime, network, remoteRoot, from, memory}, or an Error naming
// the bad key.
export function resolveConfig(raw) {
	const c = raw ?? {};
	if (typeof c !== "object" || Array.isArray(c))
		throw new Error("clawssh plugin config must be an object");
	for (const k of Object.keys(c))
		if (!KNOWN.has(k))
			throw new Error(`clawssh plugin config: unknown key ${
			    JSON.stringify(k)}`);
	const out = { clawssh: "clawssh", mode: "mirror" };
	for (const k of STRINGS) {
		if (c[k] === undefined)
			continue;
		if (typeof c[k] !== "string" || c[k].trim() === "")
			throw new Error(`clawssh plugin config: ${k} must be a ` +
			    "non-empty string");
		out[k] = c[k].trim();
	}
	for (const [k, allowed] of Object.entries(ENUMS)) {
		if (c[k] === undefined)
			continue;
		if (!allowed.includes(c[k]))
			throw new Error(`clawssh plugin config: ${k} must be one of ${
			    allowed.join(", ")}`);
		out[k] = c[k];
	}
	return out;
}

// commonParams CFG: the connection parameters every JSON-RPC call takes.
export function commonParams(cfg) {
	const p = {};
	if (cfg.sshConfig)
		p.ssh_config = cfg.sshConfig;
	if (cfg.config)
		p.config = cfg.config;
	if (cfg.stateDir)
		p.state_dir = cfg.stateDir;
	return p;
}

// commonArgs CFG: the same for the CLI.
export function commonArgs(cfg) {
	const a = [];
	if (cfg.sshConfig)
		a.push("-F", cfg.sshConfig);
	if (cfg.config)
		a.push("--config", cfg.config);
	if (cfg.stateDir)
		a.push("--state-dir", cfg.stateDir);
	return a;
}

// configLabel CFG: what `openclaw sandbox list` shows as the sandbox's
// config, and what describeRuntime compares.
export function configLabel(cfg) {
	return `${cfg.host ?? "?"}/${cfg.mode}${cfg.runtime ? `/${cfg.runtime}` :
	    ""}`;
}
