/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Starting and reaping the child processes clawssh runs on purpose.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "spawn.h"
#include "xmalloc.h"

#define SPAWN_FD_MAX	65536	/* close at most this many descriptors */

/* Clean up a forked child before exec; see spawn.h. */
void
spawn_child_setup(void)
{
	static const int	 sigs[] = { SIGPIPE, SIGINT, SIGTERM, SIGHUP,
	    SIGCHLD, SIGQUIT };
	sigset_t		 none;
	long			 max;
	size_t			 i;
	int			 fd;

	setpgid(0, 0);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		signal(sigs[i], SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
#ifdef HAVE_CLOSE_RANGE
	/* one call, not one per possible fd (the daemon's limit is high) */
	if (close_range(3, ~0U, 0) == 0)
		return;
#endif
	if ((max = sysconf(_SC_OPEN_MAX)) < 0 || max > SPAWN_FD_MAX)
		max = SPAWN_FD_MAX;
	for (fd = 3; fd < max; fd++)
		close(fd);
}

/* Reap pid if it has exited; see spawn.h. */
int
spawn_poll(pid_t pid)
{
	int	status;
	pid_t	r;

	while ((r = waitpid(pid, &status, WNOHANG)) == -1 && errno == EINTR)
		;
	return r == pid ? status : -1;
}

/* Wait up to ms for pid to exit; its status or -1. */
static int
spawn_wait_ms(pid_t pid, int ms)
{
	struct timespec	 ts = { 0, 10 * 1000 * 1000 };
	int		 status, waited;

	for (waited = 0;; waited += 10) {
		if ((status = spawn_poll(pid)) != -1)
			return status;
		if (waited >= ms)
			return -1;
		nanosleep(&ts, NULL);
	}
}

/* Reap pid, killing its group if it lingers; see spawn.h. */
int
spawn_reap(pid_t pid, int grace_ms)
{
	int	status;

	if (pid <= 0)
		return -1;
	if ((status = spawn_wait_ms(pid, grace_ms)) != -1)
		return status;
	kill(-pid, SIGTERM);
	kill(pid, SIGTERM);
	if ((status = spawn_wait_ms(pid, grace_ms)) != -1)
		return status;
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) == -1) {
		if (errno != EINTR)
			return -1;
	}
	return status;
}

/* Describe a wait status; see spawn.h. */
char *
spawn_status_text(int status)
{
	if (WIFEXITED(status))
		return xasprintf("exited with status %d", WEXITSTATUS(status));
	if (WIFSIGNALED(status))
		return xasprintf("killed by signal %d (%s)", WTERMSIG(status),
		    strsignal(WTERMSIG(status)));
	return xstrdup("ended oddly");
}
