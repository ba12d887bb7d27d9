/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the provider drivers share: the driver table, running a provider's
 * executable with a deadline and bounded output, errors that name the
 * provider, and the checks every endpoint passes before it is used.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "log.h"
#include "provider.h"
#include "provider_kubernetes.h"
#include "spawn.h"
#include "xmalloc.h"

#define PROVIDER_REAP_MS	10000	/* for a child that closed its output */

static const struct provider_ops *const provider_drivers[] = {
	&provider_openshell,
	&provider_command,
	&provider_slurm,
	&provider_kubernetes,
	NULL
};

/* The driver called name; see provider.h. */
const struct provider_ops *
provider_find(const char *driver)
{
	size_t	i;

	for (i = 0; driver != NULL && provider_drivers[i] != NULL; i++) {
		if (strcmp(provider_drivers[i]->driver, driver) == 0)
			return provider_drivers[i];
	}
	return NULL;
}

/* Free an endpoint's strings. */
static void
provider_endpoint_clear(struct provider_endpoint *ep)
{
	free(ep->host);
	free(ep->user);
	free(ep->proxy_command);
	free(ep->identity_file);
	free(ep->host_key_alias);
	free(ep->exec_wrap);
	free(ep->host_keys);
	memset(ep, 0, sizeof *ep);
}

/* Free what a provider_sandbox owns; see provider.h. */
void
provider_sandbox_clear(struct provider_sandbox *s)
{
	if (s == NULL)
		return;
	free(s->name);
	free(s->state_text);
	free(s->gpus);
	provider_endpoint_clear(&s->ep);
	memset(s, 0, sizeof *s);
}

/* Free an array of sandboxes; see provider.h. */
void
provider_sandboxes_free(struct provider_sandbox *v, size_t n)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; i < n; i++)
		provider_sandbox_clear(&v[i]);
	free(v);
}

/* A state's name; see provider.h. */
const char *
provider_state_name(enum provider_state st)
{
	switch (st) {
	case PROVIDER_ABSENT:
		return "absent";
	case PROVIDER_PENDING:
		return "pending";
	case PROVIDER_READY:
		return "ready";
	case PROVIDER_FAILED:
		return "failed";
	case PROVIDER_GONE:
		return "gone";
	}
	return "unknown";
}

/* Fail naming the provider; see provider.h. */
int
provider_fail(char **cause, const struct provider_conf *pc, int err,
    const char *fmt, ...)
{
	va_list	 ap;
	char	*msg;

	va_start(ap, fmt);
	msg = xvasprintf(fmt, ap);
	va_end(ap);
	if (cause != NULL)
		*cause = xasprintf("provider %s (%s): %s", pc->name, pc->driver,
		    msg);
	free(msg);
	return err;
}

/* Fail for a run that did not exit 0; see provider.h. */
int
provider_fail_run(char **cause, const struct provider_conf *pc,
    const char *what, const struct provider_run *r)
{
	char	*how;
	int	 rc;

	how = spawn_status_text(r->status);
	rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s %s%s%s", what, how,
	    *r->err != '\0' ? ": " : "", r->err);
	free(how);
	return rc;
}

/* In the child: wire the pipes to fds 0, 1, 2 and exec argv, or exit. */
static void
provider_child(int in, int out, int err, char *const *argv)
{
	if (dup2(in, STDIN_FILENO) == -1 || dup2(out, STDOUT_FILENO) == -1 ||
	    dup2(err, STDERR_FILENO) == -1)
		_exit(127);
	spawn_child_setup();
	execvp(argv[0], argv);
	dprintf(STDERR_FILENO, "%s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

/* The pipes and the child of one run. */
struct provider_proc {
	pid_t		 pid;
	int		 in, out, err;	/* our ends; -1 once closed */
	const char	*input;
	size_t		 inlen, inoff;
	struct buf	 obuf, ebuf;
	int		 too_much;
};

/* Close the descriptors of n pipes that are open (not -1). */
static void
provider_close_pipes(int (*fds)[2], size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++) {
		if (fds[i][0] != -1)
			close(fds[i][0]);
		if (fds[i][1] != -1)
			close(fds[i][1]);
	}
}

/* Make three pipes and start the child; 0, or CLAW_ERR_* with errno set. */
static int
provider_start(struct provider_proc *p, char *const *argv)
{
	int	fds[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int	*pi = fds[0], *po = fds[1], *pe = fds[2], saved;

	if (pipe2(pi, O_CLOEXEC) == -1 || pipe2(po, O_CLOEXEC) == -1 ||
	    pipe2(pe, O_CLOEXEC) == -1 || (p->pid = fork()) == -1) {
		saved = errno;
		provider_close_pipes(fds, 3);
		errno = saved;
		return saved == 0 ? CLAW_ERR_IO : claw_err_from_errno(saved);
	}
	if (p->pid == 0)
		provider_child(pi[0], po[1], pe[1], argv);
	close(pi[0]);
	close(po[1]);
	close(pe[1]);
	p->in = pi[1];
	p->out = po[0];
	p->err = pe[0];
	fcntl(p->in, F_SETFL, O_NONBLOCK);
	if (p->inlen == 0) {
		close(p->in);
		p->in = -1;
	}
	return 0;
}

/* Read what fd has into b (up to max kept); close it at EOF. */
static void
provider_drain(int *fd, struct buf *b, size_t max, int *too_much)
{
	char	tmp[8192];
	ssize_t	n;

	n = read(*fd, tmp, sizeof tmp);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(*fd);
		*fd = -1;
		return;
	}
	if (b->len + (size_t)n > max) {
		if (too_much != NULL)
			*too_much = 1;
		n = (ssize_t)(max - b->len);
	}
	buf_append(b, tmp, (size_t)n);
}

/* Write more of the input; close stdin once it is all written. */
static void
provider_feed(struct provider_proc *p)
{
	ssize_t	n;

	n = write(p->in, p->input + p->inoff, p->inlen - p->inoff);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n > 0)
		p->inoff += (size_t)n;
	if (n <= 0 || p->inoff == p->inlen) {
		close(p->in);
		p->in = -1;
	}
}

/* Pump the pipes until both outputs end or deadline; 0 or TIMEOUT. */
static int
provider_pump(struct provider_proc *p, int64_t deadline)
{
	struct pollfd	pfd[3];
	int		n;

	while ((p->out != -1 || p->err != -1) && !p->too_much) {
		pfd[0].fd = p->in;
		pfd[0].events = POLLOUT;
		pfd[1].fd = p->out;
		pfd[1].events = POLLIN;
		pfd[2].fd = p->err;
		pfd[2].events = POLLIN;
		n = poll(pfd, 3, clock_poll_timeout(deadline));
		if (n == 0)
			return CLAW_ERR_TIMEOUT;
		if (n == -1 && errno != EINTR)
			return CLAW_ERR_IO;
		if (n == -1)
			continue;
		if (p->in != -1 && pfd[0].revents != 0)
			provider_feed(p);
		if (p->out != -1 && pfd[1].revents != 0)
			provider_drain(&p->out, &p->obuf, PROVIDER_OUT_MAX,
			    &p->too_much);
		if (p->err != -1 && pfd[2].revents != 0)
			provider_drain(&p->err, &p->ebuf, PROVIDER_ERR_MAX * 4,
			    NULL);
	}
	return 0;
}

/* Keep the start of stderr, printable and on one line. */
static char *
provider_err_text(const struct buf *b)
{
	struct buf	 t = BUF_INIT;
	const char	*s = b->data;
	size_t		 i, len = b->len;

	while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r' ||
	    s[len - 1] == ' '))
		len--;
	for (i = 0; i < len && t.len < PROVIDER_ERR_MAX; i++) {
		if (s[i] == '\n')
			buf_append_str(&t, " / ");
		else if ((unsigned char)s[i] < 0x20 ||
		    (unsigned char)s[i] == 0x7f)
			buf_append(&t, "?", 1);
		else
			buf_append(&t, &s[i], 1);
	}
	return t.len > 0 ? buf_detach(&t) : xstrdup("");
}

/* Close what is still open, kill the group if need be, and reap. */
static int
provider_finish(struct provider_proc *p, int kill_it)
{
	if (p->in != -1)
		close(p->in);
	if (p->out != -1)
		close(p->out);
	if (p->err != -1)
		close(p->err);
	if (kill_it) {
		kill(-p->pid, SIGTERM);
		kill(p->pid, SIGTERM);
		return spawn_reap(p->pid, 500);
	}
	return spawn_reap(p->pid, PROVIDER_REAP_MS);
}

/* Run the provider's executable; see provider.h. */
int
provider_run(const struct provider_conf *pc, char *const *argv,
    const char *input, struct provider_run *out, char **cause)
{
	struct provider_proc	 p;
	int64_t			 deadline;
	int			 rc, status, err;

	memset(&p, 0, sizeof p);
	p.input = input;
	p.inlen = input != NULL ? strlen(input) : 0;
	p.in = p.out = p.err = -1;
	log_info("provider %s: running %s %s", pc->name, argv[0],
	    argv[1] != NULL ? argv[1] : "");
	if (provider_start(&p, argv) != 0) {
		err = errno;
		return provider_fail(cause, pc, claw_err_from_errno(err),
		    "cannot run %s: %s", argv[0], strerror(err));
	}
	deadline = clock_now_ms() + (int64_t)pc->timeout * 1000;
	rc = provider_pump(&p, deadline);
	status = provider_finish(&p, rc != 0 || p.too_much);
	if (rc == CLAW_ERR_TIMEOUT)
		rc = provider_fail(cause, pc, rc, "%s did not answer within "
		    "%d s (timeout); killed", argv[0], pc->timeout);
	else if (rc == 0 && p.too_much)
		rc = provider_fail(cause, pc, CLAW_ERR_PROTO, "%s printed more "
		    "than %d bytes", argv[0], PROVIDER_OUT_MAX);
	else if (rc != 0)
		rc = provider_fail(cause, pc, rc, "%s: %s", argv[0],
		    strerror(errno));
	if (rc != 0) {
		buf_free(&p.obuf);
		buf_free(&p.ebuf);
		return rc;
	}
	out->len = p.obuf.len;
	out->out = p.obuf.len > 0 ? buf_detach(&p.obuf) : xstrdup("");
	out->err = provider_err_text(&p.ebuf);
	buf_free(&p.ebuf);
	out->status = status;
	return 0;
}

/* Free what a run holds; see provider.h. */
void
provider_run_free(struct provider_run *r)
{
	if (r == NULL)
		return;
	free(r->out);
	free(r->err);
	memset(r, 0, sizeof *r);
}

/* Whether s is a non-empty word without blanks or control bytes. */
static int
provider_word_ok(const char *s, size_t max)
{
	const unsigned char	*p = (const unsigned char *)s;

	if (*p == '\0' || strlen(s) > max || *p == '-')
		return 0;
	for (; *p != '\0'; p++) {
		if (*p <= 0x20 || *p == 0x7f || *p == '"' || *p == '\'' ||
		    *p == '\\')
			return 0;
	}
	return 1;
}

/* Whether s is one line of printable text (tabs allowed). */
static int
provider_line_ok(const char *s, size_t max)
{
	const unsigned char	*p = (const unsigned char *)s;

	if (*p == '\0' || strlen(s) > max)
		return 0;
	for (; *p != '\0'; p++) {
		if ((*p < 0x20 && *p != '\t') || *p == 0x7f)
			return 0;
	}
	return 1;
}

/* Whether every line of keys is "TYPE BASE64" (a comment after is fine). */
static int
provider_keys_ok(const char *keys)
{
	const char	*line = keys, *nl;
	size_t		 n, t, b;

	if (*keys == '\0' || strlen(keys) > 64 * 1024)
		return 0;
	for (; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		n = (size_t)(nl - line);
		t = strcspn(line, " \n");
		if (t == 0 || t >= n || t > 64)
			return 0;
		b = strspn(line + t + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/=");
		if (b < 16 || (line[t + 1 + b] != ' ' && line + t + 1 + b !=
		    nl))
			return 0;
	}
	return 1;
}

/* Check an endpoint before use; see provider.h. */
int
provider_endpoint_check(const struct provider_conf *pc,
    const struct provider_endpoint *ep, char **cause)
{
	const char	*bad = NULL;

	if (ep->host == NULL || !provider_word_ok(ep->host, 255))
		bad = "host";
	else if (ep->port < 0 || ep->port > 65535)
		bad = "port";
	else if (ep->user != NULL && !provider_word_ok(ep->user, 255))
		bad = "user";
	else if (ep->identity_file != NULL &&
	    !provider_line_ok(ep->identity_file, 4096))
		bad = "identity file";
	else if (ep->host_key_alias != NULL &&
	    !provider_word_ok(ep->host_key_alias, 255))
		bad = "host key alias";
	else if (ep->proxy_command != NULL &&
	    !provider_line_ok(ep->proxy_command, 8192))
		bad = "proxy command";
	else if (ep->exec_wrap != NULL &&
	    !provider_line_ok(ep->exec_wrap, 8192))
		bad = "exec wrapper";
	else if (ep->host_keys != NULL && !provider_keys_ok(ep->host_keys))
		bad = "host keys";
	if (bad == NULL)
		return 0;
	return provider_fail(cause, pc, CLAW_ERR_PROTO, "the endpoint's %s is "
	    "missing or malformed", bad);
}

/* Append an argument; see provider.h. */
void
provider_argv_add(struct provider_argv *a, const char *fmt, ...)
{
	va_list	ap;

	a->v = xreallocarray(a->v, a->n + 2, sizeof *a->v);
	va_start(ap, fmt);
	a->v[a->n++] = xvasprintf(fmt, ap);
	va_end(ap);
	a->v[a->n] = NULL;
}

/* Free an argv; see provider.h. */
void
provider_argv_free(struct provider_argv *a)
{
	size_t	i;

	for (i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof *a);
}
