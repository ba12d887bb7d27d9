/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The local sandbox registry: one JSON record per sandbox, validated on
 * load and on store, written atomically, and one flock(2) lock file per
 * sandbox id.  Files are reached through descriptors of the sandboxes and
 * locks directories, opened with O_NOFOLLOW, so a symbolic link swapped in
 * for the state directory or one of its parts is refused.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "compat.h"
#include "error.h"
#include "fdio.h"
#include "jsonc.h"
#include "log.h"
#include "registry.h"
#include "sandbox.h"
#include "xmalloc.h"

#define REG_FILE_MAX	(64 * 1024)	/* bytes of one record file */
#define REG_STR_MAX	4096		/* bytes of one string field */
#define REG_TIME_MAX	9007199254740992.0	/* 2^53, exact in a double */
#define REG_SUFFIX	".json"

struct registry {
	char	*dir;		/* the state directory */
	char	*sbdir;		/* dir/sandboxes, for messages */
	char	*lockdir;	/* dir/locks, for messages */
	int	 sbfd;		/* dir/sandboxes, open */
	int	 lockdirfd;	/* dir/locks, open */
	int	 lockfd;	/* the lock held, or -1 */
};

/* Where messages about one record go. */
struct reg_ctx {
	const char	 *file;		/* the record's path */
	char		**cause;
	int		  err;		/* _PARSE on load, _INVAL on store */
};

/* A string field held as an allocated char * in struct registry_record. */
struct reg_str {
	const char	*name;		/* JSON member */
	size_t		 off;
	int		 optional;	/* may be NULL, written only if set */
};

/* A string field held in a fixed array in struct registry_record. */
struct reg_fixed {
	const char	*name;
	size_t		 off;
	size_t		 size;		/* of the array, with its NUL */
};

#define REG_FIELD(f)	offsetof(struct registry_record, f)
#define REG_STRP(rec, f)	((char **)(void *)((char *)(rec) + (f)->off))
#define REG_STRV(rec, f)	\
	(*(char *const *)(const void *)((const char *)(rec) + (f)->off))

static const struct reg_str reg_strs[] = {
	{ "backend", REG_FIELD(backend), 0 },
	{ "target", REG_FIELD(target), 0 },
	{ "sshConfig", REG_FIELD(ssh_config), 1 },
	{ "user", REG_FIELD(user), 0 },
	{ "host", REG_FIELD(host), 0 },
	{ "remoteRoot", REG_FIELD(remote_root), 0 },
	{ "key", REG_FIELD(key), 0 },
	{ "workspace", REG_FIELD(workspace), 0 },
	{ "provider", REG_FIELD(provider), 1 },
	{ "providerName", REG_FIELD(provider_name), 1 },
	{ "proxyCommand", REG_FIELD(proxy_command), 1 },
	{ "identityFile", REG_FIELD(identity_file), 1 },
	{ "hostKeyAlias", REG_FIELD(host_key_alias), 1 },
	{ "execWrap", REG_FIELD(exec_wrap), 1 },
	{ "knownHostsFile", REG_FIELD(known_hosts), 1 },
	{ "providerImage", REG_FIELD(provider_image), 1 },
	{ "providerPolicy", REG_FIELD(provider_policy), 1 },
	{ "providerGpus", REG_FIELD(provider_gpus), 1 },
	{ NULL, 0, 0 }
};

static const struct reg_fixed reg_fixeds[] = {
	{ "id", REG_FIELD(id), SANDBOX_ID_LEN + 1 },
	{ "image", REG_FIELD(settings.image), SANDBOX_REF_MAX + 1 },
	{ "configHash", REG_FIELD(config_hash), SANDBOX_HASH_LEN + 1 },
	{ NULL, 0, 0 }
};

/* Fail with "FILE: field 'name': message" and the context's error. */
static int __attribute__((__format__(__printf__, 3, 4)))
reg_field_fail(const struct reg_ctx *ctx, const char *name,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	if (ctx->cause == NULL)
		return ctx->err;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	*ctx->cause = xasprintf("%s: field '%s': %s", ctx->file, name, msg);
	free(msg);
	return ctx->err;
}

/* Fail unless id is a well-formed sandbox id (safe to use in a path). */
static int
reg_id_check(const char *id, char **cause)
{
	if (id == NULL || !sandbox_id_ok(id))
		return claw_fail(cause, CLAW_ERR_INVAL, "invalid sandbox id");
	return 0;
}

/* Choose the state directory in the order registry.h gives. */
static int
reg_resolve(const char *override, const char *home, char **dir,
    char **cause)
{
	const char	*env;
	char		*s;
	size_t		 len;

	if (override != NULL && *override == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "empty state directory");
	if (override != NULL)
		s = xstrdup(override);
	else if ((env = getenv("CLAWSSH_STATE_DIR")) != NULL && *env != '\0')
		s = xstrdup(env);
	else if ((env = getenv("XDG_STATE_HOME")) != NULL && *env == '/')
		s = xasprintf("%s/clawssh", env);
	else if (home != NULL && *home == '/')
		s = xasprintf("%s/.local/state/clawssh", home);
	else
		return claw_fail(cause, CLAW_ERR_INVAL, "no state directory: "
		    "set CLAWSSH_STATE_DIR or HOME");
	len = strlen(s);
	while (len > 1 && s[len - 1] == '/')
		s[--len] = '\0';
	*dir = s;
	return 0;
}

/* Create directory name (relative to dfd) with mode 0700 if missing. */
static int
reg_mkdir(int dfd, const char *name, const char *label, char **cause)
{
	if (mkdirat(dfd, name, 0700) == 0 || errno == EEXIST)
		return 0;
	return claw_fail_errno(cause, label, "cannot create directory");
}

/* Create dir and any missing parents, each 0700. */
static int
reg_mkdirs(const char *dir, char **cause)
{
	char	*s, *p;
	int	 r = 0;

	s = xstrdup(dir);
	for (p = s + 1; r == 0 && (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		r = reg_mkdir(AT_FDCWD, s, s, cause);
		*p = '/';
	}
	if (r == 0)
		r = reg_mkdir(AT_FDCWD, s, s, cause);
	free(s);
	return r;
}

/* Open directory name (relative to dfd), made first if mk, refusing links. */
static int
reg_opendir(int dfd, const char *name, const char *label, int mk, int *fdp,
    char **cause)
{
	struct stat	sb;
	int		fd, r;

	if (mk && (r = reg_mkdir(dfd, name, label, cause)) != 0)
		return r;
	fd = openat(dfd, name, O_RDONLY|O_DIRECTORY|O_NOFOLLOW|O_CLOEXEC);
	if (fd != -1) {
		*fdp = fd;
		return 0;
	}
	if (errno != ELOOP && errno != ENOTDIR)
		return claw_fail_errno(cause, label, "cannot open directory");
	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(sb.st_mode))
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: is a symbolic link", label);
	return claw_fail(cause, CLAW_ERR_INVAL, "%s: not a directory", label);
}

/* Open the state directory and its subdirectories into reg. */
static int
reg_open_dirs(struct registry *reg, char **cause)
{
	int	dfd = -1, r;

	if ((r = reg_mkdirs(reg->dir, cause)) != 0)
		return r;
	if ((r = reg_opendir(AT_FDCWD, reg->dir, reg->dir, 0, &dfd,
	    cause)) != 0)
		return r;
	r = reg_opendir(dfd, "sandboxes", reg->sbdir, 1, &reg->sbfd, cause);
	if (r == 0)
		r = reg_opendir(dfd, "locks", reg->lockdir, 1, &reg->lockdirfd,
		    cause);
	close(dfd);
	return r;
}

/* Open (creating if needed) the state directory; see registry.h. */
int
registry_open(const char *override, const char *home, struct registry **out,
    char **cause)
{
	struct registry	*reg;
	char		*dir = NULL;
	int		 r;

	if ((r = reg_resolve(override, home, &dir, cause)) != 0)
		return r;
	reg = xcalloc(1, sizeof(*reg));
	reg->dir = dir;
	reg->sbdir = xasprintf("%s/sandboxes", dir);
	reg->lockdir = xasprintf("%s/locks", dir);
	reg->sbfd = reg->lockdirfd = reg->lockfd = -1;
	if ((r = reg_open_dirs(reg, cause)) != 0) {
		registry_close(reg);
		return r;
	}
	*out = reg;
	return 0;
}

/* Close the registry, releasing any lock; NULL is fine. */
void
registry_close(struct registry *reg)
{
	if (reg == NULL)
		return;
	registry_unlock(reg);
	if (reg->sbfd != -1)
		close(reg->sbfd);
	if (reg->lockdirfd != -1)
		close(reg->lockdirfd);
	free(reg->dir);
	free(reg->sbdir);
	free(reg->lockdir);
	free(reg);
}

/* Return the state directory in use. */
const char *
registry_dir(const struct registry *reg)
{
	return reg->dir;
}

/* The file of id's record; see registry.h. */
char *
registry_record_path(const struct registry *reg, const char *id)
{
	return xasprintf("%s/%s%s", reg->sbdir, id, REG_SUFFIX);
}

/* Take the exclusive lock for id, waiting for it; see registry.h. */
int
registry_lock(struct registry *reg, const char *id, char **cause)
{
	char	*name, *path;
	int	 fd, r = 0;

	if ((r = reg_id_check(id, cause)) != 0)
		return r;
	if (reg->lockfd != -1)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: a sandbox lock is already held", reg->lockdir);
	name = xasprintf("%s.lock", id);
	path = xasprintf("%s/%s", reg->lockdir, name);
	fd = openat(reg->lockdirfd, name, O_RDWR|O_CREAT|O_NOFOLLOW|O_CLOEXEC,
	    0600);
	if (fd == -1)
		r = claw_fail_errno(cause, path, "cannot open lock");
	else {
		while ((r = flock(fd, LOCK_EX)) == -1 && errno == EINTR)
			;
		if (r == -1) {
			r = claw_fail_errno(cause, path, "cannot lock");
			close(fd);
		} else
			reg->lockfd = fd;
	}
	free(name);
	free(path);
	return r;
}

/* Release the lock held, if any. */
void
registry_unlock(struct registry *reg)
{
	if (reg == NULL || reg->lockfd == -1)
		return;
	close(reg->lockfd);
	reg->lockfd = -1;
}

/* Free a record and everything it owns; NULL is fine. */
void
registry_record_free(struct registry_record *rec)
{
	const struct reg_str	*f;

	if (rec == NULL)
		return;
	for (f = reg_strs; f->name != NULL; f++)
		free(*REG_STRP(rec, f));
	free(rec);
}

/* Free a NULL-terminated array of records; NULL is fine. */
void
registry_records_free(struct registry_record **recs)
{
	size_t	i;

	if (recs == NULL)
		return;
	for (i = 0; recs[i] != NULL; i++)
		registry_record_free(recs[i]);
	free(recs);
}

/* Return a deep copy of rec (NULL for NULL). */
struct registry_record *
registry_record_dup(const struct registry_record *rec)
{
	struct registry_record	*dup;
	const struct reg_str	*f;
	const char		*s;

	if (rec == NULL)
		return NULL;
	dup = xmalloc(sizeof(*dup));
	memcpy(dup, rec, sizeof(*dup));
	for (f = reg_strs; f->name != NULL; f++) {
		s = REG_STRV(rec, f);
		*REG_STRP(dup, f) = s != NULL ? xstrdup(s) : NULL;
	}
	return dup;
}

/* Check one allocated string field of rec: present, short, printable. */
static int
reg_check_str(const struct reg_ctx *ctx, const struct registry_record *rec,
    const struct reg_str *f)
{
	const unsigned char	*p;
	const char		*s = REG_STRV(rec, f);

	if (s == NULL)
		return f->optional ? 0 : reg_field_fail(ctx, f->name,
		    "missing");
	if (*s == '\0')
		return reg_field_fail(ctx, f->name, "empty");
	if (strlen(s) > REG_STR_MAX)
		return reg_field_fail(ctx, f->name, "longer than %d bytes",
		    REG_STR_MAX);
	for (p = (const unsigned char *)s; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return reg_field_fail(ctx, f->name,
			    "contains a control character");
	}
	return 0;
}

/* Check the fields the sandbox module judges: remoteRoot, key, image. */
static int
reg_check_sandbox(const struct reg_ctx *ctx,
    const struct registry_record *rec)
{
	const char	*bad = NULL;
	char		*why = NULL;
	int		 r;

	if (sandbox_root_check(rec->remote_root, &why) != 0)
		bad = "remoteRoot";
	else if (sandbox_key_check(rec->scope, rec->key, &why) != 0)
		bad = "key";
	else if (sandbox_image_check_for(rec->settings.runtime,
	    rec->settings.image, &why) != 0)
		bad = "image";
	else if (rec->settings.user[0] != '\0' &&
	    sandbox_user_check(rec->settings.user, &why) != 0)
		bad = "runAs";
	if (bad == NULL)
		return 0;
	r = reg_field_fail(ctx, bad, "%s", why != NULL ? why : "invalid");
	free(why);
	return r;
}

/* Check every field of rec; the error is ctx->err naming the field. */
static int
reg_check(const struct reg_ctx *ctx, const struct registry_record *rec)
{
	const struct reg_fixed	*x;
	const struct reg_str	*f;
	int			 r;

	for (x = reg_fixeds; x->name != NULL; x++) {
		if (memchr((const char *)rec + x->off, '\0', x->size) == NULL)
			return reg_field_fail(ctx, x->name, "too long");
	}
	if (!sandbox_id_ok(rec->id))
		return reg_field_fail(ctx, "id", "not a sandbox id");
	for (f = reg_strs; f->name != NULL; f++) {
		if ((r = reg_check_str(ctx, rec, f)) != 0)
			return r;
	}
	if (rec->port < 1 || rec->port > 65535)
		return reg_field_fail(ctx, "port", "not from 1 to 65535");
	if ((unsigned)rec->scope > SANDBOX_SCOPE_SHARED)
		return reg_field_fail(ctx, "scope", "not a known scope");
	if ((unsigned)rec->settings.mode > SANDBOX_MODE_REMOTE)
		return reg_field_fail(ctx, "mode", "not a known mode");
	if ((unsigned)rec->settings.access > SANDBOX_ACCESS_NONE)
		return reg_field_fail(ctx, "access", "not a known access");
	if ((r = reg_check_sandbox(ctx, rec)) != 0)
		return r;
	if (strlen(rec->config_hash) != SANDBOX_HASH_LEN ||
	    strspn(rec->config_hash, "0123456789abcdef") != SANDBOX_HASH_LEN)
		return reg_field_fail(ctx, "configHash",
		    "not %d lower-case hex digits", SANDBOX_HASH_LEN);
	if (rec->workspace[0] != '/')
		return reg_field_fail(ctx, "workspace", "not an absolute path");
	if (rec->created < 0 || rec->created > (int64_t)REG_TIME_MAX)
		return reg_field_fail(ctx, "created", "out of range");
	return 0;
}

/* Find string member name of obj; *s is NULL if optional and absent. */
static int
reg_get_string(const struct reg_ctx *ctx, const cJSON *obj,
    const char *name, int optional, const char **s)
{
	const cJSON	*item;

	item = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (optional && (item == NULL || cJSON_IsNull(item))) {
		*s = NULL;
		return 0;
	}
	if (item == NULL)
		return reg_field_fail(ctx, name, "missing");
	if (!cJSON_IsString(item) || item->valuestring == NULL)
		return reg_field_fail(ctx, name, "expected a string");
	*s = item->valuestring;
	return 0;
}

/* Find whole-number member name of obj, from min to max. */
static int
reg_get_int(const struct reg_ctx *ctx, const cJSON *obj, const char *name,
    double min, double max, int64_t *v)
{
	const cJSON	*item;
	double		 d;

	item = cJSON_GetObjectItemCaseSensitive(obj, name);
	if (item == NULL)
		return reg_field_fail(ctx, name, "missing");
	d = item->valuedouble;
	if (!cJSON_IsNumber(item) || !(d >= min && d <= max) ||
	    d != (double)(int64_t)d)
		return reg_field_fail(ctx, name,
		    "expected a whole number from %.0f to %.0f", min, max);
	*v = (int64_t)d;
	return 0;
}

/* Read the optional "limits" object into rec's settings. */
static int
reg_get_limits(const struct reg_ctx *ctx, const cJSON *obj,
    struct registry_record *rec)
{
	const cJSON	*item;
	char		*why = NULL;
	int		 r;

	item = cJSON_GetObjectItemCaseSensitive(obj, "limits");
	if (item == NULL)
		return 0;
	if (contain_limits_from_json(item, &rec->settings.limits, &why) == 0)
		return 0;
	r = reg_field_fail(ctx, "limits", "%s", why);
	free(why);
	return r;
}

/* Copy the string members of obj into the fields of rec. */
static int
reg_get_strings(const struct reg_ctx *ctx, const cJSON *obj,
    struct registry_record *rec)
{
	const struct reg_fixed	*x;
	const struct reg_str	*f;
	const char		*s = NULL;
	int			 r;

	for (x = reg_fixeds; x->name != NULL; x++) {
		if ((r = reg_get_string(ctx, obj, x->name, 0, &s)) != 0)
			return r;
		if (strlen(s) >= x->size)
			return reg_field_fail(ctx, x->name,
			    "longer than %zu bytes", x->size - 1);
		strlcpy((char *)rec + x->off, s, x->size);
	}
	for (f = reg_strs; f->name != NULL; f++) {
		if ((r = reg_get_string(ctx, obj, f->name, f->optional,
		    &s)) != 0)
			return r;
		if (s != NULL)
			*REG_STRP(rec, f) = xstrdup(s);
	}
	return 0;
}

/*
 * Parse the enum members of obj (scope, mode, access; runtime and
 * network, which older records lack: none) into rec.
 */
static int
reg_get_enums(const struct reg_ctx *ctx, const cJSON *obj,
    struct registry_record *rec)
{
	const char	*s = NULL;
	int		 r;

	if ((r = reg_get_string(ctx, obj, "scope", 0, &s)) != 0)
		return r;
	if (sandbox_scope_parse(s, &rec->scope) != 0)
		return reg_field_fail(ctx, "scope", "not a known scope");
	if ((r = reg_get_string(ctx, obj, "mode", 0, &s)) != 0)
		return r;
	if (sandbox_mode_parse(s, &rec->settings.mode) != 0)
		return reg_field_fail(ctx, "mode", "not a known mode");
	if ((r = reg_get_string(ctx, obj, "access", 0, &s)) != 0)
		return r;
	if (sandbox_access_parse(s, &rec->settings.access) != 0)
		return reg_field_fail(ctx, "access", "not a known access");
	s = NULL;
	if ((r = reg_get_string(ctx, obj, "runtime", 1, &s)) != 0)
		return r;
	if (s != NULL && contain_runtime_parse(s, &rec->settings.runtime) != 0)
		return reg_field_fail(ctx, "runtime", "not a known runtime");
	s = NULL;
	if ((r = reg_get_string(ctx, obj, "network", 1, &s)) != 0)
		return r;
	if (s != NULL && contain_network_parse(s, &rec->settings.network) != 0)
		return reg_field_fail(ctx, "network", "not a known network");
	s = NULL;
	if ((r = reg_get_string(ctx, obj, "runAs", 1, &s)) != 0)
		return r;
	if (s != NULL && strlcpy(rec->settings.user, s,
	    sizeof rec->settings.user) >= sizeof rec->settings.user)
		return reg_field_fail(ctx, "runAs", "too long");
	s = NULL;
	if ((r = reg_get_string(ctx, obj, "workdir", 1, &s)) != 0)
		return r;
	if (s != NULL && sandbox_workdir_parse(s, &rec->settings.workdir) != 0)
		return reg_field_fail(ctx, "workdir", "not a known workdir");
	return 0;
}

/* Fill rec from the JSON object root; unknown members are ignored. */
static int
reg_decode(const struct reg_ctx *ctx, const cJSON *root,
    struct registry_record *rec)
{
	int64_t	v = 0;
	int	r;

	if (!cJSON_IsObject(root))
		return claw_fail(ctx->cause, ctx->err, "%s: not a JSON object",
		    ctx->file);
	if ((r = reg_get_strings(ctx, root, rec)) != 0)
		return r;
	if ((r = reg_get_int(ctx, root, "port", 1, 65535, &v)) != 0)
		return r;
	rec->port = (int)v;
	if ((r = reg_get_int(ctx, root, "created", 0, REG_TIME_MAX,
	    &rec->created)) != 0)
		return r;
	if ((r = reg_get_limits(ctx, root, rec)) != 0)
		return r;
	if (cJSON_GetObjectItemCaseSensitive(root, "gpus") != NULL) {
		if ((r = reg_get_int(ctx, root, "gpus", -1, SANDBOX_GPUS_MAX,
		    &v)) != 0)
			return r;
		rec->settings.gpus = (int)v;
	}
	return reg_get_enums(ctx, root, rec);
}

/* Read all of fd (at most REG_FILE_MAX bytes) into an allocated buffer. */
static int
reg_read_fd(int fd, const char *path, char **textp, size_t *lenp,
    char **cause)
{
	char	*text = xmalloc(REG_FILE_MAX + 1);
	size_t	 len = 0;
	ssize_t	 n;

	while (len <= REG_FILE_MAX) {
		n = read(fd, text + len, REG_FILE_MAX + 1 - len);
		if (n == 0)
			break;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			free(text);
			return claw_fail_errno(cause, path, "cannot read");
		}
		len += (size_t)n;
	}
	if (len > REG_FILE_MAX) {
		free(text);
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "%s: larger than %d KiB", path, REG_FILE_MAX / 1024);
	}
	*textp = text;
	*lenp = len;
	return 0;
}

/* Read record file name (a regular file, not a link) in sandboxes/. */
static int
reg_read(struct registry *reg, const char *name, const char *path,
    char **textp, size_t *lenp, char **cause)
{
	struct stat	sb;
	int		fd, r;

	fd = openat(reg->sbfd, name, O_RDONLY|O_NOFOLLOW|O_NONBLOCK|O_CLOEXEC);
	if (fd == -1 && errno == ENOENT)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "%s: no such record",
		    path);
	if (fd == -1 && errno == ELOOP)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s: is a symbolic link", path);
	if (fd == -1)
		return claw_fail_errno(cause, path, "cannot open");
	if (fstat(fd, &sb) == -1)
		r = claw_fail_errno(cause, path, "cannot stat");
	else if (!S_ISREG(sb.st_mode))
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: not a regular file",
		    path);
	else
		r = reg_read_fd(fd, path, textp, lenp, cause);
	close(fd);
	return r;
}

/* Parse and check text as the record for id, from file path. */
static int
reg_parse(const char *id, const char *path, const char *text, size_t len,
    struct registry_record *rec, char **cause)
{
	struct reg_ctx	 ctx = { path, cause, CLAW_ERR_PARSE };
	cJSON		*root;
	int		 r;

	if ((r = jsonc_parse(path, text, len, &root, cause)) != 0)
		return r;
	r = reg_decode(&ctx, root, rec);
	cJSON_Delete(root);
	if (r == 0 && (r = reg_check(&ctx, rec)) != 0)
		r = CLAW_ERR_PARSE;
	if (r == 0 && strcmp(rec->id, id) != 0)
		r = reg_field_fail(&ctx, "id", "does not match the file name");
	return r;
}

/* Load and check the record for the (valid) id. */
static int
reg_load(struct registry *reg, const char *id, struct registry_record **out,
    char **cause)
{
	struct registry_record	*rec;
	char			*name, *path, *text = NULL;
	size_t			 len = 0;
	int			 r;

	name = xasprintf("%s%s", id, REG_SUFFIX);
	path = xasprintf("%s/%s", reg->sbdir, name);
	rec = xcalloc(1, sizeof(*rec));
	if ((r = reg_read(reg, name, path, &text, &len, cause)) == 0)
		r = reg_parse(id, path, text, len, rec, cause);
	if (r == 0) {
		*out = rec;
		rec = NULL;
	}
	registry_record_free(rec);
	free(text);
	free(name);
	free(path);
	return r;
}

/* Load the record for id; see registry.h. */
int
registry_get(struct registry *reg, const char *id,
    struct registry_record **out, char **cause)
{
	int	r;

	if ((r = reg_id_check(id, cause)) != 0)
		return r;
	return reg_load(reg, id, out, cause);
}

/* Build the JSON object for rec; NULL if cJSON runs out of memory. */
static cJSON *
reg_encode(const struct registry_record *rec)
{
	const struct reg_fixed	*x;
	const struct reg_str	*f;
	cJSON			*o;
	int			 ok = 1;

	if ((o = cJSON_CreateObject()) == NULL)
		return NULL;
	for (x = reg_fixeds; x->name != NULL; x++)
		ok = ok && cJSON_AddStringToObject(o, x->name,
		    (const char *)rec + x->off) != NULL;
	for (f = reg_strs; f->name != NULL; f++) {
		if (REG_STRV(rec, f) != NULL)
			ok = ok && cJSON_AddStringToObject(o, f->name,
			    REG_STRV(rec, f)) != NULL;
	}
	ok = ok && cJSON_AddNumberToObject(o, "port", rec->port) != NULL &&
	    cJSON_AddNumberToObject(o, "created",
	    (double)rec->created) != NULL &&
	    cJSON_AddStringToObject(o, "scope",
	    sandbox_scope_name(rec->scope)) != NULL &&
	    cJSON_AddStringToObject(o, "mode",
	    sandbox_mode_name(rec->settings.mode)) != NULL &&
	    cJSON_AddStringToObject(o, "access",
	    sandbox_access_name(rec->settings.access)) != NULL &&
	    cJSON_AddStringToObject(o, "runtime",
	    contain_runtime_name(rec->settings.runtime)) != NULL &&
	    cJSON_AddStringToObject(o, "network",
	    contain_network_name(rec->settings.network)) != NULL &&
	    cJSON_AddItemToObject(o, "limits",
	    contain_limits_json(&rec->settings.limits)) &&
	    cJSON_AddNumberToObject(o, "gpus", rec->settings.gpus) != NULL &&
	    (rec->settings.user[0] == '\0' || cJSON_AddStringToObject(o,
	    "runAs", rec->settings.user) != NULL) &&
	    (rec->settings.workdir == SANDBOX_WORKDIR_WORKSPACE ||
	    cJSON_AddStringToObject(o, "workdir",
	    sandbox_workdir_name(rec->settings.workdir)) != NULL);
	if (!ok) {
		cJSON_Delete(o);
		return NULL;
	}
	return o;
}

/* Return rec as JSON text ending in a newline, or NULL (no memory). */
static char *
reg_encode_text(const struct registry_record *rec)
{
	cJSON	*o;
	char	*s, *text;

	if ((o = reg_encode(rec)) == NULL)
		return NULL;
	s = cJSON_Print(o);
	cJSON_Delete(o);
	if (s == NULL)
		return NULL;
	text = xasprintf("%s\n", s);
	cJSON_free(s);
	return text;
}

/* Return a fresh temporary name "<id>.json.tmp.<pid>.<random hex>". */
static char *
reg_tmp_name(const char *id)
{
	uint64_t	rnd;

	arc4random_buf(&rnd, sizeof rnd);
	return xasprintf("%s%s.tmp.%ld.%016llx", id, REG_SUFFIX,
	    (long)getpid(), (unsigned long long)rnd);
}

/* Create the new file tmp in sandboxes/ holding text, synced to disk. */
static int
reg_write_tmp(struct registry *reg, const char *tmp, const char *text,
    size_t len, char **cause)
{
	char	*path;
	int	 fd, r = 0;

	path = xasprintf("%s/%s", reg->sbdir, tmp);
	fd = openat(reg->sbfd, tmp,
	    O_WRONLY|O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC, 0600);
	if (fd == -1) {
		r = claw_fail_errno(cause, path, "cannot create");
		free(path);
		return r;
	}
	if (fdio_write_all(fd, text, len) != 0)
		r = claw_fail_errno(cause, path, "cannot write");
	else if (fsync(fd) != 0)
		r = claw_fail_errno(cause, path, "cannot sync");
	if (close(fd) != 0 && r == 0)
		r = claw_fail_errno(cause, path, "cannot close");
	if (r != 0)
		unlinkat(reg->sbfd, tmp, 0);
	free(path);
	return r;
}

/* Replace sandboxes/name with text atomically: temporary file, rename. */
static int
reg_write(struct registry *reg, const char *id, const char *name,
    const char *text, char **cause)
{
	char	*tmp = NULL, *path;
	int	 r;

	tmp = reg_tmp_name(id);
	path = xasprintf("%s/%s", reg->sbdir, name);
	if ((r = reg_write_tmp(reg, tmp, text, strlen(text), cause)) != 0)
		goto out;
	if (renameat(reg->sbfd, tmp, reg->sbfd, name) != 0) {
		r = claw_fail_errno(cause, path, "cannot replace");
		unlinkat(reg->sbfd, tmp, 0);
	} else if (fsync(reg->sbfd) != 0)
		r = claw_fail_errno(cause, reg->sbdir, "cannot sync");
out:
	free(tmp);
	free(path);
	return r;
}

/* Check rec and write it atomically; see registry.h. */
int
registry_put(struct registry *reg, const struct registry_record *rec,
    char **cause)
{
	struct reg_ctx	 ctx = { NULL, cause, CLAW_ERR_INVAL };
	char		*name, *path, *text = NULL;
	int		 r;

	if (memchr(rec->id, '\0', sizeof(rec->id)) == NULL ||
	    !sandbox_id_ok(rec->id))
		return reg_id_check(NULL, cause);
	name = xasprintf("%s%s", rec->id, REG_SUFFIX);
	path = xasprintf("%s/%s", reg->sbdir, name);
	ctx.file = path;
	if ((r = reg_check(&ctx, rec)) != 0)
		goto out;
	if ((text = reg_encode_text(rec)) == NULL)
		r = claw_fail(cause, CLAW_ERR_NOMEM, "%s: out of memory", path);
	else if (strlen(text) > REG_FILE_MAX)
		r = claw_fail(cause, CLAW_ERR_INVAL, "%s: larger than %d KiB",
		    path, REG_FILE_MAX / 1024);
	else
		r = reg_write(reg, rec->id, name, text, cause);
out:
	free(text);
	free(name);
	free(path);
	return r;
}

/* Remove the record for id; a missing one is not an error. */
int
registry_remove(struct registry *reg, const char *id, char **cause)
{
	char	*name, *path;
	int	 r = 0;

	if ((r = reg_id_check(id, cause)) != 0)
		return r;
	name = xasprintf("%s%s", id, REG_SUFFIX);
	path = xasprintf("%s/%s", reg->sbdir, name);
	if (unlinkat(reg->sbfd, name, 0) == 0) {
		if (fsync(reg->sbfd) != 0)
			r = claw_fail_errno(cause, reg->sbdir, "cannot sync");
	} else if (errno != ENOENT)
		r = claw_fail_errno(cause, path, "cannot remove");
	free(name);
	free(path);
	return r;
}

/* Copy the id out of directory entry name "<id>.json"; 0 if not one. */
static int
reg_entry_id(const char *name, char id[SANDBOX_ID_LEN + 1])
{
	size_t	len = strlen(name), slen = strlen(REG_SUFFIX);

	if (len != SANDBOX_ID_LEN + slen ||
	    strcmp(name + SANDBOX_ID_LEN, REG_SUFFIX) != 0)
		return 0;
	memcpy(id, name, SANDBOX_ID_LEN);
	id[SANDBOX_ID_LEN] = '\0';
	return sandbox_id_ok(id);
}

/* Order records by id, for qsort. */
static int
reg_cmp(const void *a, const void *b)
{
	const struct registry_record	*const *ra = a, *const *rb = b;

	return strcmp((*ra)->id, (*rb)->id);
}

/* Load the record for directory entry name into recs; warn if corrupt. */
static void
reg_list_one(struct registry *reg, const char *name,
    struct registry_record ***recs, size_t *n, size_t *cap)
{
	struct registry_record	*rec;
	char			 id[SANDBOX_ID_LEN + 1];
	char			*why = NULL;
	int			 r;

	if (!reg_entry_id(name, id))
		return;
	if ((r = reg_load(reg, id, &rec, &why)) != 0) {
		if (r != CLAW_ERR_NOTFOUND)
			log_warn("skipping sandbox record: %s", why);
		free(why);
		return;
	}
	if (*n + 1 >= *cap) {
		*cap *= 2;
		*recs = xreallocarray(*recs, *cap, sizeof(**recs));
	}
	(*recs)[(*n)++] = rec;
	(*recs)[*n] = NULL;
}

/* Open the sandboxes directory for reading from the start. */
static int
reg_list_open(struct registry *reg, DIR **dp, char **cause)
{
	DIR	*d;
	int	 fd;

	if ((fd = fcntl(reg->sbfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return claw_fail_errno(cause, reg->sbdir,
		    "cannot open directory");
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return claw_fail_errno(cause, reg->sbdir,
		    "cannot open directory");
	}
	rewinddir(d);
	*dp = d;
	return 0;
}

/* Load every record, sorted by id; see registry.h. */
int
registry_list(struct registry *reg, struct registry_record ***out,
    size_t *n, char **cause)
{
	struct registry_record	**recs;
	struct dirent		 *de;
	DIR			 *d = NULL;
	size_t			  nrecs = 0, cap = 16;
	int			  r;

	if ((r = reg_list_open(reg, &d, cause)) != 0)
		return r;
	recs = xcalloc(cap, sizeof(*recs));
	for (;;) {
		errno = 0;
		if ((de = readdir(d)) == NULL)
			break;
		reg_list_one(reg, de->d_name, &recs, &nrecs, &cap);
	}
	if (errno != 0)
		r = claw_fail_errno(cause, reg->sbdir, "cannot read directory");
	closedir(d);
	if (r != 0) {
		registry_records_free(recs);
		return r;
	}
	qsort(recs, nrecs, sizeof(*recs), reg_cmp);
	*out = recs;
	*n = nrecs;
	return 0;
}
