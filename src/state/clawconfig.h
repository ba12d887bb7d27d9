/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clawssh configuration file: JSON with comments, by default at
 * $XDG_CONFIG_HOME/clawssh/config.json (~/.config/clawssh/config.json).
 *
 *	{
 *	  "ssh": {
 *	    "configFile": "~/.ssh/config",   // OpenSSH client config to read
 *	    "connectTimeout": 10,           // seconds, overrides ssh_config
 *	    "strictHostKeyChecking": "yes", // yes | accept-new | no
 *	    "knownHostsFile": "~/.ssh/known_hosts",
 *	    "identityFile": "~/.ssh/id_ed25519",
 *	    "passphraseFile": "~/.config/clawssh/passphrase"
 *	  },
 *	  "exec": {
 *	    "timeout": 0,                   // seconds; 0 = none
 *	    "env": { "NAME": "VALUE" }
 *	  },
 *	  "log": { "verbose": 0 },
 *	  "sandbox": {
 *	    "remoteRoot": "/tmp/clawssh-sandboxes", // on the remote host
 *	    "scope": "session",             // session | agent | shared
 *	    "mode": "mirror",               // mirror | remote
 *	    "access": "rw",                 // rw | ro | none
 *	    "image": "host",                // a store name, or an OCI
 *	                                    // reference for docker/podman
 *	    "runtime": "bwrap",             // bwrap | docker | podman | none
 *	    "user": "nobody",               // or "uid:gid"; when root
 *	    "network": "none",              // none | host
 *	    "workdir": "/workspace",        // or "local": the local path
 *	    "strictConfig": false,          // true or false only
 *	    "prune": { "idleHours": 24, "maxAgeDays": 7 }, // 0: rule off
 *	    "limits": { "memory": "2G", "processes": 256, "cpuSeconds": 600,
 *	                "fileSize": "1G", "openFiles": 1024 } // 0: none
 *	  },
 *	  "sync": { "exclude": ["*.log", "node_modules/"], // gitignore syntax
 *	            "pushGit": false },     // send .git up (never pulled)
 *	  "daemon": {
 *	    "autostart": true,              // start `clawssh serve` on demand
 *	    "socket": "$XDG_RUNTIME_DIR/clawssh/control.sock",
 *	    "idleTimeout": 600,             // seconds idle before exit; 0 never
 *	    "maxSessions": 10,              // channels per SSH session (sshd
 *	                                    // MaxSessions); 0: the default
 *	    "maxConnections": 4,            // SSH sessions per host; 0: default
 *	    "maxRequestBytes": 16777216,    // JSON-RPC line cap; 0: default
 *	    "maxWorkers": 64                // tool calls at once; 0: default
 *	  },
 *	  "mcp": { "maxResult": 1048576 },  // serve --mcp result cap, bytes
 *	  "policy": {                       // tool calls served by the daemon
 *	    "allow": ["exec", "fs.*"],      // fnmatch globs; empty/absent: all
 *	    "deny": ["fs.write"],           // deny wins, at any level
 *	    "agents": { "ci-bot": { "allow": ["exec"], "deny": [] } },
 *	    "sandboxes": { "<sandbox id>": { "allow": [], "deny": [] } },
 *	    "elevated": false               // exec on a host, outside sandboxes
 *	  },
 *	  "audit": { "file": "~/.local/state/clawssh/audit.log" }, // "": off
 *	  "providers": {                    // for provision --provider NAME
 *	    "NAME": { "driver": "openshell", // or slurm, command, kubernetes
 *	              "command": "/usr/local/bin/openshell", // or the default
 *	              "timeout": 60,        // seconds for one call, 1..86400
 *	              "readyTimeout": 300,  // seconds to wait, 0..604800
 *	              "args": ["--gateway", "lab"] } // driver arguments
 *	  }
 *	}
 *
 * Unknown keys, duplicate keys and wrong types are errors naming the key
 * path ("sandbox.prune.idleHours").  Integers are whole numbers within
 * their range (connectTimeout 0..86400, timeout 0..31536000, verbose 0..3,
 * idleHours 0..87600, maxAgeDays 0..36500, idleTimeout 0..604800,
 * maxSessions 0..1000, maxConnections 0..64, maxRequestBytes
 * 0..1073741824, maxWorkers 0..4096, mcp.maxResult 4096..268435456 or
 * 0); provider names match
 * [A-Za-z0-9_.-]{1,64}; exec.env names match
 * [A-Za-z_][A-Za-z0-9_]*.  Only "~" and "~/..." are expanded, not "~user",
 * and only in local paths: remoteRoot is a remote path, taken as written
 * and checked with sandbox_root_check; image with sandbox_image_check or,
 * failing that, as an OCI reference (sandbox_image_check_for); user with
 * sandbox_user_check.  "policy" is checked by policy_parse (see policy.h);
 * "audit.file" absent means audit_default_path (see audit.h).
 */
#ifndef CLAW_CLAWCONFIG_H
#define CLAW_CLAWCONFIG_H

#include <stddef.h>

#include "contain.h"
#include "remote_cmd.h"		/* struct claw_env */

struct claw_policy;

/* One entry of "providers" (see provider.h for what the fields mean). */
struct claw_provider {
	char		*name;
	char		*driver;
	char		*command;		/* NULL: the driver's default */
	int		 timeout;		/* seconds, default 60 */
	int		 ready_timeout;		/* seconds, default 300 */
	char		**args;
	size_t		 nargs;
};

struct claw_config {
	char		*path;			/* file read, NULL if none */
	char		*ssh_config_file;	/* NULL: ~/.ssh/config */
	int		 connect_timeout;	/* 0: not set */
	int		 strict;		/* -1 or sshconfig_strict */
	char		*known_hosts_file;	/* NULL: not set */
	char		*identity_file;		/* NULL: not set */
	char		*passphrase_file;	/* NULL: not set */
	int		 exec_timeout;		/* seconds, 0 = none */
	struct claw_env	*env;			/* exec.env entries */
	size_t		 nenv;
	int		 verbose;
	char		*remote_root;		/* NULL: not set */
	int		 sandbox_scope;		/* -1 or enum sandbox_scope */
	int		 sandbox_mode;		/* -1 or enum sandbox_mode */
	int		 sandbox_access;	/* -1 or enum sandbox_access */
	char		*sandbox_image;		/* NULL: not set */
	int		 sandbox_runtime;	/* -1, enum contain_runtime */
	int		 sandbox_network;	/* -1, enum contain_network */
	char		*sandbox_user;		/* NULL: not set */
	int		 sandbox_workdir;	/* -1, enum sandbox_workdir */
	struct contain_limits	 limits;	/* each -1: not set */
	int		 strict_config;		/* 0 or 1 */
	int		 prune_idle_hours;	/* -1: not set, 0: off */
	int		 prune_max_age_days;	/* -1: not set, 0: off */
	char		**sync_exclude;		/* sync.exclude patterns */
	size_t		 nsync_exclude;
	int		 sync_push_git;		/* sync.pushGit: 0 or 1 */
	int		 daemon_autostart;	/* -1: not set (on), 0, 1 */
	char		*daemon_socket;		/* NULL: the default */
	int		 daemon_idle_timeout;	/* -1: not set, 0: never */
	int		 daemon_max_sessions;	/* 0: the default */
	int		 daemon_max_conns;	/* 0: the default */
	int		 daemon_max_line;	/* 0: the default */
	int		 daemon_max_workers;	/* 0: the default */
	int		 mcp_max_result;	/* 0: the default */
	struct claw_policy	*policy;	/* NULL: no "policy" key */
	char		*audit_file;		/* NULL: default, "": off */
	struct claw_provider *providers;	/* "providers", in file order */
	size_t		 nproviders;
};

/*
 * Load the config.  path NULL means the default location, where a missing
 * file is fine (defaults apply); an explicit path must exist.  Paths in the
 * file have a leading ~ expanded with home.  On success sets *out and
 * returns 0; otherwise negative with *cause like "FILE:LINE:COL: ..." for
 * syntax errors or "FILE: ssh.connectTimeout: expected an integer from 0
 * to 86400" for bad values.  With path NULL and no default location (no
 * usable XDG_CONFIG_HOME and home NULL or empty), defaults apply.
 */
int	config_load(const char *path, const char *home,
	    struct claw_config **out, char **cause);

/*
 * Return the default config path (allocated): $XDG_CONFIG_HOME/clawssh/
 * config.json if that variable is set and absolute, else
 * home/.config/clawssh/config.json; NULL if home is needed but NULL or empty.
 */
char	*config_default_path(const char *home);

/* The provider called name in cfg, or NULL. */
const struct claw_provider *config_provider(const struct claw_config *cfg,
	    const char *name);

/* Free a config; NULL is fine.  Environment values are wiped. */
void	config_free(struct claw_config *);

#endif /* CLAW_CLAWCONFIG_H */
