/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-exec: run one command in the sandbox whose holder listens on
 * RUNDIR/box.sock (starting it if needed), pass it our stdin, stdout and
 * stderr (or relay a pty), forward our signals, exit with its status.
 * With --join it starts nothing: no holder running (or one with another
 * --spec) is exit AGENT_EXIT_NOJOIN before anything runs; --check then
 * only says whether it could join (a host-side step made without the
 * daemon asks so before it runs in the environment, else in its jail).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/prctl.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "box_client.h"
#include "box_exec.h"
#include "frame.h"
#include "msg.h"
#include "wire.h"

#define EXEC_PATH	"/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:" \
			"/sbin:/bin"

extern char	**environ;

struct exec_opts {
	const char	 *dir;
	const char	 *cwd;
	const char	 *keep;
	const char	 *spec;
	int		  pty;
	int		  verbose;
	int		  watch_parent;
	int		  join;		/* --join: start nothing */
	int		  check;	/* --check: only say if we could */
	char		**argv;		/* after "--" */
};

/*
 * --watch-parent: the signal the kernel sends when our parent (the
 * sshd that runs us) ends, and how long the command then has between
 * SIGTERM and SIGKILL, as the remote wrapper's watchdog gave it.
 */
#define EXEC_PDEATH_SIG	SIGPWR
#define EXEC_PDEATH_MS	2000

static const int exec_forwarded[] = {
	SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2
};
static int	exec_sigfd = -1;

/*
 * --join: connect to a running holder of o->spec, starting nothing;
 * else exit AGENT_EXIT_NOJOIN (-v: saying why).  --check exits 0 then.
 */
static void
exec_join(const struct exec_opts *o, struct exec_run *x)
{
	int	r;

	if ((r = box_connect(o->dir, &x->c)) != 0) {
		if (o->verbose)
			agent_warn("no sandbox environment to join: %s",
			    strerror(-r));
		exit(AGENT_EXIT_NOJOIN);
	}
	box_hello(&x->c);
	if (o->spec != NULL && strcmp(o->spec, x->c.hello.spec) != 0) {
		if (o->verbose)
			agent_warn("the sandbox environment runs with other "
			    "settings");
		exit(AGENT_EXIT_NOJOIN);
	}
	if (o->check)
		exit(0);
}

/* Parse box-exec's options; dies on a bad one. */
static void
exec_parse(int argc, char **argv, struct exec_opts *o)
{
	int	i;

	memset(o, 0, sizeof(*o));
	o->cwd = "/workspace";
	for (i = 1; i < argc && strcmp(argv[i], "--") != 0; i++) {
		if (strcmp(argv[i], "--pty") == 0)
			o->pty = 1;
		else if (strcmp(argv[i], "--login") == 0)
			continue;	/* no command means a login shell */
		else if (strcmp(argv[i], "-v") == 0)
			o->verbose = 1;
		else if (strcmp(argv[i], "--watch-parent") == 0)
			o->watch_parent = 1;
		else if (strcmp(argv[i], "--join") == 0)
			o->join = 1;
		else if (strcmp(argv[i], "--check") == 0)
			o->check = 1;
		else if (i + 1 >= argc)
			agent_die("box-exec: %s: bad option", argv[i]);
		else if (strcmp(argv[i], "--dir") == 0)
			o->dir = argv[++i];
		else if (strcmp(argv[i], "--cwd") == 0)
			o->cwd = argv[++i];
		else if (strcmp(argv[i], "--keep") == 0)
			o->keep = argv[++i];
		else if (strcmp(argv[i], "--spec") == 0)
			o->spec = argv[++i];
		else
			agent_die("box-exec: %s: bad option", argv[i]);
	}
	if (o->dir == NULL || o->dir[0] != '/')
		agent_die("box-exec: --dir needs an absolute path");
	if (o->cwd[0] != '/')
		agent_die("box-exec: --cwd needs an absolute path");
	if (o->check && !o->join)
		agent_die("box-exec: --check goes with --join");
	o->argv = argv + (i < argc ? i + 1 : i);
}

/* 1 if NAME=VALUE's name is one box-exec passes on. */
static int
exec_env_kept(const char *kv, const char *keep)
{
	static const char	*always[] = { "PATH", "LANG", "TERM", "TZ" };
	size_t			 n = strcspn(kv, "="), i, l;
	const char		*p;

	if (kv[n] != '=' || strncmp(kv, "__claw", 6) == 0 ||
	    strncmp(kv, "HOME=", 5) == 0)
		return 0;
	if (strncmp(kv, "LC_", 3) == 0)
		return 1;
	for (i = 0; i < sizeof(always) / sizeof(always[0]); i++)
		if (strlen(always[i]) == n && strncmp(kv, always[i], n) == 0)
			return 1;
	for (p = keep; p != NULL && *p != '\0'; p += l) {
		p += strspn(p, " ");
		l = strcspn(p, " ");
		if (l == n && l > 0 && strncmp(kv, p, n) == 0)
			return 1;
	}
	return 0;
}

/* The command's environment, from ours (see docs/agent.md and box_exec.h). */
char **
box_exec_env(const char *keep)
{
	char		**env;
	size_t		  n = 0, i;
	int		  path = 0;

	for (i = 0; environ[i] != NULL; i++)
		;
	env = xcalloc(i + 3, sizeof(*env));
	for (i = 0; environ[i] != NULL; i++) {
		if (!exec_env_kept(environ[i], keep))
			continue;
		if (strncmp(environ[i], "PATH=", 5) == 0) {
			if (environ[i][5] == '\0')
				continue;
			path = 1;
		}
		env[n++] = environ[i];
	}
	if (!path)
		env[n++] = (char *)(uintptr_t)"PATH=" EXEC_PATH;
	env[n++] = (char *)(uintptr_t)"HOME=/tmp";
	return env;
}

/* A caught signal goes down the self-pipe. */
static void
exec_on_signal(int sig)
{
	unsigned char	c = (unsigned char)sig;
	int		e = errno;

	(void)write(exec_sigfd, &c, 1);
	errno = e;
}

/* Catch the forwarded signals (and SIGWINCH for a pty). */
static void
exec_signals(struct exec_run *x, int watch_parent)
{
	struct sigaction	sa;
	size_t			i;

	if (pipe(x->sig) == -1)
		agent_die("pipe: %s", strerror(errno));
	(void)fd_set_nonblock(x->sig[0], 1);
	(void)fd_set_nonblock(x->sig[1], 1);
	(void)fd_set_cloexec(x->sig[0], 1);
	(void)fd_set_cloexec(x->sig[1], 1);
	exec_sigfd = x->sig[1];
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = exec_on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof(exec_forwarded) / sizeof(int); i++)
		sigaction(exec_forwarded[i], &sa, NULL);
	if (x->pty)
		sigaction(SIGWINCH, &sa, NULL);
	if (watch_parent)
		sigaction(EXEC_PDEATH_SIG, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* Send the EXEC request with our stdio (none for a pty). */
static void
exec_request(struct exec_run *x, const struct exec_opts *o)
{
	static const int	 stdio[] = { 0, 1, 2 };
	struct frame_wr		 fw = FRAME_WR_INIT;
	struct msg_exec		 m;
	char			*none[] = { NULL };
	int			 r;

	memset(&m, 0, sizeof(m));
	m.argv = o->argv[0] != NULL ? o->argv : none;
	m.env = box_exec_env(o->keep);
	m.cwd = (char *)(uintptr_t)o->cwd;
	m.flags = (o->pty ? FRAME_EXEC_PTY : 0) |
	    (o->argv[0] == NULL ? FRAME_EXEC_LOGIN : 0);
	m.rows = x->rows;
	m.cols = x->cols;
	m.nfds = o->pty ? 0 : 3;
	x->id = x->c.next_id++;
	msg_exec_put(&fw, x->id, &m);
	free(m.env);
	if (fw.err != 0)
		agent_die("the command and its environment are too long");
	r = wire_send(&x->c.w, &fw, stdio, (int)m.nfds, AGENT_HELLO_MS);
	frame_wr_free(&fw);
	if (r != 0)
		agent_die("the sandbox environment: %s", strerror(-r));
}

/* The connection dropped before the command's result. */
static void
exec_gone(void)
{
	agent_warn("the sandbox environment ended while the command ran");
	exit(AGENT_EXIT_GONE);
}

/* One frame of the holder's. */
static void
exec_frame(struct exec_run *x, const struct frame *f)
{
	uint32_t	 pid, nfds;
	int		 code, sig, master = -1;
	char		*msg;

	if (f->type == FRAME_ERROR && msg_error_get(f, &msg) == 0)
		agent_die("%s", msg);
	if (f->id != x->id)
		agent_die("the sandbox environment: an answer to no request");
	if (f->type == FRAME_STARTED && !x->started &&
	    msg_started_get(f, &pid, &nfds) == 0 && nfds == (x->pty ? 1 : 0) &&
	    wire_take_fds(&x->c.w, (int)nfds, &master) == 0) {
		x->started = 1;
		if (x->pty)
			pty_start(x, master);
	} else if (f->type == FRAME_EXIT && x->started &&
	    msg_exit_get(f, &code, &sig) == 0)
		x->status = code != -1 ? code : 128 + sig;
	else
		agent_die("the sandbox environment: a bad answer");
}

/* Read from the holder and handle every whole frame. */
static void
exec_read(struct exec_run *x)
{
	struct frame	f;
	int		r;

	if ((r = wire_recv(&x->c.w)) == 0 || (r < 0 && r != -EAGAIN))
		exec_gone();
	while ((r = wire_frame(&x->c.w, &f)) == 1) {
		exec_frame(x, &f);
		wire_consume(&x->c.w, &f);
	}
	if (r < 0)
		agent_die("the sandbox environment: %s", strerror(-r));
}

/* Forward what the self-pipe holds. */
static void
exec_forward(struct exec_run *x)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	unsigned char	c;

	while (read(x->sig[0], &c, 1) == 1) {
		if (c == SIGWINCH) {
			pty_resize(x);
			continue;
		}
		if (c == EXEC_PDEATH_SIG) {	/* our sshd went */
			c = SIGTERM;
			x->kill_at = mono_ms() + EXEC_PDEATH_MS;
		}
		msg_u32(&fw, FRAME_SIGNAL, x->id, TAG_SIGNO, c);
	}
	if (fw.len > 0 && wire_queue(&x->c.w, &fw, NULL, 0) != 0)
		exec_gone();
	frame_wr_free(&fw);
}

/* The poll timeout: until kill_at, or none. */
static int
exec_timeout(const struct exec_run *x)
{
	uint64_t	now = mono_ms();

	if (x->kill_at == 0)
		return -1;
	return x->kill_at > now ? (int)(x->kill_at - now) : 0;
}

/* The grace after our parent went is over: SIGKILL the command. */
static void
exec_kill(struct exec_run *x)
{
	struct frame_wr	fw = FRAME_WR_INIT;

	x->kill_at = 0;
	msg_u32(&fw, FRAME_SIGNAL, x->id, TAG_SIGNO, SIGKILL);
	if (wire_queue(&x->c.w, &fw, NULL, 0) != 0)
		exec_gone();
	frame_wr_free(&fw);
}

/*
 * --watch-parent: when the process that started us ends (the sshd of
 * a connection that went away), end the command: SIGTERM, then SIGKILL
 * EXEC_PDEATH_MS later, as the remote wrapper's watchdog did.
 */
static void
exec_watch_parent(void)
{
	pid_t	parent = getppid();

	if (prctl(PR_SET_PDEATHSIG, EXEC_PDEATH_SIG, 0, 0, 0) == -1)
		agent_die("prctl: %s", strerror(errno));
	if (getppid() != parent || parent == 1)
		(void)raise(EXEC_PDEATH_SIG);
}

/* Poll until the command's result (and a pty's last output). */
static void
exec_loop(struct exec_run *x)
{
	struct pollfd	p[4];
	int		n;

	while (x->status == -1) {
		if (wire_flush(&x->c.w) < 0)
			exec_gone();
		p[0].fd = x->c.w.fd;
		p[0].events = POLLIN | (wire_pending(&x->c.w) ? POLLOUT : 0);
		p[1].fd = x->started ? x->sig[0] : -1;
		p[1].events = POLLIN;
		n = 2;
		if (x->started && x->pty)
			pty_pollfds(x, p, &n);
		if (poll(p, (nfds_t)n, exec_timeout(x)) == -1) {
			if (errno == EINTR)
				continue;
			agent_die("poll: %s", strerror(errno));
		}
		if (x->kill_at != 0 && mono_ms() >= x->kill_at)
			exec_kill(x);
		if (p[0].revents != 0)
			exec_read(x);
		if (p[1].revents != 0)
			exec_forward(x);
		if (n > 2)
			pty_step(x, p, 2);
	}
	if (x->pty)
		pty_drain(x);
}

/* Closed stdio fds (which cannot be passed) become /dev/null. */
static void
exec_stdio(void)
{
	int	fd, i;

	for (i = 0; i < 3; i++) {
		if (fcntl(i, F_GETFD) != -1 || errno != EBADF)
			continue;
		if ((fd = open("/dev/null", O_RDWR)) == -1)
			agent_die("/dev/null: %s", strerror(errno));
		if (fd != i && fd_move(fd, i) != 0)
			agent_die("dup2: %s", strerror(errno));
	}
}

/* box-exec --dir RUNDIR [...] -- [CMD [ARG...]] */
int
box_exec_main(int argc, char **argv)
{
	struct exec_opts	 o;
	struct exec_run		*x;
	char			*id;
	int			 status;

	exec_stdio();
	exec_parse(argc, argv, &o);
	x = xcalloc(1, sizeof(*x));
	x->status = -1;
	x->master = -1;
	x->pty = o.pty;
	pty_winsize(x);
	if (o.join)
		exec_join(&o, x);	/* returns joined, or exits */
	else {
		box_connect_or_start(o.dir, o.verbose, &x->c);
		box_hello(&x->c);
	}
	if (o.spec != NULL && strcmp(o.spec, x->c.hello.spec) != 0) {
		id = box_id(o.dir);
		agent_warn("warning: the sandbox environment runs with older "
		    "settings; 'clawssh stop %s' then the next command "
		    "applies the new ones", id);
		free(id);
	}
	exec_signals(x, o.watch_parent);
	if (o.watch_parent)
		exec_watch_parent();
	exec_request(x, &o);
	exec_loop(x);
	status = x->status;
	box_client_close(&x->c);
	free(x);
	return status;
}
