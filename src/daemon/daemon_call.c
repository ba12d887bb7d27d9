/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The workers behind JSON-RPC and MCP tool calls: the clawssh CLI itself,
 * run as "/proc/self/exe SUBCOMMAND ARGS" with the request's input on its
 * stdin, its environment values (never in argv), and the daemon's own
 * socket, so its channels ride the warm sessions.  Their output is read
 * from pipes in the daemon's poll loop: streamed as exec.output
 * notifications, or collected (capped) for the result.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/prctl.h>
#include <sys/queue.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "daemon_int.h"
#include "error.h"
#include "fdio.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp_spill.h"
#include "spawn.h"
#include "xmalloc.h"

#define DCALL_READ	(64 * 1024)
#define DCALL_ERR_KEEP	(64 * 1024)	/* stderr tail kept for messages */

/*
 * In the child: CLAWSSH_PTY_SIZE_FILE, where exec.resize writes this
 * worker's terminal size (beside the socket, in the daemon's private
 * directory): 0, or errno's code when setenv fails.
 */
static int
dcall_size_env(const char *sockpath)
{
	const char	*slash = strrchr(sockpath, '/');
	char		 path[4096];
	int		 n;

	if (slash == NULL)
		return 0;
	n = snprintf(path, sizeof path, "%.*s/size-%ld",
	    (int)(slash - sockpath), sockpath, (long)getpid());
	if (n < 0 || (size_t)n >= sizeof path)
		return 0;
	if (setenv("CLAWSSH_PTY_SIZE_FILE", path, 1) == -1)
		return claw_err_from_errno(errno);
	return 0;
}

/*
 * In the child: wire the pipes, set the environment, run the CLI.  The
 * worker gets SIGTERM when the daemon goes away (and does not start if it
 * already has), so no worker outlives its daemon.
 */
static void __attribute__((__noreturn__))
dcall_child(struct dcall *c, const int in[2], const int out[2],
    const int err[2], const char *sockpath, pid_t daemon_pid)
{
	char	**argv;
	size_t	  i;

	if (prctl(PR_SET_PDEATHSIG, SIGTERM) == -1 || getppid() != daemon_pid)
		_exit(127);
	if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1 ||
	    dup2(err[1], 2) == -1)
		_exit(127);
	spawn_child_setup();
	if (setenv("CLAWSSH_DAEMON_SOCKET", sockpath, 1) == -1 ||
	    dcall_size_env(sockpath) != 0)
		_exit(127);
	for (i = 0; i < c->rc.nenv; i++) {
		if (setenv(c->rc.env_names[i], c->rc.env_values[i], 1) == -1)
			_exit(127);
	}
	argv = xcalloc((size_t)c->rc.argc + 2, sizeof *argv);
	argv[0] = xstrdup("clawssh");
	for (i = 0; i < (size_t)c->rc.argc; i++)
		argv[i + 1] = c->rc.argv[i];
	execv("/proc/self/exe", argv);
	_exit(127);
}

/* Start c's worker; see daemon_int.h. */
int
dcall_start(struct dcall *c, const char *sockpath, char **cause)
{
	int	p[3][2] = { { -1, -1 }, { -1, -1 }, { -1, -1 } };
	int	i, rc;
	pid_t	self = getpid();

	for (i = 0; i < 3; i++) {
		if (pipe2(p[i], O_CLOEXEC) == -1) {
			rc = claw_fail_errno(cause, "worker", "pipe");
			fdio_close_pipes(p, 3);
			return rc;
		}
	}
	if ((c->pid = fork()) == -1) {
		rc = claw_fail_errno(cause, "worker", "fork");
		fdio_close_pipes(p, 3);
		return rc;
	}
	if (c->pid == 0)
		dcall_child(c, p[0], p[1], p[2], sockpath, self);
	c->d->nworkers++;
	close(p[0][0]);
	close(p[1][1]);
	close(p[2][1]);
	c->in_fd = p[0][1];
	c->out_fd = p[1][0];
	c->err_fd = p[2][0];
	c->in_off = 0;
	for (i = 0; i < 3; i++)
		(void)fcntl(i == 0 ? c->in_fd : i == 1 ? c->out_fd : c->err_fd,
		    F_SETFL, O_NONBLOCK);
	if (c->rc.inlen == 0) {
		close(c->in_fd);
		c->in_fd = -1;
	}
	log_debug("worker %ld: %s", (long)c->pid, c->rc.argv[0]);
	return 0;
}

/* Whether c's output should wait for its client to take what it has. */
static int
dcall_held(const struct dcall *c)
{
	return c->client != NULL && c->client->out.len > DCLIENT_OUT_MAX;
}

/* Three poll entries per call (fd -1 when not wanted); see daemon_int.h. */
size_t
dcall_pollfds(struct daemon *d, struct pollfd *pfd)
{
	struct dcall	*c;
	size_t		 n = 0;

	TAILQ_FOREACH(c, &d->calls, entry) {
		pfd[n].fd = c->in_fd;
		pfd[n++].events = POLLOUT;
		pfd[n].fd = dcall_held(c) ? -1 : c->out_fd;
		pfd[n++].events = POLLIN;
		pfd[n].fd = dcall_held(c) ? -1 : c->err_fd;
		pfd[n++].events = POLLIN;
	}
	return n;
}

/* Feed the worker's stdin. */
static void
dcall_write(struct dcall *c)
{
	ssize_t	n;

	while (c->in_off < c->rc.inlen) {
		n = write(c->in_fd, c->rc.in + c->in_off,
		    c->rc.inlen - c->in_off);
		if (n > 0) {
			c->in_off += (size_t)n;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return;
		break;		/* the worker stopped reading */
	}
	close(c->in_fd);
	c->in_fd = -1;
}

/* Pass output on: a notification, or the collected result. */
void
dcall_output(struct dcall *c, int stream, const char *p, size_t n)
{
	struct dclient	*cl = c->client;
	char		*line, *cause = NULL;

	c->bytes_out += n;
	if (c->spill != NULL) {		/* MCP exec: capped, the rest kept */
		if (mcp_spill_add(c->spill, stream, p, n, &cause) != 0) {
			log_warn("%s: %s", c->method, cause);
			free(cause);
			c->overflow = 1;
			dcall_kill(c);
		}
		drpc_progress(c);
		return;
	}
	if (c->rc.stream && !c->mcp) {
		if (cl != NULL) {
			line = jsonrpc_notification("exec.output",
			    jsonrpc_output_params(c->id, stream ? "stderr" :
			    "stdout", p, n));
			buf_append_str(&cl->out, line);
			free(line);
		}
		if (stream == 0)
			return;
	}
	if (stream != 0 && !c->mcp) {
		buf_append(&c->err, p, n);
		if (c->err.len > 2 * DCALL_ERR_KEEP)
			buf_consume(&c->err, c->err.len - DCALL_ERR_KEEP);
		return;
	}
	if (c->out.len + c->err.len + n > c->d->max_line) {
		c->overflow = 1;
		dcall_kill(c);
		return;
	}
	buf_append(stream != 0 ? &c->err : &c->out, p, n);
}

/*
 * Read one pipe: 0 while it is open, 1 at EOF, or errno's code for a
 * read error (the fd is closed then).
 */
static int
dcall_read(struct dcall *c, int *fdp, int stream)
{
	char	chunk[DCALL_READ];
	ssize_t	n;
	int	rc;

	for (;;) {
		n = read(*fdp, chunk, sizeof chunk);
		if (n > 0) {
			dcall_output(c, stream, chunk, (size_t)n);
			if (*fdp == -1 || dcall_held(c))
				return 0;
			continue;
		}
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return 0;
		rc = n == 0 ? 1 : claw_err_from_errno(errno);
		close(*fdp);
		*fdp = -1;
		return rc;
	}
}

/* Wait for a worker whose pipes closed; its wait status. */
static int
dcall_reap(struct dcall *c)
{
	const char	*slash = strrchr(c->d->path, '/');
	char		*size;
	int		 status;

	while (waitpid(c->pid, &status, 0) == -1) {
		if (errno != EINTR)
			return 255;
	}
	if (slash != NULL) {	/* what exec.resize wrote for it, if any */
		size = xasprintf("%.*s/size-%ld", (int)(slash - c->d->path),
		    c->d->path, (long)c->pid);
		(void)unlink(size);
		free(size);
	}
	c->pid = -1;
	c->d->nworkers--;
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 255;
}

/* Act on what poll said about the first n/3 calls; see daemon_int.h. */
void
dcall_io(struct daemon *d, const struct pollfd *pfd, size_t n)
{
	struct dcall	*c, *next;
	size_t		 i = 0;

	for (c = TAILQ_FIRST(&d->calls); c != NULL && i < n; c = next) {
		next = TAILQ_NEXT(c, entry);
		if (c->areq != NULL || (c->proc != NULL && c->pid == 0)) {
			/* in-process: no pipes */
			i += 3;
			continue;
		}
		if (c->pid <= 0) {
			i += 3;
			if (c->pid < 0)		/* left before it started */
				drpc_finish(c, 255);
			continue;
		}
		if (c->in_fd != -1 && (pfd[i].revents & (POLLOUT | POLLERR |
		    POLLHUP)))
			dcall_write(c);
		if (c->out_fd != -1 && (pfd[i + 1].revents & (POLLIN |
		    POLLHUP | POLLERR)))
			(void)dcall_read(c, &c->out_fd, 0);
		if (c->err_fd != -1 && (pfd[i + 2].revents & (POLLIN |
		    POLLHUP | POLLERR)))
			(void)dcall_read(c, &c->err_fd, 1);
		i += 3;
		drpc_progress(c);	/* silent commands too (1 s ticks) */
		if (c->out_fd == -1 && c->err_fd == -1) {
			if (c->in_fd != -1) {
				close(c->in_fd);
				c->in_fd = -1;
			}
			drpc_finish(c, dcall_reap(c));
		}
	}
}

/* Stop a worker (it stops its remote command); see daemon_int.h. */
void
dcall_kill(struct dcall *c)
{
	if (c->proc != NULL)
		dproc_kill(c);
	else if (c->areq != NULL)
		droute_kill(c);
	else if (c->pid > 0) {
		log_debug("%s: stopping worker %ld", c->method, (long)c->pid);
		(void)kill(c->pid, SIGTERM);
	}
}
