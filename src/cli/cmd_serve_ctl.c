/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh serve --status / --stop: one JSON-RPC request on the control
 * socket, one bounded answer line.  See cmd_serve.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clock.h"
#include "cmd.h"
#include "cmd_serve.h"
#include "error.h"
#include "fdio.h"
#include "mux_client.h"
#include "xmalloc.h"

#define CTL_ANSWER_MAX	(1024 * 1024)	/* bytes of one answer */
#define CTL_WAIT_MS	10000		/* for an answer, or the stop */

/* Read one line (bounded, with a deadline) from fd into b. */
static int
ctl_read_line(int fd, struct buf *b, const char *path, char **cause)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	int64_t		deadline = clock_now_ms() + CTL_WAIT_MS;
	char		chunk[4096];
	ssize_t		n;

	while (b->len == 0 || memchr(b->data, '\n', b->len) == NULL) {
		if (b->len > CTL_ANSWER_MAX)
			return claw_fail(cause, CLAW_ERR_RANGE, "%s: the "
			    "daemon's answer is too long", path);
		if (poll(&pfd, 1, clock_poll_timeout(deadline)) == 0)
			return claw_fail(cause, CLAW_ERR_TIMEOUT, "%s: the "
			    "daemon did not answer", path);
		if ((n = read(fd, chunk, sizeof chunk)) > 0)
			buf_append(b, chunk, (size_t)n);
		else if (n == 0)
			return claw_fail(cause, CLAW_ERR_PROTO, "%s: the "
			    "daemon closed the connection unanswered", path);
		else if (errno != EINTR && errno != EAGAIN)
			return claw_fail_errno(cause, path, "read");
	}
	return 0;
}

/*
 * Ask method: 0 with *res (its "result", owned by the caller),
 * CLAW_ERR_NOTFOUND if no daemon listens, else an error with *cause.
 */
static int
ctl_ask(const char *path, const char *method, cJSON **res, char **cause)
{
	struct buf	 b = BUF_INIT;
	cJSON		*o = NULL, *r;
	char		*req;
	int		 fd, rc;

	if ((rc = mux_dial(path, &fd, cause)) != 0)
		return rc;
	req = xasprintf("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"%s\"}\n",
	    method);
	if (fdio_write_all(fd, req, strlen(req)) != 0)
		rc = claw_fail_errno(cause, path, "write");
	else if ((rc = ctl_read_line(fd, &b, path, cause)) == 0) {
		o = cJSON_ParseWithLength(b.data, b.len);
		r = cJSON_DetachItemFromObjectCaseSensitive(o, "result");
		if (!cJSON_IsObject(r)) {
			cJSON_Delete(r);
			rc = claw_fail(cause, CLAW_ERR_PROTO, "%s: the daemon "
			    "does not know %s (an older clawssh?)", path,
			    method);
		} else
			*res = r;
	}
	cJSON_Delete(o);
	free(req);
	buf_free(&b);
	close(fd);
	return rc;
}

/* A number member of o, or 0. */
static double
ctl_num(const cJSON *o, const char *name)
{
	const cJSON	*v = cJSON_GetObjectItemCaseSensitive(o, name);

	return cJSON_IsNumber(v) ? v->valuedouble : 0;
}

/* Print a status answer as text. */
static void
ctl_print(const cJSON *st, const char *path)
{
	const cJSON	*hosts, *h, *name;

	printf("running: pid %.0f, socket %s, up %.0f s\n",
	    ctl_num(st, "pid"), path, ctl_num(st, "uptime"));
	if (ctl_num(st, "idleTimeout") > 0)
		printf("idle timeout: %.0f s\n", ctl_num(st, "idleTimeout"));
	else
		printf("idle timeout: never\n");
	printf("clients: %.0f, commands run: %.0f, calls: %.0f (%.0f "
	    "running)\n", ctl_num(st, "clients"), ctl_num(st, "commands"),
	    ctl_num(st, "calls"), ctl_num(st, "running"));
	hosts = cJSON_GetObjectItemCaseSensitive(st, "hosts");
	cJSON_ArrayForEach(h, hosts) {
		name = cJSON_GetObjectItemCaseSensitive(h, "host");
		printf("host %s: %.0f session(s), %.0f client(s)\n",
		    cJSON_IsString(name) ? name->valuestring : "?",
		    ctl_num(h, "sessions"), ctl_num(h, "clients"));
	}
}

/* Print the daemon's state; see cmd_serve.h. */
int
serve_ctl_status(const char *path, int json)
{
	cJSON	*st = NULL;
	char	*cause = NULL, *text;
	int	 rc;

	rc = ctl_ask(path, "daemon.status", &st, &cause);
	if (rc == CLAW_ERR_NOTFOUND) {
		if (json) {
			st = cJSON_CreateObject();
			cJSON_AddBoolToObject(st, "running", 0);
			cJSON_AddStringToObject(st, "socket", path);
			text = cJSON_PrintUnformatted(st);
			printf("%s\n", text);
			free(text);
			cJSON_Delete(st);
		} else
			printf("not running (socket %s)\n", path);
		return 1;
	}
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	if (json) {
		cJSON_AddBoolToObject(st, "running", 1);
		text = cJSON_PrintUnformatted(st);
		printf("%s\n", text);
		free(text);
	} else
		ctl_print(st, path);
	cJSON_Delete(st);
	return 0;
}

/* Whether a daemon still listens on path or process pid lives. */
static int
ctl_alive(const char *path, pid_t pid)
{
	char	*cause = NULL;
	int	 fd, rc;

	if (pid > 1 && kill(pid, 0) == 0)
		return 1;
	if ((rc = mux_dial(path, &fd, &cause)) == 0)
		close(fd);
	free(cause);
	return rc == 0;
}

/* Stop the daemon and wait for it; see cmd_serve.h. */
int
serve_ctl_stop(const char *path)
{
	struct timespec	 ts = { 0, 50 * 1000 * 1000 };
	cJSON		*st = NULL;
	char		*cause = NULL;
	int64_t		 deadline;
	pid_t		 pid;
	int		 rc;

	rc = ctl_ask(path, "daemon.stop", &st, &cause);
	if (rc == CLAW_ERR_NOTFOUND) {
		fprintf(stderr, "clawssh: no daemon running on %s\n", path);
		return 1;
	}
	if (rc != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	pid = (pid_t)ctl_num(st, "pid");
	cJSON_Delete(st);
	deadline = clock_now_ms() + CTL_WAIT_MS;
	while (ctl_alive(path, pid) && clock_now_ms() < deadline)
		(void)nanosleep(&ts, NULL);
	if (ctl_alive(path, pid))
		return cmd_fail("the daemon (pid %ld) did not stop within "
		    "%d s", (long)pid, CTL_WAIT_MS / 1000);
	return 0;
}
