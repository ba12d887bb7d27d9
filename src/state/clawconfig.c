/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clawssh configuration file.  The JSON tree is checked against a fixed
 * schema: each object has a table of keys, each key a type, a field offset
 * in struct claw_config and, for integers, a maximum; a nested object
 * (a section, or sandbox.prune) has the table of its own keys.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "compat.h"
#include "buf.h"
#include "clawconfig.h"
#include "contain.h"
#include "error.h"
#include "jsonc.h"
#include "log.h"
#include "policy.h"
#include "sandbox.h"
#include "sshconfig.h"
#include "xmalloc.h"

enum config_type {
	CONFIG_PATH,		/* string, leading ~ expanded */
	CONFIG_INT,		/* whole number from 0 to max */
	CONFIG_BOOL,		/* true or false, as 1 or 0 */
	CONFIG_STRICT,		/* "yes" | "accept-new" | "no" */
	CONFIG_ENV,		/* object of string values */
	CONFIG_OBJECT,		/* object checked against keys in sub */
	CONFIG_ROOT,		/* remote path, sandbox_root_check */
	CONFIG_IMAGE,		/* config_image_check */
	CONFIG_USER,		/* sandbox_user_check */
	CONFIG_SCOPE,		/* enum sandbox_scope by name */
	CONFIG_MODE,		/* enum sandbox_mode by name */
	CONFIG_ACCESS,		/* enum sandbox_access by name */
	CONFIG_RUNTIME,		/* enum contain_runtime by name */
	CONFIG_NETWORK,		/* enum contain_network by name */
	CONFIG_WORKDIR,		/* enum sandbox_workdir by name */
	CONFIG_EXCLUDE,		/* array of pattern strings */
	CONFIG_SIZE,		/* int64: a number, or "512M" and the like */
	CONFIG_CPUS,		/* int64 thousandths: 1.5, "1.5", "500m" */
	CONFIG_POLICY,		/* policy_parse */
	CONFIG_OFFPATH,		/* like CONFIG_PATH, "" allowed (off) */
	CONFIG_PROVIDERS	/* object of provider objects */
};

struct config_key {
	const char		*name;
	enum config_type	 type;
	size_t			 off;	/* field in struct claw_config */
	int			 min;	/* CONFIG_INT only */
	int			 max;	/* CONFIG_INT only */
	const struct config_key	*sub;	/* CONFIG_OBJECT only */
};

/* What every step of the schema check needs. */
struct config_ctx {
	const char		*file;
	const char		*home;
	struct claw_config	*cfg;
	char			**cause;
};

#define CONFIG_FIELD(f)	offsetof(struct claw_config, f)
#define CONFIG_KEY(name, type, field, max) \
	{ name, type, CONFIG_FIELD(field), 0, max, NULL }
/* An integer key whose 0 would mean nothing useful: min to max. */
#define CONFIG_RANGE(name, field, min, max) \
	{ name, CONFIG_INT, CONFIG_FIELD(field), min, max, NULL }
#define CONFIG_SUB(name, sub)	{ name, CONFIG_OBJECT, 0, 0, 0, sub }
#define CONFIG_END		{ NULL, CONFIG_INT, 0, 0, 0, NULL }

static const struct config_key config_ssh_keys[] = {
	CONFIG_KEY("configFile", CONFIG_PATH, ssh_config_file, 0),
	CONFIG_KEY("connectTimeout", CONFIG_INT, connect_timeout, 86400),
	CONFIG_KEY("strictHostKeyChecking", CONFIG_STRICT, strict, 0),
	CONFIG_KEY("knownHostsFile", CONFIG_PATH, known_hosts_file, 0),
	CONFIG_KEY("identityFile", CONFIG_PATH, identity_file, 0),
	CONFIG_KEY("passphraseFile", CONFIG_PATH, passphrase_file, 0),
	CONFIG_END
};

static const struct config_key config_exec_keys[] = {
	CONFIG_KEY("timeout", CONFIG_INT, exec_timeout, 31536000),
	CONFIG_KEY("env", CONFIG_ENV, env, 0),
	CONFIG_END
};

static const struct config_key config_log_keys[] = {
	CONFIG_KEY("verbose", CONFIG_INT, verbose, 3),
	CONFIG_END
};

static const struct config_key config_prune_keys[] = {
	CONFIG_KEY("idleHours", CONFIG_INT, prune_idle_hours, 87600),
	CONFIG_KEY("maxAgeDays", CONFIG_INT, prune_max_age_days, 36500),
	CONFIG_END
};

static const struct config_key config_limits_keys[] = {
	CONFIG_KEY("memory", CONFIG_SIZE, limits.memory, 0),
	CONFIG_KEY("processes", CONFIG_SIZE, limits.nproc, 0),
	CONFIG_KEY("cpuSeconds", CONFIG_SIZE, limits.cpu, 0),
	CONFIG_KEY("fileSize", CONFIG_SIZE, limits.fsize, 0),
	CONFIG_KEY("openFiles", CONFIG_SIZE, limits.nofile, 0),
	CONFIG_KEY("cpus", CONFIG_CPUS, limits.cpus, 0),
	CONFIG_END
};

static const struct config_key config_sandbox_keys[] = {
	CONFIG_KEY("remoteRoot", CONFIG_ROOT, remote_root, 0),
	CONFIG_KEY("scope", CONFIG_SCOPE, sandbox_scope, 0),
	CONFIG_KEY("mode", CONFIG_MODE, sandbox_mode, 0),
	CONFIG_KEY("access", CONFIG_ACCESS, sandbox_access, 0),
	CONFIG_KEY("image", CONFIG_IMAGE, sandbox_image, 0),
	CONFIG_KEY("runtime", CONFIG_RUNTIME, sandbox_runtime, 0),
	CONFIG_KEY("network", CONFIG_NETWORK, sandbox_network, 0),
	CONFIG_KEY("user", CONFIG_USER, sandbox_user, 0),
	CONFIG_KEY("workdir", CONFIG_WORKDIR, sandbox_workdir, 0),
	CONFIG_KEY("strictConfig", CONFIG_BOOL, strict_config, 0),
	CONFIG_SUB("prune", config_prune_keys),
	CONFIG_SUB("limits", config_limits_keys),
	CONFIG_END
};

static const struct config_key config_sync_keys[] = {
	CONFIG_KEY("exclude", CONFIG_EXCLUDE, sync_exclude, 0),
	CONFIG_KEY("pushGit", CONFIG_BOOL, sync_push_git, 0),
	CONFIG_END
};

static const struct config_key config_daemon_keys[] = {
	CONFIG_KEY("autostart", CONFIG_BOOL, daemon_autostart, 0),
	CONFIG_KEY("socket", CONFIG_PATH, daemon_socket, 0),
	CONFIG_KEY("idleTimeout", CONFIG_INT, daemon_idle_timeout, 604800),
	CONFIG_RANGE("maxSessions", daemon_max_sessions, 1, 1000),
	CONFIG_RANGE("maxConnections", daemon_max_conns, 1, 64),
	CONFIG_RANGE("maxRequestBytes", daemon_max_line, 1024, 1073741824),
	CONFIG_RANGE("maxWorkers", daemon_max_workers, 1, 4096),
	CONFIG_END
};

static const struct config_key config_mcp_keys[] = {
	CONFIG_RANGE("maxResult", mcp_max_result, 4096, 268435456),
	CONFIG_END
};

static const struct config_key config_audit_keys[] = {
	CONFIG_KEY("file", CONFIG_OFFPATH, audit_file, 0),
	CONFIG_END
};

static const struct config_key config_top_keys[] = {
	CONFIG_SUB("ssh", config_ssh_keys),
	CONFIG_SUB("exec", config_exec_keys),
	CONFIG_SUB("log", config_log_keys),
	CONFIG_SUB("sandbox", config_sandbox_keys),
	CONFIG_SUB("sync", config_sync_keys),
	CONFIG_SUB("daemon", config_daemon_keys),
	CONFIG_SUB("mcp", config_mcp_keys),
	CONFIG_KEY("policy", CONFIG_POLICY, policy, 0),
	CONFIG_SUB("audit", config_audit_keys),
	{ "providers", CONFIG_PROVIDERS, 0, 0, 0, NULL },
	CONFIG_END
};

static int	config_object(const struct config_ctx *,
		    const struct config_key *, const cJSON *, const char *);

/* Set *cause (if wanted) to "FILE: message" and return err. */
static int __attribute__((__format__(__printf__, 3, 4)))
config_fail(const struct config_ctx *ctx, int err, const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	if (ctx->cause == NULL)
		return err;
	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	*ctx->cause = xasprintf("%s: %s", ctx->file, msg);
	free(msg);
	return err;
}

/* Fail if two members of object obj share a name. */
static int
config_check_dups(const struct config_ctx *ctx, const cJSON *obj,
    const char *prefix)
{
	const char	*dup = jsonc_dup_member(obj);
	char		*key;
	int		 r;

	if (dup == NULL)
		return 0;
	key = jsonc_key_path(prefix, dup);
	r = config_fail(ctx, CLAW_ERR_PARSE, "duplicate key '%s'", key);
	free(key);
	return r;
}

/* Fail with "unknown key 'prefix.name'". */
static int
config_unknown(const struct config_ctx *ctx, const char *prefix,
    const char *name)
{
	char	*key;
	int	 r;

	key = jsonc_key_path(prefix, name);
	r = config_fail(ctx, CLAW_ERR_PARSE, "unknown key '%s'", key);
	free(key);
	return r;
}

/* Store a whole number from min to max. */
static int
config_set_int(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int min, int max, int *dst)
{
	double	d;

	if (!cJSON_IsNumber(item))
		goto bad;
	d = item->valuedouble;
	if (!(d >= min && d <= max) || d != (double)(int)d)
		goto bad;
	*dst = (int)d;
	return 0;
bad:
	return config_fail(ctx, CLAW_ERR_PARSE,
	    "%s: expected an integer from %d to %d", key, min, max);
}

/* Store a StrictHostKeyChecking value as an enum sshconfig_strict. */
static int
config_set_strict(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int *dst)
{
	const char	*s = cJSON_GetStringValue(item);

	if (s != NULL && strcmp(s, "yes") == 0)
		*dst = SSHCONFIG_STRICT_YES;
	else if (s != NULL && strcmp(s, "accept-new") == 0)
		*dst = SSHCONFIG_STRICT_ACCEPT_NEW;
	else if (s != NULL && strcmp(s, "no") == 0)
		*dst = SSHCONFIG_STRICT_NO;
	else
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected \"yes\", \"accept-new\" or \"no\"", key);
	return 0;
}

/* Store a path, expanding "~" and a leading "~/" with the home directory. */
static int
config_set_path(const struct config_ctx *ctx, const cJSON *item,
    const char *key, char **dst)
{
	const char	*s = cJSON_GetStringValue(item), *rest;
	size_t		 hlen;

	if (s == NULL || *s == '\0')
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected a non-empty string", key);
	free(*dst);
	if (s[0] != '~' || (s[1] != '\0' && s[1] != '/')) {
		*dst = xstrdup(s);
		return 0;
	}
	if (ctx->home == NULL || *ctx->home == '\0')
		return config_fail(ctx, CLAW_ERR_INVAL,
		    "%s: cannot expand ~ without a home directory", key);
	hlen = strlen(ctx->home);
	rest = s + 1;
	if (hlen > 1 && ctx->home[hlen - 1] == '/' && *rest == '/')
		rest++;
	*dst = xasprintf("%s%s", ctx->home, rest);
	return 0;
}

/* Return 1 if name matches [A-Za-z_][A-Za-z0-9_]*. */
static int
config_env_name_ok(const char *name)
{
	const char	*p;

	if (*name == '\0' || (*name >= '0' && *name <= '9'))
		return 0;
	for (p = name; *p != '\0'; p++) {
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	}
	return 1;
}

/* Append one exec.env member to the config. */
static int
config_add_env(const struct config_ctx *ctx, const cJSON *item,
    const char *key)
{
	struct claw_config	*cfg = ctx->cfg;
	char			*sub;
	int			 r;

	sub = jsonc_key_path(key, item->string);
	if (!config_env_name_ok(item->string))
		r = config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: invalid variable name", sub);
	else if (!cJSON_IsString(item) || item->valuestring == NULL)
		r = config_fail(ctx, CLAW_ERR_PARSE, "%s: expected a string",
		    sub);
	else {
		cfg->env[cfg->nenv].name = xstrdup(item->string);
		cfg->env[cfg->nenv].value = xstrdup(item->valuestring);
		cfg->nenv++;
		r = 0;
	}
	free(sub);
	return r;
}

/* Store exec.env: an object whose members are variable names and values. */
static int
config_set_env(const struct config_ctx *ctx, const cJSON *item,
    const char *key)
{
	const cJSON	*e;
	int		 n, r;

	if (!cJSON_IsObject(item))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected an object", key);
	if ((r = config_check_dups(ctx, item, key)) != 0)
		return r;
	if ((n = cJSON_GetArraySize(item)) == 0)
		return 0;
	ctx->cfg->env = xcalloc((size_t)n, sizeof(*ctx->cfg->env));
	for (e = item->child; e != NULL; e = e->next) {
		if ((r = config_add_env(ctx, e, key)) != 0)
			return r;
	}
	return 0;
}

/* Store true or false as 1 or 0; other JSON types are errors. */
static int
config_set_bool(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int *dst)
{
	if (!cJSON_IsBool(item))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected true or false", key);
	*dst = cJSON_IsTrue(item) ? 1 : 0;
	return 0;
}

/*
 * Check sandbox.image: an image store name or, for docker and podman, an
 * image reference (provision checks it against the runtime in force).
 */
static int
config_image_check(const char *image, char **why)
{
	if (sandbox_image_check_for(CONTAIN_DOCKER, image, NULL) == 0)
		return 0;
	return sandbox_image_check(image, why);
}

/* Store a string that check accepts, as is (remote: no ~ expansion). */
static int
config_set_checked(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int (*check)(const char *, char **), char **dst)
{
	const char	*s = cJSON_GetStringValue(item);
	char		*why = NULL;
	int		 r;

	if (s == NULL)
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected a string", key);
	if (check(s, &why) != 0) {
		r = config_fail(ctx, CLAW_ERR_PARSE, "%s: %s", key,
		    why != NULL ? why : "invalid");
		free(why);
		return r;
	}
	free(*dst);
	*dst = xstrdup(s);
	return 0;
}

/* Return the name table of a sandbox enum of this type. */
static const struct names *
config_enum_names(enum config_type type)
{
	switch (type) {
	case CONFIG_SCOPE:
		return &sandbox_scope_names;
	case CONFIG_MODE:
		return &sandbox_mode_names;
	case CONFIG_RUNTIME:
		return &contain_runtime_names;
	case CONFIG_NETWORK:
		return &contain_network_names;
	case CONFIG_WORKDIR:
		return &sandbox_workdir_names;
	default:
		return &sandbox_access_names;
	}
}

/* Store a sandbox scope, mode or access name as its enum value. */
static int
config_set_enum(const struct config_ctx *ctx, const cJSON *item,
    const char *key, enum config_type type, int *dst)
{
	const struct names	*t = config_enum_names(type);
	char			*list;
	int			 v, rc;

	if ((v = names_find(t, cJSON_GetStringValue(item))) >= 0) {
		*dst = v;
		return 0;
	}
	list = names_list(t, 1);
	rc = config_fail(ctx, CLAW_ERR_PARSE, "%s: expected %s", key, list);
	free(list);
	return rc;
}

#define CONFIG_EXCLUDE_MAX	1000	/* patterns in sync.exclude */
#define CONFIG_PATTERN_MAX	4096	/* bytes in one pattern */

/* Store sync.exclude: an array of non-empty pattern strings. */
static int
config_set_exclude(const struct config_ctx *ctx, const cJSON *item,
    const char *key)
{
	const cJSON	*v;
	size_t		 n = 0;

	if (!cJSON_IsArray(item))
		return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected an array "
		    "of pattern strings", key);
	cJSON_ArrayForEach(v, item) {
		if (!cJSON_IsString(v) || v->valuestring[0] == '\0' ||
		    strlen(v->valuestring) > CONFIG_PATTERN_MAX ||
		    ++n > CONFIG_EXCLUDE_MAX)
			return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected "
			    "at most %d non-empty pattern strings", key,
			    CONFIG_EXCLUDE_MAX);
	}
	ctx->cfg->sync_exclude = xcalloc(n + 1, sizeof *ctx->cfg->sync_exclude);
	n = 0;
	cJSON_ArrayForEach(v, item)
		ctx->cfg->sync_exclude[n++] = xstrdup(v->valuestring);
	ctx->cfg->nsync_exclude = n;
	return 0;
}

/* Store a size or count: a whole number, or a string like "512M". */
static int
config_set_size(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int64_t *dst)
{
	char	*why = NULL;
	int	 r;

	if (cJSON_IsNumber(item) && item->valuedouble >= 0 &&
	    item->valuedouble <= CONTAIN_LIMIT_MAX &&
	    item->valuedouble == (double)(int64_t)item->valuedouble) {
		*dst = (int64_t)item->valuedouble;
		return 0;
	}
	if (!cJSON_IsString(item))
		return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected a whole "
		    "number or a size such as \"512M\"", key);
	if (contain_size_parse(item->valuestring, dst, &why) == 0)
		return 0;
	r = config_fail(ctx, CLAW_ERR_PARSE, "%s: %s", key, why);
	free(why);
	return r;
}

/* Store a number of CPUs (a number or a string) as thousandths. */
static int
config_set_cpus(const struct config_ctx *ctx, const cJSON *item,
    const char *key, int64_t *dst)
{
	char	*why = NULL;
	int	 r;

	if (contain_cpus_json(item, dst, &why) == 0)
		return 0;
	r = config_fail(ctx, CLAW_ERR_PARSE, "%s: %s", key, why);
	free(why);
	return r;
}

/* Store the policy object through policy_parse. */
static int
config_set_policy(const struct config_ctx *ctx, const cJSON *item,
    const char *key)
{
	struct claw_policy	*p;
	char			*why = NULL;
	int			 r;

	if ((r = policy_parse(item, key, &p, &why)) != 0) {
		r = config_fail(ctx, r, "%s", why != NULL ? why : key);
		free(why);
		return r;
	}
	policy_free(ctx->cfg->policy);
	ctx->cfg->policy = p;
	return 0;
}

/* Store a path that may be "" (the feature turned off). */
static int
config_set_offpath(const struct config_ctx *ctx, const cJSON *item,
    const char *key, char **dst)
{
	const char	*s = cJSON_GetStringValue(item);

	if (s == NULL)
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected a string (\"\" for none)", key);
	if (*s != '\0')
		return config_set_path(ctx, item, key, dst);
	free(*dst);
	*dst = xstrdup("");
	return 0;
}

#define CONFIG_PROVIDERS_MAX	64	/* entries in "providers" */
#define CONFIG_PROVIDER_NAME	64	/* bytes in a provider name */
#define CONFIG_PROVIDER_ARGS	64	/* entries in providers.NAME.args */

/* Store providers.NAME.args: an array of strings. */
static int
config_provider_args(const struct config_ctx *ctx, const cJSON *item,
    const char *key, struct claw_provider *p)
{
	const cJSON	*v;
	size_t		 n = 0;

	if (!cJSON_IsArray(item))
		return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected an "
		    "array of strings", key);
	cJSON_ArrayForEach(v, item) {
		if (!cJSON_IsString(v) || ++n > CONFIG_PROVIDER_ARGS)
			return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected "
			    "at most %d strings", key, CONFIG_PROVIDER_ARGS);
	}
	p->args = xcalloc(n + 1, sizeof *p->args);
	cJSON_ArrayForEach(v, item)
		p->args[p->nargs++] = xstrdup(v->valuestring);
	return 0;
}

/* Store one member of a provider object. */
static int
config_provider_key(const struct config_ctx *ctx, const cJSON *m,
    const char *key, struct claw_provider *p)
{
	static const char *const drivers[] = { "openshell", "slurm",
	    "command", "kubernetes", NULL };
	const char	*s = cJSON_GetStringValue(m);
	size_t		 i;

	if (strcmp(m->string, "command") == 0)
		return config_set_path(ctx, m, key, &p->command);
	if (strcmp(m->string, "timeout") == 0)
		return config_set_int(ctx, m, key, 0, 86400, &p->timeout);
	if (strcmp(m->string, "readyTimeout") == 0)
		return config_set_int(ctx, m, key, 0, 604800,
		    &p->ready_timeout);
	if (strcmp(m->string, "args") == 0)
		return config_provider_args(ctx, m, key, p);
	if (strcmp(m->string, "driver") != 0)
		return config_fail(ctx, CLAW_ERR_PARSE, "unknown key '%s'",
		    key);
	for (i = 0; s != NULL && drivers[i] != NULL; i++) {
		if (strcmp(s, drivers[i]) == 0) {
			p->driver = xstrdup(s);
			return 0;
		}
	}
	return config_fail(ctx, CLAW_ERR_PARSE, "%s: expected \"openshell\", "
	    "\"slurm\", \"command\" or \"kubernetes\"", key);
}

/* Check and store one provider object. */
static int
config_provider_one(const struct config_ctx *ctx, const cJSON *item,
    const char *key, struct claw_provider *p)
{
	const cJSON	*m;
	char		*mkey;
	int		 r;

	if (!cJSON_IsObject(item))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected an object", key);
	if ((r = config_check_dups(ctx, item, key)) != 0)
		return r;
	for (m = item->child; m != NULL; m = m->next) {
		mkey = jsonc_key_path(key, m->string);
		r = config_provider_key(ctx, m, mkey, p);
		free(mkey);
		if (r != 0)
			return r;
	}
	if (p->driver == NULL)
		return config_fail(ctx, CLAW_ERR_PARSE, "%s: missing "
		    "\"driver\"", key);
	if (p->timeout == 0)
		return config_fail(ctx, CLAW_ERR_PARSE, "%s.timeout: expected "
		    "an integer from 1 to 86400", key);
	return 0;
}

/* Store "providers": provider objects keyed by a plain name. */
static int
config_set_providers(const struct config_ctx *ctx, const cJSON *item,
    const char *key)
{
	struct claw_config	*cfg = ctx->cfg;
	struct claw_provider	*p;
	const cJSON		*m;
	char			*pkey;
	int			 r;

	if (!cJSON_IsObject(item))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected an object", key);
	if ((r = config_check_dups(ctx, item, key)) != 0)
		return r;
	for (m = item->child; m != NULL; m = m->next) {
		pkey = jsonc_key_path(key, m->string);
		if (m->string[0] == '\0' || strlen(m->string) >
		    CONFIG_PROVIDER_NAME || m->string[strspn(m->string,
		    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		    "0123456789_.-")] != '\0' ||
		    cfg->nproviders >= CONFIG_PROVIDERS_MAX)
			r = config_fail(ctx, CLAW_ERR_PARSE, "%s: a provider "
			    "name is 1 to %d of A-Z a-z 0-9 _ . - (at most %d "
			    "providers)", pkey, CONFIG_PROVIDER_NAME,
			    CONFIG_PROVIDERS_MAX);
		else {
			cfg->providers = xreallocarray(cfg->providers,
			    cfg->nproviders + 1, sizeof *cfg->providers);
			p = &cfg->providers[cfg->nproviders++];
			memset(p, 0, sizeof *p);
			p->name = xstrdup(m->string);
			p->timeout = 60;
			p->ready_timeout = 300;
			r = config_provider_one(ctx, m, pkey, p);
		}
		free(pkey);
		if (r != 0)
			return r;
	}
	return 0;
}

/* The provider called name; see clawconfig.h. */
const struct claw_provider *
config_provider(const struct claw_config *cfg, const char *name)
{
	size_t	i;

	for (i = 0; cfg != NULL && i < cfg->nproviders; i++) {
		if (strcmp(cfg->providers[i].name, name) == 0)
			return &cfg->providers[i];
	}
	return NULL;
}

/* Store one schema key from item. */
static int
config_set(const struct config_ctx *ctx, const struct config_key *k,
    const cJSON *item, const char *key)
{
	char	*field = (char *)ctx->cfg + k->off;

	switch (k->type) {
	case CONFIG_PATH:
		return config_set_path(ctx, item, key, (char **)(void *)field);
	case CONFIG_INT:
		return config_set_int(ctx, item, key, k->min, k->max,
		    (int *)(void *)field);
	case CONFIG_BOOL:
		return config_set_bool(ctx, item, key, (int *)(void *)field);
	case CONFIG_STRICT:
		return config_set_strict(ctx, item, key, (int *)(void *)field);
	case CONFIG_ENV:
		return config_set_env(ctx, item, key);
	case CONFIG_OBJECT:
		return config_object(ctx, k->sub, item, key);
	case CONFIG_ROOT:
		return config_set_checked(ctx, item, key, sandbox_root_check,
		    (char **)(void *)field);
	case CONFIG_IMAGE:
		return config_set_checked(ctx, item, key, config_image_check,
		    (char **)(void *)field);
	case CONFIG_USER:
		return config_set_checked(ctx, item, key, sandbox_user_check,
		    (char **)(void *)field);
	case CONFIG_SCOPE:
	case CONFIG_MODE:
	case CONFIG_ACCESS:
	case CONFIG_RUNTIME:
	case CONFIG_NETWORK:
	case CONFIG_WORKDIR:
		return config_set_enum(ctx, item, key, k->type,
		    (int *)(void *)field);
	case CONFIG_EXCLUDE:
		return config_set_exclude(ctx, item, key);
	case CONFIG_SIZE:
		return config_set_size(ctx, item, key, (int64_t *)(void *)field);
	case CONFIG_CPUS:
		return config_set_cpus(ctx, item, key,
		    (int64_t *)(void *)field);
	case CONFIG_POLICY:
		return config_set_policy(ctx, item, key);
	case CONFIG_OFFPATH:
		return config_set_offpath(ctx, item, key,
		    (char **)(void *)field);
	case CONFIG_PROVIDERS:
		return config_set_providers(ctx, item, key);
	}
	return config_fail(ctx, CLAW_ERR_INVAL, "%s: unhandled type", key);
}

/* Check and store one member of an object whose schema is keys. */
static int
config_member(const struct config_ctx *ctx, const struct config_key *keys,
    const char *prefix, const cJSON *item)
{
	const struct config_key	*k;
	char			*key;
	int			 r;

	for (k = keys; k->name != NULL; k++) {
		if (strcmp(k->name, item->string) == 0)
			break;
	}
	if (k->name == NULL)
		return config_unknown(ctx, prefix, item->string);
	key = jsonc_key_path(prefix, k->name);
	r = config_set(ctx, k, item, key);
	free(key);
	return r;
}

/* Check object item, at key path (NULL: the top level), against keys. */
static int
config_object(const struct config_ctx *ctx, const struct config_key *keys,
    const cJSON *item, const char *path)
{
	const cJSON	*m;
	int		 r;

	if (!cJSON_IsObject(item))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "%s: expected an object", path);
	if ((r = config_check_dups(ctx, item, path)) != 0)
		return r;
	for (m = item->child; m != NULL; m = m->next) {
		if ((r = config_member(ctx, keys, path, m)) != 0)
			return r;
	}
	return 0;
}

/* Check the whole tree against the schema, filling ctx->cfg. */
static int
config_apply(const struct config_ctx *ctx, const cJSON *root)
{
	if (!cJSON_IsObject(root))
		return config_fail(ctx, CLAW_ERR_PARSE,
		    "expected an object at the top level");
	return config_object(ctx, config_top_keys, root, NULL);
}

/* Wipe every string value in a JSON tree (exec.env may hold secrets). */
static void
config_wipe_json(cJSON *item)
{
	for (; item != NULL; item = item->next) {
		if (item->valuestring != NULL)
			explicit_bzero(item->valuestring,
			    strlen(item->valuestring));
		config_wipe_json(item->child);
	}
}

/* Return base/rest without doubling a trailing slash of base. */
static char *
config_join(const char *base, const char *rest)
{
	size_t	len = strlen(base);

	while (len > 1 && base[len - 1] == '/')
		len--;
	return xasprintf("%.*s/%s", (int)len, base, rest);
}

/* Return the default config path; see clawconfig.h. */
char *
config_default_path(const char *home)
{
	const char	*xdg;

	if ((xdg = getenv("XDG_CONFIG_HOME")) != NULL && xdg[0] == '/')
		return config_join(xdg, "clawssh/config.json");
	if (home == NULL || *home == '\0')
		return NULL;
	return config_join(home, ".config/clawssh/config.json");
}

/* Return a config holding only the defaults. */
static struct claw_config *
config_new(void)
{
	struct claw_config	*cfg;

	cfg = xcalloc(1, sizeof(*cfg));
	cfg->strict = -1;
	cfg->sandbox_scope = -1;
	cfg->sandbox_mode = -1;
	cfg->sandbox_access = -1;
	cfg->sandbox_runtime = -1;
	cfg->limits.memory = cfg->limits.nproc = cfg->limits.cpu = -1;
	cfg->limits.fsize = cfg->limits.nofile = cfg->limits.cpus = -1;
	cfg->sandbox_network = -1;
	cfg->sandbox_workdir = -1;
	cfg->prune_idle_hours = -1;
	cfg->prune_max_age_days = -1;
	cfg->daemon_idle_timeout = -1;
	cfg->daemon_autostart = -1;
	return cfg;
}

/* Read the file at path into cfg; missing is fine if optional. */
static int
config_read(struct claw_config *cfg, const char *path, int optional,
    const char *home, char **cause)
{
	struct config_ctx	 ctx = { path, home, cfg, cause };
	cJSON			*root = NULL;
	char			*why = NULL;
	int			 r;

	r = jsonc_load_file(path, &root, &why);
	if (r == CLAW_ERR_NOTFOUND && optional) {
		log_debug("no config file at %s, using defaults", path);
		free(why);
		return 0;
	}
	if (r != 0) {
		if (cause != NULL)
			*cause = why;
		else
			free(why);
		return r;
	}
	cfg->path = xstrdup(path);
	r = config_apply(&ctx, root);
	config_wipe_json(root);
	cJSON_Delete(root);
	return r;
}

/* Load the configuration; see clawconfig.h. */
int
config_load(const char *path, const char *home, struct claw_config **out,
    char **cause)
{
	struct claw_config	*cfg;
	char			*dflt = NULL;
	int			 r = 0;

	cfg = config_new();
	if (path != NULL)
		r = config_read(cfg, path, 0, home, cause);
	else if ((dflt = config_default_path(home)) != NULL)
		r = config_read(cfg, dflt, 1, home, cause);
	free(dflt);
	if (r != 0) {
		config_free(cfg);
		return r;
	}
	*out = cfg;
	return 0;
}

/* Free a config, wiping the environment values; NULL is fine. */
void
config_free(struct claw_config *cfg)
{
	size_t	i;

	if (cfg == NULL)
		return;
	for (i = 0; i < cfg->nenv; i++) {
		free(cfg->env[i].name);
		freezero(cfg->env[i].value, strlen(cfg->env[i].value));
	}
	free(cfg->env);
	free(cfg->path);
	free(cfg->ssh_config_file);
	free(cfg->known_hosts_file);
	free(cfg->identity_file);
	free(cfg->passphrase_file);
	free(cfg->remote_root);
	free(cfg->sandbox_image);
	free(cfg->daemon_socket);
	free(cfg->sandbox_user);
	for (i = 0; i < cfg->nsync_exclude; i++)
		free(cfg->sync_exclude[i]);
	free(cfg->sync_exclude);
	policy_free(cfg->policy);
	free(cfg->audit_file);
	for (i = 0; i < cfg->nproviders; i++) {
		free(cfg->providers[i].name);
		free(cfg->providers[i].driver);
		free(cfg->providers[i].command);
		while (cfg->providers[i].nargs > 0)
			free(cfg->providers[i].args[--cfg->providers[i].nargs]);
		free(cfg->providers[i].args);
	}
	free(cfg->providers);
	free(cfg);
}
