/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * docker and podman command lines from a containment policy.  Every input
 * is checked first; then the words are built in a private buffer, each
 * quoted for sh, and appended to the caller's buffer only when whole.
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
	    l->nofile < 0)
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

/* Check the policy and name (all but the user and the command). */
static int
oci_check_policy(const struct contain_policy *p, const char *name,
    char **cause)
{
	int	r;

	if ((r = oci_check_modes(p, cause)) != 0 ||
	    (r = contain_image_ref_check(p->image, cause)) != 0 ||
	    (r = oci_check_name(name, cause)) != 0 ||
	    (r = oci_check_env(p->env, p->nenv, cause)) != 0 ||
	    (r = oci_check_cwd(p->cwd, cause)) != 0 ||
	    (r = oci_check_numbers(p, cause)) != 0)
		return r;
	if (p->sandbox != NULL && oci_check_name(p->sandbox, NULL) != 0)
		return claw_fail(cause, CLAW_ERR_INVAL, "bad sandbox label");
	return 0;
}

/* Check everything contain_oci_run is given. */
static int
oci_check(const struct contain_policy *p, const char *name, int argc,
    char *const argv[], char **cause)
{
	int	r, i;

	if ((r = oci_check_policy(p, name, cause)) != 0 ||
	    (r = oci_check_user(p->user, cause)) != 0)
		return r;
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
 * Append the init: docker's --init (tini) reports a failed exec as 127 or
 * 126 itself; podman's (catatonit) as 1, so podman runs the command as
 * the container's first process, and the engine reports 127 (not found)
 * or 126 (cannot be run) naming the command.  That process has no
 * default action for SIGTERM, so a stop (rm -f by the watcher, destroy)
 * kills at once rather than after waiting 10 s for nothing.
 */
static void
oci_append_init(const struct contain_policy *p, struct buf *b)
{
	if (p->runtime == CONTAIN_DOCKER) {
		oci_word(b, "--init");
		return;
	}
	oci_word(b, "--stop-timeout");
	oci_word(b, "0");
}

/* Append the confinement that does not depend on the policy's values. */
static void
oci_append_fixed(const struct contain_policy *p, const char *name,
    struct buf *b)
{
	oci_word(b, "run");
	oci_word(b, "--rm");
	oci_word(b, "-i");
	if (p->tty)
		oci_word(b, "-t");
	oci_append_init(p, b);
	oci_word(b, "--name");
	oci_word(b, name);
	if (p->sandbox != NULL) {
		oci_word(b, "--label");
		oci_wordf(b, "%s=%s", CONTAIN_OCI_LABEL, p->sandbox);
	}
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
}

/* Append the workspace mount, working directory, user and environment. */
static void
oci_append_workspace(const struct contain_policy *p, int user,
    struct buf *b)
{
	size_t	i;

	oci_word(b, "--mount");
	if (p->access == CONTAIN_WS_NONE)
		oci_wordf(b, "type=bind,source=%s,target=%s", p->scratch,
		    CONTAIN_OCI_WORKSPACE);
	else
		oci_wordf(b, "type=bind,source=%s,target=%s%s", p->workspace,
		    CONTAIN_OCI_WORKSPACE,
		    p->access == CONTAIN_WS_RO ? ",readonly" : "");
	oci_word(b, "--workdir");
	if (p->cwd == NULL || *p->cwd == '\0')
		oci_word(b, CONTAIN_OCI_WORKSPACE);
	else
		oci_wordf(b, "%s/%s", CONTAIN_OCI_WORKSPACE, p->cwd);
	if (user && p->user != NULL) {
		oci_word(b, "--user");
		oci_word(b, p->user);
	}
	for (i = 0; i < p->nenv; i++) {
		oci_word(b, "-e");
		oci_word(b, p->env[i]);
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

/* Build the docker or podman command line; see contain_oci.h. */
int
contain_oci_run(const struct contain_policy *p, const char *name, int argc,
    char *const argv[], struct buf *b, char **cause)
{
	struct buf	line = BUF_INIT;
	int		r;

	if (p == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "no policy");
	if ((r = oci_check(p, name, argc, argv, cause)) != 0)
		return r;
	shquote_append(&line, contain_runtime_name(p->runtime));
	oci_append_fixed(p, name, &line);
	oci_append_limits(&p->limits, &line);
	oci_append_workspace(p, 1, &line);
	oci_append_gpus(p, &line);
	oci_word(&line, p->image);
	buf_append(&line, " ", 1);
	shquote_append_argv(&line, argc, argv);
	buf_append(b, line.data, line.len);
	buf_free(&line);
	return 0;
}

/*
 * Append the wrap's preamble: the engine must be installed; a watcher in
 * its own session removes the container once this shell (soon the engine
 * client, by exec) is gone, however it ended.
 */
static void
oci_wrap_start(const struct contain_policy *p, const char *name,
    struct buf *b)
{
	const char	*e = contain_runtime_name(p->runtime);

	buf_appendf(b, "command -v %s >/dev/null 2>&1 || { echo \"clawssh: "
	    "runtime %s: %s is not installed on this host\" >&2; "
	    "exit 125; }\n", e, e, e);
	buf_appendf(b, "(setsid sh -c 'while kill -0 \"$1\" 2>/dev/null; "
	    "do sleep 1; done; %s rm -f \"$2\" >/dev/null 2>&1' sh $$ %s "
	    "</dev/null >/dev/null 2>&1 &)\n", e, name);
}

/*
 * Append sh code resolving a user name on the host to "uid:gid" in
 * $__claw_ug (exit 125 if there is no such user).
 */
static void
oci_wrap_user(const char *user, struct buf *b)
{
	buf_appendf(b, "__claw_ug=$(id -u -- %s 2>/dev/null):$(id -g -- %s "
	    "2>/dev/null)\ncase $__claw_ug in [0-9]*:[0-9]*) ;; *) echo "
	    "\"clawssh: user %s does not exist on this host\" >&2; "
	    "exit 125 ;; esac\n", user, user, user);
}

/*
 * Append sh code giving the bound directory to owner (sh text, quoted by
 * the caller; owner and mode 0700) when the host user is root, so that
 * it can write there, then running then (sh text) if not NULL.
 */
static void
oci_wrap_chown(const struct contain_policy *p, const char *owner,
    const char *then, struct buf *b)
{
	const char	*dir = p->access == CONTAIN_WS_NONE ? p->scratch :
	    p->workspace;

	buf_appendf(b, "if [ \"$(id -u)\" = 0 ]; then chown -R -h -P %s ",
	    owner);
	shquote_append(b, dir);
	buf_append_str(b, " && chmod 700 ");
	shquote_append(b, dir);
	buf_append_str(b, " || { echo \"clawssh: cannot give the workspace to "
	    "the sandbox's user\" >&2; exit 125; }");
	if (then != NULL)
		buf_appendf(b, "; %s", then);
	buf_append_str(b, "; fi\n");
}

/*
 * Append sh code choosing the identity: a user name resolved on the host
 * ($__claw_ug, always used), a numeric user (always used), or, without
 * one and only when the host user is root, default_uid:default_uid in
 * $__claw_du (none: the engine's default).  Each is given the bound
 * directory first when the host user is root.
 */
static void
oci_wrap_ids(const struct contain_policy *p, int named,
    unsigned int default_uid, struct buf *b)
{
	struct buf	 q = BUF_INIT;
	char		*ug, *then;

	if (named) {
		oci_wrap_user(p->user, b);
		oci_wrap_chown(p, "\"$__claw_ug\"", NULL, b);
	} else if (p->user != NULL) {
		shquote_append(&q, p->user);
		oci_wrap_chown(p, q.data, NULL, b);
		buf_free(&q);
	} else if (default_uid != 0) {
		ug = xasprintf("%u:%u", default_uid, default_uid);
		then = xasprintf("__claw_du=%s", ug);
		buf_append_str(b, "__claw_du=\n");
		oci_wrap_chown(p, ug, then, b);
		free(then);
		free(ug);
	}
}

/*
 * Append sh code adding the GPUs assigned to p->sandbox in the host's
 * allocation file gpu_file (exit 125 when there are none).
 */
static void
oci_wrap_gpus(const struct contain_policy *p, const char *gpu_file,
    struct buf *b)
{
	buf_appendf(b, "__claw_g=$(awk -v id=%s '$2 == id { printf "
	    "\"%%s%%s\", s, $1; s = \",\" }' ", p->sandbox);
	shquote_append(b, gpu_file);
	buf_appendf(b, " 2>/dev/null)\n[ -n \"$__claw_g\" ] || { echo "
	    "\"clawssh: sandbox %s has no GPUs assigned on this host; "
	    "provision it again\" >&2; exit 125; }\n", p->sandbox);
	if (p->runtime == CONTAIN_PODMAN)
		buf_append_str(b, "for __claw_n in $(echo \"$__claw_g\" | "
		    "tr , ' '); do set -- \"$@\" --device "
		    "\"nvidia.com/gpu=$__claw_n\"; done\n");
	else
		buf_append_str(b, "set -- \"$@\" --gpus "
		    "\"\\\"device=$__claw_g\\\"\"\n");
	buf_append_str(b, "set -- \"$@\" -e CUDA_VISIBLE_DEVICES="
	    "\"$__claw_g\" -e NVIDIA_VISIBLE_DEVICES=\"$__claw_g\"\n");
}

/* Build the wrap for docker or podman; see contain_oci.h. */
char *
contain_oci_wrap(const struct contain_policy *p, const char *name,
    const char *gpu_file, unsigned int default_uid, char **cause)
{
	struct buf	b = BUF_INIT;
	size_t		i;
	int		named;

	if (p == NULL) {
		claw_fail(cause, CLAW_ERR_INVAL, "no policy");
		return NULL;
	}
	named = p->user != NULL && oci_user_is_name(p->user);
	if (oci_check_policy(p, name, cause) != 0 ||
	    (!named && oci_check_user(p->user, cause) != 0))
		return NULL;
	if (gpu_file != NULL && (p->sandbox == NULL || p->ngpus != 0)) {
		claw_fail(cause, CLAW_ERR_INVAL, "GPUs from the allocation "
		    "file need the sandbox label and no GPU indexes");
		return NULL;
	}
	oci_wrap_start(p, name, &b);
	oci_wrap_ids(p, named, default_uid, &b);
	buf_append_str(&b, "set --");
	buf_append(&b, " ", 1);
	shquote_append(&b, contain_runtime_name(p->runtime));
	oci_append_fixed(p, name, &b);
	oci_append_limits(&p->limits, &b);
	oci_append_workspace(p, !named, &b);
	for (i = 0; i < sizeof(oci_env_base) / sizeof(oci_env_base[0]); i++) {
		oci_word(&b, "-e");
		oci_word(&b, oci_env_base[i]);
	}
	oci_append_gpus(p, &b);
	buf_append_str(&b, "\n");
	if (named)
		buf_append_str(&b, "set -- \"$@\" --user \"$__claw_ug\"\n");
	else if (p->user == NULL && default_uid != 0)
		buf_append_str(&b, "[ -z \"$__claw_du\" ] || set -- \"$@\" "
		    "--user \"$__claw_du\"\n");
	buf_append_str(&b, "for __claw_v in $(env | sed -n "
	    "'s/^\\(LC_[A-Za-z0-9_]*\\)=.*/\\1/p'); do set -- \"$@\" -e "
	    "\"$__claw_v\"; done\n");
	if (gpu_file != NULL)
		oci_wrap_gpus(p, gpu_file, &b);
	buf_append_str(&b, "set -- \"$@\"");
	oci_word(&b, p->image);
	return buf_detach(&b);
}
