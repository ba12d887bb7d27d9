/*
 * clawssh serve: run the per-user daemon that keeps SSH sessions warm for
 * every other clawssh command (see daemon.h), in the foreground or
 * detached; and cmd_serve_spawn, which starts one on demand.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clawconfig.h"
#include "cmd.h"
#include "cmd_conn.h"
#include "daemon.h"
#include "error.h"
#include "log.h"
#include "mux_client.h"
#include "xmalloc.h"

#define SERVE_READY_MS	10000	/* how long a start may take */

enum {
	SERVE_OPT_SOCKET = CMD_OPT_FIRST_FREE,
	SERVE_OPT_IDLE,
	SERVE_OPT_DETACH,
	SERVE_OPT_LOG
};

static const struct option serve_longopts[] = {
	{ "config", required_argument, NULL, CMD_OPT_CONFIG },
	{ "socket", required_argument, NULL, SERVE_OPT_SOCKET },
	{ "idle-timeout", required_argument, NULL, SERVE_OPT_IDLE },
	{ "detach", no_argument, NULL, SERVE_OPT_DETACH },
	{ "log", required_argument, NULL, SERVE_OPT_LOG },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const char serve_usage[] =
    "usage: clawssh serve [options]\n"
    "  --socket PATH         control socket (default\n"
    "                        $XDG_RUNTIME_DIR/clawssh/control.sock)\n"
    "  --idle-timeout SECS   exit after this long without clients\n"
    "                        (default 600; 0: never)\n"
    "  --detach              run in the background once listening\n"
    "  --log FILE            append the log here (detached: else none)\n"
    "  --config FILE         clawssh config\n"
    "  -v                    more logging (repeatable)\n";

struct serve_args {
	const char	*config;
	const char	*socket;
	const char	*log;
	int		 idle;		/* -1: from config */
	int		 detach;
	int		 verbose;
};

/* Parse serve's options; 0, or the exit status to return. */
static int
serve_parse(int argc, char **argv, struct serve_args *a)
{
	int	ch;

	memset(a, 0, sizeof *a);
	a->idle = -1;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "vh", serve_longopts,
	    NULL)) != -1) {
		switch (ch) {
		case CMD_OPT_CONFIG:
			a->config = optarg;
			break;
		case SERVE_OPT_SOCKET:
			a->socket = optarg;
			break;
		case SERVE_OPT_IDLE:
			if (cmd_parse_int(optarg, 0, 604800, &a->idle) != 0)
				return cmd_fail("bad --idle-timeout '%s'",
				    optarg);
			break;
		case SERVE_OPT_DETACH:
			a->detach = 1;
			break;
		case SERVE_OPT_LOG:
			a->log = optarg;
			break;
		case 'v':
			a->verbose++;
			break;
		case 'h':
			fputs(serve_usage, stdout);
			return -1;
		default:
			fputs(serve_usage, stderr);
			return CMD_EXIT_FAILURE;
		}
	}
	if (optind != argc)
		return cmd_fail("serve takes no operands");
	return 0;
}

/* Point stdin/stdout at /dev/null and stderr at the log (or null). */
static int
serve_stdio(const char *log)
{
	int	null, err;

	if ((null = open("/dev/null", O_RDWR)) == -1)
		return -1;
	err = log != NULL ? open(log, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC, 0600) : dup(null);
	if (err == -1)
		return -1;
	if (dup2(null, 0) == -1 || dup2(null, 1) == -1 ||
	    dup2(err, 2) == -1)
		return -1;
	close(null);
	close(err);
	return 0;
}

/*
 * Detach: the parent waits for the child's "listening" byte and exits 0,
 * or 255 if the child could not start.  The child runs in a new session.
 * Returns -1 in the child (with *ready_fd set), else the parent's status.
 */
static int
serve_detach(const char *log, int *ready_fd)
{
	struct pollfd	pfd;
	char		c;
	int		p[2];
	pid_t		pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return cmd_fail("pipe: %s", strerror(errno));
	if ((pid = fork()) == -1)
		return cmd_fail("fork: %s", strerror(errno));
	if (pid == 0) {
		close(p[0]);
		if (setsid() == -1 || serve_stdio(log) != 0 ||
		    dup2(p[1], 3) == -1)
			_exit(CMD_EXIT_FAILURE);
		(void)close_range(4, ~0U, 0);	/* the caller's pipes */
		*ready_fd = 3;
		return -1;
	}
	close(p[1]);
	pfd.fd = p[0];
	pfd.events = POLLIN;
	if (poll(&pfd, 1, SERVE_READY_MS) == 1 && read(p[0], &c, 1) == 1) {
		close(p[0]);
		return 0;
	}
	close(p[0]);
	return cmd_fail("the daemon did not start (see --log FILE)");
}

/* The serve command; see clawssh(1). */
int
cmd_serve(int argc, char **argv)
{
	struct serve_args	 a;
	struct daemon_opts	 o;
	struct claw_config	*cfg = NULL;
	char			*path, *cause = NULL;
	int			 rc;

	if ((rc = serve_parse(argc, argv, &a)) != 0)
		return rc < 0 ? 0 : rc;
	if (config_load(a.config, cmd_home(), &cfg, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
		return rc;
	}
	log_set_level(a.verbose > cfg->verbose ? a.verbose : cfg->verbose);
	path = mux_socket_path(a.socket != NULL ? a.socket :
	    cfg->daemon_socket);
	memset(&o, 0, sizeof o);
	o.socket_path = path;
	o.idle_timeout = a.idle >= 0 ? a.idle : cfg->daemon_idle_timeout >= 0 ?
	    cfg->daemon_idle_timeout : DAEMON_IDLE_DEFAULT;
	o.max_sessions = cfg->daemon_max_sessions;
	o.max_conns = cfg->daemon_max_conns;
	o.ready_fd = -1;
	config_free(cfg);
	if (a.detach && (rc = serve_detach(a.log, &o.ready_fd)) != -1) {
		free(path);
		return rc;
	}
	if (!a.detach && a.log != NULL && freopen(a.log, "a", stderr) == NULL)
		rc = cmd_fail("%s: %s", a.log, strerror(errno));
	else if (daemon_run(&o, &cause) != 0) {
		rc = cmd_fail("%s", cause);
		free(cause);
	} else
		rc = 0;
	free(path);
	return rc;
}

/* Start a detached daemon on path and wait until it listens. */
int
cmd_serve_spawn(const char *path, char **cause)
{
	pid_t	pid;
	int	status;

	log_info("starting the clawssh daemon on %s", path);
	if ((pid = fork()) == -1)
		return claw_fail_errno(cause, "fork", "fork");
	if (pid == 0) {
		execl("/proc/self/exe", "clawssh", "serve", "--detach",
		    "--socket", path, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR)
			return claw_fail_errno(cause, "waitpid", "wait");
	}
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return claw_fail(cause, CLAW_ERR_CONNECT,
		    "could not start the clawssh daemon on %s", path);
	return 0;
}
