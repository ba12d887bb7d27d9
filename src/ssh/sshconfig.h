/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * OpenSSH client configuration (ssh_config(5)) for one destination.
 *
 * Reads the file the way ssh does: Host/Match blocks select lines, the first
 * value obtained for each keyword wins (IdentityFile accumulates), keywords
 * are case-insensitive, "key value" and "key=value" both work, arguments may
 * be double-quoted.  Unsupported keywords are ignored; a malformed line is an
 * error naming file and line.
 */
#ifndef CLAW_SSHCONFIG_H
#define CLAW_SSHCONFIG_H

/*
 * ServerAliveInterval when ssh_config sets none: a link that stops
 * answering (black-holed) fails after interval x ServerAliveCountMax (3)
 * seconds, never hangs.  "ServerAliveInterval 0" turns keepalives off.
 */
#define SSHCONFIG_ALIVE_DEFAULT	10

#include <stddef.h>

enum sshconfig_strict {
	SSHCONFIG_STRICT_ASK = 0,	/* default: no prompt here, so refuse */
	SSHCONFIG_STRICT_YES,
	SSHCONFIG_STRICT_ACCEPT_NEW,
	SSHCONFIG_STRICT_NO
};

/* What the caller knows before reading the config. */
struct sshconfig_query {
	const char	*host;		/* as typed: alias or host name */
	const char	*user;		/* from user@host, or NULL */
	int		 port;		/* from host:port, or 0 */
	const char	*local_user;	/* for %u and the default User */
	const char	*home;		/* for ~ and %d */
	char *const	*options;	/* ssh -o lines, read before the file */
	size_t		 noptions;
};

/* The resolved settings, every default filled in. */
struct sshconfig {
	char		*host;		/* original host (alias), for %n */
	char		*hostname;	/* HostName (%h expanded), or host */
	char		*user;		/* query user, else User, else local */
	int		 port;		/* query port, else Port, else 22 */
	char		**identity_files;	/* expanded paths */
	size_t		 n_identity_files;
	int		 identity_files_set;	/* 0: ssh's defaults */
	int		 identities_only;	/* IdentitiesOnly, default 0 */
	char		**known_hosts_files;	/* UserKnownHostsFile */
	size_t		 n_known_hosts_files;
	char		**global_known_hosts_files; /* GlobalKnownHostsFile */
	size_t		 n_global_known_hosts_files;
	enum sshconfig_strict strict;	/* StrictHostKeyChecking */
	int		 hash_known_hosts;	/* HashKnownHosts, default 0 */
	int		 connect_timeout;	/* seconds; 0 = none given */
	int		 server_alive_interval;	/* seconds; 0 = off; unset:
					   SSHCONFIG_ALIVE_DEFAULT */
	int		 server_alive_count_max;	/* default 3 */
	char		*proxy_command;	/* ProxyCommand, tokens expanded;
					   NULL: none (or "none") */
	char		*host_key_alias;	/* HostKeyAlias, or NULL */
};

/* The name host keys are known by: HostKeyAlias, else HostName. */
#define SSHCONFIG_KEYNAME(sc)	\
	((sc)->host_key_alias != NULL ? (sc)->host_key_alias : (sc)->hostname)

#define SSHCONFIG_OPTIONAL	0x1	/* a missing file is not an error */
#define SSHCONFIG_NO_INCLUDE	0x2	/* Include is an error (a text that
					   came from elsewhere: a provider) */

/*
 * Resolve the settings for q from the config file at path (NULL: none).
 * Supports Host (patterns, '!' negation), Match (all, host, originalhost,
 * user, localuser; other criteria never match), Include (globs, relative to
 * ~/.ssh), HostName, Port, User, IdentityFile, IdentitiesOnly,
 * UserKnownHostsFile, GlobalKnownHostsFile, StrictHostKeyChecking,
 * HashKnownHosts, ConnectTimeout, ServerAliveInterval, ServerAliveCountMax,
 * ProxyCommand (the rest of the line, as ssh takes it; "none" for none),
 * HostKeyAlias (the name known_hosts is searched and written for).
 * The options lines (as ssh -o) come first, so they win; Host, Match
 * and Include are refused there, and errors name "command-line line N".
 * Tokens %% %d %h %l %n %p %r %u and a leading ~ are expanded in
 * IdentityFile and UserKnownHostsFile, and %% %h %n %p %r (and the other
 * tokens above but ~) in ProxyCommand; "none" empties those lists.
 * Only regular files and /dev/null are read (another device, a FIFO or
 * a directory is an error, never a hang), at most SSHCONFIG_FILE_MAX
 * bytes in all and SSHCONFIG_FILES_MAX files.
 * On success sets *out (free with sshconfig_free) and returns 0; on failure
 * returns a negative CLAW_ERR_* and sets *cause to an allocated message
 * naming file and line.
 */
#define SSHCONFIG_FILE_MAX	(1024 * 1024)	/* bytes, all files together */
#define SSHCONFIG_FILES_MAX	256		/* files, Includes and all */

int	sshconfig_resolve(const char *path, int flags,
	    const struct sshconfig_query *q, struct sshconfig **out,
	    char **cause);

/* Free a resolved config; NULL is fine. */
void	sshconfig_free(struct sshconfig *);

/*
 * Split "[user@]host[:port]" (also "[user@][v6addr]:port") into its parts.
 * Allocates *user (NULL if absent) and *host; *port is 0 if absent.
 * Returns 0, or CLAW_ERR_INVAL with *cause set.
 */
int	sshconfig_parse_target(const char *target, char **user, char **host,
	    int *port, char **cause);

#endif /* CLAW_SSHCONFIG_H */
