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
 *	    "strictConfig": false,          // true or false only
 *	    "prune": { "idleHours": 24, "maxAgeDays": 7 }, // 0: rule off
 *	    "limits": { "memory": "2G", "processes": 256, "cpuSeconds": 600,
 *	                "fileSize": "1G", "openFiles": 1024 } // 0: none
 *	  },
 *	  "sync": { "exclude": ["*.log", "node_modules/"] } // gitignore syntax
 *	}
 *
 * Unknown keys, duplicate keys and wrong types are errors naming the key
 * path ("sandbox.prune.idleHours").  Integers are whole numbers within
 * their range (connectTimeout 0..86400, timeout 0..31536000, verbose 0..3,
 * idleHours 0..87600, maxAgeDays 0..36500); exec.env names match
 * [A-Za-z_][A-Za-z0-9_]*.  Only "~" and "~/..." are expanded, not "~user",
 * and only in local paths: remoteRoot is a remote path, taken as written
 * and checked with sandbox_root_check; image with sandbox_image_check or,
 * failing that, as an OCI reference (sandbox_image_check_for); user with
 * sandbox_user_check.
 */
#ifndef CLAW_CLAWCONFIG_H
#define CLAW_CLAWCONFIG_H

#include <stddef.h>

#include "contain.h"

struct claw_env {
	char	*name;
	char	*value;
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
	struct contain_limits	 limits;	/* each -1: not set */
	int		 strict_config;		/* 0 or 1 */
	int		 prune_idle_hours;	/* -1: not set, 0: off */
	int		 prune_max_age_days;	/* -1: not set, 0: off */
	char		**sync_exclude;		/* sync.exclude patterns */
	size_t		 nsync_exclude;
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

/* Free a config; NULL is fine.  Environment values are wiped. */
void	config_free(struct claw_config *);

#endif /* CLAW_CLAWCONFIG_H */
