/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the sandbox commands share: finding a sandbox's record, reaching
 * its host, the settings in force, and the stale-config check.
 */
#ifndef CLAW_CMD_BOX_H
#define CLAW_CMD_BOX_H

#include <stdint.h>

#include "cmd_conn.h"
#include "hostdir.h"
#include "sandbox.h"

struct registry;
struct registry_record;
struct sshconfig;
struct transport;

struct cmd_box {
	struct cmd_conn			 cc;
	struct registry			*reg;
	struct registry_record		*rec;	/* after cmd_box_load */
	const char			*backend;	/* HOSTDIR_BACKEND_*, for a new record */
	struct sshconfig		*sc;	/* after cmd_box_connect */
	struct transport		*t;
	int				 strict_config;	/* --strict-config */
	int				 warned;	/* stale: warned */
	char				*hint;	/* recreate's flags, or NULL */
	/* exec's route to the environment: its steps may join it */
	const struct contain_route	*steps;
};

/* Open the registry (cc.state_dir or the default).  0 or exit status. */
int	cmd_box_registry(struct cmd_box *b);

/*
 * Load the record of sandbox id and aim the connection at its host (its
 * target and ssh config unless the command line gave others), then load
 * the clawssh config.  Returns 0 or an exit status (message printed).
 */
int	cmd_box_load(struct cmd_box *b, const char *id);

/*
 * For a managed sandbox's record, make b's connection use its endpoint
 * (HostName, Port, User, ProxyCommand, pinned host keys); for any other
 * record, drop an endpoint set before.
 */
void	cmd_box_endpoint(struct cmd_box *b, const struct registry_record *rec);

/* Resolve and connect to the record's host.  0 or exit status. */
int	cmd_box_connect(struct cmd_box *b);

/*
 * The settings in force for a sandbox: base (what it was made with, or
 * the defaults), overridden by the config file's sandbox section.
 */
void	cmd_box_settings(const struct cmd_box *b,
	    const struct sandbox_settings *base, struct sandbox_settings *out);

/*
 * Compare the stored config hash with the settings in force: warn once
 * ("sandbox ID was created with other settings; run: clawssh recreate
 * [b->hint] ID"), or with strict config refuse.  Returns 0 or an exit
 * status.
 */
int	cmd_box_stale(struct cmd_box *b, const char *id, const char *stored,
	    const struct sandbox_settings *now);

/* Whether strict config checking is on (flag or config file). */
int	cmd_box_strict(const struct cmd_box *b);

/* The remote root: config file, else the default. */
const char	*cmd_box_root(const struct cmd_box *b);

/* Format a duration in seconds as "45s", "12m", "5h", "3d". */
void	cmd_box_duration(int64_t secs, char *out, size_t len);

/* Whether two records live on the same host and root. */
int	cmd_box_same_host(const struct registry_record *a,
	    const struct registry_record *b);

/* The record as a JSON object (for --json output). */
struct cJSON	*cmd_box_json(const struct registry_record *r);

struct hostws;
struct mirror;
struct pathguard;

/*
 * Whether the host-side steps of a sandbox under now may run in its
 * persistent environment instead of a jail of their own (docs/agent.md,
 * "Host-side steps"): bwrap on the host's own image (the steps need its
 * tar, find, sed), the workspace read-write there, and no limit a long
 * step could hit where the jail has none (CPU time, file size,
 * processes).  CLAWSSH_NO_STEP_JOIN=1 keeps them in their jails.
 */
int	cmd_box_steps_join(const struct sandbox_settings *now);

/*
 * Fill h with where the host-side steps on b's sandbox directory sub
 * run ("workspace"; "private", where an access none sandbox's command
 * works): the directory and, unless the runtime is none, the jail of
 * contain_bwrap_step under the settings in force.  Clear with
 * hostws_clear.
 */
void	cmd_box_hostws(const struct cmd_box *b, const char *sub,
	    struct hostws *h);

/*
 * Open the mirror sync state of b's loaded, connected sandbox over pg:
 * its host workspace, the manifest in the state directory, the config's
 * sync.exclude patterns.  Close with mirror_close (also on failure).
 * 0 or negative with *cause.
 */
int	cmd_box_mirror(struct cmd_box *b, struct pathguard *pg,
	    struct mirror *m, char **cause);

/*
 * Send the local workspace's changes since the last sync to b's sandbox
 * (loaded, connected, mirror mode): through pg, or a pathguard opened on
 * the record's workspace when pg is NULL.  0 or negative with *cause.
 */
int	cmd_box_push(struct cmd_box *b, struct pathguard *pg, char **cause);

/*
 * Forget the mirror sync state of sandbox id (the manifest and its log
 * in the state directory): for a sandbox destroyed or made again, whose
 * next sync must start over from the local copy.  0 or negative with
 * *cause.
 */
int	cmd_box_forget_sync(struct cmd_box *b, const char *id, char **cause);

/* Release everything. */
void	cmd_box_free(struct cmd_box *b);

#endif /* CLAW_CMD_BOX_H */
