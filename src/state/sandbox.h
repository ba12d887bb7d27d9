/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Sandboxes as data: scopes, keys, ids, the settings a sandbox is made
 * with, their config hash, and the metadata file kept beside the sandbox
 * on the remote host.  Pure functions; no I/O.
 *
 * Everything decoded here may come from a hostile remote host or an edited
 * local file: sizes are capped and every field is validated.
 */
#ifndef CLAW_SANDBOX_H
#define CLAW_SANDBOX_H

#include <stddef.h>
#include <stdint.h>

#include "contain.h"
#include "names.h"

enum sandbox_scope {
	SANDBOX_SCOPE_SESSION = 0,
	SANDBOX_SCOPE_AGENT,
	SANDBOX_SCOPE_SHARED
};

enum sandbox_mode {
	SANDBOX_MODE_MIRROR = 0,	/* local copy canonical, synced */
	SANDBOX_MODE_REMOTE		/* seeded once, remote canonical */
};

enum sandbox_access {
	SANDBOX_ACCESS_RW = 0,		/* workspace read-write */
	SANDBOX_ACCESS_RO,		/* workspace read-only */
	SANDBOX_ACCESS_NONE		/* empty private workspace */
};

/* Where a contained command sees the workspace (and starts). */
enum sandbox_workdir {
	SANDBOX_WORKDIR_WORKSPACE = 0,	/* /workspace */
	SANDBOX_WORKDIR_LOCAL		/* the local workspace's path too */
};

#define SANDBOX_WORKSPACE	"/workspace"	/* the default workdir */

/*
 * The runtime and network mode are contain.h's enum contain_runtime and
 * enum contain_network (one definition, parsed and named there).
 */

#define SANDBOX_ID_LEN		13	/* 'c' + 12 base32 characters */
#define SANDBOX_KEY_MAX		256	/* bytes */
#define SANDBOX_DEFAULT_ROOT	"/tmp/clawssh-sandboxes"	/* remoteRoot */
#define SANDBOX_IMAGE_MAX	64	/* bytes of an image store name */
#define SANDBOX_REF_MAX		255	/* bytes of an OCI image reference */
#define SANDBOX_USER_MAX	32	/* bytes of a user name or uid:gid */
#define SANDBOX_ROOT_MAX	1024	/* bytes of a remoteRoot path */
#define SANDBOX_HASH_LEN	64	/* hex SHA-256 */
#define SANDBOX_META_MAX	(64 * 1024)	/* metadata file size cap */
#define SANDBOX_GPUS_MAX	1024		/* GPUs one sandbox may ask for */
#define SANDBOX_SHARED_KEY	"default"	/* key of "shared" when none */

/*
 * What the config hash covers (all but limits): change one and the
 * sandbox is stale.  Limits apply at each exec and may change freely.
 */
struct sandbox_settings {
	enum sandbox_mode	mode;
	enum sandbox_access	access;
	char			image[SANDBOX_REF_MAX + 1]; /* "host" */
	enum contain_runtime	runtime;
	enum contain_network	network;
	int			gpus;		/* 0 none, -1 all, else N */
	char			user[SANDBOX_USER_MAX + 1]; /* "": none */
	enum sandbox_workdir	workdir;
	struct contain_limits	limits;		/* not hashed */
};

/* The remote metadata file, <remoteRoot>/<id>/meta.json. */
struct sandbox_meta {
	int			version;	/* SANDBOX_META_VERSION */
	char			id[SANDBOX_ID_LEN + 1];
	enum sandbox_scope	scope;
	char			key[SANDBOX_KEY_MAX + 1];
	struct sandbox_settings	settings;
	char			config_hash[SANDBOX_HASH_LEN + 1];
	int64_t			created;	/* epoch seconds */
	char			workspace[SANDBOX_ROOT_MAX + 1];
						/* local path at provision */
};

#define SANDBOX_META_VERSION	1

/*
 * Parse and name the enums.  Parsers return 0 or CLAW_ERR_INVAL (also for
 * NULL); names of values outside an enum are "unknown".
 */
int		 sandbox_scope_parse(const char *s, enum sandbox_scope *out);
const char	*sandbox_scope_name(enum sandbox_scope scope);
int		 sandbox_mode_parse(const char *s, enum sandbox_mode *out);
const char	*sandbox_mode_name(enum sandbox_mode mode);
int		 sandbox_access_parse(const char *s, enum sandbox_access *out);
const char	*sandbox_access_name(enum sandbox_access access);
int		 sandbox_workdir_parse(const char *s,
		    enum sandbox_workdir *out);	/* "/workspace", "local" */
const char	*sandbox_workdir_name(enum sandbox_workdir workdir);

/* The names the parsers above take, in enum order (names.h). */
extern const struct names sandbox_scope_names;
extern const struct names sandbox_mode_names;
extern const struct names sandbox_access_names;
extern const struct names sandbox_workdir_names;

/*
 * Set settings to the defaults: mirror, rw, image "host", runtime bwrap,
 * network none, no user.  (Metadata written before runtimes existed
 * lacks runtime and network: it decodes as runtime none, network none.)
 */
void	sandbox_settings_default(struct sandbox_settings *s);

/*
 * Check a key for scope: session and agent need one; shared takes none
 * (or any valid one).  A key is 1..SANDBOX_KEY_MAX bytes of printable
 * UTF-8 or ASCII with no '/', NUL or control characters.  Returns 0 or
 * CLAW_ERR_INVAL with *cause set.
 *
 * Only this check accepts a NULL or "" key, and only for shared.
 * Everywhere else (ids, metadata, the registry) callers pass the
 * effective key: for shared without a key, that is SANDBOX_SHARED_KEY.
 */
int	sandbox_key_check(enum sandbox_scope scope, const char *key,
	    char **cause);

/*
 * Check an image name: "host", or 1..SANDBOX_IMAGE_MAX characters of
 * [a-z0-9][a-z0-9._-]* (no "..").  Returns 0 or CLAW_ERR_INVAL.
 */
int	sandbox_image_check(const char *image, char **cause);

/*
 * Check the image a sandbox of runtime rt is made from: for docker and
 * podman an OCI image reference (1..SANDBOX_REF_MAX characters of
 * [A-Za-z0-9._/:@-], not starting with '-': no shell metacharacters),
 * else what sandbox_image_check takes.  Returns 0 or CLAW_ERR_INVAL.
 */
int	sandbox_image_check_for(enum contain_runtime rt, const char *image,
	    char **cause);

/*
 * Check a user to run as: "uid:gid" (decimal, each at most 10 digits) or
 * a user name of 1..SANDBOX_USER_MAX characters [a-z_][a-z0-9_-]*.
 * Returns 0 or CLAW_ERR_INVAL.
 */
int	sandbox_user_check(const char *user, char **cause);

/*
 * The sandbox's own uid (and gid) on a host where clawssh connects as
 * root and no user is set: SANDBOX_UID_BASE plus a hash of id, below
 * SANDBOX_UID_BASE + SANDBOX_UID_SPAN.  No passwd entry is needed; two
 * sandboxes share one with odds of 1 in SANDBOX_UID_SPAN.
 */
#define SANDBOX_UID_BASE	1879048192u	/* 0x70000000 */
#define SANDBOX_UID_SPAN	134217728u	/* 0x08000000 */
unsigned int	sandbox_default_uid(const char *id);

/*
 * Check a local workspace path for use as the workdir inside a sandbox
 * of runtime rt (workdir "local"): absolute, at most SANDBOX_ROOT_MAX
 * bytes, normalised (no empty, "." or ".." component, no trailing '/'),
 * not "/", printable (no control characters), not /proc, /dev, /sys,
 * /tmp or /run or under them (the sandbox's own), not under /workspace
 * (inside the workspace itself); for docker and podman also no ',' or
 * '"' (--mount is CSV).  Whether the host can make the mount point is
 * the host's to say (contain_bwrap_workdir).  Returns 0 or
 * CLAW_ERR_INVAL with *cause set.
 */
int	sandbox_workdir_check(enum contain_runtime rt, const char *path,
	    char **cause);

/*
 * The path a sandbox of settings s sees its workspace at, given the
 * local workspace of its record: SANDBOX_WORKSPACE, or local for
 * workdir "local".  Borrowed; never NULL.
 */
const char	*sandbox_workdir_path(const struct sandbox_settings *s,
		    const char *local);

/*
 * Check a remoteRoot: absolute, at most SANDBOX_ROOT_MAX bytes, no "."
 * or ".." component, no empty component ("//"), not "/" itself, only
 * characters [A-Za-z0-9._/+-@].  Returns 0 or CLAW_ERR_INVAL.
 */
int	sandbox_root_check(const char *root, char **cause);

/*
 * Derive the id for scope and key on the host named by host_identity
 * ("user@hostname:port"): 'c' followed by the first 60 bits of
 * SHA-256(scope NUL key NUL host_identity) in lower-case base32
 * (a-z, 2-7).  Stable, short, safe in paths and host names.  key is the
 * effective key; for shared, NULL or "" is taken as SANDBOX_SHARED_KEY.
 */
void	sandbox_id(enum sandbox_scope scope, const char *key,
	    const char *host_identity, char id[SANDBOX_ID_LEN + 1]);

/* Return 1 if id has the form sandbox_id produces, else 0. */
int	sandbox_id_ok(const char *id);

/*
 * The config hash: lower-case hex SHA-256 of the normalised settings
 * ("access=rw\nimage=host\nmode=mirror\nnetwork=none\nruntime=bwrap\n",
 * keys sorted; "gpus=N" after access when GPUs are asked for, "user=U"
 * when a user is set, "workdir=local" last for workdir local).  network
 * and runtime are left out when both are "none", gpus when 0, user when
 * empty and workdir when /workspace, so that sandboxes made before these
 * existed keep their hash.
 */
void	sandbox_config_hash(const struct sandbox_settings *s,
	    char hex[SANDBOX_HASH_LEN + 1]);

/* Encode meta as JSON (allocated, NUL-terminated, ends with newline). */
char	*sandbox_meta_encode(const struct sandbox_meta *meta);

/*
 * Decode metadata from text[0..len) (hostile: over SANDBOX_META_MAX bytes,
 * bad JSON, a wrong, missing or repeated field, an id that fails
 * sandbox_id_ok or differs from want_id when want_id is not NULL, a bad or
 * empty key, image, enum, hash, or a workspace that is not absolute, are
 * all CLAW_ERR_PARSE with *cause naming the problem, like "metadata: field
 * 'key': ...").  Unknown fields are ignored (newer writers).  On success
 * fills *meta and returns 0.
 */
int	sandbox_meta_decode(const char *text, size_t len, const char *want_id,
	    struct sandbox_meta *meta, char **cause);

#endif /* CLAW_SANDBOX_H */
