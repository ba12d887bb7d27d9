/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for fdio_write_all: pipes read slowly by a child, writes cut
 * short by signals, non-blocking pipes that fill, readers that go away.
 * SIGPIPE is ignored throughout, so a lost reader shows as EPIPE.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/time.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "fdio.h"

#define BIG	(1024 * 1024)	/* far more than a pipe holds */

static volatile sig_atomic_t	alarms;	/* SIGALRMs caught */

/* The byte expected at offset i of every test stream. */
static unsigned char
pattern_at(size_t i)
{
	return (unsigned char)(i * 31 + i / 251);
}

/*
 * Read fd to its end in reads of up to chunk bytes, sleeping delay us before
 * each; 0 if exactly want bytes of the pattern came.
 */
static int
check_stream(int fd, size_t want, size_t chunk, useconds_t delay)
{
	unsigned char	buf[4096];
	size_t		got = 0, i;
	ssize_t		n;

	for (;;) {
		usleep(delay);
		if ((n = read(fd, buf, chunk)) == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (i = 0; i < (size_t)n; i++) {
			if (buf[i] != pattern_at(got + i))
				return 1;
		}
		got += (size_t)n;
	}
	return n == 0 && got == want ? 0 : 2;
}

/* Make a pipe in fds; a child checks what arrives; return its pid. */
static pid_t
reader_start(int fds[2], size_t want, size_t chunk, useconds_t delay)
{
	pid_t	pid;

	assert_true(chunk <= 4096);
	assert_int_equal(pipe(fds), 0);
	if ((pid = fork()) == 0) {
		close(fds[1]);
		_exit(check_stream(fds[0], want, chunk, delay));
	}
	assert_true(pid > 0);
	close(fds[0]);
	return pid;
}

/* Close the write end and expect the child to exit with status want. */
static void
reader_finish(int fd, pid_t pid, int want)
{
	int	status;

	assert_int_equal(close(fd), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), want);
}

/* Write n bytes of the pattern to fd with fdio_write_all; return its code. */
static int
write_pattern(int fd, size_t n)
{
	unsigned char	*p;
	size_t		 i;
	int		 r;

	assert_non_null(p = malloc(n));
	for (i = 0; i < n; i++)
		p[i] = pattern_at(i);
	r = fdio_write_all(fd, p, n);
	free(p);
	return r;
}

/* Make fd non-blocking. */
static void
set_nonblock(int fd)
{
	int	fl;

	assert_true((fl = fcntl(fd, F_GETFL)) != -1);
	assert_int_equal(fcntl(fd, F_SETFL, fl | O_NONBLOCK), 0);
}

/* Count a SIGALRM; being there interrupts the write in progress. */
static void
on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

/* Deliver SIGALRM every usec microseconds, not restarting system calls. */
static void
alarm_start(long usec)
{
	struct sigaction	sa;
	struct itimerval	it;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	assert_int_equal(sigaction(SIGALRM, &sa, NULL), 0);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = it.it_value.tv_usec = usec;
	assert_int_equal(setitimer(ITIMER_REAL, &it, NULL), 0);
}

/* Stop the timer and ignore a late SIGALRM; also a cmocka teardown. */
static int
alarm_stop(void **state)
{
	struct itimerval	it;

	(void)state;
	memset(&it, 0, sizeof(it));
	signal(SIGALRM, SIG_IGN);
	return setitimer(ITIMER_REAL, &it, NULL);
}

/*
 * A slow child reading in short reads while signals keep interrupting the
 * blocked writer (short writes and EINTR) still gets every byte in order.
 */
static void
test_pipe_short_reads(void **state)
{
	int	fds[2];
	pid_t	pid;

	(void)state;
	pid = reader_start(fds, BIG, 509, 20);
	alarms = 0;
	alarm_start(1000);
	assert_int_equal(write_pattern(fds[1], BIG), 0);
	assert_int_equal(alarm_stop(NULL), 0);
	assert_true(alarms > 0);
	reader_finish(fds[1], pid, 0);
}

/*
 * A non-blocking pipe that fills (EAGAIN) is waited on, not given up: the
 * child sleeps before each 4 KiB read, so BIG bytes cannot fit in time.
 */
static void
test_nonblocking_fills(void **state)
{
	int	fds[2];
	pid_t	pid;

	(void)state;
	pid = reader_start(fds, BIG, 4096, 200);
	set_nonblock(fds[1]);
	assert_int_equal(write_pattern(fds[1], BIG), 0);
	assert_true(fcntl(fds[1], F_GETFL) & O_NONBLOCK);
	reader_finish(fds[1], pid, 0);
}

/* Writing to a pipe with no reader fails with EPIPE. */
static void
test_epipe(void **state)
{
	int	fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	close(fds[0]);
	errno = 0;
	assert_int_equal(fdio_write_all(fds[1], "data", 4), -1);
	assert_int_equal(errno, EPIPE);
	close(fds[1]);
}

/* A reader leaving while a non-blocking write waits gives EPIPE, no hang. */
static void
test_epipe_while_waiting(void **state)
{
	int	fds[2];
	pid_t	pid;

	(void)state;
	/* The child sleeps, reads nothing (chunk 0) and exits. */
	pid = reader_start(fds, 0, 0, 50 * 1000);
	set_nonblock(fds[1]);
	errno = 0;
	assert_int_equal(write_pattern(fds[1], BIG), -1);
	assert_int_equal(errno, EPIPE);
	reader_finish(fds[1], pid, 0);
}

/* A zero-length write succeeds and sends nothing. */
static void
test_zero_length(void **state)
{
	char	c;
	int	fds[2];

	(void)state;
	assert_int_equal(pipe(fds), 0);
	set_nonblock(fds[0]);
	assert_int_equal(fdio_write_all(fds[1], "", 0), 0);
	assert_int_equal(read(fds[0], &c, 1), -1);
	assert_int_equal(errno, EAGAIN);
	close(fds[1]);
	assert_int_equal(read(fds[0], &c, 1), 0);
	close(fds[0]);
}

/* A bad descriptor fails with write's own errno. */
static void
test_bad_fd(void **state)
{
	(void)state;
	errno = 0;
	assert_int_equal(fdio_write_all(-1, "x", 1), -1);
	assert_int_equal(errno, EBADF);
}

/* A regular file, as the registry and known_hosts write, gets it all. */
static void
test_regular_file(void **state)
{
	char	path[] = "/tmp/test_fdio.XXXXXX";
	int	fd;

	(void)state;
	assert_true((fd = mkstemp(path)) != -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(write_pattern(fd, BIG), 0);
	assert_int_equal(lseek(fd, 0, SEEK_SET), 0);
	assert_int_equal(check_stream(fd, BIG, 4096, 0), 0);
	close(fd);
}

/* Run every test with SIGPIPE ignored. */
int
main(void)
{
	const struct CMUnitTest	tests[] = {
		cmocka_unit_test_teardown(test_pipe_short_reads, alarm_stop),
		cmocka_unit_test(test_nonblocking_fills),
		cmocka_unit_test(test_epipe),
		cmocka_unit_test(test_epipe_while_waiting),
		cmocka_unit_test(test_zero_length),
		cmocka_unit_test(test_bad_fd),
		cmocka_unit_test(test_regular_file),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
