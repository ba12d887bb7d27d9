/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ProxyCommand: the SSH session runs over a socketpair whose other end is
 * the standard input and output of "sh -c 'exec COMMAND'", as ssh(1) does.
 * The proxy's standard error stays ours, so its complaints are seen.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/socket.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "log.h"
#include "spawn.h"
#include "transport.h"
#include "transport_int.h"
#include "xmalloc.h"

#define TRANSPORT_PROXY_GRACE	1000	/* ms for the proxy to exit */

/* In the child: become the proxy on fd, or exit 127. */
static void
transport_proxy_child(int fd, const char *command)
{
	char	*argv[4];

	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1)
		_exit(127);
	spawn_child_setup();
	argv[0] = xstrdup("sh");
	argv[1] = xstrdup("-c");
	argv[2] = xasprintf("exec %s", command);
	argv[3] = NULL;
	execv("/bin/sh", argv);
	_exit(127);
}

/* Start the proxy; see transport_int.h. */
int
transport_proxy_start(const char *command, int *fdp, pid_t *pidp,
    char **cause)
{
	int	sv[2], err;
	pid_t	pid;

	log_info("running ProxyCommand: %s", command);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == -1) {
		err = errno;
		return claw_fail(cause, claw_err_from_errno(err),
		    "ProxyCommand '%s': socketpair: %s", command,
		    strerror(err));
	}
	if ((pid = fork()) == -1) {
		err = errno;
		close(sv[0]);
		close(sv[1]);
		return claw_fail(cause, claw_err_from_errno(err),
		    "ProxyCommand '%s': fork: %s", command, strerror(err));
	}
	if (pid == 0)
		transport_proxy_child(sv[1], command);
	close(sv[1]);
	if (fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK) == -1)
		log_warn("ProxyCommand socket: %s", strerror(errno));
	*fdp = sv[0];
	*pidp = pid;
	return 0;
}

/* Put the proxy into a failure message; see transport_int.h. */
char *
transport_proxy_explain(struct transport *t, char *cause)
{
	char	*how, *msg;
	int	 status, waited;

	if (t->proxy_pid <= 0)
		return cause;
	/* A proxy that failed is usually gone or about to go. */
	for (waited = 0; waited < 200 && (status = spawn_poll(t->proxy_pid))
	    == -1; waited += 20)
		usleep(20 * 1000);
	if (status != -1) {
		t->proxy_pid = -1;
		how = spawn_status_text(status);
		msg = xasprintf("ProxyCommand '%s' %s: %s", t->proxy, how,
		    cause);
		free(how);
	} else
		msg = xasprintf("via ProxyCommand '%s': %s", t->proxy, cause);
	free(cause);
	return msg;
}

/* Close the socket and reap the proxy; see transport_int.h. */
void
transport_proxy_stop(struct transport *t)
{
	if (t->fd != -1) {
		close(t->fd);
		t->fd = -1;
	}
	if (t->proxy_pid > 0)
		spawn_reap(t->proxy_pid, TRANSPORT_PROXY_GRACE);
	t->proxy_pid = -1;
}
