/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * docker and podman command lines from a containment policy.  Every input
 * is checked first; then the words are built in a private buffer, each
 * quoted for sh, and appended to the caller's buffer only when whole.
 * The sh around them (the wrap's identity, GPUs, container start and
 * watcher; stop; status) is in src/host/oci_*.sh (src/host/host_sh.h),
 * joined here after a "set --" line of its values.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "contain.h"
#include "contain_oci.h"
#include "error.h"
#include "host_sh.h"
#include "shquote.h"
#include "xmalloc.h"

#define OCI_NAME_MAX	128		/* bytes of a container name */
#define OCI_ENV_MAX	256		/* bytes of an environment name */
#define OCI_PATH_MAX	4096		/* bytes of a host path or cwd */
#define OCI_USER_MAX	10		/* digits of a uid or gid */
#define OCI_GPU_MAX	1023		/* highest GPU index */
#define OCI_USER_NAME_MAX 32		/* bytes of a user name */

#define OCI_DIGITS	"0123456789"
#define OCI_LOWER	"abcdefghijklmnopqrstuvwxyz"
#define OCI_UPPER	"ABCDEFGHIJKLMNOPQRSTUVWXYZ"
#define OCI_NAME_CHARS	OCI_LOWER OCI_DIGITS "_.-"
#define OCI_ENV_CHARS	OCI_LOWER OCI_UPPER OCI_DIGITS "_"
#define OCI_USER_CHARS	OCI_LOWER OCI_DIGITS "_-"

/* The variables every container gets from the client's environment. */
static const char *const oci_env_base[] = { "LANG", "TERM", "TZ" };

static void	oci_wordf(struct buf *, const char *, ...)
		    __attribute__((__format__(__printf__, 2, 3)));

/* Check the container name: [a-z0-9][a-z0-9_.-]*. */
static int
oci_check_name(const char *name, char **cause)
{
	size_t	len;

	if (name == NULL || *name == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "no container name");
	len = strnlen(name, OCI_NAME_MAX + 1);
	if (len > OCI_NAME_MAX || name[0] == '_' || name[0] == '.' ||
	    name[0] == '-' || strspn(name, OCI_NAME_CHARS) != len)
		return claw_fail(cause, CLAW_ERR_INVAL, "bad container name "
		    "(allowed: [a-z0-9][a-z0-9_.-]*, at most %d bytes)",
		    OCI_NAME_MAX);
	return 0;
}

/* Check that every environment name is [A-Za-z_][A-Za-z0-9_]*. */
static int
oci_check_env(const char *const *env, size_t nenv, char **cause)
{
	const char	*s;
	size_t		 i, len;

	if (nenv != 0 && env == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no environment names");
	for (i = 0; i < nenv; i++) {
		if ((s = env[i]) == NULL || *s == '\0')
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "empty environment variable name");
		len = strnlen(s, OCI_ENV_MAX + 1);
		if (len > OCI_ENV_MAX || (*s >= '0' && *s <= '9') ||
		    strspn(s, OCI_ENV_CHARS) != len)
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "bad environment variable name (entry %zu): "
			    "allowed [A-Za-z_][A-Za-z0-9_]*", i + 1);
	}
	return 0;
}

/* Check cwd: relative, no ".." component, bounded. */
static int
oci_check_cwd(const char *cwd, char **cause)
{
	const char	*p;
	size_t		 n;

	if (cwd == NULL)
		return 0;
	if (cwd[0] == '/')
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "working directory must be relative to the workspace");
	if (strnlen(cwd, OCI_PATH_MAX + 1) > OCI_PATH_MAX)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "working directory longer than %d bytes", OCI_PATH_MAX);
	for (p = cwd; *p != '\0'; p += n) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "working directory may not contain \"..\"");
		if (p[n] == '/')
			n++;
	}
	return 0;
}

/* Check a host path for --mount: absolute, no ',' '"' or controls. */
static int
oci_check_hostpath(const char *what, const char *path, char **cause)
{
	const unsigned char	*p;

	if (path == NULL || *path == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "no %s path", what);
	if (path[0] != '/')
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s path is not absolute", what);
	if (strnlen(path, OCI_PATH_MAX + 1) > OCI_PATH_MAX)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "%s path longer than %d bytes", what, OCI_PATH_MAX);
	for (p = (const unsigned char *)path; *p != '\0'; p++) {
		if (*p == ',' || *p == '"' || *p < 0x20 || *p == 0x7f)
			return claw_fail(cause, CLAW_ERR_INVAL, "%s path holds "
			    "a comma, a double quote or a control character",
			    what);
	}
	return 0;
}

/*
 * Check the workdir: NULL (CONTAIN_OCI_WORKSPACE), or an absolute path
 * --mount takes (oci_check_hostpath) that is not "/" and has no "."  or
 * ".." component.
 */
static int
oci_check_workdir(const char *dir, char **cause)
{
	const char	*p;
	size_t		 n;
	int		 r;

	if (dir == NULL)
		return 0;
	if ((r = oci_check_hostpath("workdir", dir, cause)) != 0)
		return r;
	if (dir[1] == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "workdir is '/'");
	for (p = dir + 1; *p != '\0'; p += n) {
		n = strcspn(p, "/");
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "workdir may not contain \".\" or \"..\"");
		if (p[n] == '/')
			n++;
	}
	return 0;
}

/* Return 1 if user is a user name: [a-z_][a-z0-9_-]*, 1..32 bytes. */
static int
oci_user_is_name(const char *user)
{
	size_t	len;

	len = strnlen(user, OCI_USER_NAME_MAX + 1);
	return len >= 1 && len <= OCI_USER_NAME_MAX &&
	    ((user[0] >= 'a' && user[0] <= 'z') || user[0] == '_') &&
	    strspn(user, OCI_USER_CHARS) == len;
}

/* Check the user: NULL, or 1..10 digits optionally ":" 1..10 digits. */
static int
oci_check_user(const char *user, char **cause)
{
	size_t	n;

	if (user == NULL)
		return 0;
	n = strspn(user, OCI_DIGITS);
	if (n >= 1 && n <= OCI_USER_MAX && user[n] == ':') {
		user += n + 1;
		n = strspn(user, OCI_DIGITS);
	}
	if (n < 1 || n > OCI_USER_MAX || user[n] != '\0')
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "bad user (want a numeric uid[:gid])");
	return 0;
}

/* Check that no limit is negative and every GPU index is in range. */
static int
oci_check_numbers(const struct contain_policy *p, char **cause)
{
	const struct contain_limits	*l = &p->limits;
	size_t				 i;

	if (l->memory < 0 || l->nproc < 0 || l->cpu < 0 || l->fsize < 0 ||
	    l->nofile < 0 || l->cpus < 0)
		return claw_fail(cause, CLAW_ERR_INVAL, "negative limit");
	if (p->ngpus != 0 && p->gpus == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no GPU indexes");
	for (i = 0; i < p->ngpus; i++) {
		if (p->gpus[i] < 0 || p->gpus[i] > OCI_GPU_MAX)
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "GPU index %d outside 0..%d", p->gpus[i],
			    OCI_GPU_MAX);
	}
	return 0;
}

/* Check the runtime, access and network enums and the bound path. */
static int
oci_check_modes(const struct contain_policy *p, char **cause)
{
	if (p->runtime != CONTAIN_DOCKER && p->runtime != CONTAIN_PODMAN)
		return claw_fail(cause, CLAW_ERR_INVAL, "runtime %s is not "
		    "docker or podman", contain_runtime_name(p->runtime));
	if (p->network != CONTAIN_NET_NONE && p->network != CONTAIN_NET_HOST)
		return claw_fail(cause, CLAW_ERR_INVAL, "unknown network mode");
	switch (p->access) {
	case CONTAIN_WS_RW:
	case CONTAIN_WS_RO:
		return oci_check_hostpath("workspace", p->workspace, cause);
	case CONTAIN_WS_NONE:
		return oci_check_hostpath("scratch", p->scratch, cause);
	default:
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "unknown workspace access");
	}
}

/* Check the policy (all but the user): its sandbox names the container. */
static int
oci_check_policy(const struct contain_policy *p, char **cause)
{
	int	r;

	if ((r = oci_check_modes(p, cause)) != 0 ||
	    (r = contain_image_ref_check(p->image, cause)) != 0 ||
	    (r = oci_check_env(p->env, p->nenv, cause)) != 0 ||
	    (r = oci_check_cwd(p->cwd, cause)) != 0 ||
	    (r = oci_check_workdir(p->workdir, cause)) != 0 ||
	    (r = oci_check_numbers(p, cause)) != 0)
		return r;
	if (oci_check_name(p->sandbox, NULL) != 0 ||
	    strlen(p->sandbox) > OCI_NAME_MAX - strlen(CONTAIN_OCI_PREFIX))
		return claw_fail(cause, CLAW_ERR_INVAL, "bad sandbox id "
		    "(allowed: [a-z0-9][a-z0-9_.-]*)");
	return 0;
}

/* Check everything contain_oci_create is given. */
static int
oci_check(const struct contain_policy *p, char **cause)
{
	int	r;

	if (p == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no policy");
	if ((r = oci_check_policy(p, cause)) != 0 ||
	    (r = oci_check_user(p->user, cause)) != 0)
		return r;
	return 0;
}

/* Check a command line: argc >= 1, no argument missing. */
static int
oci_check_argv(int argc, char *const argv[], char **cause)
{
	int	i;

	if (argc < 1 || argv == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no command to run");
	for (i = 0; i < argc; i++) {
		if (argv[i] == NULL)
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "command argument %d is missing", i);
	}
	return 0;
}

/* Append a space and s quoted as one sh word. */
static void
oci_word(struct buf *b, const char *s)
{
	buf_append(b, " ", 1);
	shquote_append(b, s);
}

/* Append a space and the formatted text quoted as one sh word. */
static void
oci_wordf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	*s;

	va_start(ap, fmt);
	s = xvasprintf(fmt, ap);
	va_end(ap);
	oci_word(b, s);
	free(s);
}

/*
 * Append the container's confinement that does not depend on the
 * policy's values: detached, the engine's init as pid 1 (it reaps and
 * forwards the stop signal to the holder), the deterministic name, no
 * restart, a short stop timeout, the sandbox label.
 */
static void
oci_append_fixed(const struct contain_policy *p, struct buf *b)
{
	oci_word(b, "run");
	oci_word(b, "-d");
	oci_word(b, "--init");
	oci_word(b, "--name");
	oci_wordf(b, CONTAIN_OCI_PREFIX "%s", p->sandbox);
	oci_word(b, "--restart");
	oci_word(b, "no");
	oci_word(b, "--stop-timeout");
	oci_word(b, "1");
	oci_word(b, "--label");
	oci_wordf(b, "%s=%s", CONTAIN_OCI_LABEL, p->sandbox);
	oci_word(b, "--read-only");
	oci_word(b, "--network");
	oci_word(b, contain_network_name(p->network));
	oci_word(b, "--cap-drop");
	oci_word(b, "ALL");
	oci_word(b, "--security-opt");
	oci_word(b, "no-new-privileges");
	oci_word(b, "--tmpfs");
	oci_word(b, CONTAIN_OCI_TMPFS);
}

/* Append the resource limits that are set. */
static void
oci_append_limits(const struct contain_limits *l, struct buf *b)
{
	if (l->nproc != 0) {
		oci_word(b, "--pids-limit");
		oci_wordf(b, "%" PRId64, l->nproc);
	}
	if (l->memory != 0) {
		oci_word(b, "--memory");
		oci_wordf(b, "%" PRId64, l->memory);
		oci_word(b, "--memory-swap");
		oci_wordf(b, "%" PRId64, l->memory);
	}
	if (l->cpu != 0) {
		oci_word(b, "--ulimit");
		oci_wordf(b, "cpu=%" PRId64 ":%" PRId64, l->cpu, l->cpu);
	}
	if (l->fsize != 0) {
		oci_word(b, "--ulimit");
		oci_wordf(b, "fsize=%" PRId64 ":%" PRId64, l->fsize, l->fsize);
	}
	if (l->nofile != 0) {
		oci_word(b, "--ulimit");
		oci_wordf(b, "nofile=%" PRId64 ":%" PRId64, l->nofile,
		    l->nofile);
	}
	if (l->cpus != 0) {	/* the engine's cpu cgroup, for all */
		oci_word(b, "--cpus");
		oci_wordf(b, "%" PRId64 ".%03" PRId64, l->cpus / 1000,
		    l->cpus % 1000);
	}
}

/* The workspace's path inside: the workdir, or CONTAIN_OCI_WORKSPACE. */
static const char *
oci_workdir(const struct contain_policy *p)
{
	return p->workdir != NULL ? p->workdir : CONTAIN_OCI_WORKSPACE;
}

/* Append one mount of the workspace (scratch for access none) at target. */
static void
oci_append_bind(const struct contain_policy *p, const char *target,
    struct buf *b)
{
	oci_word(b, "--mount");
	if (p->access == CONTAIN_WS_NONE)
		oci_wordf(b, "type=bind,source=%s,target=%s", p->scratch,
		    target);
	else
		oci_wordf(b, "type=bind,source=%s,target=%s%s", p->workspace,
		    target, p->access == CONTAIN_WS_RO ? ",readonly" : "");
}

/*
 * Append the workspace mount at /workspace and, for another workdir,
 * there too (the same directory at both paths).
 */
static void
oci_append_mount(const struct contain_policy *p, struct buf *b)
{
	oci_append_bind(p, CONTAIN_OCI_WORKSPACE, b);
	if (strcmp(oci_workdir(p), CONTAIN_OCI_WORKSPACE) != 0)
		oci_append_bind(p, p->workdir, b);
}

/* Append the user, when given as numbers. */
static void
oci_append_user(const struct contain_policy *p, struct buf *b)
{
	if (p->user != NULL && !oci_user_is_name(p->user)) {
		oci_word(b, "--user");
		oci_word(b, p->user);
	}
}

/*
 * Append the GPUs: docker takes one --gpus whose value is the CSV field
 * "device=0,1" (inner double quotes keep the comma in the field); podman
 * takes one CDI device per GPU.
 */
static void
oci_append_gpus(const struct contain_policy *p, struct buf *b)
{
	struct buf	v = BUF_INIT;
	size_t		i;

	if (p->ngpus == 0)
		return;
	if (p->runtime == CONTAIN_PODMAN) {
		for (i = 0; i < p->ngpus; i++) {
			oci_word(b, "--device");
			oci_wordf(b, "nvidia.com/gpu=%d", p->gpus[i]);
		}
		return;
	}
	buf_append_str(&v, "\"device=");
	for (i = 0; i < p->ngpus; i++)
		buf_appendf(&v, "%s%d", i == 0 ? "" : ",", p->gpus[i]);
	buf_append_str(&v, "\"");
	oci_word(b, "--gpus");
	oci_word(b, v.data);
	buf_free(&v);
}

/* Append the image and its holder: /bin/sh running CONTAIN_OCI_HOLDER. */
static void
oci_append_holder(const struct contain_policy *p, struct buf *b)
{
	oci_word(b, "--entrypoint");
	oci_word(b, "/bin/sh");
	oci_word(b, p->image);
	oci_word(b, "-c");
	oci_word(b, CONTAIN_OCI_HOLDER);
}

/* Append an exec's working directory. */
static void
oci_append_workdir(const struct contain_policy *p, struct buf *b)
{
	oci_word(b, "--workdir");
	if (p->cwd == NULL || *p->cwd == '\0')
		oci_word(b, oci_workdir(p));
	else
		oci_wordf(b, "%s/%s", oci_workdir(p), p->cwd);
}

/* Append an exec's environment names (values come from the client's). */
static void
oci_append_env(const struct contain_policy *p, struct buf *b)
{
	size_t	i;

	for (i = 0; i < p->nenv; i++) {
		oci_word(b, "-e");
		oci_word(b, p->env[i]);
	}
}

/* Append the exec's container and in-container wrapper, up to TOKEN. */
static void
oci_append_exec_sh(const struct contain_policy *p, struct buf *b)
{
	oci_wordf(b, CONTAIN_OCI_PREFIX "%s", p->sandbox);
	oci_word(b, "/bin/sh");
	oci_word(b, "-c");
	oci_word(b, CONTAIN_OCI_EXEC_SH);
	oci_word(b, "sh");
}

/* Build the line creating the sandbox's container; see contain_oci.h. */
int
contain_oci_create(const struct contain_policy *p, struct buf *b,
    char **cause)
{
	struct buf	line = BUF_INIT;
	int		r;

	if ((r = oci_check(p, cause)) != 0)
		return r;
	shquote_append(&line, contain_runtime_name(p->runtime));
	oci_append_fixed(p, &line);
	oci_append_limits(&p->limits, &line);
	oci_append_mount(p, &line);
	oci_append_user(p, &line);
	oci_append_gpus(p, &line);
	oci_append_holder(p, &line);
	buf_append(b, line.data, line.len);
	buf_free(&line);
	return 0;
}

/* Build the line running argv in the container; see contain_oci.h. */
int
contain_oci_exec(const struct contain_policy *p, const char *token,
    int argc, char *const argv[], struct buf *b, char **cause)
{
	struct buf	line = BUF_INIT;
	size_t		n;
	int		r;

	if ((r = oci_check(p, cause)) != 0 ||
	    (r = oci_check_argv(argc, argv, cause)) != 0)
		return r;
	n = token == NULL ? 0 : strnlen(token, 21);
	if (n < 1 || n > 20 || strspn(token, OCI_DIGITS) != n)
		return claw_fail(cause, CLAW_ERR_INVAL, "bad exec token");
	shquote_append(&line, contain_runtime_name(p->runtime));
	oci_word(&line, "exec");
	oci_word(&line, "-i");
	oci_append_workdir(p, &line);
	oci_append_user(p, &line);
	oci_append_env(p, &line);
	oci_append_exec_sh(p, &line);
	oci_word(&line, token);
	buf_append(&line, " ", 1);
	shquote_append_argv(&line, argc, argv);
	buf_append(b, line.data, line.len);
	buf_free(&line);
	return 0;
}

/*
 * Append the wrap's values as its positional parameters, in the order
 * src/host/oci_wrap_ids.sh takes them: the engine, the container n, the
 * sandbox, its directory, the bound directory, the user to resolve on the
 * host (named), the numeric user, the default uid:gid (no user set,
 * o->default_uid not 0), the GPU allocation file, 1 when verbose, the
 * digest's label and the kill script.
 */
static void
oci_wrap_params(const struct contain_policy *p,
    const struct contain_oci_opts *o, const char *n, int named,
    struct buf *b)
{
	char	*def;

	def = p->user == NULL && o->default_uid != 0 ? xasprintf("%u:%u",
	    o->default_uid, o->default_uid) : xstrdup("");
	buf_append_str(b, "set --");
	oci_word(b, contain_runtime_name(p->runtime));
	oci_word(b, n);
	oci_word(b, p->sandbox);
	oci_word(b, o->dir);
	oci_word(b, p->access == CONTAIN_WS_NONE ? p->scratch : p->workspace);
	oci_word(b, named ? p->user : "");
	oci_word(b, !named && p->user != NULL ? p->user : "");
	oci_word(b, def);
	oci_word(b, o->gpu_file != NULL ? o->gpu_file : "");
	oci_word(b, o->verbose ? "1" : "0");
	oci_word(b, CONTAIN_OCI_SPEC_LABEL);
	oci_word(b, CONTAIN_OCI_KILL_SH);
	buf_append(b, "\n", 1);
	free(def);
}

/*
 * Append sh code leaving the contain_oci_create words in "$@", with the
 * identity and the GPUs of the day (oci_wrap_gpus.sh) and the digest of
 * it all as the spec label ($__claw_spec).
 */
static void
oci_wrap_create(const struct contain_policy *p, struct buf *b)
{
	struct buf	holder = BUF_INIT;

	buf_append_str(b, "set --");
	oci_word(b, contain_runtime_name(p->runtime));
	oci_append_fixed(p, b);
	oci_append_limits(&p->limits, b);
	oci_append_mount(p, b);
	oci_append_gpus(p, b);
	buf_append_str(b, "\n" HOST_SH_OCI_WRAP_GPUS);
	oci_append_holder(p, &holder);
	buf_appendf(b, "__claw_spec=$(printf '%%s\\n' \"$@\"%s | cksum | "
	    "tr ' ' -)\n", holder.data);
	buf_appendf(b, "set -- \"$@\" --label \"%s=$__claw_spec\"%s\n",
	    CONTAIN_OCI_SPEC_LABEL, holder.data);
	buf_free(&holder);
}

/*
 * Append sh code leaving the exec words in "$@" (up to the command): the
 * engine's exec, -t on a terminal, the working directory, the identity,
 * the environment's names, the GPUs' (with an allocation file), the
 * container and the in-container wrapper with this shell's pid as token.
 */
static void
oci_wrap_exec(const struct contain_policy *p, int gpus, struct buf *b)
{
	size_t	i;

	buf_append_str(b, "set --");
	oci_word(b, contain_runtime_name(p->runtime));
	oci_word(b, "exec");
	oci_word(b, "-i");
	buf_append_str(b, "\n[ -t 0 ] && [ -t 1 ] && set -- \"$@\" -t\n"
	    "set -- \"$@\"");
	oci_append_workdir(p, b);
	buf_append_str(b, "\n[ -z \"$__claw_u\" ] || set -- \"$@\" --user "
	    "\"$__claw_u\"\nset -- \"$@\"");
	oci_append_env(p, b);
	for (i = 0; i < sizeof(oci_env_base) / sizeof(oci_env_base[0]); i++) {
		oci_word(b, "-e");
		oci_word(b, oci_env_base[i]);
	}
	buf_append_str(b, "\nfor __claw_v in $(env | sed -n "
	    "'s/^\\(LC_[A-Za-z0-9_]*\\)=.*/\\1/p'); do set -- \"$@\" -e "
	    "\"$__claw_v\"; done\n");
	if (gpus)
		buf_append_str(b, CONTAIN_SH_GPU_ORDINALS "set -- \"$@\" -e "
		    "CUDA_VISIBLE_DEVICES=\"$__claw_cv\" -e "
		    "NVIDIA_VISIBLE_DEVICES=\"$__claw_g\"\n");
	buf_append_str(b, "set -- \"$@\"");
	oci_append_exec_sh(p, b);
	buf_append_str(b, " \"$$\"");
}

/* Build the wrap for docker or podman; see contain_oci.h. */
char *
contain_oci_wrap(const struct contain_policy *p,
    const struct contain_oci_opts *o, char **cause)
{
	struct buf	 b = BUF_INIT;
	char		*n;
	int		 named;

	if (p == NULL || o == NULL || o->dir == NULL || *o->dir == '\0') {
		claw_fail(cause, CLAW_ERR_INVAL, "no policy or directory");
		return NULL;
	}
	named = p->user != NULL && oci_user_is_name(p->user);
	if (oci_check_policy(p, cause) != 0 ||
	    (!named && oci_check_user(p->user, cause) != 0))
		return NULL;
	if (o->gpu_file != NULL && p->ngpus != 0) {
		claw_fail(cause, CLAW_ERR_INVAL, "GPUs from the allocation "
		    "file need no GPU indexes");
		return NULL;
	}
	n = xasprintf(CONTAIN_OCI_PREFIX "%s", p->sandbox);
	oci_wrap_params(p, o, n, named, &b);
	buf_append_str(&b, HOST_SH_OCI_ENGINE HOST_SH_OCI_WRAP_IDS);
	oci_wrap_create(p, &b);
	buf_append_str(&b, HOST_SH_OCI_WRAP_BOX HOST_SH_OCI_WRAP_WATCH);
	oci_wrap_exec(p, o->gpu_file != NULL, &b);
	free(n);
	return buf_detach(&b);
}

/* Check a runtime and sandbox id for stop and status. */
static int
oci_check_box(enum contain_runtime runtime, const char *sandbox,
    char **cause)
{
	if (runtime != CONTAIN_DOCKER && runtime != CONTAIN_PODMAN)
		return claw_fail(cause, CLAW_ERR_INVAL, "runtime %s is not "
		    "docker or podman", contain_runtime_name(runtime));
	if (oci_check_name(sandbox, NULL) != 0 ||
	    strlen(sandbox) > OCI_NAME_MAX - strlen(CONTAIN_OCI_PREFIX))
		return claw_fail(cause, CLAW_ERR_INVAL, "bad sandbox id "
		    "(allowed: [a-z0-9][a-z0-9_.-]*)");
	return 0;
}

/*
 * Build a script on the sandbox's container from the host script body
 * (after oci_engine.sh), its positional parameters the engine and the
 * container.  NULL with a cause as oci_check_box.
 */
static char *
oci_box_script(enum contain_runtime runtime, const char *sandbox,
    const char *body, char **cause)
{
	struct buf	 b = BUF_INIT;
	char		*n;

	if (oci_check_box(runtime, sandbox, cause) != 0)
		return NULL;
	n = xasprintf(CONTAIN_OCI_PREFIX "%s", sandbox);
	buf_append_str(&b, "set --");
	oci_word(&b, contain_runtime_name(runtime));
	oci_word(&b, n);
	buf_append_str(&b, "\n" HOST_SH_OCI_ENGINE);
	buf_append_str(&b, body);
	free(n);
	return buf_detach(&b);
}

/* Build the stop code (src/host/oci_stop.sh); see contain_oci.h. */
char *
contain_oci_stop(enum contain_runtime runtime, const char *sandbox,
    char **cause)
{
	return oci_box_script(runtime, sandbox, HOST_SH_OCI_STOP, cause);
}

/* Build the status code (src/host/oci_status.sh); see contain_oci.h. */
char *
contain_oci_status(enum contain_runtime runtime, const char *sandbox,
    char **cause)
{
	return oci_box_script(runtime, sandbox, HOST_SH_OCI_STATUS, cause);
}
