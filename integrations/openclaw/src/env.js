// SPDX-License-Identifier: BSD-2-Clause
// Environment for a sandboxed command.  clawssh sends variables on the
// channel's input, never in an argv (`exec --env NAME`, JSON-RPC `env`),
// but refuses names that would change clawssh itself (rpc_env_name_ok in
// src/gateway/rpc_methods.c: PATH, HOME, LANG, TERM, LD_*, ...).  Those,
// which OpenClaw sets for every sandbox command (PATH, HOME), are set by
// the command's own shell instead: they are not secrets.
const PREFIXES = ["LD_", "DYLD_", "MALLOC_", "XDG_", "SSH_", "CLAWSSH_",
    "GCONV_", "OPENSSL_", "SSL_", "LC_", "LOC", "RES_", "TERMINFO", "TZ",
    "NLSPATH", "HOSTALIASES", "GLIBC_", "ASAN_", "UBSAN_", "LSAN_"];
const EXACT = new Set(["HOME", "PATH", "SHELL", "USER", "LOGNAME", "IFS",
    "ENV", "BASH_ENV", "TMPDIR", "LANG", "LANGUAGE", "POSIXLY_CORRECT",
    "TERM", "PWD", "OLDPWD", "SHLVL", "MAIL"]);

export function shellQuote(s) {
	return `'${String(s).replace(/'/g, "'\\''")}'`;
}

// splitEnv ENV: {passed: {NAME: value} clawssh carries, exported: "export
// NAME='value'\n..." for the command's shell}.  Invalid names are refused.
export function splitEnv(env) {
	const passed = {};
	let exported = "";
	for (const [k, v] of Object.entries(env ?? {})) {
		if (typeof v !== "string")
			continue;
		if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(k))
			throw new Error(`Invalid sandbox environment variable name ${
			    JSON.stringify(k)}; use a POSIX variable name.`);
		if (v.includes("\0"))
			throw new Error(`Invalid sandbox environment variable ${
			    JSON.stringify(k)}; values must not contain NUL bytes.`);
		if (EXACT.has(k) || PREFIXES.some((p) => k.startsWith(p)))
			exported += `export ${k}=${shellQuote(v)}\n`;
		else
			passed[k] = v;
	}
	return { passed, exported };
}
