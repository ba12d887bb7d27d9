/* SPDX-License-Identifier: BSD-2-Clause */
/* The client end of a holder's socket: see box_client.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "box_client.h"
#include "frame.h"
#include "msg.h"
#include "wire.h"

/* Connect to RUNDIR/box.sock. */
int
box_connect(const char *dir, struct box_client *c)
{
	struct sockaddr_un	sun;
	int			fd, r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	xsnprintf(sun.sun_path, sizeof(sun.sun_path), "%s/%s", dir,
	    AGENT_SOCK);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -errno;
	do
		r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	while (r == -1 && errno == EINTR);
	if (r == -1 || fd_set_nonblock(fd, 1) != 0) {
		r = -errno;
		close(fd);
		return r;
	}
	memset(c, 0, sizeof(*c));
	wire_init(&c->w, fd);
	c->next_id = 1;
	return 0;
}

/* Run the start script with sh, stdin from /dev/null, stdout to stderr. */
static void
box_run_start(const char *dir)
{
	const char	*script = getenv("__claw_box_start");
	pid_t		 pid;
	int		 st, fd;

	if (script == NULL || *script == '\0')
		agent_die("no holder for %s and no start script", dir);
	if ((pid = fork()) == -1)
		agent_die("fork: %s", strerror(errno));
	if (pid == 0) {
		if ((fd = open("/dev/null", O_RDONLY)) != -1)
			(void)fd_move(fd, STDIN_FILENO);
		(void)dup2(STDERR_FILENO, STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", script, (char *)NULL);
		agent_warn("/bin/sh: %s", strerror(errno));
		_exit(AGENT_EXIT_ERR);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			agent_die("waitpid: %s", strerror(errno));
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		exit(AGENT_EXIT_ERR);	/* it said why on our stderr */
}

/* Take RUNDIR/lock (RUNDIR made 0700 if missing): the lock's fd. */
int
box_lock(const char *dir)
{
	char	path[4096];
	int	fd;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		agent_die("mkdir %s: %s", dir, strerror(errno));
	xsnprintf(path, sizeof(path), "%s/%s", dir, AGENT_LOCK);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1)
		agent_die("%s: %s", path, strerror(errno));
	while (flock(fd, LOCK_EX) == -1)
		if (errno != EINTR)
			agent_die("lock %s: %s", path, strerror(errno));
	return fd;
}

/* Connect, or start the holder and connect. */
void
box_connect_or_start(const char *dir, int verbose, struct box_client *c)
{
	int	r, first, lock;

	if ((first = box_connect(dir, c)) == 0)
		return;
	if (first != -ENOENT && first != -ECONNREFUSED)
		agent_die("%s/%s: %s", dir, AGENT_SOCK, strerror(-first));
	lock = box_lock(dir);
	if (box_connect(dir, c) == 0) {
		close(lock);		/* someone else started it */
		return;
	}
	box_run_start(dir);
	if ((r = box_connect(dir, c)) != 0)
		agent_die("the sandbox environment did not start: %s",
		    strerror(-r));
	close(lock);
	if (verbose && first == -ENOENT)
		agent_warn("sandbox environment started");
	else if (verbose)
		agent_warn("the sandbox environment was gone (its holder "
		    "ended or the host restarted); started a new one");
}

/* Wait for one frame; EOF and protocol errors end the program. */
void
box_expect(struct box_client *c, struct frame *f, int timeout_ms)
{
	int	r;

	if ((r = wire_wait(&c->w, f, timeout_ms)) == 1)
		return;
	if (r == 0)
		agent_die("the sandbox environment closed the connection");
	if (r == -ETIMEDOUT)
		agent_die("the sandbox environment does not answer");
	agent_die("the sandbox environment: %s", strerror(-r));
}

/* Send our HELLO, read the holder's. */
void
box_hello(struct box_client *c)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	struct frame	f;
	int		r;

	msg_hello_put(&fw, 0, NULL, 0);
	r = wire_send(&c->w, &fw, NULL, 0, AGENT_HELLO_MS);
	frame_wr_free(&fw);
	if (r != 0)
		agent_die("the sandbox environment: %s", strerror(-r));
	box_expect(c, &f, AGENT_HELLO_MS);
	if ((r = msg_hello_get(&f, &c->hello)) != 0)
		agent_die("the sandbox environment: %s", frame_strerror(r));
	wire_consume(&c->w, &f);
	if (c->hello.proto != MSG_PROTO)
		agent_die("the sandbox environment speaks protocol %u, not %d",
		    c->hello.proto, MSG_PROTO);
}

/* Close the connection. */
void
box_client_close(struct box_client *c)
{
	wire_close(&c->w);
	msg_hello_free(&c->hello);
}
