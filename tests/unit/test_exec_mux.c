/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec through the daemon's host agent channel, against a fake daemon (a
 * child process on a Unix socket), for the order in which its frames
 * arrive.  The case that hung in CI: a command whose stdin is a buffer
 * (a sync step's list of paths) cannot send it before the agent's OPENED;
 * if OPENED arrives after exec's stdin flush gave up for this turn but
 * before its output reads pumped the socket, the reads take it, and
 * nothing wakes the poll again: the step waited for its stdin forever.
 * The same when the flush after those reads gave up too and chan_eof's
 * pump took it (an agent step with a buffer for stdin, seen on a mirror
 * push).  chan_write is wrapped (-Wl,--wrap=chan_write) to hold OPENED
 * back until the first, or the second, flush that could not write.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "agent_req.h"
#include "buf.h"
#include "chan.h"
#include "error.h"
#include "exec.h"
#include "mux_client.h"
#include "mux_proto.h"
#include "sshconfig.h"
#include "transport.h"

#define WAIT_MS		5000	/* the fake daemon's patience */
#define EXIT_NO_INPUT	99	/* its status when stdin never came */

ssize_t	__real_chan_write(struct chan *, const char *, size_t, char **);
ssize_t	__wrap_chan_write(struct chan *, const char *, size_t, char **);

static int	go_fd = -1;		/* tells the daemon to send OPENED */
static int	mux_fd_seen = -1;	/* the client's socket */
static int	release_at;		/* on this failed write (1, 2) */

/*
 * exec's stdin write: when it could not write (no OPENED yet), let the
 * daemon send OPENED and wait until it is readable, so that the next
 * pump, exec's output read, is the one that takes it.
 */
ssize_t
__wrap_chan_write(struct chan *c, const char *p, size_t n, char **cause)
{
	struct pollfd	pfd;
	ssize_t		r = __real_chan_write(c, p, n, cause);

	if (r == 0 && go_fd != -1 && --release_at == 0) {
		assert_int_equal(write(go_fd, "g", 1), 1);
		close(go_fd);
		go_fd = -1;
		pfd.fd = mux_fd_seen;
		pfd.events = POLLIN;
		assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	}
	return r;
}

/* Read exactly n bytes or fail the daemon. */
static void
fake_read(int fd, void *p, size_t n)
{
	struct pollfd	pfd;
	ssize_t		r;
	size_t		off = 0;

	while (off < n) {
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, WAIT_MS) != 1)
			_exit(3);
		if ((r = read(fd, (char *)p + off, n - off)) <= 0)
			_exit(3);
		off += (size_t)r;
	}
}

/* The next frame from the client into *f (payload in b), or -1 on timeout. */
static int
fake_frame(int fd, struct buf *b, struct mux_frame *f)
{
	struct pollfd	pfd;
	char		chunk[4096], *cause = NULL;
	size_t		used;
	ssize_t		r;

	for (;;) {
		if (b->len != 0 && mux_frame_get(b->data, b->len, f, &used,
		    &cause) == 1) {
			/* the caller reads f before the next call */
			return (int)used;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, WAIT_MS) != 1)
			return -1;
		if ((r = read(fd, chunk, sizeof chunk)) <= 0)
			return -1;
		buf_append(b, chunk, (size_t)r);
	}
}

/*
 * The fake daemon: READY with the agent capability; OPENED for the agent
 * command once told to; then EXIT 0 if the stdin it was given ("./log\n"
 * and its end) came, or EXIT_NO_INPUT if not within WAIT_MS.
 */
static void
fake_daemon(int lfd, int go)
{
	struct buf		 b = BUF_INIT, out = BUF_INIT, in = BUF_INIT;
	struct mux_frame	 f;
	char			 magic[MUX_MAGIC_LEN], c;
	uint32_t		 chan = 0;
	int			 fd, used, code = EXIT_NO_INPUT;

	if ((fd = accept(lfd, NULL, NULL)) == -1)
		_exit(2);
	fake_read(fd, magic, sizeof magic);
	mux_frame_put(&out, MUX_READY, 0, "fake\0agent", sizeof "fake\0agent");
	if (write(fd, out.data, out.len) != (ssize_t)out.len)
		_exit(2);
	buf_reset(&out);
	while ((used = fake_frame(fd, &b, &f)) > 0) {
		if (f.type == MUX_OPEN_AGENT) {
			chan = f.chan;
			buf_consume(&b, (size_t)used);
			fake_read(go, &c, 1);
			mux_frame_put(&out, MUX_OPENED, chan, NULL, 0);
			if (write(fd, out.data, out.len) != (ssize_t)out.len)
				_exit(2);
			buf_reset(&out);
			continue;
		}
		if (f.type == MUX_DATA && f.chan == chan)
			buf_append(&in, f.payload, f.len);
		if (f.type == MUX_EOF && f.chan == chan) {
			code = in.len == 6 && memcmp(in.data, "./log\n", 6) == 0 ?
			    0 : EXIT_NO_INPUT + 1;
			break;
		}
		buf_consume(&b, (size_t)used);
	}
	mux_frame_put(&out, MUX_EOF, chan, NULL, 0);
	mux_frame_put_num(&out, MUX_EXIT, chan, code, "");
	if (write(fd, out.data, out.len) != (ssize_t)out.len)
		_exit(2);
	(void)read(fd, &c, 1);		/* until the client goes */
	_exit(0);
}

/*
 * A command with a stdin buffer gets it to the agent however OPENED
 * comes: released on the nth flush that could not write.
 */
static void
run_late_opened(int nth)
{
	struct sockaddr_un	 sun;
	struct sshconfig	 sc;
	struct transport_opts	 topts;
	struct exec_agent	 ag = { "/agent", "/run", "spec", "/ws", 0 };
	struct exec_opts	 o;
	struct transport	*t = NULL;
	struct buf		 out = BUF_INIT, err = BUF_INIT;
	char			 dir[] = "/tmp/test_exec_mux.XXXXXX", *cause = NULL;
	char			 tar[] = "tar", fake[] = "fake";
	char			*argv[] = { tar, NULL };
	int			 lfd, go[2], status = -1, wst;
	pid_t			 pid;

	release_at = nth;
	signal(SIGPIPE, SIG_IGN);
	assert_non_null(mkdtemp(dir));
	memset(&sun, 0, sizeof sun);
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s/s", dir);
	assert_int_not_equal(lfd = socket(AF_UNIX, SOCK_STREAM, 0), -1);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sun, sizeof sun), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(pipe(go), 0);
	assert_int_not_equal(pid = fork(), -1);
	if (pid == 0) {
		close(go[1]);
		fake_daemon(lfd, go[0]);
	}
	close(go[0]);
	close(lfd);
	go_fd = go[1];

	memset(&sc, 0, sizeof sc);
	sc.host = sc.hostname = sc.user = fake;
	sc.port = 22;
	memset(&topts, 0, sizeof topts);
	assert_int_equal(mux_connect(sun.sun_path, &sc, &topts, &t, &cause), 0);
	mux_fd_seen = transport_fd(t);

	exec_opts_capture(&o, "./log\n", 6, 1024, &out, &err);
	o.argc = 1;
	o.argv = argv;
	o.agent = &ag;
	assert_int_equal(exec_run(t, &o, &status, &cause), 0);
	assert_int_equal(status, 0);
	buf_free(&out);
	buf_free(&err);

	transport_free(t);
	assert_int_equal(waitpid(pid, &wst, 0), pid);
	assert_true(WIFEXITED(wst) && WEXITSTATUS(wst) == 0);
	unlink(sun.sun_path);
	rmdir(dir);
}

/* OPENED taken by the output reads after the first flush gave up. */
static void
test_stdin_after_late_opened(void **state)
{
	(void)state;
	run_late_opened(1);
}

/* OPENED taken by chan_eof's pump after the second flush gave up. */
static void
test_stdin_opened_in_eof_check(void **state)
{
	(void)state;
	run_late_opened(2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stdin_after_late_opened),
		cmocka_unit_test(test_stdin_opened_in_eof_check),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
