/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The files git tracks in the local workspace, for the rule that a
 * .gitignore applies to untracked files only.  git itself is asked
 * ("git ls-files -z"), run as a child with no shell, an explicit
 * environment (every GIT_* variable of ours left out, so no GIT_DIR,
 * GIT_INDEX_FILE or GIT_CONFIG_PARAMETERS reaches it), core.fsmonitor
 * forced off (the one configuration that makes reading the index run a
 * command), no optional locks, stdin and stderr on /dev/null, a bounded
 * output and a deadline.  ls-files runs no hooks, filters or helpers.
 * Only the local repository is read: .git is never pulled, so nothing the
 * sandbox does can change the answer.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "error.h"
#include "ignore_git.h"
#include "strv.h"
#include "spawn.h"
#include "xmalloc.h"

#define IGIT_DEFAULT_PATH	"/usr/local/bin:/usr/bin:/bin"
#define IGIT_DEPTH_MAX		256	/* directories walked up for .git */

/* Return the first executable "git" on PATH (allocated), or NULL. */
static char *
igit_find(const char *path)
{
	const char	*p = path, *e;
	char		*cand;

	while (*p != '\0') {
		if ((e = strchr(p, ':')) == NULL)
			e = p + strlen(p);
		if (e > p && *p == '/') {
			cand = xasprintf("%.*s/git", (int)(e - p), p);
			if (access(cand, X_OK) == 0)
				return cand;
			free(cand);
		}
		p = *e == ':' ? e + 1 : e;
	}
	return NULL;
}

/* The child: the listing of rootfd's tree on out, then exec git. */
static void
igit_child(int rootfd, int out, const char *git, char *const *envp)
{
	static const char *const argv[] = { "git", "--no-pager", "-c",
	    "core.fsmonitor=false", "-c", "core.untrackedCache=false",
	    "ls-files", "-z", "--cached", NULL };
	int	null;

	if ((null = open("/dev/null", O_RDWR)) == -1 ||
	    dup2(null, 0) == -1 || dup2(out, 1) == -1 || dup2(null, 2) == -1 ||
	    fchdir(rootfd) == -1)
		_exit(127);
	spawn_child_setup();
	execve(git, (char *const *)(uintptr_t)argv, envp);
	_exit(127);
}

/* Read fd to its end into b, within IGNORE_GIT_MAX bytes and the deadline. */
static int
igit_read(int fd, struct buf *b, int64_t deadline, char **cause)
{
	struct pollfd	pfd;
	char		chunk[16384];
	ssize_t		n;
	int		r;

	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if ((r = poll(&pfd, 1, clock_poll_timeout(deadline))) == -1 &&
		    errno == EINTR)
			continue;
		if (r == 0)
			return claw_fail(cause, CLAW_ERR_TIMEOUT,
			    "git ls-files: no answer in %d s",
			    IGNORE_GIT_MS / 1000);
		if ((n = read(fd, chunk, sizeof(chunk))) == 0)
			return 0;
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return claw_fail_errno(cause, "git ls-files", "read");
		if (b->len + (size_t)n > IGNORE_GIT_MAX)
			return claw_fail(cause, CLAW_ERR_RANGE,
			    "git ls-files: more than %d MiB of names",
			    IGNORE_GIT_MAX >> 20);
		buf_append(b, chunk, (size_t)n);
	}
}

/* The environment git gets: PATH, HOME, the C locale, no locks. */
static char **
igit_env(const char *path)
{
	const char	*home = getenv("HOME");
	char		**envp = xcalloc(6, sizeof(*envp));

	envp[0] = xasprintf("PATH=%s", path);
	envp[1] = xasprintf("HOME=%s", home != NULL ? home : "/");
	envp[2] = xstrdup("LC_ALL=C");
	envp[3] = xstrdup("GIT_OPTIONAL_LOCKS=0");
	envp[4] = xstrdup("GIT_TERMINAL_PROMPT=0");
	return envp;
}

/* Run git in the child and read its answer; see ignore_git.h. */
static int
igit_run(int rootfd, const char *git, char **envp, struct buf *out,
    char **cause)
{
	int	p[2], rc, status;
	pid_t	pid;

	if (pipe2(p, O_CLOEXEC) == -1)
		return claw_fail_errno(cause, "git ls-files", "pipe");
	if ((pid = fork()) == -1) {
		close(p[0]);
		close(p[1]);
		return claw_fail_errno(cause, "git ls-files", "fork");
	}
	if (pid == 0)
		igit_child(rootfd, p[1], git, envp);
	close(p[1]);
	rc = igit_read(p[0], out, clock_now_ms() + IGNORE_GIT_MS, cause);
	close(p[0]);
	if (rc != 0)
		kill(-pid, SIGKILL);
	status = spawn_reap(pid, 1000);
	if (rc == 0 && (status == -1 || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0))
		rc = claw_fail(cause, CLAW_ERR_NOTFOUND,
		    "not a git checkout (git ls-files failed)");
	return rc;
}

/*
 * Whether rootfd or a directory above it holds a .git (a directory, or
 * the file of a worktree or submodule), as git's own discovery would
 * look for it: without one, git is not asked (it would fail, and its
 * start is most of what a pull of a few files costs).
 */
static int
igit_below_git(int rootfd)
{
	struct stat	st, up, git;
	int		fd, next, depth;

	if ((fd = dup(rootfd)) == -1 || fstat(fd, &st) == -1) {
		if (fd != -1)
			close(fd);
		return 1;	/* unsure: let git answer */
	}
	for (depth = 0; depth < IGIT_DEPTH_MAX; depth++) {
		if (fstatat(fd, ".git", &git, AT_SYMLINK_NOFOLLOW) == 0 &&
		    (S_ISDIR(git.st_mode) || S_ISREG(git.st_mode)))
			break;
		if ((next = openat(fd, "..", O_RDONLY | O_DIRECTORY |
		    O_CLOEXEC)) == -1 || fstat(next, &up) == -1) {
			if (next != -1)
				close(next);
			break;		/* unsure: let git answer */
		}
		close(fd);
		fd = next;
		if (up.st_dev == st.st_dev && up.st_ino == st.st_ino) {
			close(fd);
			return 0;	/* "/", and no .git on the way */
		}
		st = up;
	}
	close(fd);
	return 1;
}

/* The files git tracks below rootfd; see ignore_git.h. */
int
ignore_git_tracked(int rootfd, struct buf *out, char **cause)
{
	const char	*path = getenv("PATH");
	char		*git, **envp;
	int		 rc;

	if (!igit_below_git(rootfd))
		return claw_fail(cause, CLAW_ERR_NOTFOUND,
		    "not a git checkout (no .git at or above the workspace)");
	if (path == NULL || *path == '\0')
		path = IGIT_DEFAULT_PATH;
	if ((git = igit_find(path)) == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND,
		    "no git on PATH");
	envp = igit_env(path);
	rc = igit_run(rootfd, git, envp, out, cause);
	strv_free(envp);
	free(git);
	if (rc != 0)
		buf_free(out);
	return rc;
}
