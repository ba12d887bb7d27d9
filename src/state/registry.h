/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local registry of sandboxes: one JSON file per sandbox under
 * <state>/sandboxes/<id>.json, written atomically (temporary file, fsync,
 * rename, fsync of the directory), plus per-id lock files under
 * <state>/locks/ so that concurrent clawssh processes serialise their work
 * on one sandbox.
 *
 * The state directory is, in order: the explicit override (--state-dir),
 * $CLAWSSH_STATE_DIR, $XDG_STATE_HOME/clawssh, ~/.local/state/clawssh.
 * It is created 0700.  Records are validated on load like any input: an
 * edited or corrupt record is an error naming the file, never a crash.
 */
#ifndef CLAW_REGISTRY_H
#define CLAW_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "sandbox.h"

struct registry;

/* What we remember locally about one sandbox. */
struct registry_record {
	char			 id[SANDBOX_ID_LEN + 1];
	char			*backend;	/* "ssh" or "managed" */
	char			*target;	/* as given: alias or u@h:p */
	char			*ssh_config;	/* -F file used, or NULL */
	char			*user;		/* resolved, for display */
	char			*host;
	int			 port;
	char			*remote_root;	/* passes sandbox_root_check */
	enum sandbox_scope	 scope;
	char			*key;
	struct sandbox_settings	 settings;
	char			 config_hash[SANDBOX_HASH_LEN + 1];
	char			*workspace;	/* absolute local path */
	int64_t			 created;	/* epoch seconds */
	/* managed sandboxes only (all NULL otherwise): */
	char			*provider;	/* providers.NAME in config */
	char			*provider_name;	/* the provider's name for it */
	char			*proxy_command;	/* endpoint's, or NULL */
	char			*identity_file;	/* endpoint's, or NULL */
	char			*host_key_alias;	/* endpoint's */
	char			*exec_wrap;	/* endpoint's, or NULL */
	char			*known_hosts;	/* pinned host keys file */
	char			*provider_image;	/* what create asked */
	char			*provider_policy;
	char			*provider_gpus;	/* decimal, "-1": all */
};

/*
 * Open (creating if needed) the state directory.  override may be NULL;
 * home is used for the last fallback.  Returns 0 and sets *out, or a
 * negative CLAW_ERR_* with *cause set.
 */
int	registry_open(const char *override, const char *home,
	    struct registry **out, char **cause);

/* Close; NULL is fine.  Releases any lock still held. */
void	registry_close(struct registry *reg);

/* The state directory in use. */
const char	*registry_dir(const struct registry *reg);

/* The file that holds id's record (allocated; it may not exist). */
char	*registry_record_path(const struct registry *reg, const char *id);

/*
 * Take the exclusive lock for id (blocking, flock on locks/<id>.lock).
 * One lock at a time per registry handle.  Returns 0 or negative.
 */
int	registry_lock(struct registry *reg, const char *id, char **cause);

/* Release the lock taken by registry_lock; safe when none is held. */
void	registry_unlock(struct registry *reg);

/*
 * Load the record for id.  Returns 0 and sets *out (free with
 * registry_record_free), CLAW_ERR_NOTFOUND if there is none, or
 * CLAW_ERR_PARSE / other negative with *cause naming the file.
 */
int	registry_get(struct registry *reg, const char *id,
	    struct registry_record **out, char **cause);

/* Write rec atomically (replacing any old one).  Returns 0 or negative. */
int	registry_put(struct registry *reg, const struct registry_record *rec,
	    char **cause);

/* Remove the record for id; a missing one is not an error. */
int	registry_remove(struct registry *reg, const char *id, char **cause);

/*
 * Load every record, sorted by id.  Corrupt records are skipped with a
 * warning on stderr (log_warn) naming the file.  Sets *out (NULL-terminated
 * array; free with registry_records_free) and *n.
 */
int	registry_list(struct registry *reg, struct registry_record ***out,
	    size_t *n, char **cause);

/* Deep copy of a record. */
struct registry_record	*registry_record_dup(const struct registry_record *);

void	registry_record_free(struct registry_record *rec);
void	registry_records_free(struct registry_record **recs);

#endif /* CLAW_REGISTRY_H */
