/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Tar streams over an exec channel, one child process on the local side.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "exec.h"
#include "fdio.h"
#include "hostws.h"
#include "ignore.h"
#include "log.h"
#include "manifest.h"
#include "pathguard.h"
#include "progress.h"
#include "shquote.h"
#include "signals.h"
#include "strv.h"
#include "tarstream.h"
#include "transfer.h"
#include "transfer_int.h"
#include "transport.h"
#include "xmalloc.h"

#define TRANSFER_ERR_MAX	(64 * 1024)
#define TRANSFER_CHUNK		(64 * 1024)
#define TRANSFER_ERR_SHOW	300	/* of the host's stderr in a message */
#define TRANSFER_TRAIL_MAX	(1024 * 1024)	/* bytes after a tar's end */

/* What the child reports back through its result pipe. */
struct transfer_result {
	int			rc;
	struct tarstream_stats	st;
	size_t			cause_len;
	size_t			hints_len;	/* transfer_hints.c, after it */
};

/* A stream end for the tarstream callbacks. */
struct transfer_fd {
	int				 fd;
	char				 buf[TRANSFER_CHUNK];
	const char			*verb;	/* "sent", "received" */
	const struct tarstream_stats	*st;	/* the child's running stats */
	struct progress			 pr;	/* the line on a terminal */
};

/* Count bytes through the stream for the progress line (progress.h). */
static void
transfer_progress(struct transfer_fd *f, size_t n, int done)
{
	if (done)
		progress_end(&f->pr, f->st->files);
	else
		progress_add(&f->pr, n, f->st->files);
}

/* The tar stream an upload of exactly paths[0..n) makes, about. */
static uint64_t
transfer_expect_paths(struct pathguard *pg, char *const *paths, size_t n)
{
	struct stat	 sb;
	uint64_t	 total = 1024;
	char		*why = NULL;
	size_t		 i;

	if (!isatty(STDERR_FILENO))
		return 0;		/* no line to show */
	for (i = 0; i < n; i++) {
		if (pathguard_lstat(pg, paths[i], &sb, &why) == 0)
			total += PROGRESS_TAR_BYTES(S_ISREG(sb.st_mode) ?
			    (uint64_t)sb.st_size : 0);
		free(why);
		why = NULL;
	}
	return total;
}

/* The tar stream of the entries a pull expects, about (0: unknown). */
uint64_t
transfer_expect_want(const struct tarstream_expect *ex)
{
	uint64_t	total = 1024;
	size_t		i;

	if (ex == NULL || ex->want == NULL)
		return 0;
	for (i = 0; i < ex->nwant; i++)
		total += PROGRESS_TAR_BYTES(ex->want[i]->size);
	return total;
}

/* Set up a stream end for the child (total: expected bytes, 0 unknown). */
static void
transfer_fd_init(struct transfer_fd *f, int fd, const char *verb,
    const struct tarstream_stats *st, uint64_t total)
{
	f->fd = fd;
	f->verb = verb;
	f->st = st;
	progress_init(&f->pr, verb, total);
}

static volatile sig_atomic_t	transfer_stopped;	/* in the child */

/* In the child: note the signal, so that the stream stops. */
static void
transfer_child_handler(int sig)
{
	transfer_stopped = sig;
}

/*
 * In the child: SIGINT, SIGTERM and SIGHUP (a terminal's, or forwarded
 * by the parent) interrupt its reads and writes, and the stream stops
 * there: the file being written is dropped, none is left half-written.
 */
static void
transfer_child_signals(void)
{
	struct sigaction	sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = transfer_child_handler;
	sigemptyset(&sa.sa_mask);
	(void)sigaction(SIGINT, &sa, NULL);
	(void)sigaction(SIGTERM, &sa, NULL);
	(void)sigaction(SIGHUP, &sa, NULL);
}

/*
 * tarstream_write_fn over a descriptor: CLAW_ERR_INTERRUPTED once stopped,
 * else the write's error.
 */
static int
transfer_write_cb(void *arg, const void *buf, size_t len)
{
	struct transfer_fd	*f = arg;

	if (transfer_stopped)
		return CLAW_ERR_INTERRUPTED;
	if (fdio_write_all(f->fd, buf, len) != 0)
		return claw_err_from_errno(errno);
	transfer_progress(f, len, 0);
	return 0;
}

/* A tar stream packed into memory, up to a cap. */
struct transfer_mem {
	struct buf	*out;
	size_t		 max;
	int		 over;		/* the cap was passed */
};

/* tarstream_write_fn into memory; CLAW_ERR_RANGE past the cap. */
static int
transfer_mem_cb(void *arg, const void *buf, size_t len)
{
	struct transfer_mem	*m = arg;

	if (m->out->len + len > m->max) {
		m->over = 1;
		return CLAW_ERR_RANGE;
	}
	buf_append(m->out, buf, len);
	return 0;
}

/* tarstream_read_fn over a descriptor. */
static ssize_t
transfer_read_cb(void *arg, const void **buf)
{
	struct transfer_fd	*f = arg;
	ssize_t			 n;

	do
		n = transfer_stopped ? -1 :
		    read(f->fd, f->buf, sizeof f->buf);
	while (n == -1 && errno == EINTR && !transfer_stopped);
	*buf = f->buf;
	if (n > 0)
		transfer_progress(f, (size_t)n, 0);
	return n;
}

/*
 * In the child, after the archive's end: read the rest of the stream (a
 * tar pads its last record with zeros, GNU tar to 10 KiB), so that the
 * host's tar is not cut off by a closed pipe (it would die of SIGPIPE,
 * status 141, after a pull that went well).  More than
 * TRANSFER_TRAIL_MAX bytes after the end is a hostile or broken host.
 */
static int
transfer_drain(struct transfer_fd *f, char **why)
{
	const void	*p;
	size_t		 total = 0;
	ssize_t		 n;

	while ((n = transfer_read_cb(f, &p)) > 0) {
		if ((total += (size_t)n) > TRANSFER_TRAIL_MAX) {
			*why = xasprintf("the host sent more than %d bytes "
			    "after the end of the tar stream",
			    TRANSFER_TRAIL_MAX);
			return CLAW_ERR_PROTO;
		}
	}
	if (n < 0) {
		*why = xasprintf("reading the tar stream: %s",
		    transfer_stopped ? "interrupted" : strerror(errno));
		return CLAW_ERR_IO;
	}
	return 0;
}

/*
 * In the child: send the outcome up the result pipe (then the cause and
 * the hints, if any: transfer_hints.c) and exit.
 */
static void __attribute__((__noreturn__))
transfer_child_exit(int fd, int rc, const struct tarstream_stats *st,
    const char *cause, const struct transfer_hints *hints)
{
	struct transfer_result	res;

	memset(&res, 0, sizeof res);
	res.rc = rc;
	res.st = *st;
	res.cause_len = cause != NULL ? strlen(cause) : 0;
	res.hints_len = rc == 0 && hints != NULL && !hints->over ?
	    hints->text.len : 0;
	if (fdio_write_all(fd, &res, sizeof res) == 0 &&
	    (res.cause_len == 0 ||
	    fdio_write_all(fd, cause, res.cause_len) == 0) &&
	    res.hints_len != 0)
		(void)fdio_write_all(fd, hints->text.data, res.hints_len);
	_exit(0);
}

/*
 * In the parent: collect the child's outcome (and, when hints is not
 * NULL, what it learnt of the files it wrote: *hints, or NULL) and reap
 * it.  All of it is read before the wait: the child may be blocked on
 * the pipe until then.
 */
static int
transfer_child_wait(pid_t pid, int fd, struct tarstream_stats *st,
    struct manifest **hints, char **cause)
{
	struct transfer_result	 res;
	char			*why = NULL, *h;
	ssize_t			 n;
	int			 status;

	n = fdio_read_full(fd, &res, sizeof res);
	if (n == (ssize_t)sizeof res && res.cause_len <= TRANSFER_ERR_MAX &&
	    res.hints_len <= TRANSFER_HINTS_MAX) {
		why = xcalloc(1, res.cause_len + 1);
		if (fdio_read_full(fd, why, res.cause_len) !=
		    (ssize_t)res.cause_len)
			snprintf(why, res.cause_len + 1, "transfer failed");
		h = xmalloc(res.hints_len + 1);
		if (res.hints_len != 0 && fdio_read_full(fd, h,
		    res.hints_len) == (ssize_t)res.hints_len && hints != NULL)
			*hints = transfer_hints_parse(h, res.hints_len);
		free(h);
	}
	while (waitpid(pid, &status, 0) == -1 && errno == EINTR)
		;
	if (why == NULL) {
		*cause = xstrdup("the local side of the transfer died");
		return CLAW_ERR_IO;
	}
	if (st != NULL)
		*st = res.st;
	if (res.rc != 0)
		*cause = why;
	else
		free(why);
	return res.rc;
}

/*
 * The host's stderr for a message: whole up to TRANSFER_ERR_SHOW bytes,
 * else cut at the last line end (or space) before that, saying how much
 * was left out.
 */
static char *
transfer_err_text(const struct buf *err)
{
	const char	*s = err->data != NULL ? err->data : "";
	size_t		 len = err->data != NULL ? err->len : 0, cut;

	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
		len--;
	if (len <= TRANSFER_ERR_SHOW)
		return xstrndup(s, len);
	for (cut = TRANSFER_ERR_SHOW; cut > 0 && s[cut] != '\n'; cut--)
		;
	if (cut == 0)
		for (cut = TRANSFER_ERR_SHOW; cut > 0 && s[cut] != ' '; cut--)
			;
	if (cut == 0)	/* no space: not inside a UTF-8 sequence */
		for (cut = TRANSFER_ERR_SHOW; cut > 0 &&
		    ((unsigned char)s[cut] & 0xc0) == 0x80; cut--)
			;
	return xasprintf("%.*s [cut: %zu more bytes]", (int)cut, s,
	    len - cut);
}

/* Run a step; see transfer_int.h. */
int
transfer_run(struct transport *t, const struct hostws *hw, const char *body,
    const struct transfer_io *io, int *statusp, char **cause)
{
	char *const		*self = io->self;
	struct exec_opts	 o;
	struct buf		 err = BUF_INIT, out = BUF_INIT;
	char			*text;
	int			 rc, status = 0, sig;

	memset(&o, 0, sizeof o);
	o.forward_stdin = io->in_fd != -1;
	o.in_fd = io->in_fd;
	o.quick_stop = 1;
	if (io->in != NULL) {
		o.in_data = io->in->data;
		o.in_len = io->in->len;
	}
	o.out.fd = io->out_fd;
	o.out.buf = io->out != NULL ? io->out : &out;
	o.out.max = io->out != NULL ? io->out_max : TRANSFER_ERR_MAX;
	o.err.fd = -1;
	o.err.buf = &err;
	o.err.max = TRANSFER_ERR_MAX;
	o.overflowed = io->overflowed;
	rc = CLAW_ERR_UNSUPPORTED;
	if (hw != NULL && self != NULL &&
	    (rc = hostws_run_self(t, hw, self, &o, &status, cause)) ==
	    CLAW_ERR_UNSUPPORTED) {
		free(*cause);
		*cause = NULL;
	}
	if (rc == 0 && hostws_self_unknown(status, &err)) {
		log_debug("the sandbox's environment predates %s: the shell "
		    "step instead", self[1]);
		buf_free(&out);
		buf_free(&err);
		return 1;
	}
	if (rc == 0)
		log_debug("%s: the agent's own step in the sandbox's running "
		    "environment", self[1]);
	else if (rc == CLAW_ERR_UNSUPPORTED)
		rc = hw != NULL ? hostws_run(t, hw, body, &o, &status, cause) :
		    exec_sh(t, body, &o, &status, cause);
	*statusp = status;
	text = transfer_err_text(&err);
	if ((sig = signals_caught(0)) != 0) {
		if (rc != 0)
			free(*cause);
		*cause = xasprintf("interrupted (SIG%s): stopped",
		    sig == SIGINT ? "INT" : sig == SIGTERM ? "TERM" : "HUP");
		rc = CLAW_ERR_INTERRUPTED;
	} else if (rc == 0 && status != 0 && io->tolerant)
		log_info("%s: the host's tar said (status %d): %s",
		    transport_label(t), status, text);
	else if (rc == 0 && status != 0) {
		*cause = xasprintf("%s: remote tar failed (status %d): %s",
		    transport_label(t), status, text);
		rc = CLAW_ERR_PROTO;
	}
	free(text);
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/* Return 1 if path is one of sel[0..n) or lies beneath one. */
static int
transfer_selected(const char *path, char *const *sel, size_t n)
{
	size_t	i, len;

	if (n == 0)
		return 1;
	for (i = 0; i < n; i++) {
		len = strlen(sel[i]);
		if (strncmp(path, sel[i], len) == 0 &&
		    (path[len] == '\0' || path[len] == '/'))
			return 1;
	}
	return 0;
}

/* Open the workspace root of pg for a scan. */
static int
transfer_root(struct pathguard *pg, int *fd, char **cause)
{
	*fd = open(pathguard_root(pg), O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (*fd == -1) {
		*cause = xasprintf("%s: cannot open the workspace",
		    pathguard_root(pg));
		return CLAW_ERR_IO;
	}
	return 0;
}

/* Scan the workspace of pg with the ignore rules ig; see transfer.h. */
int
transfer_scan(struct pathguard *pg, struct ignore *ig,
    const struct manifest *prev, int flags, struct manifest **out,
    char **cause)
{
	int	rootfd, rc;

	if ((rc = transfer_root(pg, &rootfd, cause)) != 0)
		return rc;
	rc = manifest_scan(rootfd, prev, ignore_skip_cb, ig, flags, out,
	    cause);
	close(rootfd);
	return rc;
}

/* Update prev by the journal's paths; see transfer.h. */
int
transfer_rescan(struct pathguard *pg, struct ignore *ig,
    const struct manifest *prev, char *const *paths, size_t n, int flags,
    struct manifest **out, char **cause)
{
	int	rootfd, rc;

	if ((rc = transfer_root(pg, &rootfd, cause)) != 0)
		return rc;
	rc = manifest_rescan(rootfd, prev, paths, n, ignore_skip_cb, ig,
	    flags, out, cause);
	close(rootfd);
	return rc;
}

/*
 * Scan the workspace (ignore rules applied, no link followed), keep what
 * sel names (everything when nsel is 0), and write it as a tar stream;
 * the scan's sizes give arg's progress line its total.
 */
static int
transfer_walk_create(struct pathguard *pg, char *const *sel, size_t nsel,
    int flags, char *const *exclude, size_t nexclude, tarstream_write_fn wr,
    struct transfer_fd *arg, struct tarstream_stats *st, char **cause)
{
	uint64_t	  total = 1024;
	struct manifest	 *m = NULL;
	struct ignore	 *ig = NULL;
	char		**list;
	size_t		  i, k = 0;
	int		  rc;

	if ((rc = ignore_new((const char *const *)(uintptr_t)exclude,
	    nexclude, &ig, cause)) == 0) {
		ignore_set_push_git(ig, (flags & TRANSFER_PUSH_GIT) != 0);
		rc = transfer_scan(pg, ig, NULL, 0, &m, cause);
	}
	ignore_free(ig);
	if (rc != 0)
		return rc;
	list = xcalloc(m->n + 1, sizeof *list);
	for (i = 0; i < m->n; i++) {
		if (!transfer_selected(m->e[i].path, sel, nsel))
			continue;
		if (pathguard_name_check(m->e[i].path, cause) != 0) {
			log_warn("not sent: %s", *cause);
			free(*cause);
			*cause = NULL;
			continue;
		}
		list[k++] = m->e[i].path;
		total += PROGRESS_TAR_BYTES(m->e[i].type == MANIFEST_FILE ?
		    m->e[i].size : 0);
	}
	arg->pr.total = total;	/* the scan told us: a percentage */
	rc = tarstream_create(pg, list, k, wr, arg, st, cause);
	free(list);
	manifest_free(m);
	return rc;
}

/*
 * The names for the host's tar -T, one a line, each as "./NAME" so that
 * none can look like an option (names were judged: no newlines).
 */
void
transfer_names(struct buf *b, char *const *paths, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		buf_appendf(b, "./%s\n", paths[i]);
}

/*
 * The host side of a push: a step's body (*step set) unpacking staged
 * (transfer_stage_body; for an exact list, after transfer_parents' lines
 * on stdin: TRANSFER_FIX_PARENTS), or for a seed a whole script (*step
 * clear) unpacking into a stage beside the new workspace (as the SSH
 * user: nothing of the sandbox's has run yet), given to the sandbox
 * when it first runs.
 */
char *
transfer_push_script(const struct hostws *hw, int stage, int exact,
    int *step)
{
	struct buf	 body = BUF_INIT;
	char		*q, *s;

	*step = !stage;
	if (!stage) {
		if (exact)
			buf_append_str(&body, TRANSFER_FIX_PARENTS);
		transfer_stage_body(&body, "");
		return buf_detach(&body);
	}
	q = shquote(hw->dir);
	s = xasprintf("d=%s; s=\"$d.stage.$$\"; o=\"$d.old.$$\"; "
	    "rm -rf -- \"$s\" && mkdir -m 700 -- \"$s\" && "
	    "(cd -- \"$s\" && tar -xpf -) && "
	    "{ [ ! -e \"$d\" ] || mv -- \"$d\" \"$o\"; } && "
	    "mv -- \"$s\" \"$d\" && rm -rf -- \"$o\" || "
	    "{ rm -rf -- \"$s\"; exit 1; }", q);
	free(q);
	return s;
}

/* Check every path with pathguard before it reaches a command line. */
int
transfer_check_paths(char *const *paths, size_t n, char **cause)
{
	size_t	i;
	int	rc;

	for (i = 0; i < n; i++) {
		if ((rc = pathguard_name_check(paths[i], cause)) != 0)
			return rc;
	}
	return 0;
}

/*
 * Make the data and result pipes and fork.  The child gets in *data the
 * data end it uses (the read end when child_reads) and in *res the result
 * write end; the parent gets the other data end and the result read end.
 * Returns the pid (0 in the child), or -1 with nothing left open.
 */
static pid_t
transfer_spawn(int child_reads, int *data, int *res)
{
	int	d[2], r[2], mine;
	pid_t	pid;

	if (pipe2(d, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(r, O_CLOEXEC) == -1) {
		close(d[0]);
		close(d[1]);
		return -1;
	}
	if ((pid = fork()) == -1) {
		close(d[0]);
		close(d[1]);
		close(r[0]);
		close(r[1]);
		return -1;
	}
	mine = (pid == 0) == (child_reads != 0) ? 0 : 1;
	*data = d[mine];
	close(d[1 - mine]);
	*res = r[pid == 0 ? 1 : 0];
	close(r[pid == 0 ? 0 : 1]);
	return pid;
}

/*
 * In the parent: reap the child and merge its outcome with rc.  The
 * local side's error wins when the host's side ended well, or was
 * stopped for it (status 128 + SIGPIPE: the local side stopped reading
 * first, a full disk here); an interruption wins over both.
 */
static int
transfer_finish(pid_t pid, int res, int rc, int status,
    struct tarstream_stats *st, struct manifest **hints, char **cause)
{
	char	*why = NULL;
	int	 crc;

	signals_forward(0);
	crc = transfer_child_wait(pid, res, st, hints, &why);
	close(res);
	if (crc != 0 && rc != CLAW_ERR_INTERRUPTED && (rc == 0 ||
	    (rc == CLAW_ERR_PROTO && status == 128 + SIGPIPE))) {
		if (rc != 0)
			free(*cause);
		*cause = xasprintf("here: %s", why);
		free(why);
		rc = crc;
	} else
		free(why);
	if (rc != 0 && hints != NULL) {
		manifest_free(*hints);
		*hints = NULL;
	}
	return rc;
}

/* Append the directories above paths[0..n), sorted, each once. */
void
transfer_parents(char *const *paths, size_t n, struct buf *out)
{
	char	**v = NULL, *slash;
	size_t	  i, k = 0, cap = 0;

	for (i = 0; i < n; i++) {
		for (slash = paths[i]; (slash = strchr(slash, '/')) != NULL;
		    slash++) {
			if (k == cap) {
				cap = cap == 0 ? 16 : cap * 2;
				v = xreallocarray(v, cap, sizeof *v);
			}
			v[k++] = xstrndup(paths[i],
			    (size_t)(slash - paths[i]));
		}
	}
	strv_uniq(v, &k, 1);
	for (i = 0; i < k; i++) {
		buf_appendf(out, "%s\n", v[i]);
		free(v[i]);
	}
	buf_append_str(out, ".\n");
	free(v);
}

/*
 * Upload, scanning (exact == 0) or taking paths as they are; an exact
 * list as the agent's own step (fs-unpack) where the sandbox's running
 * environment runs it and self is set.
 */
static int
transfer_push_do(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n, int flags,
    int exact, char *const *exclude, size_t nexclude, int self,
    struct tarstream_stats *st, char **cause)
{
	struct transfer_io	 io;
	struct transfer_fd	 w;
	struct tarstream_stats	 cst;
	struct buf		 parents = BUF_INIT;
	char			*script, *why = NULL;
	pid_t			 pid;
	int			 data, res, rc, status = 0, step;

	if ((rc = transfer_check_paths(paths, n, cause)) != 0 ||
	    (rc = tarstream_ready(cause)) != 0)
		return rc;
	if (exact && self && (rc = transfer_push_small(t, pg, hw, paths, n,
	    st, cause)) != TRANSFER_NOT_SMALL)
		return rc;
	if ((pid = transfer_spawn(0, &data, &res)) == -1)
		return CLAW_ERR_IO;
	if (pid == 0) {
		transfer_child_signals();
		memset(&cst, 0, sizeof cst);
		transfer_fd_init(&w, data, "sent", &cst, exact ?
		    transfer_expect_paths(pg, paths, n) : 0);
		if (exact)
			rc = tarstream_create(pg, paths, n, transfer_write_cb,
			    &w, &cst, &why);
		else
			rc = transfer_walk_create(pg, paths, n, flags,
			    exclude, nexclude, transfer_write_cb, &w, &cst,
			    &why);
		transfer_progress(&w, 0, 1);
		close(data);
		transfer_child_exit(res, rc, &cst, why, NULL);
	}
	if (exact)
		transfer_parents(paths, n, &parents);
	script = transfer_push_script(hw, (flags & TRANSFER_STAGE) != 0,
	    exact, &step);
	signals_forward(pid);
	memset(&io, 0, sizeof io);
	io.self = exact && self ? transfer_self_unpack : NULL;
	io.in = exact ? &parents : NULL;
	io.in_fd = data;
	io.out_fd = -1;
	rc = transfer_run(t, step ? hw : NULL, script, &io, &status, cause);
	buf_free(&parents);
	close(data);
	free(script);
	if (rc == 1) {		/* an older agent: again, the shell's way */
		(void)transfer_finish(pid, res, CLAW_ERR_INTERRUPTED, 0, NULL,
		    NULL, cause);
		free(*cause);
		*cause = NULL;
		return transfer_push_do(t, pg, hw, paths, n, flags, exact,
		    exclude, nexclude, 0, st, cause);
	}
	return transfer_finish(pid, res, rc, status, st, NULL, cause);
}

/* Upload; see transfer.h. */
int
transfer_push(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n, int flags,
    char *const *exclude, size_t nexclude, struct tarstream_stats *st,
    char **cause)
{
	return transfer_push_do(t, pg, hw, paths, n, flags, 0,
	    exclude, nexclude, 0, st, cause);
}

/* Upload exactly these entries; see transfer.h. */
int
transfer_push_list(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n,
    struct tarstream_stats *st, char **cause)
{
	return transfer_push_do(t, pg, hw, paths, n, 0, 1, NULL, 0, 1,
	    st, cause);
}

/* The agent's own steps. */
char *const	transfer_self_unpack[] = { (char *)(uintptr_t)"clawssh-agent",
		    (char *)(uintptr_t)"fs-unpack", NULL };
char *const	transfer_self_pack[] = { (char *)(uintptr_t)"clawssh-agent",
		    (char *)(uintptr_t)"fs-pack", NULL };

/* The host side of a pull; see transfer_int.h. */
void
transfer_pull_script(struct buf *b, size_t n,
    const struct tarstream_expect *ex)
{
	/* pax carries mtimes to the nanosecond (the host's listing has
	   them so): GNU tar needs asking; others give whole seconds.  A
	   push's stage and the file tools' temporaries (.clawssh-tmp-*)
	   are half-written files: never offered back */
	transfer_stage_clean(b);
	buf_appendf(b, "set -f; f= && case $(tar --version 2>/dev/null) in "
	    "*GNU*) f='--format=posix --sparse';; esac && exec tar $f "
	    "--exclude='" PATHGUARD_TMP_PREFIX "*' -cf - %s",
	    n == 0 ? "." : ex == NULL || ex->want == NULL ?
	    "--no-unquote -T -" : "--no-unquote --no-recursion -T -");
}

/*
 * Download paths[0..n) (all with n == 0), taking only what ex asks for
 * (and never a .git: tarstream).  With an exact set (want) the stream
 * is judged entry by entry against it, so the host's tar may fail on
 * some (a file removed or grown since the listing: "Cannot stat", "file
 * changed as we read it"): those are left for the next sync, not
 * taken half, and the pull goes on.  An exact set goes through the
 * agent's own fs-pack where the sandbox's running environment runs it
 * and self is set.  With hints, what the child learnt of the files it
 * wrote (transfer_hints.c) comes back in *hints, or NULL.
 */
static int
transfer_pull_do(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n,
    const struct tarstream_expect *ex, const struct tarstream_limits *lim,
    int self, struct tarstream_stats *st, struct manifest **hints,
    char **cause)
{
	int			 exact = ex != NULL && ex->want != NULL;
	struct transfer_io	 io;
	struct transfer_fd	 r;
	struct tarstream_stats	 cst;
	struct tarstream_expect	 cex;
	struct transfer_hints	 hh;
	struct buf		 names = BUF_INIT, b = BUF_INIT;
	char			*why = NULL;
	pid_t			 pid;
	int			 data, res, rc, status = 0;

	if ((rc = transfer_check_paths(paths, n, cause)) != 0 ||
	    (rc = tarstream_ready(cause)) != 0)
		return rc;
	if (exact && self && (rc = transfer_pull_small(t, pg, hw, paths, n,
	    ex, lim, st, cause)) != TRANSFER_NOT_SMALL)
		return rc;
	if ((pid = transfer_spawn(1, &data, &res)) == -1)
		return CLAW_ERR_IO;
	if (pid == 0) {
		transfer_child_signals();
		memset(&cst, 0, sizeof cst);
		memset(&hh, 0, sizeof hh);
		memset(&cex, 0, sizeof cex);
		if (ex != NULL)
			cex = *ex;
		cex.any = ex == NULL;
		if (hints != NULL && cex.skipped == NULL) {
			cex.written = transfer_hints_add;
			cex.arg = &hh;
		}
		transfer_fd_init(&r, data, "received", &cst,
		    transfer_expect_want(ex));
		rc = tarstream_extract_expect(pg, transfer_read_cb, &r, lim,
		    &cex, &cst, &why);
		if (rc == 0)
			rc = transfer_drain(&r, &why);
		transfer_progress(&r, 0, 1);
		transfer_child_exit(res, rc, &cst, why,
		    cex.written != NULL ? &hh : NULL);
	}
	transfer_names(&names, paths, n);
	transfer_pull_script(&b, n, ex);
	signals_forward(pid);
	memset(&io, 0, sizeof io);
	io.self = exact && self ? transfer_self_pack : NULL;
	io.in = &names;
	io.in_fd = -1;
	io.out_fd = data;
	io.tolerant = exact;
	rc = transfer_run(t, hw, b.data, &io, &status, cause);
	close(data);
	buf_free(&b);
	buf_free(&names);
	if (rc == 1) {		/* an older agent: again, the shell's way */
		(void)transfer_finish(pid, res, CLAW_ERR_INTERRUPTED, 0, NULL,
		    NULL, cause);
		return transfer_pull_do(t, pg, hw, paths, n, ex, lim, 0, st,
		    hints, cause);
	}
	return transfer_finish(pid, res, rc, status, st, hints, cause);
}

/* Download; see transfer.h. */
int
transfer_pull(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, char *const *paths, size_t n,
    const struct tarstream_limits *lim, struct tarstream_stats *st,
    struct manifest **hints, char **cause)
{
	struct tarstream_expect	ex;

	memset(&ex, 0, sizeof ex);
	ex.tops = paths;
	ex.ntops = n;
	if (hints != NULL)
		*hints = NULL;
	return transfer_pull_do(t, pg, hw, paths, n, n != 0 ? &ex : NULL,
	    lim, 0, st, hints, cause);
}

/* Download exactly these entries; see transfer.h. */
int
transfer_pull_list(struct transport *t, struct pathguard *pg,
    const struct hostws *hw, const struct manifest_entry *const *want,
    size_t n, const struct tarstream_limits *lim,
    struct tarstream_stats *st, struct manifest **hints, char **cause)
{
	struct tarstream_expect	  ex;
	char			**paths;
	size_t			  i;
	int			  rc;

	paths = xcalloc(n + 1, sizeof *paths);
	for (i = 0; i < n; i++)
		paths[i] = want[i]->path;
	memset(&ex, 0, sizeof ex);
	ex.want = want;
	ex.nwant = n;
	if (hints != NULL)
		*hints = NULL;
	rc = transfer_pull_do(t, pg, hw, paths, n, &ex, lim, 1, st, hints,
	    cause);
	free(paths);
	return rc;
}

/* Pack entries into memory; see transfer.h. */
int
transfer_pack_list(struct pathguard *pg, char *const *paths, size_t n,
    size_t max, struct buf *out, struct tarstream_stats *st, char **cause)
{
	struct transfer_mem	m;
	int			rc;

	if ((rc = transfer_check_paths(paths, n, cause)) != 0)
		return rc;
	m.out = out;
	m.max = max;
	m.over = 0;
	if ((rc = tarstream_create(pg, paths, n, transfer_mem_cb, &m, st,
	    cause)) == 0)
		return 0;
	if (m.over) {
		free(*cause);
		*cause = xstrdup("too much to send with the command");
		rc = CLAW_ERR_RANGE;
	}
	buf_reset(out);
	return rc;
}
