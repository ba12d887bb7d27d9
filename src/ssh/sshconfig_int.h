/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Internals shared by sshconfig.c, sshconfig_expand.c and
 * sshconfig_target.c.  Not for use elsewhere; the contract is sshconfig.h.
 */
#ifndef CLAW_SSHCONFIG_INT_H
#define CLAW_SSHCONFIG_INT_H

#include <stddef.h>

struct sshconfig;
struct sshconfig_query;

/* A string value and the line it came from, expanded once all is read. */
struct sc_item {
	char		*value;
	const char	*file;		/* NULL for a built-in default */
	size_t		 line;
};

/* A list of values; set once an active line has given it. */
struct sc_list {
	struct sc_item	*items;
	size_t		 n;
	int		 set;
};

/* Integer settings; -1 in a slot means no line has given it yet. */
enum sc_slot {
	SC_PORT,
	SC_IDONLY,
	SC_STRICT,
	SC_HASH,
	SC_CTIMEOUT,
	SC_ALIVE,
	SC_ALIVEMAX,
	SC_NSLOTS
};

/* Everything obtained so far while reading. */
struct sc_parse {
	const struct sshconfig_query *q;
	char		*hostname;	/* HostName, %h already expanded */
	char		*user;		/* User */
	char		*host_key_alias;	/* HostKeyAlias */
	int		 ints[SC_NSLOTS];
	struct sc_list	 ids;		/* IdentityFile */
	struct sc_list	 ukh;		/* UserKnownHostsFile */
	struct sc_list	 gkh;		/* GlobalKnownHostsFile */
	struct sc_list	 proxy;		/* ProxyCommand: one item, or none
					   when set to "none" */
	char		**files;	/* names of files read, for sc_item */
	size_t		 nfiles;
	size_t		 bytes;		/* read from all of them */
	int		 no_include;	/* SSHCONFIG_NO_INCLUDE */
};

/* A %-token and its value; a key of '\0' ends an array of them. */
struct sc_token {
	char		 key;
	const char	*value;
};

/* sshconfig.c */

/* Hand msg to the caller through cause, or drop it if cause is NULL. */
void	sshconfig_cause(char **cause, char *msg);

/* Set *cause to "FILE line N: message" and return CLAW_ERR_PARSE. */
int	sshconfig_err(char **cause, const char *file, size_t line,
	    const char *fmt, ...) __attribute__((__format__(__printf__, 4, 5)));

/* Parse a port number 1..65535; return it, or CLAW_ERR_PARSE. */
int	sshconfig_port(const char *s);

/* Append a copy of value and its origin to a list. */
void	sshconfig_list_add(struct sc_list *l, const char *value,
	    const char *file, size_t line);

/* sshconfig_expand.c */

/*
 * Expand %-tokens in s into *out: 0, or on an unknown one set *bad and
 * return CLAW_ERR_PARSE.
 */
int	sshconfig_percent(const char *s, const struct sc_token *tok,
	    char **out, char *bad);

/* Report a bad %-token found in value at file and line; CLAW_ERR_PARSE. */
int	sshconfig_percent_err(char **cause, const char *file, size_t line,
	    const char *value, char bad);

/*
 * Expand a leading ~ or ~user in s into *out: 0, or CLAW_ERR_NOTFOUND if
 * the user is unknown.
 */
int	sshconfig_tilde(const char *home, const char *s, char **out);

/* Free n strings of v and v. */
void	sshconfig_strv_free(char **v, size_t n);

/* Build the resolved config from what was read; 0 or CLAW_ERR_*. */
int	sshconfig_finish(struct sc_parse *p, struct sshconfig **out,
	    char **cause);

#endif /* CLAW_SSHCONFIG_INT_H */
