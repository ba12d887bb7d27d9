/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Signal delivery through a self-pipe.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>
#include <unistd.h>

#include "error.h"
#include "signals.h"

static int			signals_pipe[2] = { -1, -1 };
static volatile sig_atomic_t	signals_last;	/* the latest caught */
static volatile pid_t		signals_child;	/* forwarded to, or 0 */
static volatile sig_atomic_t	signals_from;	/* the latest's sender */

static const struct {
	const char	*name;
	int		 num;
} signals_names[] = {
	{ "HUP", SIGHUP }, { "INT", SIGINT }, { "QUIT", SIGQUIT },
	{ "ILL", SIGILL }, { "TRAP", SIGTRAP }, { "ABRT", SIGABRT },
	{ "BUS", SIGBUS }, { "FPE", SIGFPE }, { "KILL", SIGKILL },
	{ "USR1", SIGUSR1 }, { "SEGV", SIGSEGV }, { "USR2", SIGUSR2 },
	{ "PIPE", SIGPIPE }, { "ALRM", SIGALRM }, { "TERM", SIGTERM },
	{ "CHLD", SIGCHLD }, { "CONT", SIGCONT }, { "STOP", SIGSTOP },
	{ "TSTP", SIGTSTP }, { "TTIN", SIGTTIN }, { "TTOU", SIGTTOU },
	{ "URG", SIGURG }, { "XCPU", SIGXCPU }, { "XFSZ", SIGXFSZ },
	{ "VTALRM", SIGVTALRM }, { "PROF", SIGPROF }, { "WINCH", SIGWINCH },
	{ "IO", SIGIO }, { "SYS", SIGSYS },
};

/* Record the signal and its sender in the pipe; async-signal-safe. */
static void
signals_handler(int sig, siginfo_t *si, void *uc)
{
	unsigned char	c = (unsigned char)sig;
	int		saved = errno;

	(void)uc;
	signals_from = si != NULL && si->si_code <= 0 ? (int)si->si_pid : 0;
	signals_last = sig;
	if (signals_child > 0)
		(void)kill(signals_child, sig);
	if (write(signals_pipe[1], &c, 1) == -1) {
		/* The pipe is full: a signal is already pending. */
	}
	errno = saved;
}

/* Install the handlers; see signals.h. */
int
signals_init(void)
{
	struct sigaction	sa;

	if (signals_pipe[0] != -1)
		return 0;
	if (pipe2(signals_pipe, O_CLOEXEC | O_NONBLOCK) == -1)
		return CLAW_ERR_IO;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = signals_handler;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESTART | SA_SIGINFO;
	if (sigaction(SIGINT, &sa, NULL) == -1 ||
	    sigaction(SIGTERM, &sa, NULL) == -1 ||
	    sigaction(SIGHUP, &sa, NULL) == -1)
		return CLAW_ERR_IO;
	signal(SIGPIPE, SIG_IGN);
	return 0;
}

/* Return the pipe's read end. */
int
signals_fd(void)
{
	return signals_pipe[0];
}

/* Return the first pending signal, draining the pipe. */
int
signals_take(void)
{
	unsigned char	c;
	int		first = 0;

	if (signals_pipe[0] == -1)
		return 0;
	while (read(signals_pipe[0], &c, 1) == 1) {
		if (first == 0)
			first = c;
	}
	return first;
}

/* The latest signal caught, and clear it; see signals.h. */
int
signals_caught(int clear)
{
	int	sig = signals_last;

	if (clear)
		signals_last = 0;
	return sig;
}

/* Who sent the latest signal caught; see signals.h. */
pid_t
signals_sender(void)
{
	return (pid_t)signals_from;
}

/* Forward what is caught to pid as well; see signals.h. */
void
signals_forward(pid_t pid)
{
	signals_child = pid;
}

/* Map a signal name, with or without "SIG", to its number. */
int
signals_from_name(const char *name)
{
	size_t	i;

	if (strncasecmp(name, "SIG", 3) == 0)
		name += 3;
	for (i = 0; i < sizeof signals_names / sizeof signals_names[0]; i++) {
		if (strcasecmp(name, signals_names[i].name) == 0)
			return signals_names[i].num;
	}
	return 0;
}

/* Name a signal as SSH does; see signals.h. */
const char *
signals_name(int num)
{
	size_t	i;

	for (i = 0; i < sizeof signals_names / sizeof signals_names[0]; i++) {
		if (signals_names[i].num == num)
			return signals_names[i].name;
	}
	return NULL;
}
