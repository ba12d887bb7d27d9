/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Provider drivers for managed sandboxes: a control plane (OpenShell, a
 * Slurm cluster, Kubernetes, a site's own tool) that creates a sandbox,
 * reports its state, and hands back an SSH endpoint.  A driver only talks
 * to its control plane; managed.c decides when to create, wait, reuse or
 * delete, and everything after the endpoint goes over SSH to the
 * host-directory backend (../host/hostdir.h).  Everything a provider
 * prints is hostile input.
 */
#ifndef CLAW_PROVIDER_H
#define CLAW_PROVIDER_H

#include <stddef.h>

/* Where a driver's sandbox stands, as the provider reports it. */
enum provider_state {
	PROVIDER_ABSENT = 0,	/* the provider does not know the name */
	PROVIDER_PENDING,	/* being created or queued */
	PROVIDER_READY,		/* running; the endpoint is usable */
	PROVIDER_FAILED,	/* will not become ready */
	PROVIDER_GONE		/* ended (cancelled, deleted, timed out) */
};

/* How to reach a ready sandbox over SSH. */
struct provider_endpoint {
	char	*host;		/* HostName to connect to */
	int	 port;		/* 0: 22 */
	char	*user;		/* NULL: the default user */
	char	*proxy_command;	/* ProxyCommand, %h %p %r unexpanded */
	char	*identity_file;	/* NULL: the usual identities */
	char	*host_key_alias;	/* NULL: host */
	char	*exec_wrap;	/* sh prefix every command runs under
				   (e.g. Slurm's srun into the allocation),
				   or NULL */
	char	*host_keys;	/* the endpoint's public host keys, one
				   "TYPE BASE64" a line, pinned when set;
				   NULL: known_hosts as usual */
	int	 pin_first_seen;	/* 1: the provider vouches for no
				   key and its own config checks none
				   (OpenShell): pin the key the first
				   contact sees, refuse any other later
				   (managed_pin_first) */
};

/* One sandbox as the provider sees it. */
struct provider_sandbox {
	char			*name;
	enum provider_state	 state;
	char			*state_text;	/* the provider's own words */
	struct provider_endpoint ep;		/* set when READY */
	char			*gpus;		/* assigned GPU ids, or NULL */
};

/* What create asks for. */
struct provider_request {
	const char	*image;		/* --from, or NULL for the default */
	int		 gpus;		/* 0: none, -1: all */
	const char	*policy;	/* provider policy name, or NULL */
	char *const	*extra;		/* provider-specific arguments */
	size_t		 nextra;
};

/* A driver's settings from the config (providers.NAME). */
struct provider_conf {
	const char	*name;		/* the config's name for it */
	const char	*driver;	/* "openshell", "slurm", "command" */
	const char	*command;	/* executable to run, or NULL */
	int		 timeout;	/* seconds for one provider call */
	int		 ready_timeout;	/* seconds to wait for READY */
	char *const	*args;		/* extra driver arguments */
	size_t		 nargs;
};

struct provider_ops {
	const char	*driver;
	size_t		 name_max;	/* longest sandbox name accepted */

	/* Look name up: *out->state is PROVIDER_ABSENT when unknown. */
	int	(*get)(const struct provider_conf *, const char *name,
		    struct provider_sandbox *out, char **cause);

	/* Ask for a new sandbox called name; it may still be pending. */
	int	(*create)(const struct provider_conf *, const char *name,
		    const struct provider_request *req, char **cause);

	/* Remove name; gone already is success with *existed 0. */
	int	(*destroy)(const struct provider_conf *, const char *name,
		    int *existed, char **cause);

	/* Every sandbox of this provider that clawssh named. */
	int	(*list)(const struct provider_conf *,
		    struct provider_sandbox **out, size_t *n, char **cause);
};

extern const struct provider_ops provider_command;
extern const struct provider_ops provider_openshell;
extern const struct provider_ops provider_slurm;

#define PROVIDER_OUT_MAX	(1024 * 1024)	/* bytes of stdout kept */
#define PROVIDER_ERR_MAX	1024	/* bytes of stderr quoted */

/* What one run of a provider's executable gave. */
struct provider_run {
	char	*out;		/* stdout, NUL-terminated */
	size_t	 len;
	char	*err;		/* stderr's first line(s), printable */
	int	 status;	/* wait status */
};

/* A driver's command line being built; every string is owned. */
struct provider_argv {
	char	**v;		/* NULL-terminated once anything was added */
	size_t	  n;
};

/* Append a formatted argument to a. */
void	provider_argv_add(struct provider_argv *a, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* Free a's strings and array and zero it. */
void	provider_argv_free(struct provider_argv *a);

/* Free what a provider_sandbox owns and zero it; NULL is fine. */
void	provider_sandbox_clear(struct provider_sandbox *);

/* Free an array of n sandboxes from list; NULL is fine. */
void	provider_sandboxes_free(struct provider_sandbox *v, size_t n);

/* The driver called name, or NULL. */
const struct provider_ops	*provider_find(const char *driver);

/*
 * Run the provider's executable: argv[0] is searched in PATH, input (or
 * nothing) is its stdin, stdout is kept up to PROVIDER_OUT_MAX, and the
 * whole run must end within pc->timeout seconds or its process group is
 * killed.  Returns 0 with *out filled (free with provider_run_free) even
 * when the status is not 0; negative with *cause naming the provider on
 * a timeout, too much output, or a failure to start.
 */
int	provider_run(const struct provider_conf *pc, char *const *argv,
	    const char *input, struct provider_run *out, char **cause);

/* Free what a run holds. */
void	provider_run_free(struct provider_run *);

/*
 * Set *cause to "provider NAME (DRIVER): message" and return err.
 */
int	provider_fail(char **cause, const struct provider_conf *pc, int err,
	    const char *fmt, ...) __attribute__((__format__(__printf__, 4, 5)));

/* Fail for a run that did not exit 0, quoting its stderr. */
int	provider_fail_run(char **cause, const struct provider_conf *pc,
	    const char *what, const struct provider_run *r);

/*
 * Check what a provider says about a ready sandbox before it is used:
 * a host name, user and paths without blanks or control characters, a
 * port in range, one-line commands, well-formed host keys.  0 or
 * CLAW_ERR_PROTO with *cause naming the provider.
 */
int	provider_endpoint_check(const struct provider_conf *pc,
	    const struct provider_endpoint *ep, char **cause);

/* A state's name ("absent", "pending", ...). */
const char	*provider_state_name(enum provider_state);

#endif /* CLAW_PROVIDER_H */
