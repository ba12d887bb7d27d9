/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Managed sandboxes: sandboxes on machines a provider makes (provider.h).
 * This module is the drivers' common client: choosing the provider's name
 * for a sandbox, get-or-create and the wait for READY, delete, and turning
 * an endpoint into ssh_config lines.  On the machine the sandbox is the
 * host-directory backend's directory (../host/hostdir.h; records say
 * backend "managed"), reached over that endpoint.
 */
#ifndef CLAW_MANAGED_H
#define CLAW_MANAGED_H

#include <stddef.h>

#include "provider.h"

struct claw_config;

#define MANAGED_PREFIX	"claw-"		/* names clawssh gives */

/* A configured provider and its driver. */
struct managed {
	struct provider_conf		 pc;	/* points into the config */
	const struct provider_ops	*ops;
};

/*
 * Set m up for providers.NAME of cfg.  Returns 0, or CLAW_ERR_NOTFOUND
 * (no such provider) / CLAW_ERR_INVAL (driver not built in) with *cause.
 */
int	managed_open(const struct claw_config *cfg, const char *name,
	    struct managed *m, char **cause);

/*
 * The provider's name for sandbox id (allocated): MANAGED_PREFIX and the
 * id, stable, and within the driver's name_max (the id alone when the
 * prefix does not fit).  CLAW_ERR_INVAL if even the id is too long.
 */
int	managed_name(const struct managed *m, const char *id, char **out,
	    char **cause);

#define MANAGED_CREATE_TRIES	3	/* creates of one sandbox at most */
#define MANAGED_RETRY_MS	2000	/* wait before the second; doubles */

/*
 * Get name from the provider, creating it (with req) only when the
 * provider says ABSENT, and wait up to ready_timeout seconds for READY.
 * FAILED or GONE, or no READY in time, is an error naming the provider
 * and its last state.  A create that fails at the provider (and has
 * nothing coming up under name: a create call killed at the provider's
 * timeout whose sandbox is pending is waited for), or whose sandbox
 * fails or ends before it is ready, is undone (what the provider has
 * under name is deleted and waited for) and tried again, up to
 * MANAGED_CREATE_TRIES in all, after MANAGED_RETRY_MS and then twice as
 * long each time (CLAWSSH_PROVIDER_RETRY_MS, in ms, replaces the first
 * wait); the last error names the tries, the waits and the provider's
 * last state.  A sandbox still pending at ready_timeout is not tried
 * again.  On success *sb holds the sandbox, its endpoint checked
 * (provider_endpoint_check), and *created says whether this call asked
 * for it.  On failure *created says whether something this call made may
 * still be there, so that the caller can delete it.
 */
int	managed_ensure(const struct managed *m, const char *name,
	    const struct provider_request *req, struct provider_sandbox *sb,
	    int *created, char **cause);

/*
 * Replace name: delete it, wait (up to ready_timeout) until the provider
 * no longer has it (absent or gone), create it again with req, and wait
 * for READY as managed_ensure does, trying the create again the same way.
 */
int	managed_replace(const struct managed *m, const char *name,
	    const struct provider_request *req, struct provider_sandbox *sb,
	    char **cause);

/* Delete name at the provider; *existed says if it was there. */
int	managed_destroy(const struct managed *m, const char *name,
	    int *existed, char **cause);

/*
 * The ssh -o lines that reach ep (HostName, Port, User, ProxyCommand,
 * IdentityFile, HostKeyAlias; with known_hosts, that file as the only
 * known hosts file and StrictHostKeyChecking yes, or accept-new while
 * the file is there but empty: see managed_pin_first).  Appends to
 * *lines, *n.
 */
void	managed_ssh_lines(const char *host, int port, const char *user,
	    const char *proxy_command, const char *identity_file,
	    const char *host_key_alias, const char *known_hosts,
	    char ***lines, size_t *n);

/*
 * Write ep's host keys as a known_hosts file at path (mode 0600) that
 * pins them for any host name.  0 or negative with *cause.
 */
int	managed_pin_keys(const char *path, const char *keys, char **cause);

/*
 * Make path (mode 0600) the pin of an endpoint that vouches for no host
 * key (pin_first_seen): fresh (a sandbox this call created) empties it;
 * otherwise a pin already there is kept and a missing one is made empty.
 * An empty pin lets the next connection record the key it sees
 * (accept-new); from then on only that key is accepted, and a missing pin
 * accepts none.  0 or negative with *cause.
 */
int	managed_pin_first(const char *path, int fresh, char **cause);

#endif /* CLAW_MANAGED_H */
