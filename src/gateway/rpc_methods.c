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
#include "ops.h"
#include "process.h"
#include "pty.h"
#include "rpc_methods.h"
#include "rpc_params.h"
#include "sandbox.h"
#include "signals.h"
#include "xmalloc.h"

/*
 * A method.  Its build and the rm_* helpers return 0, or the first
 * failure's code, rp->err (rpc_params.h).
 */
struct rpc_method {
	const char		*name;
	int			(*build)(struct rpc_params *,
			    struct rpc_call *);
	enum rpc_result_kind	 result;
	const char		*key;	/* result member, NULL: JSON as is */
	int			 idempotent;
};

/* The long option key becomes on the CLI (ops_table.c). */
static const char *
rm_optname(struct rpc_params *rp, const char *key)
{
	const struct op_arg	*a = ops_arg(rp->op, OPS_SURFACE_RPC, key);

	if (a == NULL || a->opt == NULL)
		abort();	/* a param without an option: a bug */
	return a->opt;
}

/* "--OPT=VALUE" for a string param that is there. */
static int
rm_opt(struct rpc_params *rp, const char *key)
{
	const char	*s;

	if (rp_string(rp, key, &s) != 0 || s == NULL)
		return rp->err;
	return rp_argf(rp, "--%s=%s", rm_optname(rp, key), s);
}

/* "--OPT=N" for an integer param that is there. */
static int
rm_opt_int(struct rpc_params *rp, const char *key)
{
	int64_t	v;
	int	has;

	if (rp_int(rp, key, &v, &has) != 0 || !has)
		return rp->err;
	return rp_argf(rp, "--%s=%lld", rm_optname(rp, key), (long long)v);
}

/* "--OPT=NAME" for an enum param that is there. */
static int
rm_opt_enum(struct rpc_params *rp, const char *key)
{
	const char	*s;

	if (rp_enum(rp, key, &s) != 0 || s == NULL)
		return rp->err;
	return rp_argf(rp, "--%s=%s", rm_optname(rp, key), s);
}

/* "--OPT" for a boolean param that is true; *on says if it was. */
static int
rm_flag(struct rpc_params *rp, const char *key, int *on)
{
	int	v;

	if (rp_bool(rp, key, &v) != 0)
		return rp->err;
	if (on != NULL)
		*on = v;
	return v ? rp_argf(rp, "--%s", rm_optname(rp, key)) : 0;
}

/* The connection params every method takes. */
static int
rm_conn(struct rpc_params *rp)
{
	const cJSON	*a, *v;
	const char	*s;
	int64_t		 port;
	int		 has;

	rm_opt(rp, "config");
	if (rp_string(rp, "ssh_config", &s) == 0 && s != NULL) {
		rp_arg(rp, "-F");
		rp_arg(rp, s);
	}
	rm_opt(rp, "state_dir");
	rm_opt(rp, "passphrase_file");
	if (rp_string(rp, "user", &s) == 0 && s != NULL) {
		rp_arg(rp, "-l");
		rp_arg(rp, s);
	}
	if (rp_int(rp, "port", &port, &has) == 0 && has) {
		rp_arg(rp, "-p");
		rp_argf(rp, "%lld", (long long)port);
	}
	if ((a = rp_get(rp, "ssh_options")) == NULL)
		return rp->err;
	cJSON_ArrayForEach(v, a) {
		rp_arg(rp, "-o");
		rp_arg(rp, v->valuestring);
	}
	return rp->err;
}

/*
 * The connection options, as rm_conn, noted in c as part of its route's
 * key (argv[conn_first..conn_first + conn_n)).
 */
static int
rm_conn_key(struct rpc_params *rp, struct rpc_call *c)
{
	c->conn_first = rp->argc;
	if (rm_conn(rp) != 0)
		return rp->err;
	c->conn_n = rp->argc - c->conn_first;
	return 0;
}

/* The sandbox id param (required), recorded in the call. */
static int
rm_sandbox(struct rpc_params *rp, struct rpc_call *c, const char **id)
{
	if (rp_string(rp, "sandbox", id) != 0)
		return rp->err;
	c->sandbox = xstrdup(*id);
	return 0;
}

/* The host param, recorded in the call. */
static int
rm_host(struct rpc_params *rp, struct rpc_call *c, const char **host)
{
	if (rp_string(rp, "host", host) != 0)
		return rp->err;
	if (*host != NULL)
		c->host = xstrdup(*host);
	return 0;
}

/* "--sandbox=ID" for the sandbox param. */
static int
rm_sandbox_opt(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*id;

	if (rm_sandbox(rp, c, &id) != 0)
		return rp->err;
	return rp_argf(rp, "--sandbox=%s", id);
}

/* An array of argument strings (the command), appended after "--". */
static int
rm_command(struct rpc_params *rp, const char *key)
{
	const cJSON	*a, *v;

	if ((a = rp_get(rp, key)) == NULL)
		return rp->err;
	rp_arg(rp, "--");
	cJSON_ArrayForEach(v, a)
		if (rp_arg(rp, v->valuestring) != 0)
			return rp->err;
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

	if (*name == '\0' || strlen(name) > OPS_WORD_MAX ||
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
		return rp->err;
	}
	for (i = 0; i < c->nenv; i++)
		if (strcmp(c->env_names[i], n) == 0) {
			rp_fail(rp, "params.%s: '%s' given twice", where, n);
			free(n);
			return rp->err;
		}
	if (rp_argf(rp, "--env=%s", n) != 0) {
		free(n);
		return rp->err;
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
		return rp->err;
	cJSON_ArrayForEach(v, e) {
		if (cJSON_IsObject(e)) {
			snprintf(where, sizeof where, "env.%.40s", v->string);
			if (rm_env_add(rp, c, v->string, strlen(v->string),
			    v->valuestring, where) != 0)
				return rp->err;
		} else {
			snprintf(where, sizeof where, "env[%d]", i);
			eq = strchr(v->valuestring, '=');
			if (rm_env_add(rp, c, v->valuestring,
			    (size_t)(eq - v->valuestring), eq + 1, where) != 0)
				return rp->err;
		}
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
	    rp_int(rp, "cols", &cols, &hasc) != 0 ||
	    rp_int(rp, "rows", &rows, &hasr) != 0)
		return rp->err;
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

/* exec's sandbox or host: one of them, recorded in the call. */
static int
rm_exec_target(struct rpc_params *rp, struct rpc_call *c,
    const char **host)
{
	const char	*id = NULL;

	if (rm_host(rp, c, host) != 0)
		return rp->err;
	if (*host == NULL && rp_get(rp, "sandbox") == NULL)
		return rp_fail(rp, "params: give sandbox or host");
	if (*host != NULL && rp_get(rp, "sandbox") != NULL)
		return rp_fail(rp, "params.host: give sandbox or host, not "
		    "both");
	if (*host == NULL && rm_sandbox(rp, c, &id) != 0)
		return rp->err;
	if (*host != NULL) {
		c->elevated = 1;
		return rp_argf(rp, "--host=%s", *host);
	}
	return rp_argf(rp, "--sandbox=%s", id);
}

/* exec: a command on a host or in a sandbox, streamed. */
static int
rm_exec(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*host, *cwd;
	int64_t		 timeout;
	int		 has, nosync, strict = 0, argc;

	rp_arg(rp, "exec");
	if (rm_exec_target(rp, c, &host) != 0)
		return rp->err;
	if (rp_string(rp, "cwd", &cwd) == 0 && cwd != NULL) {
		rp_argf(rp, "--%s=%s", rm_optname(rp, "cwd"), cwd);
		c->exec.cwd = xstrdup(cwd);
	}
	if (rp_int(rp, "timeout", &timeout, &has) == 0 && has &&
	    timeout > 0) {
		rp_argf(rp, "--timeout=%lld", (long long)timeout);
		c->exec.timeout = (int)timeout;
	}
	if (rp_bool(rp, "no_sync", &nosync) == 0 && nosync) {
		if (host != NULL)
			return rp_fail(rp, "params.no_sync: only with sandbox");
		rp_arg(rp, "--no-sync");
		c->exec.no_sync = 1;
	}
	rm_flag(rp, "strict_config", &strict);
	argc = rp->argc;
	if (rm_exec_pty(rp) != 0 || rm_env(rp, c) != 0)
		return rp->err;
	/* the env param adds "--env=NAME" only: no terminal may add */
	c->exec.simple = host == NULL && !strict &&
	    rp->argc - argc == (int)c->nenv;
	if (rm_conn_key(rp, c) != 0 ||
	    rp_data(rp, "stdin", &c->in, &c->inlen) != 0)
		return rp->err;
	c->stream = 1;
	c->exec.argi = rp->argc + 1;	/* after "--" */
	return rm_command(rp, "argv");
}

/* The gpu param: an integer or "all". */
static int
rm_gpu(struct rpc_params *rp)
{
	const cJSON	*v = rp_get(rp, "gpu");

	if (v == NULL)
		return rp->err;
	if (cJSON_IsString(v))
		return rp_arg(rp, "--gpu=all");
	return rp_argf(rp, "--gpu=%d", (int)v->valuedouble);
}

/*
 * A resource limit: an integer, or a size string ("512M") for sizes; a
 * number of CPUs as its decimal (1.5).
 */
static int
rm_limit(struct rpc_params *rp, const char *key)
{
	const cJSON	*v = rp_get(rp, key);
	int64_t		 milli;
	char		 text[32];

	if (v == NULL)
		return rp->err;
	if (strcmp(key, "cpus") == 0 && cJSON_IsNumber(v) &&
	    contain_cpus_json(v, &milli, NULL) == 0) {
		contain_cpus_format(milli, text, sizeof text);
		return rp_argf(rp, "--%s=%s", rm_optname(rp, key), text);
	}
	if (cJSON_IsString(v))
		return rp_argf(rp, "--%s=%s", rm_optname(rp, key),
		    v->valuestring);
	return rp_argf(rp, "--%s=%lld", rm_optname(rp, key),
	    (long long)v->valuedouble);
}

/* sandbox.provision: get or create a sandbox. */
static int
rm_provision(struct rpc_params *rp, struct rpc_call *c)
{
	static const char *const lim[] = {
		"memory", "processes", "cpu_seconds", "file_size", "open_files",
		"cpus"
	};
	const char	*host;
	size_t		 i;

	rp_arg(rp, "provision");
	if (rm_host(rp, c, &host) != 0)
		return rp->err;
	rp_argf(rp, "--host=%s", host);
	rm_opt_enum(rp, "scope");
	rm_opt(rp, "key");
	rm_opt(rp, "workspace");
	rm_opt_enum(rp, "access");
	rm_opt_enum(rp, "mode");
	rm_opt(rp, "from");
	rm_opt_enum(rp, "runtime");
	rm_opt_enum(rp, "network");
	rm_opt_enum(rp, "workdir");
	for (i = 0; i < sizeof lim / sizeof *lim; i++)
		rm_limit(rp, lim[i]);
	rm_gpu(rp);
	rm_opt(rp, "remote_root");
	rm_flag(rp, "strict_config", NULL);
	rp_arg(rp, "--json");
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
	if (rm_sandbox(rp, c, &id) != 0 || rm_conn_key(rp, c) != 0)
		return rp->err;
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

/* sandbox.stop: end a sandbox's processes. */
static int
rm_stop(struct rpc_params *rp, struct rpc_call *c)
{
	c->stop = 1;
	return rm_box_op(rp, c, "stop", NULL, 1);
}

/* sandbox.start: start a sandbox's environment. */
static int
rm_start(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "start", NULL, 1);
}

/* sandbox.sshConfig: ssh_config stanzas for a sandbox. */
static int
rm_sshconfig(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_box_op(rp, c, "ssh-config", NULL, 0);
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
	(void)c;
	rp_arg(rp, "prune");
	rm_opt_int(rp, "idle_hours");
	rm_opt_int(rp, "max_age_days");
	rm_flag(rp, "dry_run", NULL);
	return rm_conn(rp);
}

/* sync.push|pull: SUB --json -- ID [PATH...]. */
static int
rm_sync(struct rpc_params *rp, struct rpc_call *c, const char *sub)
{
	const cJSON	*a, *v;
	const char	*id;

	rp_arg(rp, "sync");
	rp_arg(rp, sub);
	rp_arg(rp, "--json");
	if (rm_sandbox(rp, c, &id) != 0 || rm_conn(rp) != 0)
		return rp->err;
	rp_arg(rp, "--");
	rp_arg(rp, id);
	if ((a = rp_get(rp, "paths")) == NULL)
		return rp->err;
	cJSON_ArrayForEach(v, a)
		rp_arg(rp, v->valuestring);
	return rp->err;
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
	const char	*host;

	rp_arg(rp, "image");
	rp_arg(rp, "list");
	if (rm_host(rp, c, &host) != 0)
		return rp->err;
	rp_argf(rp, "--host=%s", host);
	rm_opt(rp, "remote_root");
	rp_arg(rp, "--json");
	return rm_conn(rp);
}

/* image.import and image.rm: image SUB --host=H [options] -- NAME... */
static int
rm_image_op(struct rpc_params *rp, struct rpc_call *c, const char *sub)
{
	const char	*host, *name, *tarball = NULL;

	rp_arg(rp, "image");
	rp_arg(rp, sub);
	if (rm_host(rp, c, &host) != 0 || rp_string(rp, "name", &name) != 0)
		return rp->err;
	rp_argf(rp, "--host=%s", host);
	rm_opt(rp, "remote_root");
	if (strcmp(sub, "rm") == 0)
		rm_flag(rp, "force", NULL);
	else if (rp_string(rp, "tarball", &tarball) != 0)
		return rp->err;
	if (rm_conn(rp) != 0)
		return rp->err;
	rp_arg(rp, "--");
	rp_arg(rp, name);
	return tarball != NULL ? rp_arg(rp, tarball) : rp->err;
}

/* image.import: a root file system tarball onto a host. */
static int
rm_image_import(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_image_op(rp, c, "import");
}

/* image.rm: an image off a host. */
static int
rm_image_rm(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_image_op(rp, c, "rm");
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
		return rp->err;
	if (rp_int(rp, "timeout", &timeout, &has) == 0 && has) {
		rp_argf(rp, "--timeout=%lld", (long long)timeout);
		c->fs.timeout = (int)timeout;
	}
	if (rp->err != 0)
		return rp->err;
	return rm_conn_key(rp, c);
}

/*
 * The path operand, after "--"; with fs set (a tool the daemon may
 * answer itself), also as the CLI takes it into c->fs.
 */
static int
rm_fs_path(struct rpc_params *rp, struct rpc_call *c, int fs)
{
	const char	*p;
	char		*cause = NULL;

	if (rp_string(rp, "path", &p) != 0)
		return rp->err;
	if (fs && fstore_path(p != NULL ? p : ".", &c->fs.path, &cause) == 0)
		c->fs.simple = 1;
	free(cause);	/* the worker says it */
	if (p == NULL)
		return 0;
	rp_arg(rp, "--");
	return rp_arg(rp, p);
}

/* fs.read: a file's content, or a byte or line range of it. */
static int
rm_fs_read(struct rpc_params *rp, struct rpc_call *c)
{
	int64_t	 v;
	int	 has;

	if (rm_fs_start(rp, c, "read") != 0)
		return rp->err;
	if (rp_int(rp, "offset", &v, &has) == 0 && has) {
		rp_argf(rp, "--%s=%lld", rm_optname(rp, "offset"),
		    (long long)v);
		c->fs.offset = (uint64_t)v;
	}
	if (rp_int(rp, "limit", &v, &has) == 0 && has) {
		rp_argf(rp, "--%s=%lld", rm_optname(rp, "limit"),
		    (long long)v);
		c->fs.limit = (uint64_t)v;
	}
	rm_flag(rp, "lines", &c->fs.lines);
	return rm_fs_path(rp, c, 1);
}

/* fs.write: replace a file with content (stdin of the worker). */
static int
rm_fs_write(struct rpc_params *rp, struct rpc_call *c)
{
	int	push;

	if (rm_fs_start(rp, c, "write") != 0 ||
	    rm_flag(rp, "push", &push) != 0 ||
	    rp_data(rp, "content", &c->in, &c->inlen) != 0)
		return rp->err;
	return rm_fs_path(rp, c, !push);
}

/* fs.edit: replace exact text. */
static int
rm_fs_edit(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*old, *new;
	int		 push;

	if (rm_fs_start(rp, c, "edit") != 0 ||
	    rm_flag(rp, "push", &push) != 0 ||
	    rp_string(rp, "old", &old) != 0 ||
	    rp_string(rp, "new", &new) != 0)
		return rp->err;
	rp_argf(rp, "--%s=%s", rm_optname(rp, "old"), old);
	rp_argf(rp, "--%s=%s", rm_optname(rp, "new"), new);
	rm_flag(rp, "all", &c->fs.all);
	c->fs.old = xstrdup(old);
	c->fs.new = xstrdup(new);
	return rm_fs_path(rp, c, !push);
}

/* fs.applyPatch: a diff or agent patch on stdin. */
static int
rm_fs_patch(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*patch;
	int		 push;

	if (rm_fs_start(rp, c, "apply-patch") != 0 ||
	    rm_flag(rp, "push", &push) != 0 ||
	    rp_string(rp, "patch", &patch) != 0)
		return rp->err;
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
		return rp->err;
	rp_arg(rp, "--json");
	return rm_fs_path(rp, c, 1);
}

/* fs.stat: one entry. */
static int
rm_fs_stat(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_fs_start(rp, c, "stat") != 0)
		return rp->err;
	rp_arg(rp, "--json");
	return rm_fs_path(rp, c, 1);
}

/* process SUB --sandbox=ID [--json]; op: the daemon's step, or -1. */
static int
rm_proc_start(struct rpc_params *rp, struct rpc_call *c, const char *sub,
    int json, int op)
{
	rp_arg(rp, "process");
	rp_arg(rp, sub);
	if (rm_sandbox_opt(rp, c) != 0 || rm_conn_key(rp, c) != 0)
		return rp->err;
	if (json)
		rp_arg(rp, "--json");
	c->proc.simple = op >= 0;
	c->proc.op = op;
	c->proc.timeout = -1;
	return rp->err;
}

/* The handle operand, after "--", also kept for the daemon. */
static int
rm_proc_handle(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*h;

	if (rp_string(rp, "handle", &h) != 0)
		return rp->err;
	c->proc.handle = xstrdup(h);
	rp_arg(rp, "--");
	return rp_arg(rp, h);
}

/* An integer option param, also its value into *v when given. */
static int
rm_proc_int(struct rpc_params *rp, const char *key, int *v)
{
	int64_t	n;
	int	has;

	if (rm_opt_int(rp, key) != 0 || rp_int(rp, key, &n, &has) != 0)
		return rp->err;
	if (has)
		*v = (int)n;
	return 0;
}

/* process.start: a background process. */
static int
rm_process_start(struct rpc_params *rp, struct rpc_call *c)
{
	const char	*name;
	int		 pty = 0;

	if (rm_proc_start(rp, c, "start", 1, PROCESS_OP_START) != 0)
		return rp->err;
	rm_flag(rp, "pty", &pty);
	if (rp_string(rp, "name", &name) == 0 && name != NULL)
		c->proc.name = xstrdup(name);
	rm_opt(rp, "name");
	if (rm_proc_int(rp, "log_max", &c->proc.log_max) != 0 ||
	    rm_env(rp, c) != 0)
		return rp->err;
	c->proc.pty = pty;
	c->proc.argi = rp->argc + 1;	/* after "--" */
	return rm_command(rp, "argv");
}

/* process.list: a sandbox's background processes. */
static int
rm_process_list(struct rpc_params *rp, struct rpc_call *c)
{
	return rm_proc_start(rp, c, "list", 1, PROCESS_OP_LIST);
}

/* process.poll: state and output since the last poll. */
static int
rm_process_poll(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_proc_start(rp, c, "poll", 1, PROCESS_OP_POLL) != 0)
		return rp->err;
	return rm_proc_handle(rp, c);
}

/* process.log: the end of a process's output. */
static int
rm_process_log(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_proc_start(rp, c, "log", 1, PROCESS_OP_LOG) != 0 ||
	    rm_proc_int(rp, "tail", &c->proc.tail) != 0)
		return rp->err;
	return rm_proc_handle(rp, c);
}

/* process.wait: until it exits, or timeout seconds; its state. */
static int
rm_process_wait(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_proc_start(rp, c, "wait", 1, PROCESS_OP_WAIT) != 0 ||
	    rm_proc_int(rp, "timeout", &c->proc.timeout) != 0)
		return rp->err;
	return rm_proc_handle(rp, c);
}

/* process.write: bytes to a process's stdin, maybe then EOF. */
static int
rm_process_write(struct rpc_params *rp, struct rpc_call *c)
{
	if (rm_proc_start(rp, c, "write", 0, PROCESS_OP_WRITE) != 0 ||
	    rm_flag(rp, "eof", &c->proc.eof) != 0 ||
	    rp_data(rp, "data", &c->in, &c->inlen) != 0)
		return rp->err;
	if (c->in == NULL && !c->proc.eof)
		return rp_fail(rp, "params.data: required unless eof is true");
	if (c->in == NULL)
		c->in = xstrdup("");
	return rm_proc_handle(rp, c);
}

/* process.kill: a signal (a name or a number) to a process group. */
static int
rm_process_kill(struct rpc_params *rp, struct rpc_call *c)
{
	const cJSON	*v;

	if (rm_proc_start(rp, c, "kill", 0, PROCESS_OP_KILL) != 0)
		return rp->err;
	if ((v = rp_get(rp, "signal")) != NULL) {
		if (cJSON_IsNumber(v))
			c->proc.sig = xasprintf("%d", (int)v->valuedouble);
		else
			c->proc.sig = xstrdup(v->valuestring);
		rp_argf(rp, "--signal=%s", c->proc.sig);
	}
	return rm_proc_handle(rp, c);
}

static const struct rpc_method rpc_methods[] = {
	{ "sandbox.provision", rm_provision, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.list", rm_list, RPC_RESULT_JSON, "sandboxes", 1 },
	{ "sandbox.status", rm_status, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.destroy", rm_destroy, RPC_RESULT_TEXT, "text", 1 },
	{ "sandbox.recreate", rm_recreate, RPC_RESULT_TEXT, "text", 0 },
	{ "sandbox.stop", rm_stop, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.start", rm_start, RPC_RESULT_JSON, NULL, 1 },
	{ "sandbox.sshConfig", rm_sshconfig, RPC_RESULT_TEXT, "text", 1 },
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
	{ "image.import", rm_image_import, RPC_RESULT_TEXT, "text", 0 },
	{ "image.rm", rm_image_rm, RPC_RESULT_TEXT, "text", 1 },
};
#define N_METHODS	(sizeof rpc_methods / sizeof rpc_methods[0])

/* Build the worker call for method and params. */
int
rpc_call_build(const char *method, const cJSON *params, struct rpc_call *out,
    char **msg)
{
	const struct rpc_method	*m = NULL;
	const struct op_entry	*op;
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
	if ((op = ops_by_method(m->name)) == NULL)
		abort();	/* a method missing from ops_table.c */
	memset(&c, 0, sizeof c);
	if (rp_init(&rp, op, params) != 0 || m->build(&rp, &c) != 0 ||
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
	free(c->proc.handle);
	free(c->proc.sig);
	free(c->proc.name);
	memset(c, 0, sizeof *c);
}
