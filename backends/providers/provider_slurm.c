/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Slurm provider driver: sbatch submits a holder job that keeps an
 * allocation and runs an sshd of its own in it (provider_slurm_job.c),
 * squeue finds it by name, scontrol names its node, GPUs and the sshd's
 * port and host key, scancel ends it.  Slurm's commands are run with
 * fork/exec, no shell, an explicit environment, a timeout and capped
 * output; what they print is read by provider_slurm_parse.c.  See
 * provider_slurm.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "log.h"
#include "provider.h"
#include "provider_slurm.h"
#include "shquote.h"
#include "strv.h"
#include "xmalloc.h"

#define SLURM_TIMEOUT_DEFAULT	30		/* seconds per command */
#define SLURM_OUT_MAX		(1024 * 1024)	/* bytes of stdout read */
#define SLURM_ERR_MAX		4096		/* bytes of stderr kept */
#define SLURM_MSG_MAX		200		/* bytes of stderr in a cause */
#define SLURM_GPUS_MAX		64		/* GPUs one sandbox may ask */
#define SLURM_SSHD_GRACE	120		/* s a job may take to say */
#define SLURM_PUBKEY_MAX	16384		/* bytes of a .pub read */
#define SLURM_OPT_IDENTITY	"--clawssh-identity="
#define SLURM_OPT_SSHD		"--clawssh-sshd="

/* The identities tried, in ~/.ssh, without --clawssh-identity. */
static const char *const slurm_id_default[] = {
	"id_ed25519", "id_ecdsa", "id_rsa"
};

extern char	**environ;

/* What the child process of a Slurm command sees of our environment. */
static const char *const slurm_env_keep[] = {
	"PATH", "HOME", "USER", "LOGNAME", "TZ", "SLURM_CONF"
};

/* One command's outcome. */
struct slurm_result {
	struct buf	out;
	struct buf	err;
	int		status;		/* waitpid status */
	int		timed_out;
	int		overflow;
};

/* Return the program to run: prog, or conf's directory and prog. */
static char *
slurm_prog(const struct provider_conf *conf, const char *prog)
{
	size_t	n;

	if (conf->command == NULL || *conf->command == '\0')
		return xstrdup(prog);
	n = strlen(conf->command);
	return xasprintf("%s%s%s", conf->command,
	    conf->command[n - 1] == '/' ? "" : "/", prog);
}

/* Build the child's environment: the kept variables and LC_ALL=C. */
static char **
slurm_env(void)
{
	char	**env, *v;
	size_t	  i, n = 0;

	env = xcalloc(sizeof slurm_env_keep / sizeof slurm_env_keep[0] + 2,
	    sizeof *env);
	for (i = 0; i < sizeof slurm_env_keep / sizeof slurm_env_keep[0];
	    i++) {
		if ((v = getenv(slurm_env_keep[i])) != NULL)
			env[n++] = xasprintf("%s=%s", slurm_env_keep[i], v);
		else if (strcmp(slurm_env_keep[i], "PATH") == 0)
			env[n++] = xstrdup("PATH=/usr/local/bin:/usr/bin:/bin");
	}
	env[n] = xstrdup("LC_ALL=C");
	return env;
}

/* In the child: wire the pipes and exec; never returns. */
static void __attribute__((__noreturn__))
slurm_child(const char *prog, char **argv, char **env, int out, int err)
{
	int	null;

	setpgid(0, 0);
	if ((null = open("/dev/null", O_RDONLY)) == -1 ||
	    dup2(null, 0) == -1 || dup2(out, 1) == -1 || dup2(err, 2) == -1)
		_exit(127);
	closefrom(3);
	environ = env;
	execvp(prog, argv);
	dprintf(2, "cannot run %s: %s\n", prog, strerror(errno));
	_exit(127);
}

/*
 * Read what fd has into b, keeping at most max bytes; past that, set
 * *overflow, or drop the rest when overflow is NULL.  Returns 0 at EOF.
 */
static int
slurm_drain(int fd, struct buf *b, size_t max, int *overflow)
{
	char	buf[4096];
	ssize_t	r;

	if ((r = read(fd, buf, sizeof buf)) == -1)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (r == 0)
		return 0;
	if (b->len + r > max) {
		if (overflow != NULL)
			*overflow = 1;
		r = max - b->len;
	}
	buf_append(b, buf, r);
	return 1;
}

/* Read both pipes until EOF, the deadline or too much on stdout. */
static void
slurm_collect(int out, int err, int64_t deadline, struct slurm_result *res)
{
	struct pollfd	pfd[2];
	int		n;

	pfd[0].fd = out;
	pfd[1].fd = err;
	pfd[0].events = pfd[1].events = POLLIN;
	while (!res->overflow && (pfd[0].fd != -1 || pfd[1].fd != -1)) {
		n = poll(pfd, 2, clock_poll_timeout(deadline));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			res->timed_out = 1;
			return;
		}
		if (pfd[0].revents != 0 && !slurm_drain(out, &res->out,
		    SLURM_OUT_MAX, &res->overflow))
			pfd[0].fd = -1;
		if (pfd[1].revents != 0 && !slurm_drain(err, &res->err,
		    SLURM_ERR_MAX, NULL))
			pfd[1].fd = -1;
	}
}

/*
 * Reap pid, waiting until the deadline at most (a command may close its
 * output and linger); then, or when kill is set, kill its process group.
 */
static void
slurm_reap(pid_t pid, int64_t deadline, int kill_it,
    struct slurm_result *res)
{
	pid_t	r;

	while (!kill_it) {
		if ((r = waitpid(pid, &res->status, WNOHANG)) == pid)
			return;
		if (r == -1 && errno != EINTR)
			return;
		if (clock_poll_timeout(deadline) == 0) {
			res->timed_out = 1;
			break;
		}
		poll(NULL, 0, 10);
	}
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &res->status, 0) == -1 && errno == EINTR)
		;
}

/*
 * Run prog (from conf's directory when set) with argv; stdout into
 * res->out.  Returns 0 when it ran (whatever its exit status) or fails
 * when it could not be started, timed out or printed too much.
 */
static int
slurm_run(const struct provider_conf *conf, const char *prog,
    struct provider_argv *a, struct slurm_result *res, char **cause)
{
	char	*path, **env;
	int	 o[2], e[2], timeout, rc = 0;
	int64_t	 deadline;
	pid_t	 pid;

	memset(res, 0, sizeof *res);
	timeout = conf->timeout > 0 ? conf->timeout : SLURM_TIMEOUT_DEFAULT;
	deadline = clock_now_ms() + (int64_t)timeout * 1000;
	if (pipe2(o, O_CLOEXEC) == -1)
		return claw_fail_errno(cause, prog, "pipe");
	if (pipe2(e, O_CLOEXEC) == -1) {
		close(o[0]);
		close(o[1]);
		return claw_fail_errno(cause, prog, "pipe");
	}
	path = slurm_prog(conf, prog);
	env = slurm_env();
	if ((pid = fork()) == -1)
		rc = claw_fail_errno(cause, prog, "fork");
	else if (pid == 0)
		slurm_child(path, a->v, env, o[1], e[1]);
	close(o[1]);
	close(e[1]);
	if (pid != -1) {
		/* Also here, so a kill before the child's own call works. */
		setpgid(pid, pid);
		slurm_collect(o[0], e[0], deadline, res);
		slurm_reap(pid, deadline, res->timed_out || res->overflow,
		    res);
	}
	close(o[0]);
	close(e[0]);
	if (rc == 0 && res->timed_out)
		rc = claw_fail(cause, CLAW_ERR_TIMEOUT,
		    "slurm: %s did not finish within %d seconds", path,
		    timeout);
	else if (rc == 0 && res->overflow)
		rc = claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: %s printed more than %d bytes", path,
		    SLURM_OUT_MAX);
	free(path);
	strv_free(env);
	return rc;
}

/* Free what a result holds. */
static void
slurm_result_free(struct slurm_result *res)
{
	buf_free(&res->out);
	buf_free(&res->err);
}

/* The first line of a failed command's stderr, printable and short. */
static char *
slurm_errline(const struct slurm_result *res)
{
	const char	*s = res->err.data != NULL ? res->err.data : "";
	char		*m;
	size_t		 n, i;

	for (n = 0; n < res->err.len && s[n] != '\n' && n < SLURM_MSG_MAX;
	    n++)
		;
	m = xstrndup(s, n);
	for (i = 0; i < n; i++) {
		if (m[i] < ' ' || m[i] > '~')
			m[i] = '?';
	}
	return m;
}

/* Fail unless the command exited 0, naming it and its stderr. */
static int
slurm_check_exit(const char *prog, const struct slurm_result *res,
    char **cause)
{
	char	*m;
	int	 rc;

	if (WIFEXITED(res->status) && WEXITSTATUS(res->status) == 0)
		return 0;
	m = slurm_errline(res);
	if (WIFEXITED(res->status))
		rc = claw_fail(cause, CLAW_ERR_IO, "slurm: %s failed (exit %d)"
		    "%s%s", prog, WEXITSTATUS(res->status), *m ? ": " : "", m);
	else
		rc = claw_fail(cause, CLAW_ERR_IO, "slurm: %s killed by "
		    "signal %d", prog, WTERMSIG(res->status));
	free(m);
	return rc;
}

/* Run prog and require exit 0; stdout in res. */
static int
slurm_call(const struct provider_conf *conf, const char *prog,
    struct provider_argv *a, struct slurm_result *res, char **cause)
{
	int	rc;

	if ((rc = slurm_run(conf, prog, a, res, cause)) == 0 &&
	    (rc = slurm_check_exit(prog, res, cause)) == 0)
		return 0;
	slurm_result_free(res);
	return rc;
}

/* This user's jobs from squeue, only want's when want is not NULL. */
static int
slurm_query(const struct provider_conf *conf, const char *want,
    struct slurm_job **jobs, size_t *n, char **cause)
{
	struct provider_argv	a = { NULL, 0 };
	struct slurm_result	res;
	int			rc;

	provider_argv_add(&a, "squeue");
	provider_argv_add(&a, "--noheader");
	provider_argv_add(&a, "--me");
	provider_argv_add(&a, "--states=all");
	provider_argv_add(&a, "--format=%s", SLURM_SQUEUE_FORMAT);
	if (want != NULL)
		provider_argv_add(&a, "--name=%s%s", SLURM_JOB_PREFIX, want);
	rc = slurm_call(conf, "squeue", &a, &res, cause);
	provider_argv_free(&a);
	if (rc != 0)
		return rc;
	rc = slurm_parse_squeue(res.out.data != NULL ? res.out.data : "",
	    res.out.len, want, jobs, n, cause);
	slurm_result_free(&res);
	return rc;
}

/* Run scontrol --details show WHAT ID; its stdout in res. */
static int
slurm_scontrol(const struct provider_conf *conf, const char *what,
    const char *id, struct slurm_result *res, char **cause)
{
	struct provider_argv	a = { NULL, 0 };
	int			rc;

	provider_argv_add(&a, "scontrol");
	provider_argv_add(&a, "--details");
	provider_argv_add(&a, "show");
	provider_argv_add(&a, "%s", what);
	provider_argv_add(&a, "%s", id);
	rc = slurm_call(conf, "scontrol", &a, res, cause);
	provider_argv_free(&a);
	if (rc == 0 && res->out.data == NULL)
		buf_append(&res->out, "", 0);
	return rc;
}

/*
 * The value of the last driver option opt ("--clawssh-sshd=") in the
 * config's args, or NULL.
 */
static const char *
slurm_opt(const struct provider_conf *conf, const char *opt)
{
	const char	*v = NULL;
	size_t		 i, n = strlen(opt);

	for (i = 0; i < conf->nargs; i++) {
		if (conf->args[i] != NULL &&
		    strncmp(conf->args[i], opt, n) == 0)
			v = conf->args[i] + n;
	}
	return v;
}

/* True for an argument that is the driver's, not sbatch's. */
static int
slurm_opt_ours(const char *arg)
{
	return strncmp(arg, "--clawssh-", 10) == 0;
}

/* Read the first line of path (a public key) into *key. */
static int
slurm_read_pubkey(const char *path, char **key, char **cause)
{
	char	 buf[SLURM_PUBKEY_MAX];
	ssize_t	 n;
	size_t	 len = 0;
	int	 fd, rc;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return claw_fail_errno(cause, path, "open");
	while (len < sizeof buf - 1 &&
	    (n = read(fd, buf + len, sizeof buf - 1 - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			rc = claw_fail_errno(cause, path, "read");
			close(fd);
			return rc;
		}
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	if ((rc = slurm_pubkey_check(buf, strlen(buf), key, cause)) != 0)
		claw_fail(cause, rc, "slurm: %s: not an OpenSSH public key",
		    path);
	return rc;
}

/*
 * The identity the job's sshd lets in: --clawssh-identity=PATH, or the
 * first of ~/.ssh/id_{ed25519,ecdsa,rsa} that has a .pub.  Sets *path
 * (the private key) and *key (the public one, NULL unless want_key);
 * both NULL when there is none, which is not an error.
 */
static int
slurm_identity(const struct provider_conf *conf, int want_key,
    char **path, char **key, char **cause)
{
	const char	*opt, *home;
	char		*p, *pub;
	struct stat	 st;
	size_t		 i;
	int		 rc = 0;

	*path = *key = NULL;
	if ((opt = slurm_opt(conf, SLURM_OPT_IDENTITY)) != NULL) {
		if (*opt != '/')
			return claw_fail(cause, CLAW_ERR_INVAL, "slurm: "
			    SLURM_OPT_IDENTITY " needs an absolute path");
		p = xstrdup(opt);
	} else {
		if ((home = getenv("HOME")) == NULL || *home != '/')
			return 0;
		for (p = NULL, i = 0; p == NULL && i < sizeof slurm_id_default /
		    sizeof slurm_id_default[0]; i++) {
			pub = xasprintf("%s/.ssh/%s.pub", home,
			    slurm_id_default[i]);
			if (stat(pub, &st) == 0)
				p = xasprintf("%s/.ssh/%s", home,
				    slurm_id_default[i]);
			free(pub);
		}
		if (p == NULL)
			return 0;
	}
	pub = xasprintf("%s.pub", p);
	if (want_key)
		rc = slurm_read_pubkey(pub, key, cause);
	free(pub);
	if (rc != 0)
		free(p);
	else
		*path = p;
	return rc;
}

/* The sh prefix that runs a command inside job id's allocation. */
static char *
slurm_exec_wrap(const struct provider_conf *conf, const char *id)
{
	struct buf	 b = BUF_INIT;
	char		*srun;

	srun = slurm_prog(conf, "srun");
	shquote_append(&b, srun);
	buf_appendf(&b, " --jobid=%s --overlap --nodes=1 --ntasks=1 --quiet"
	    " --", id);
	free(srun);
	return buf_detach(&b);
}

/* The name of the user the jobs (and their sshds) run as. */
static int
slurm_user(char **user, char **cause)
{
	struct passwd	*pw;

	if ((pw = getpwuid(getuid())) == NULL || pw->pw_name == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "slurm: no user "
		    "name for uid %lu", (unsigned long)getuid());
	*user = xstrdup(pw->pw_name);
	return 0;
}

/* Reach the job's own sshd: its port, its host key, us as the user. */
static int
slurm_endpoint_sshd(const struct provider_conf *conf,
    struct slurm_access_info *ai, struct provider_sandbox *sb, char **cause)
{
	char	*path, *key, *user = NULL;
	int	 rc;

	if ((rc = slurm_user(&user, cause)) != 0)
		return rc;
	if ((rc = slurm_identity(conf, 0, &path, &key, cause)) != 0) {
		free(user);
		return rc;
	}
	sb->ep.port = ai->port;
	sb->ep.user = user;
	sb->ep.identity_file = path;
	sb->ep.host_keys = ai->host_key;
	ai->host_key = NULL;
	return 0;
}

/*
 * Say how a running job is reached, from its Comment: its sshd, or srun
 * through the node's; a job that has not said yet is still PENDING,
 * unless it ran SLURM_SSHD_GRACE seconds without saying (then srun).
 */
static int
slurm_access(const struct provider_conf *conf, const struct slurm_job *j,
    struct slurm_access_info *ai, struct provider_sandbox *sb, char **cause)
{
	const char	*why = ai->why;

	free(sb->state_text);
	if (ai->mode == SLURM_ACCESS_UNKNOWN &&
	    (ai->runtime < 0 || ai->runtime < SLURM_SSHD_GRACE)) {
		sb->state = PROVIDER_PENDING;
		sb->state_text = xasprintf("job %s %s, starting its sshd",
		    j->id, j->state_text);
		return 0;
	}
	if (ai->mode == SLURM_ACCESS_SSHD) {
		sb->state_text = xasprintf("job %s %s, sshd on port %d",
		    j->id, j->state_text, ai->port);
		return slurm_endpoint_sshd(conf, ai, sb, cause);
	}
	if (why == NULL)
		why = "not-reported";
	sb->state_text = xasprintf("job %s %s, srun (no sshd: %s)", j->id,
	    j->state_text, why);
	sb->ep.exec_wrap = slurm_exec_wrap(conf, j->id);
	return 0;
}

/* Fill a running job's endpoint, GPUs and access into sb. */
static int
slurm_endpoint(const struct provider_conf *conf, const struct slurm_job *j,
    struct provider_sandbox *sb, char **cause)
{
	struct slurm_result		res;
	struct slurm_access_info	ai;
	char				*addr = NULL, *gpus = NULL;
	int				 rc;

	if (j->node == NULL)
		return claw_fail(cause, CLAW_ERR_PARSE,
		    "slurm: job %s is running on no node", j->id);
	if ((rc = slurm_scontrol(conf, "node", j->node, &res, cause)) != 0)
		return rc;
	rc = slurm_parse_node_addr(res.out.data, res.out.len, &addr, cause);
	slurm_result_free(&res);
	if (rc != 0)
		return rc;
	if ((rc = slurm_scontrol(conf, "job", j->id, &res, cause)) == 0) {
		if ((rc = slurm_parse_gpus(res.out.data, res.out.len, &gpus,
		    cause)) == 0)
			rc = slurm_parse_access(res.out.data, res.out.len, &ai,
			    cause);
		slurm_result_free(&res);
	}
	if (rc != 0) {
		free(addr);
		free(gpus);
		return rc;
	}
	sb->ep.host = addr;
	sb->gpus = gpus;
	rc = slurm_access(conf, j, &ai, sb, cause);
	slurm_access_clear(&ai);
	if (sb->state != PROVIDER_READY) {
		free(sb->ep.host);
		sb->ep.host = NULL;
	}
	return rc;
}

/*
 * Fill sb from job j: name, state, state text, and for a running job its
 * endpoint and GPUs.  On failure sb holds nothing.
 */
static int
slurm_fill(const struct provider_conf *conf, const struct slurm_job *j,
    struct provider_sandbox *sb, char **cause)
{
	int	rc;

	memset(sb, 0, sizeof *sb);
	sb->name = xstrdup(j->name);
	sb->state = j->state;
	sb->state_text = xasprintf("job %s %s", j->id, j->state_text);
	if (j->state == PROVIDER_READY &&
	    (rc = slurm_endpoint(conf, j, sb, cause)) != 0) {
		provider_sandbox_clear(sb);
		return rc;
	}
	return 0;
}

/* Look name up; see provider.h. */
static int
slurm_get(const struct provider_conf *conf, const char *name,
    struct provider_sandbox *out, char **cause)
{
	struct provider_sandbox	 sb;
	struct slurm_job	*jobs;
	const struct slurm_job	*j;
	size_t			 n;
	int			 rc;

	if ((rc = slurm_name_check(name, cause)) != 0)
		return rc;
	if ((rc = slurm_query(conf, name, &jobs, &n, cause)) != 0)
		return rc;
	if ((j = slurm_job_pick(jobs, n)) == NULL) {
		memset(&sb, 0, sizeof sb);
		sb.name = xstrdup(name);
		sb.state = PROVIDER_ABSENT;
		sb.state_text = xstrdup("absent");
	} else if ((rc = slurm_fill(conf, j, &sb, cause)) != 0) {
		slurm_jobs_free(jobs, n);
		return rc;
	}
	slurm_jobs_free(jobs, n);
	if (sb.state == PROVIDER_READY && sb.ep.exec_wrap == NULL)
		log_info("slurm: %s: %s: the job's own sshd, %s port %d, host "
		    "key pinned", name, sb.state_text, sb.ep.host, sb.ep.port);
	else if (sb.state == PROVIDER_READY)
		log_info("slurm: %s: %s: commands run through srun --overlap "
		    "over %s's own sshd", name, sb.state_text, sb.ep.host);
	*out = sb;
	return 0;
}

/* Check that every extra argument is an option, not a script. */
static int
slurm_check_extra(char *const *v, size_t n, char **cause)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (v[i] == NULL || strncmp(v[i], "--", 2) != 0 ||
		    strncmp(v[i], "--wrap", 6) == 0)
			return claw_fail(cause, CLAW_ERR_INVAL,
			    "slurm: extra sbatch argument %zu is not a --option"
			    " (or is --wrap)", i + 1);
	}
	return 0;
}

/*
 * Add the holder job's script: the identity's public key for its sshd,
 * the sshd to run (--clawssh-sshd=PATH|no).
 */
static int
slurm_wrap(const struct provider_conf *conf, struct provider_argv *a,
    char **cause)
{
	const char	*sshd = slurm_opt(conf, SLURM_OPT_SSHD);
	char		*path = NULL, *key = NULL, *script;
	int		 rc;

	if (sshd != NULL && strcmp(sshd, "no") != 0 && *sshd != '/')
		return claw_fail(cause, CLAW_ERR_INVAL, "slurm: "
		    SLURM_OPT_SSHD " takes an absolute path or no");
	if ((sshd == NULL || strcmp(sshd, "no") != 0) &&
	    (rc = slurm_identity(conf, 1, &path, &key, cause)) != 0)
		return rc;
	script = slurm_job_script(key, sshd);
	provider_argv_add(a, "--wrap=%s", script);
	free(script);
	free(path);
	free(key);
	return 0;
}

/* Build sbatch's arguments for name and req. */
static int
slurm_sbatch_args(const struct provider_conf *conf, const char *name,
    const struct provider_request *req, struct provider_argv *a, char **cause)
{
	size_t	i;
	int	rc;

	if (req->image != NULL || req->policy != NULL)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED,
		    "slurm: %s is not supported (jobs run in the node's own "
		    "environment)", req->image != NULL ? "an image" :
		    "a policy");
	if (req->gpus < 0 || req->gpus > SLURM_GPUS_MAX)
		return claw_fail(cause, CLAW_ERR_UNSUPPORTED,
		    "slurm: ask for 0..%d GPUs, not %s", SLURM_GPUS_MAX,
		    req->gpus < 0 ? "all" : "more");
	if ((rc = slurm_check_extra(conf->args, conf->nargs, cause)) != 0 ||
	    (rc = slurm_check_extra(req->extra, req->nextra, cause)) != 0)
		return rc;
	for (i = 0; i < req->nextra; i++) {
		if (slurm_opt_ours(req->extra[i]))
			return claw_fail(cause, CLAW_ERR_INVAL, "slurm: %.40s "
			    "belongs in the provider's args in the config",
			    req->extra[i]);
	}
	provider_argv_add(a, "sbatch");
	provider_argv_add(a, "--parsable");
	provider_argv_add(a, "--job-name=%s%s", SLURM_JOB_PREFIX, name);
	provider_argv_add(a, "--nodes=1");
	provider_argv_add(a, "--ntasks=1");
	/*
	 * Our explicit environment, not NONE: NONE makes slurmd run a login
	 * shell on the node to build one.
	 */
	provider_argv_add(a, "--export=ALL");
	provider_argv_add(a, "--chdir=/");
	provider_argv_add(a, "--output=/dev/null");
	provider_argv_add(a, "--error=/dev/null");
	if (req->gpus > 0)
		provider_argv_add(a, "--gres=gpu:%d", req->gpus);
	for (i = 0; i < conf->nargs; i++) {
		if (!slurm_opt_ours(conf->args[i]))
			provider_argv_add(a, "%s", conf->args[i]);
	}
	for (i = 0; i < req->nextra; i++)
		provider_argv_add(a, "%s", req->extra[i]);
	return slurm_wrap(conf, a, cause);
}

/*
 * Cancel every job of name, best effort: sbatch timed out or printed
 * garbage, so a job may exist that nobody knows the id of.
 */
static void
slurm_cancel_name(const struct provider_conf *conf, const char *name)
{
	struct provider_argv	a = { NULL, 0 };
	struct slurm_result	res;
	char			*why = NULL;

	provider_argv_add(&a, "scancel");
	provider_argv_add(&a, "--quiet");
	provider_argv_add(&a, "--me");
	provider_argv_add(&a, "--name=%s%s", SLURM_JOB_PREFIX, name);
	if (slurm_call(conf, "scancel", &a, &res, &why) == 0)
		slurm_result_free(&res);
	free(why);
	provider_argv_free(&a);
}

/* Submit the holder job; see provider.h. */
static int
slurm_create(const struct provider_conf *conf, const char *name,
    const struct provider_request *req, char **cause)
{
	struct provider_argv	a = { NULL, 0 };
	struct slurm_result	res;
	char			id[SLURM_JOBID_MAX + 1];
	int			rc;

	if ((rc = slurm_name_check(name, cause)) != 0)
		return rc;
	if ((rc = slurm_sbatch_args(conf, name, req, &a, cause)) == 0 &&
	    (rc = slurm_call(conf, "sbatch", &a, &res, cause)) == 0) {
		rc = slurm_parse_jobid(res.out.data != NULL ? res.out.data :
		    "", res.out.len, id, cause);
		slurm_result_free(&res);
	}
	provider_argv_free(&a);
	/* Exit 0 with garbage, too much, or no exit in time. */
	if (rc == CLAW_ERR_PARSE || rc == CLAW_ERR_TIMEOUT)
		slurm_cancel_name(conf, name);
	return rc;
}

/* Cancel every live job of name; see provider.h. */
static int
slurm_destroy(const struct provider_conf *conf, const char *name,
    int *existed, char **cause)
{
	struct provider_argv	a = { NULL, 0 };
	struct slurm_result	res;
	struct slurm_job	*jobs;
	size_t			 n, i;
	int			 rc;

	if ((rc = slurm_name_check(name, cause)) != 0)
		return rc;
	if ((rc = slurm_query(conf, name, &jobs, &n, cause)) != 0)
		return rc;
	provider_argv_add(&a, "scancel");
	provider_argv_add(&a, "--quiet");
	for (i = 0; i < n; i++) {
		if (jobs[i].state == PROVIDER_PENDING ||
		    jobs[i].state == PROVIDER_READY)
			provider_argv_add(&a, "%s", jobs[i].id);
	}
	slurm_jobs_free(jobs, n);
	*existed = a.n > 2;
	if (a.n > 2 && (rc = slurm_call(conf, "scancel", &a, &res,
	    cause)) == 0)
		slurm_result_free(&res);
	provider_argv_free(&a);
	return rc;
}

/* Every sandbox clawssh named, one per name; see provider.h. */
static int
slurm_list(const struct provider_conf *conf, struct provider_sandbox **out,
    size_t *nout, char **cause)
{
	struct provider_sandbox	*v = NULL;
	struct slurm_job	*jobs;
	const struct slurm_job	*j;
	size_t			 n, nv = 0, i, k, same;
	int			 rc;

	if ((rc = slurm_query(conf, NULL, &jobs, &n, cause)) != 0)
		return rc;
	for (i = 0; i < n; i++) {
		for (k = 0; k < nv && strcmp(v[k].name, jobs[i].name) != 0;
		    k++)
			;
		if (k < nv)
			continue;
		/* Of the jobs with this name, the one that stands for it. */
		for (j = &jobs[i], same = i + 1; same < n; same++) {
			if (strcmp(jobs[same].name, j->name) == 0 &&
			    slurm_job_better(&jobs[same], j))
				j = &jobs[same];
		}
		v = xreallocarray(v, nv + 1, sizeof *v);
		if ((rc = slurm_fill(conf, j, &v[nv], cause)) != 0)
			break;
		nv++;
	}
	slurm_jobs_free(jobs, n);
	if (rc != 0) {
		for (i = 0; i < nv; i++)
			provider_sandbox_clear(&v[i]);
		free(v);
		return rc;
	}
	*out = v;
	*nout = nv;
	return 0;
}

const struct provider_ops provider_slurm = {
	.driver = "slurm",
	.name_max = SLURM_JOB_NAME_MAX - (sizeof SLURM_JOB_PREFIX - 1),
	.get = slurm_get,
	.create = slurm_create,
	.destroy = slurm_destroy,
	.list = slurm_list
};
