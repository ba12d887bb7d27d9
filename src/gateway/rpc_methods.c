/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The JSON-RPC methods: params -> worker argv, worker output -> result
 * (see rpc_methods.h and docs/protocol.md).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base64.h"
#include "contain.h"
#include "fstore.h"
#include "jsonrpc.h"
#include "process.h"
#include "pty.h"
#include "rpc_methods.h"
#include "rpc_params.h"
#include "sandbox.h"
#include "signals.h"
#include "xmalloc.h"

#define RM_WORD_MAX	255	/* host, user, names */
#define RM_OPTIONS_MAX	64	/* ssh_options entries */
#define RM_PATHS_MAX	1024	/* sync paths */

struct rpc_method {
	const char		*name;
	int			(*build)(struct rpc_params *,
			    struct rpc_call *);
	enum rpc_result_kind	 result;
	const char		*key;	/* result member, NULL: JSON as is */
	int			 idempotent;
};

/* 1 if s has no control character (C0 or DEL). */
static int
rm_clean(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	return 1;
}

/* The connection params every method takes. */
static int
rm_conn(struct rpc_params *rp)
{
	const cJSON	*a, *v;
	const char	*s;
	int64_t		 port;
	int		 has, n = 0;

	if (rp_string(rp, "config", RP_NONEMPTY | RP_NODASH, RPC_PATH_MAX,
	    &s) == 0 && s != NULL)
		rp_argf(rp, "--config=%s", s);
	if (rp_string(rp, "ssh_config", RP_NONEMPTY | RP_NODASH,
	    RPC_PATH_MAX, &s) == 0 && s != NULL) {
		rp_arg(rp, "-F");
		rp_arg(rp, s);
	}
	if (rp_string(rp, "state_dir", RP_NONEMPTY | RP_NODASH, RPC_PATH_MAX,
	    &s) == 0 && s != NULL)
		rp_argf(rp, "--state-dir=%s", s);
	if (rp_string(rp, "passphrase_file", RP_NONEMPTY | RP_NODASH,
	    RPC_PATH_MAX, &s) == 0 && s != NULL)
		rp_argf(rp, "--passphrase-file=%s", s);
	if (rp_string(rp, "user", RP_NONEMPTY | RP_NODASH | RP_WORD,
	    RM_WORD_MAX, &s) == 0 && s != NULL) {
		rp_arg(rp, "-l");
		rp_arg(rp, s);
	}
	if (rp_int(rp, "port", 1, 65535, &port, &has) == 0 && has) {
		rp_arg(rp, "-p");
		rp_argf(rp, "%lld", (long long)port);
	}
	if ((a = rp_get(rp, "ssh_options")) == NULL)
		return rp->msg != NULL ? -1 : 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > RM_OPTIONS_MAX)
		return rp_fail(rp, "params.ssh_options: expected an array of "
		    "at most %d \"Key=Value\" strings", RM_OPTIONS_MAX);
	cJSON_ArrayForEach(v, a) {
		s = cJSON_GetStringValue(v);
		if (s == NULL || *s == '-' || strchr(s, '=') == NULL ||
		    *s == '=' || strlen(s) > 1024 || !rm_clean(s))
			return rp_fail(rp, "params.ssh_options[%d]: expected "
			    "a \"Key=Value\" string", n);
		rp_arg(rp, "-o");
		rp_arg(rp, s);
		n++;
	}
	return rp->msg != NULL ? -1 : 0;
}

/* The sandbox id param (required), checked and recorded in the call. */
static int
rm_sandbox(struct rpc_params *rp, struct rpc_call *c, const char **id)
{
	if (rp_string(rp, "sandbox", RP_REQUIRED, 64, id) != 0)
		return -1;
	if (!sandbox_id_ok(*id))
		return rp_fail(rp, "params.sandbox: expected a sandbox id "
		    "('c' and 12 characters of a-z 2-7, as provision "
		    "printed)");
	c->sandbox = xstrdup(*id);
	return 0;
}

/* The host param, recorded in the call. */
static int
rm_host(struct rpc_params *rp, struct rpc_call *c, int flags,
    const char **host)
{
	if (rp_string(rp, "host", flags | RP_NONEMPTY | RP_NODASH | RP_WORD,
	    RM_WORD_MAX, host) != 0)
		return -1;
	if (*host != NULL)
		c->host = xstrdup(*host);
	return 0;
}

/* "-s ID" for the sandbox param. */
static int
rm_sandbox_opt(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*id;

	if (rm_sandbox(rp, c, &id) != 0)
		return -1;
	return rp_argf(rp, "--sandbox=%s", id);
}

/* A path operand param: 1..RPC_PATH_MAX bytes, no control characters. */
static int
rm_path(struct rpc_params *rp, const char *key, int flags, const char **p)
{
	return rp_string(rp, key, flags | RP_NONEMPTY, RPC_PATH_MAX, p);
}

/* An array of argument strings (the command), appended after "--". */
static int
rm_command(struct rpc_params *rp, const char *key)
{
	const cJSON	*a, *v;
	int		 i = 0;

	if ((a = rp_get(rp, key)) == NULL)
		return rp_fail(rp, "params.%s: required", key);
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) == 0)
		return rp_fail(rp, "params.%s: expected a non-empty array of "
		    "strings", key);
	if (!cJSON_IsString(a->child) || *a->child->valuestring == '\0')
		return rp_fail(rp, "params.%s[0]: expected a non-empty string",
		    key);
	rp_arg(rp, "--");
	cJSON_ArrayForEach(v, a) {
		if (!cJSON_IsString(v))
			return rp_fail(rp, "params.%s[%d]: expected a string",
			    key, i);
		if (rp_arg(rp, v->valuestring) != 0)
			return -1;
		i++;
	}
	return 0;
}

/* Names that would change the local worker itself if set in its env. */
int
rpc_env_name_ok(const char *name)
{
	static const char *const prefix[] = {
		"LD_", "DYLD_", "MALLOC_", "XDG_", "SSH_", "CLAWSSH_", "GCONV_",
		"OPENSSL_", "SSL_", "LC_", "LOC", "RES_", "TERMINFO", "TZ",
		"NLSPATH", "HOSTALIASES", "GLIBC_", "ASAN_", "UBSAN_", "LSAN_"
	};
	static const char *const exact[] = {
		"HOME", "PATH", "SHELL", "USER", "LOGNAME", "IFS", "ENV",
		"BASH_ENV", "TMPDIR", "LANG", "LANGUAGE", "POSIXLY_CORRECT",
		"TERM", "PWD", "OLDPWD", "SHLVL", "MAIL"
	};
	const char	*p;
	size_t		 i;

	if (*name == '\0' || strlen(name) > RM_WORD_MAX ||
	    (*name >= '0' && *name <= '9'))
		return 0;
	for (p = name; *p != '\0'; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
		    (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	for (i = 0; i < sizeof prefix / sizeof *prefix; i++)
		if (strncmp(name, prefix[i], strlen(prefix[i])) == 0)
			return 0;
	for (i = 0; i < sizeof exact / sizeof *exact; i++)
		if (strcmp(name, exact[i]) == 0)
			return 0;
	return 1;
}

/* Add one env entry to the call and "--env=NAME" to argv. */
static int
rm_env_add(struct rpc_params *rp, struct rpc_call *c, const char *name,
    size_t nlen, const char *value, const char *where)
{
	char	*n = xstrndup(name, nlen);
	size_t	 i;

	if (!rpc_env_name_ok(n)) {
		rp_fail(rp, "params.%s: '%s' is not an allowed variable name "
		    "([A-Za-z_][A-Za-z0-9_]*, and not one that changes "
		    "clawssh's own environment)", where, n);
		free(n);
		return -1;
	}
	for (i = 0; i < c->nenv; i++)
		if (strcmp(c->env_names[i], n) == 0) {
			rp_fail(rp, "params.%s: '%s' given twice", where, n);
			free(n);
			return -1;
		}
	if (rp_argf(rp, "--env=%s", n) != 0) {
		free(n);
		return -1;
	}
	c->env_names = xreallocarray(c->env_names, c->nenv + 1,
	    sizeof *c->env_names);
	c->env_values = xreallocarray(c->env_values, c->nenv + 1,
	    sizeof *c->env_values);
	c->env_names[c->nenv] = n;
	c->env_values[c->nenv++] = xstrdup(value);
	return 0;
}

/* The env param: {"NAME": "value", ...} or ["NAME=value", ...]. */
static int
rm_env(struct rpc_params *rp, struct rpc_call *c)
{
	const cJSON	*e, *v;
	const char	*eq;
	char		 where[64];
	int		 i = 0;

	if ((e = rp_get(rp, "env")) == NULL)
		return rp->msg != NULL ? -1 : 0;
	if ((!cJSON_IsObject(e) && !cJSON_IsArray(e)) ||
	    cJSON_GetArraySize(e) > RPC_ENV_MAX)
		return rp_fail(rp, "params.env: expected an object of strings "
		    "or an array of \"NAME=VALUE\" strings (at most %d)",
		    RPC_ENV_MAX);
	cJSON_ArrayForEach(v, e) {
		if (cJSON_IsObject(e)) {
			snprintf(where, sizeof where, "env.%.40s", v->string);
			if (!cJSON_IsString(v))
				return rp_fail(rp, "params.%s: expected a "
				    "string", where);
			eq = NULL;
		} else {
			snprintf(where, sizeof where, "env[%d]", i);
			if (!cJSON_IsString(v) ||
			    (eq = strchr(v->valuestring, '=')) == NULL)
				return rp_fail(rp, "params.%s: expected a "
				    "\"NAME=VALUE\" string", where);
		}
		if (eq == NULL ? rm_env_add(rp, c, v->string, strlen(v->string),
		    v->valuestring, where) : rm_env_add(rp, c, v->valuestring,
		    (size_t)(eq - v->valuestring), eq + 1, where))
			return -1;
		i++;
	}
	return 0;
}

/*
 * exec's pty, cols and rows: -tt (the worker has no terminal of its own)
 * and --size COLSxROWS (80x24 when absent).
 */
static int
rm_exec_pty(struct rpc_params *rp)
{
	int64_t	cols = 80, rows = 24;
	int	pty, hasc, hasr;

	if (rp_bool(rp, "pty", &pty) != 0 ||
	    rp_int(rp, "cols", 1, PTY_SIZE_MAX, &cols, &hasc) != 0 ||
	    rp_int(rp, "rows", 1, PTY_SIZE_MAX, &rows, &hasr) != 0)
		return -1;
	if (!pty) {
		if (hasc || hasr)
			return rp_fail(rp, "params.%s: only with pty: true",
			    hasc ? "cols" : "rows");
		return 0;
	}
	rp_arg(rp, "-tt");
	return rp_argf(rp, "--size=%lldx%lld", (long long)cols,
	    (long long)rows);
}

/* exec: a command on a host or in a sandbox, streamed. */
static int
rm_exec(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*host, *cwd, *id = NULL;
	int64_t		 timeout;
	int		 has, nosync, strict, argc;

	rp_arg(rp, "exec");
	if (rm_host(rp, c, 0, &host) != 0)
		return -1;
	if (host == NULL && rp_get(rp, "sandbox") == NULL)
		return rp_fail(rp, "params: give sandbox or host");
	if (host != NULL && rp_get(rp, "sandbox") != NULL)
		return rp_fail(rp, "params.host: give sandbox or host, not "
		    "both");
	if (host == NULL && rm_sandbox(rp, c, &id) != 0)
		return -1;
	if (host != NULL) {
		rp_argf(rp, "--host=%s", host);
		c->elevated = 1;
	} else
		rp_argf(rp, "--sandbox=%s", id);
	if (rm_path(rp, "cwd", 0, &cwd) == 0 && cwd != NULL) {
		rp_argf(rp, "--cwd=%s", cwd);
		c->exec.cwd = xstrdup(cwd);
	}
	if (rp_int(rp, "timeout", 0, RPC_TIMEOUT_MAX, &timeout, &has) == 0 &&
	    has && timeout > 0) {
		rp_argf(rp, "--timeout=%lld", (long long)timeout);
		c->exec.timeout = (int)timeout;
	}
	if (rp_bool(rp, "no_sync", &nosync) == 0 && nosync) {
		if (host != NULL)
			return rp_fail(rp, "params.no_sync: only with sandbox");
		rp_arg(rp, "--no-sync");
		c->exec.no_sync = 1;
	}
	if (rp_bool(rp, "strict_config", &strict) == 0 && strict)
		rp_arg(rp, "--strict-config");
	argc = rp->argc;
	if (rm_exec_pty(rp) != 0 || rm_env(rp, c) != 0)
		return -1;
	/* the env param adds "--env=NAME" only: no terminal may add */
	c->exec.simple = host == NULL && !strict &&
	    rp->argc - argc == (int)c->nenv;
	c->conn_first = rp->argc;
	if (rm_conn(rp) != 0 ||
	    rp_data(rp, "stdin", "stdin_base64", &c->in, &c->inlen) != 0)
		return -1;
	c->conn_n = rp->argc - c->conn_first;
	c->stream = 1;
	c->exec.argi = rp->argc + 1;	/* after "--" */
	return rm_command(rp, "argv");
}

/* One resource limit: an integer, or a size string ("512M") for sizes. */
static int
rm_limit(struct rpc_params *rp, const char *key, const char *opt, int size)
{
	const cJSON	*v = rp_get(rp, key);
	int64_t		 n;
	char		*cause = NULL;

	if (v == NULL)
		return rp->msg != NULL ? -1 : 0;
	if (cJSON_IsNumber(v) && v->valuedouble >= 0 &&
	    v->valuedouble <= CONTAIN_LIMIT_MAX &&
	    v->valuedouble == (double)(int64_t)v->valuedouble)
		return rp_argf(rp, "--%s=%lld", opt,
		    (long long)v->valuedouble);
	if (size && cJSON_IsString(v) && *v->valuestring != '-' &&
	    contain_size_parse(v->valuestring, &n, &cause) == 0)
		return rp_argf(rp, "--%s=%s", opt, v->valuestring);
	free(cause);
	return rp_fail(rp, "params.%s: expected %s", key, size ?
	    "a non-negative integer or a size such as \"512M\"" :
	    "a non-negative integer");
}

/* The gpu param: an integer or "all". */
static int
rm_gpu(struct rpc_params *rp)
{
	const cJSON	*v = rp_get(rp, "gpu");

	if (v == NULL)
		return rp->msg != NULL ? -1 : 0;
	if (cJSON_IsString(v) && strcmp(v->valuestring, "all") == 0)
		return rp_arg(rp, "--gpu=all");
	if (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
	    v->valuedouble <= SANDBOX_GPUS_MAX &&
	    v->valuedouble == (double)(int)v->valuedouble)
		return rp_argf(rp, "--gpu=%d", (int)v->valuedouble);
	return rp_fail(rp, "params.gpu: expected an integer from 1 to %d, or "
	    "\"all\"", SANDBOX_GPUS_MAX);
}

/* sandbox.provision: get or create a sandbox. */
static int
rm_provision(struct rpc_params *rp, struct rpc_call *c)
{
	static const struct { const char *key, *opt; int size; } lim[] = {
		{ "memory", "memory", 1 }, { "processes", "processes", 0 },
		{ "cpu_seconds", "cpu-seconds", 0 },
		{ "file_size", "file-size", 1 },
		{ "open_files", "open-files", 0 },
	};
	const char	*host, *s;
	size_t		 i;
	int		 strict;

	rp_arg(rp, "provision");
	if (rm_host(rp, c, RP_REQUIRED, &host) != 0)
		return -1;
	rp_argf(rp, "--host=%s", host);
	if (rp_enum(rp, "scope", &sandbox_scope_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--scope=%s", s);
	if (rp_string(rp, "key", RP_NONEMPTY, SANDBOX_KEY_MAX, &s) == 0 &&
	    s != NULL)
		rp_argf(rp, "--key=%s", s);
	if (rm_path(rp, "workspace", RP_NODASH, &s) == 0 && s != NULL) {
		if (*s != '/')
			return rp_fail(rp, "params.workspace: expected an "
			    "absolute path");
		rp_argf(rp, "--workspace=%s", s);
	}
	if (rp_enum(rp, "access", &sandbox_access_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--access=%s", s);
	if (rp_enum(rp, "mode", &sandbox_mode_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--mode=%s", s);
	if (rp_string(rp, "from", RP_NONEMPTY | RP_NODASH | RP_WORD, 128,
	    &s) == 0 && s != NULL)
		rp_argf(rp, "--from=%s", s);
	if (rp_enum(rp, "runtime", &contain_runtime_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--runtime=%s", s);
	if (rp_enum(rp, "network", &contain_network_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--network=%s", s);
	if (rp_enum(rp, "workdir", &sandbox_workdir_names, &s) == 0 && s != NULL)
		rp_argf(rp, "--workdir=%s", s);
	for (i = 0; i < sizeof lim / sizeof *lim; i++)
		rm_limit(rp, lim[i].key, lim[i].opt, lim[i].size);
	rm_gpu(rp);
	if (rm_path(rp, "remote_root", RP_NODASH, &s) == 0 && s != NULL)
		rp_argf(rp, "--remote-root=%s", s);
	if (rp_bool(rp, "strict_config", &strict) == 0 && strict)
		rp_arg(rp, "--strict-config");
	rp_arg(rp, "--json");
	(void)c;
	return rm_conn(rp);
}

/* sandbox.list: every sandbox of the registry. */
static int
rm_list(struct rpc_params *rp, struct rpc_call *c)
{
	(void)c;
	rp_arg(rp, "list");
	rp_arg(rp, "--json");
	return rm_conn(rp);
}

/* sandbox.status|destroy|recreate and sync.status: SUB [--json] -- ID. */
static int
rm_box_op(struct rpc_params *rp, struct rpc_call *c, const char *sub,
    const char *sub2, int json)
{
	const char	*id;

	rp_arg(rp, sub);
	if (sub2 != NULL)
		rp_arg(rp, sub2);
	if (json)
		rp_arg(rp, "--json");
	if (rm_sandbox(rp, c, &id) != 0 || rm_conn(rp) != 0)
		return -1;
	rp_arg(rp, "--");
	return rp_arg(rp, id);
}

/* sandbox.status: one sandbox's record and state. */
static int
rm_status(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "status", NULL, 1);
}

/* sandbox.destroy: remove a sandbox. */
static int
rm_destroy(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "destroy", NULL, 0);
}

/* sandbox.recreate: remake a sandbox with current settings. */
static int
rm_recreate(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "recreate", NULL, 0);
}

/* sync.status: what a sync would move. */
static int
rm_sync_status(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "sync", "status", 0);
}

/* sandbox.prune: remove idle or old sandboxes. */
static int
rm_prune(struct rpc_params *rp, struct rpc_call *c)
{
	int64_t	 v;
	int	 has, dry;

	(void)c;
	rp_arg(rp, "prune");
	if (rp_int(rp, "idle_hours", 0, 1000000, &v, &has) == 0 && has)
		rp_argf(rp, "--idle-hours=%lld", (long long)v);
	if (rp_int(rp, "max_age_days", 0, 100000, &v, &has) == 0 && has)
		rp_argf(rp, "--max-age-days=%lld", (long long)v);
	if (rp_bool(rp, "dry_run", &dry) == 0 && dry)
		rp_arg(rp, "--dry-run");
	return rm_conn(rp);
}

/* sync.push|pull: SUB --json -- ID [PATH...]. */
static int
rm_sync(struct rpc_params *rp, struct rpc_call *c, const char *sub)
{
	const cJSON	*a, *v;
	const char	*id;
	int		 i = 0;

	rp_arg(rp, "sync");
	rp_arg(rp, sub);
	rp_arg(rp, "--json");
	if (rm_sandbox(rp, c, &id) != 0 || rm_conn(rp) != 0)
		return -1;
	rp_arg(rp, "--");
	rp_arg(rp, id);
	if ((a = rp_get(rp, "paths")) == NULL)
		return 0;
	if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > RM_PATHS_MAX)
		return rp_fail(rp, "params.paths: expected an array of at most "
		    "%d paths", RM_PATHS_MAX);
	cJSON_ArrayForEach(v, a) {
		const char	*s = cJSON_GetStringValue(v);

		if (s == NULL || *s == '\0' || strlen(s) > RPC_PATH_MAX ||
		    !rm_clean(s))
			return rp_fail(rp, "params.paths[%d]: expected a "
			    "non-empty path without control characters", i);
		rp_arg(rp, s);
		i++;
	}
	return rp->msg != NULL ? -1 : 0;
}

/* sync.push: local changes up now. */
static int
rm_sync_push(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_sync(rp, c, "push");
}

/* sync.pull: sandbox changes down now. */
static int
rm_sync_pull(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_sync(rp, c, "pull");
}

/* image.list: the images of a host. */
static int
rm_image_list(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*host, *root;

	rp_arg(rp, "image");
	rp_arg(rp, "list");
	if (rm_host(rp, c, RP_REQUIRED, &host) != 0)
		return -1;
	rp_argf(rp, "--host=%s", host);
	if (rm_path(rp, "remote_root", RP_NODASH, &root) == 0 && root != NULL)
		rp_argf(rp, "--remote-root=%s", root);
	rp_arg(rp, "--json");
	return rm_conn(rp);
}

/* fs.*: TOOL --sandbox=ID [options], then the path operand last. */
static int
rm_fs_start(struct rpc_params *rp, struct rpc_call *c, const char *tool)
{
	int64_t	timeout;
	int	has;

	rp_arg(rp, tool);
	c->fs.timeout = -1;
	if (rm_sandbox_opt(rp, c) != 0)
		return -1;
	if (rp_int(rp, "timeout", 0, RPC_TIMEOUT_MAX, &timeout, &has) == 0 &&
	    has) {
		rp_argf(rp, "--timeout=%lld", (long long)timeout);
		c->fs.timeout = (int)timeout;
	}
	if (rp->msg != NULL)
		return -1;
	c->conn_first = rp->argc;
	if (rm_conn(rp) != 0)
		return -1;
	c->conn_n = rp->argc - c->conn_first;
	return 0;
}

/*
 * The path operand, after "--"; with fs set (a tool the daemon may
 * answer itself), also as the CLI takes it into c->fs.
 */
static int
rm_fs_path(struct rpc_params *rp, struct rpc_call *c, int required, int fs)
{
	const char	*p;
	char		*cause = NULL;

	if (rm_path(rp, "path", required ? RP_REQUIRED : 0, &p) != 0)
		return -1;
	if (fs && fstore_path(p != NULL ? p : ".", &c->fs.path, &cause) == 0)
		c->fs.simple = 1;
	free(cause);	/* the worker says it */
	if (p == NULL)
		return 0;
	rp_arg(rp, "--");
	return rp_arg(rp, p);
}

/* The push param of the writing file tools: *push set. */
static int
rm_fs_push(struct rpc_params *rp, int *push)
{
	if (rp_bool(rp, "push", push) == 0 && *push)
		rp_arg(rp, "--push");
	return rp->msg != NULL ? -1 : 0;
}

/* fs.read: a file's content, or a byte or line range of it. */
static int
rm_fs_read(struct rpc_params *rp, struct rpc_call *c)
{
	int64_t	 v;
	int	 has, lines;

	if (rm_fs_start(rp, c, "read") != 0)
		return -1;
	if (rp_int(rp, "offset", 0, INT64_C(1) << 53, &v, &has) == 0 && has) {
		rp_argf(rp, "--offset=%lld", (long long)v);
		c->fs.offset = (uint64_t)v;
	}
	if (rp_int(rp, "limit", 0, INT64_C(1) << 53, &v, &has) == 0 && has) {
		rp_argf(rp, "--limit=%lld", (long long)v);
		c->fs.limit = (uint64_t)v;
	}
	if (rp_bool(rp, "lines", &lines) == 0 && lines) {
		rp_arg(rp, "--lines");
		c->fs.lines = 1;
	}
	return rm_fs_path(rp, c, 1, 1);
}

/* fs.write: replace a file with content (stdin of the worker). */
static int
rm_fs_write(struct rpc_params *rp, struct rpc_call *c)
{
	int	push;

	if (rm_fs_start(rp, c, "write") != 0 || rm_fs_push(rp, &push) != 0)
		return -1;
	if (rp_data(rp, "content", "content_base64", &c->in, &c->inlen) != 0)
		return -1;
	if (c->in == NULL)
		return rp_fail(rp, "params.content: required (or "
		    "content_base64)");
	return rm_fs_path(rp, c, 1, !push);
}

/* fs.edit: replace exact text. */
static int
rm_fs_edit(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*old, *new;
	int		 all, push;

	if (rm_fs_start(rp, c, "edit") != 0 || rm_fs_push(rp, &push) != 0)
		return -1;
	if (rp_string(rp, "old", RP_REQUIRED | RP_NONEMPTY | RP_TEXT,
	    RPC_ARG_MAX - 6, &old) != 0 ||
	    rp_string(rp, "new", RP_REQUIRED | RP_TEXT, RPC_ARG_MAX - 6,
	    &new) != 0)
		return -1;
	rp_argf(rp, "--old=%s", old);
	rp_argf(rp, "--new=%s", new);
	if (rp_bool(rp, "all", &all) == 0 && all) {
		rp_arg(rp, "--all");
		c->fs.all = 1;
	}
	c->fs.old = xstrdup(old);
	c->fs.new = xstrdup(new);
	return rm_fs_path(rp, c, 1, !push);
}

/* fs.applyPatch: a diff or agent patch on stdin. */
static int
rm_fs_patch(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*patch;
	int		 push;

	if (rm_fs_start(rp, c, "apply-patch") != 0 ||
	    rm_fs_push(rp, &push) != 0)
		return -1;
	if (rp_string(rp, "patch", RP_REQUIRED | RP_NONEMPTY | RP_TEXT,
	    SIZE_MAX, &patch) != 0)
		return -1;
	c->inlen = strlen(patch);
	c->in = xstrdup(patch);
	c->fs.simple = !push;
	return 0;
}

/* fs.ls: a directory listing. */
static int
rm_fs_ls(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_fs_start(rp, c, "ls") != 0)
		return -1;
	rp_arg(rp, "--json");
	return rm_fs_path(rp, c, 0, 1);
}

/* fs.stat: one entry. */
static int
rm_fs_stat(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_fs_start(rp, c, "stat") != 0)
		return -1;
	rp_arg(rp, "--json");
	return rm_fs_path(rp, c, 1, 1);
}

/* process SUB --sandbox=ID [--json]. */
static int
rm_proc_start(struct rpc_params *rp, struct rpc_call *c, const char *sub,
    int json)
{
	rp_arg(rp, "process");
	rp_arg(rp, sub);
	if (rm_sandbox_opt(rp, c) != 0 || rm_conn(rp) != 0)
		return -1;
	if (json)
		rp_arg(rp, "--json");
	return rp->msg != NULL ? -1 : 0;
}

/* The handle operand, after "--". */
static int
rm_proc_handle(struct rpc_params *rp)
{
	const char	*h;

	if (rp_string(rp, "handle", RP_REQUIRED, 16, &h) != 0)
		return -1;
	if (!process_handle_ok(h))
		return rp_fail(rp, "params.handle: expected a process handle "
		    "(p and 8 hex digits, as process.start returned)");
	rp_arg(rp, "--");
	return rp_arg(rp, h);
}

/* process.start: a background process. */
static int
rm_process_start(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*name;
	int64_t		 v;
	int		 has, pty;

	if (rm_proc_start(rp, c, "start", 1) != 0)
		return -1;
	if (rp_bool(rp, "pty", &pty) == 0 && pty)
		rp_arg(rp, "--pty");
	if (rp_string(rp, "name", RP_NONEMPTY, PROCESS_NAME_MAX, &name) == 0 &&
	    name != NULL) {
		if (!process_name_ok(name) || *name == '-')
			return rp_fail(rp, "params.name: expected 1 to %d of "
			    "A-Z a-z 0-9 . _ - (not starting with '-')",
			    PROCESS_NAME_MAX);
		rp_argf(rp, "--name=%s", name);
	}
	if (rp_int(rp, "log_max", PROCESS_LOG_MIN, PROCESS_LOG_LIMIT, &v,
	    &has) == 0 && has)
		rp_argf(rp, "--log-max=%lld", (long long)v);
	if (rm_env(rp, c) != 0)
		return -1;
	return rm_command(rp, "argv");
}

/* process.list: a sandbox's background processes. */
static int
rm_process_list(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_proc_start(rp, c, "list", 1);
}

/* process.poll: state and output since the last poll. */
static int
rm_process_poll(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_proc_start(rp, c, "poll", 1) != 0)
		return -1;
	return rm_proc_handle(rp);
}

/* process.log: the end of a process's output. */
static int
rm_process_log(struct rpc_params *rp, struct rpc_call *c)
{
	int64_t	v;
	int	has;

	if (rm_proc_start(rp, c, "log", 1) != 0)
		return -1;
	if (rp_int(rp, "tail", 1, 10000000, &v, &has) == 0 && has)
		rp_argf(rp, "--tail=%lld", (long long)v);
	return rm_proc_handle(rp);
}

/* process.wait: until it exits, or timeout seconds; its state. */
static int
rm_process_wait(struct rpc_params *rp, struct rpc_call *c)
{
	int64_t	v;
	int	has;

	if (rm_proc_start(rp, c, "wait", 1) != 0)
		return -1;
	if (rp_int(rp, "timeout", 0, 31536000, &v, &has) == 0 && has)
		rp_argf(rp, "--timeout=%lld", (long long)v);
	return rm_proc_handle(rp);
}

/* process.write: bytes to a process's stdin, maybe then EOF. */
static int
rm_process_write(struct rpc_params *rp, struct rpc_call *c)
{
	int	eof;

	if (rm_proc_start(rp, c, "write", 0) != 0)
		return -1;
	if (rp_bool(rp, "eof", &eof) == 0 && eof)
		rp_arg(rp, "--eof");
	if (rp_data(rp, "data", "data_base64", &c->in, &c->inlen) != 0)
		return -1;
	if (c->in == NULL && !eof)
		return rp_fail(rp, "params.data: required unless eof is true");
	if (c->in == NULL)
		c->in = xstrdup("");
	return rm_proc_handle(rp);
}

/* process.kill: a signal to a process group. */
static int
rm_process_kill(struct rpc_params *rp, struct rpc_call *c)
{
	const cJSON	*v;

	if (rm_proc_start(rp, c, "kill", 0) != 0)
		return -1;
	if ((v = rp_get(rp, "signal")) != NULL) {
		if (cJSON_IsNumber(v) && v->valuedouble >= 1 &&
		    v->valuedouble <= 64 &&
		    v->valuedouble == (double)(int)v->valuedouble)
			rp_argf(rp, "--signal=%d", (int)v->valuedouble);
		else if (cJSON_IsString(v) && *v->valuestring != '-' &&
		    strlen(v->valuestring) < 16 &&
		    signals_from_name(v->valuestring) != 0)
			rp_argf(rp, "--signal=%s", v->valuestring);
		else
			return rp_fail(rp, "params.signal: expected a signal "
			    "name (\"TERM\", \"SIGKILL\") or number");
	}
	return rm_proc_handle(rp);
}

static const struct rpc_method rpc_methods[] = {
	{ "sandbox.provision", rm_provision, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.list", rm_list, RPC_RESULT_JSON, "sandboxes", 1 },
	{ "sandbox.status", rm_status, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.destroy", rm_destroy, RPC_RESULT_TEXT, "text", 1 },
	{ "sandbox.recreate", rm_recreate, RPC_RESULT_TEXT, "text", 0 },
	{ "sandbox.prune", rm_prune, RPC_RESULT_TEXT, "text", 0 },
	{ "exec", rm_exec, RPC_RESULT_EXEC, NULL, 0 },
	{ "fs.read", rm_fs_read, RPC_RESULT_TEXT, "content", 1 },
	{ "fs.write", rm_fs_write, RPC_RESULT_TEXT, "text", 1 },
	{ "fs.edit", rm_fs_edit, RPC_RESULT_TEXT, "text", 0 },
	{ "fs.applyPatch", rm_fs_patch, RPC_RESULT_TEXT, "text", 0 },
	{ "fs.ls", rm_fs_ls, RPC_RESULT_JSON, "entries", 1 },
	{ "fs.stat", rm_fs_stat, RPC_RESULT_JSON, NULL, 1 },
	{ "process.start", rm_process_start, RPC_RESULT_JSON, NULL, 0 },
	{ "process.list", rm_process_list, RPC_RESULT_JSON, "processes", 1 },
	{ "process.poll", rm_process_poll, RPC_RESULT_JSON, NULL, 1 },
	{ "process.log", rm_process_log, RPC_RESULT_JSON, NULL, 1 },
	{ "process.wait", rm_process_wait, RPC_RESULT_JSON, NULL, 1 },
	{ "process.write", rm_process_write, RPC_RESULT_TEXT, "text", 0 },
	{ "process.kill", rm_process_kill, RPC_RESULT_TEXT, "text", 0 },
	{ "sync.push", rm_sync_push, RPC_RESULT_JSON, NULL, 1 },
	{ "sync.pull", rm_sync_pull, RPC_RESULT_JSON, NULL, 1 },
	{ "sync.status", rm_sync_status, RPC_RESULT_TEXT, "text", 1 },
	{ "image.list", rm_image_list, RPC_RESULT_JSON, "images", 1 },
};
#define N_METHODS	(sizeof rpc_methods / sizeof rpc_methods[0])

const char *const rpc_method_names[] = {
	"sandbox.provision", "sandbox.list", "sandbox.status",
	"sandbox.destroy", "sandbox.recreate", "sandbox.prune", "exec",
	"fs.read", "fs.write", "fs.edit", "fs.applyPatch", "fs.ls", "fs.stat",
	"process.start", "process.list", "process.poll", "process.log",
	"process.wait",
	"process.write", "process.kill", "sync.push", "sync.pull",
	"sync.status", "image.list", NULL
};

/* Build the worker call for method and params. */
int
rpc_call_build(const char *method, const cJSON *params, struct rpc_call *out,
    char **msg)
{
	const struct rpc_method	*m = NULL;
	struct rpc_params	 rp;
	struct rpc_call		 c;
	size_t			 i;

	for (i = 0; i < N_METHODS; i++)
		if (strcmp(method, rpc_methods[i].name) == 0)
			m = &rpc_methods[i];
	if (m == NULL) {
		*msg = xasprintf("unknown method '%.64s'", method);
		return JSONRPC_METHOD_NOT_FOUND;
	}
	memset(&c, 0, sizeof c);
	if (rp_init(&rp, params) != 0 || m->build(&rp, &c) != 0 ||
	    rp_finish(&rp) != 0) {
		*msg = rp.msg != NULL ? rp.msg : xstrdup("params: invalid");
		rp.msg = NULL;
		rp_free(&rp);
		rpc_call_clear(&c);
		return JSONRPC_INVALID_PARAMS;
	}
	c.argv = rp.argv;
	c.argc = rp.argc;
	c.result = m->result;
	c.result_key = m->key;
	c.idempotent = m->idempotent;
	c.tool = m->name;
	*out = c;
	return 0;
}

/* Free what a call holds. */
void
rpc_call_clear(struct rpc_call *c)
{
	size_t	i;
	int	j;

	for (j = 0; j < c->argc; j++)
		free(c->argv[j]);
	free(c->argv);
	if (c->in != NULL) {
		explicit_bzero(c->in, c->inlen);
		free(c->in);
	}
	for (i = 0; i < c->nenv; i++) {
		free(c->env_names[i]);
		explicit_bzero(c->env_values[i], strlen(c->env_values[i]));
		free(c->env_values[i]);
	}
	free(c->env_names);
	free(c->env_values);
	free(c->sandbox);
	free(c->host);
	free(c->exec.cwd);
	free(c->fs.path);
	free(c->fs.old);
	free(c->fs.new);
	memset(c, 0, sizeof *c);
}
