/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * watch: the host's change watcher for a mirror sandbox's workspace, as
 * one process of the agent's own, run by the daemon (src/daemon/
 * daemon_watch.c) in the sandbox's step jail from the workspace, in
 * place of the script around inotifywait(1) and find(1).  The same line
 * protocol on the same channel (docs/agent.md, "The change watcher"):
 *
 *	stdout	"Watches established." once every directory is watched;
 *		"E ./PATH" for each path changed since the last take;
 *		"clawssh-take TOKEN" once every change made before the
 *		take's "T TOKEN" was read; "Q_OVERFLOW ./" (the kernel's
 *		queue overflowed) or "DELETE_SELF ./" (the workspace was
 *		removed, moved or replaced), then the end; "clawssh-watch:
 *		WHY" when it cannot watch at all, then the end.
 *	stdin	"T TOKEN": a take; "L TOKEN", paths one a line, an empty
 *		line: list them and all below (fs_list.c) on stderr between
 *		"clawssh-list TOKEN\n" and "\0\0clawssh-end TOKEN STATUS\n".
 *
 * Native inotify needs no sentinel file: the take reads the kernel's
 * queue to its end, and the queue holds every event of every system
 * call that returned before.  Paths are kept as a set between takes
 * (one line per path, not per event).  Every directory is opened with
 * O_NOFOLLOW from its parent's descriptor and watched through
 * /proc/self/fd, so a link swapped in on the way is never watched.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "fs_list.h"

#define FSW_MASK	(IN_CREATE | IN_DELETE | IN_MODIFY | IN_ATTRIB | \
			 IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO | \
			 IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)
#define FSW_LINE_MAX	(1024 * 1024)	/* a longer stdin line: refused */
#define FSW_PENDING_MAX	100000		/* then written out at once */
#define FSW_DEPTH_MAX	1024
#define FSW_TOKEN_MAX	64

/* A watched directory. */
struct fsw_dir {
	int	 wd;
	char	*path;			/* relative; "" for the workspace */
};

struct fsw {
	int		 ifd;		/* inotify */
	int		 root;		/* the workspace */
	int		 rootwd;
	char		 cwd[PATH_MAX];	/* its path when the watch began */
	struct stat	 rootst;
	struct fsw_dir	*dirs;		/* sorted by wd */
	size_t		 ndirs, cdirs;
	char		**set;		/* changed paths: open addressing */
	size_t		 nset, cset;
	char		*out;		/* stdout, not yet written */
	size_t		 outlen, outcap;
	char		*in;		/* stdin, not yet a line */
	size_t		 inlen, incap;
	int		 skip;		/* the rest of an over-long line */
	char		 listing[FSW_TOKEN_MAX + 1];	/* "L" read: its token */
	char		**lpaths;	/* ... and its paths so far */
	size_t		 nlpaths, clpaths;
	int		 lbad;		/* a path line was refused */
};

/* Append s (n bytes) to what goes to stdout. */
static void
fsw_put(struct fsw *w, const char *s, size_t n)
{
	if (w->outlen + n > w->outcap) {
		w->outcap = (w->outlen + n) * 2;
		w->out = xreallocarray(w->out, w->outcap, 1);
	}
	memcpy(w->out + w->outlen, s, n);
	w->outlen += n;
}

/* Write stdout out; the daemon gone ends the watcher. */
static void
fsw_flush(struct fsw *w)
{
	if (w->outlen > 0 && write_all(STDOUT_FILENO, w->out, w->outlen) != 0)
		exit(0);
	w->outlen = 0;
}

/* Say one line and end: the daemon starts over or lists everything. */
static void __attribute__((noreturn))
fsw_end(struct fsw *w, const char *line)
{
	fsw_put(w, line, strlen(line));
	fsw_put(w, "\n", 1);
	fsw_flush(w);
	exit(0);
}

/* FNV-1a of s. */
static size_t
fsw_hash(const char *s)
{
	uint64_t	h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ULL;
	return (size_t)h;
}

/* Put p (owned by the set from now) in the open-addressing table t. */
static void
fsw_set_place(char **t, size_t cap, char *p)
{
	size_t	i = fsw_hash(p) & (cap - 1);

	while (t[i] != NULL)
		i = (i + 1) & (cap - 1);
	t[i] = p;
}

/* Write the changed paths out as "E ./PATH" lines; the set is empty. */
static void
fsw_set_flush(struct fsw *w)
{
	size_t	i;

	for (i = 0; i < w->cset && w->nset > 0; i++) {
		if (w->set[i] == NULL)
			continue;
		fsw_put(w, "E ./", 4);
		fsw_put(w, w->set[i], strlen(w->set[i]));
		fsw_put(w, "\n", 1);
		free(w->set[i]);
		w->set[i] = NULL;
		w->nset--;
	}
	w->nset = 0;
}

/* Add path (copied) to the changed set, once. */
static void
fsw_set_add(struct fsw *w, const char *path)
{
	char	**t;
	size_t	  i;

	if (*path == '\0' || strchr(path, '\n') != NULL)
		return;			/* the top, or a name that never syncs */
	if (w->nset + 1 > w->cset / 2) {
		if (w->nset >= FSW_PENDING_MAX) {
			fsw_set_flush(w);
			fsw_flush(w);
		} else {
			t = xcalloc(w->cset == 0 ? 64 : w->cset * 2,
			    sizeof *t);
			for (i = 0; i < w->cset; i++)
				if (w->set[i] != NULL)
					fsw_set_place(t, w->cset == 0 ? 64 :
					    w->cset * 2, w->set[i]);
			free(w->set);
			w->set = t;
			w->cset = w->cset == 0 ? 64 : w->cset * 2;
		}
	}
	for (i = fsw_hash(path) & (w->cset - 1); w->set[i] != NULL;
	    i = (i + 1) & (w->cset - 1))
		if (strcmp(w->set[i], path) == 0)
			return;
	w->set[i] = xstrdup(path);
	w->nset++;
}

/* The index of wd in dirs, or where it would go (*found 0). */
static size_t
fsw_dir_at(const struct fsw *w, int wd, int *found)
{
	size_t	lo = 0, hi = w->ndirs, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (w->dirs[mid].wd < wd)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = lo < w->ndirs && w->dirs[lo].wd == wd;
	return lo;
}

/* Record that wd watches path (a wd seen again: the directory moved). */
static void
fsw_dir_set(struct fsw *w, int wd, const char *path)
{
	size_t	i;
	int	found;

	i = fsw_dir_at(w, wd, &found);
	if (found) {
		free(w->dirs[i].path);
		w->dirs[i].path = xstrdup(path);
		return;
	}
	if (w->ndirs == w->cdirs) {
		w->cdirs = w->cdirs == 0 ? 64 : w->cdirs * 2;
		w->dirs = xreallocarray(w->dirs, w->cdirs, sizeof *w->dirs);
	}
	memmove(w->dirs + i + 1, w->dirs + i, (w->ndirs - i) *
	    sizeof *w->dirs);
	w->dirs[i].wd = wd;
	w->dirs[i].path = xstrdup(path);
	w->ndirs++;
}

/* Forget wd (the kernel dropped it). */
static void
fsw_dir_drop(struct fsw *w, int wd)
{
	size_t	i;
	int	found;

	i = fsw_dir_at(w, wd, &found);
	if (!found)
		return;
	free(w->dirs[i].path);
	memmove(w->dirs + i, w->dirs + i + 1, (w->ndirs - i - 1) *
	    sizeof *w->dirs);
	w->ndirs--;
}

/* Stop watching path and every directory below it (moved away). */
static void
fsw_unwatch(struct fsw *w, const char *path)
{
	size_t	i, n = strlen(path);

	for (i = 0; i < w->ndirs; ) {
		if (strncmp(w->dirs[i].path, path, n) == 0 &&
		    (w->dirs[i].path[n] == '\0' ||
		    w->dirs[i].path[n] == '/')) {
			inotify_rm_watch(w->ifd, w->dirs[i].wd);
			fsw_dir_drop(w, w->dirs[i].wd);
		} else
			i++;
	}
}

/* Add the watch on the directory open as fd, at path: 0, or -1 gone. */
static int
fsw_add(struct fsw *w, int fd, const char *path)
{
	char	proc[64], why[PATH_MAX + 128];
	int	wd;

	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	if ((wd = inotify_add_watch(w->ifd, proc, FSW_MASK)) == -1 &&
	    errno == ENOENT && access("/proc/self/fd", F_OK) != 0)
		wd = inotify_add_watch(w->ifd, *path != '\0' ? path : ".",
		    FSW_MASK | IN_DONT_FOLLOW);	/* no /proc: by name */
	if (wd == -1) {
		if (errno == ENOENT || errno == ENOTDIR)
			return -1;
		if (errno == ENOSPC)
			fsw_end(w, "clawssh-watch: the host's limit on "
			    "inotify watches is reached "
			    "(fs.inotify.max_user_watches)");
		snprintf(why, sizeof why, "clawssh-watch: cannot watch "
		    "./%s: %s", path, strerror(errno));
		fsw_end(w, why);
	}
	fsw_dir_set(w, wd, path);
	return wd;
}

/*
 * Watch the directory open as fd, at path (a buffer of PATH_MAX * 2 whose
 * tail it may change), and every directory below it.  A directory that
 * cannot be read cannot be watched: the watcher cannot answer for the
 * workspace and ends.
 */
static void
fsw_watch_dir(struct fsw *w, int fd, char *path, int depth)
{
	struct dirent	*de;
	struct stat	 st;
	size_t		 at = strlen(path), n;
	DIR		*d;
	int		 sub, dfd;

	if (fsw_add(w, fd, path) == -1)
		return;
	if (depth >= FSW_DEPTH_MAX)
		fsw_end(w, "clawssh-watch: the workspace is too deep");
	if ((dfd = dup(fd)) == -1 || (d = fdopendir(dfd)) == NULL)
		fsw_end(w, "clawssh-watch: out of file descriptors");
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0 ||
		    (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
			continue;
		if (de->d_type == DT_UNKNOWN && (fstatat(fd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) != 0 || !S_ISDIR(st.st_mode)))
			continue;
		n = strlen(de->d_name);
		if (at + 1 + n >= PATH_MAX * 2)
			fsw_end(w, "clawssh-watch: a path in the workspace "
			    "is too long");
		if ((sub = openat(fd, de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1) {
			if (errno == ENOENT || errno == ENOTDIR ||
			    errno == ELOOP)
				continue;	/* changed: an event comes */
			fsw_end(w, "clawssh-watch: cannot open a directory "
			    "in the workspace");
		}
		snprintf(path + at, PATH_MAX * 2 - at, "%s%s",
		    at > 0 ? "/" : "", de->d_name);
		fsw_watch_dir(w, sub, path, depth + 1);
		close(sub);
		path[at] = '\0';
	}
	closedir(d);
}

/* Watch the directory at rel (below the workspace) and all below it. */
static void
fsw_watch_path(struct fsw *w, const char *rel)
{
	char	*path;
	int	 fd;

	if (strlen(rel) >= PATH_MAX * 2 ||
	    (fd = dir_open_nofollow(w->root, rel)) == -1)
		return;			/* gone again, or not a directory */
	path = xmalloc(PATH_MAX * 2);
	snprintf(path, PATH_MAX * 2, "%s", rel);
	fsw_watch_dir(w, fd, path, 0);
	free(path);
	close(fd);
}

/* The workspace is gone, moved, or not the directory at its path. */
static void __attribute__((noreturn))
fsw_root_gone(struct fsw *w)
{
	fsw_set_flush(w);
	fsw_end(w, "DELETE_SELF ./");
}

/* One event. */
static void
fsw_event(struct fsw *w, const struct inotify_event *ev)
{
	char	*dir, *path;
	size_t	 i;
	int	 found;

	if (ev->mask & IN_Q_OVERFLOW)
		fsw_end(w, "Q_OVERFLOW ./");
	i = fsw_dir_at(w, ev->wd, &found);
	if (!found)
		return;			/* removed by us, events still queued */
	if (ev->wd == w->rootwd && (ev->mask & (IN_DELETE_SELF |
	    IN_MOVE_SELF | IN_UNMOUNT | IN_IGNORED)))
		fsw_root_gone(w);
	if (ev->mask & IN_IGNORED) {
		fsw_dir_drop(w, ev->wd);
		return;
	}
	dir = xstrdup(w->dirs[i].path);
	if (ev->len == 0 || ev->name[0] == '\0') {
		if (ev->mask & IN_MOVE_SELF)
			fsw_unwatch(w, dir);	/* a move its parent saw */
		fsw_set_add(w, dir);
		free(dir);
		return;
	}
	path = xmalloc(strlen(dir) + 1 + strlen(ev->name) + 1);
	sprintf(path, "%s%s%s", dir, *dir != '\0' ? "/" : "", ev->name);
	fsw_set_add(w, path);
	if (ev->mask & IN_ISDIR) {
		if (ev->mask & IN_MOVED_FROM)
			fsw_unwatch(w, path);
		if (ev->mask & (IN_CREATE | IN_MOVED_TO))
			fsw_watch_path(w, path);
	}
	free(path);
	free(dir);
}

/* Read the kernel's queue to its end. */
static void
fsw_drain(struct fsw *w)
{
	char				 buf[64 * 1024]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event	*ev;
	ssize_t				 n;
	char				*p;

	for (;;) {
		if ((n = read(w->ifd, buf, sizeof buf)) == -1) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return;
			fsw_end(w, "clawssh-watch: reading inotify failed");
		}
		for (p = buf; p < buf + n; p += sizeof *ev + ev->len) {
			ev = (const struct inotify_event *)(void *)p;
			fsw_event(w, ev);
		}
	}
}

/* A take: every change so far, then its token. */
static void
fsw_take(struct fsw *w, const char *token)
{
	char		cwd[PATH_MAX];
	struct stat	st;

	fsw_drain(w);
	if (getcwd(cwd, sizeof cwd) == NULL || strcmp(cwd, w->cwd) != 0 ||
	    stat(w->cwd, &st) != 0 || st.st_dev != w->rootst.st_dev ||
	    st.st_ino != w->rootst.st_ino)
		fsw_root_gone(w);
	fsw_set_flush(w);
	fsw_put(w, "clawssh-take ", 13);
	fsw_put(w, token, strlen(token));
	fsw_put(w, "\n", 1);
	fsw_flush(w);
}

/* An "L" request is complete: the listing on stderr, framed. */
static void
fsw_list(struct fsw *w)
{
	char	line[FSW_TOKEN_MAX + 64];
	size_t	i;
	int	st = 1, n;

	n = snprintf(line, sizeof line, "clawssh-list %s\n", w->listing);
	if (write_all(STDERR_FILENO, line, (size_t)n) != 0)
		exit(0);
	if (!w->lbad && (st = fs_list(w->root, w->lpaths, w->nlpaths,
	    STDERR_FILENO)) < 0)
		exit(0);
	n = snprintf(line, sizeof line, "%c%cclawssh-end %s %d\n", 0, 0,
	    w->listing, st);
	if (write_all(STDERR_FILENO, line, (size_t)n) != 0)
		exit(0);
	for (i = 0; i < w->nlpaths; i++)
		free(w->lpaths[i]);
	w->nlpaths = 0;
	w->lbad = 0;
	w->listing[0] = '\0';
}

/* Whether s is a token: hex digits, not too many. */
static int
fsw_token_ok(const char *s)
{
	size_t	n = strspn(s, "0123456789abcdef");

	return n > 0 && n <= FSW_TOKEN_MAX && s[n] == '\0';
}

/* One line of stdin (over-long ones come as NULL). */
static void
fsw_line(struct fsw *w, const char *line)
{
	if (w->listing[0] != '\0') {		/* a path, or the end */
		if (line == NULL)
			w->lbad = 1;
		else if (*line == '\0')
			fsw_list(w);
		else {
			if (w->nlpaths == w->clpaths) {
				w->clpaths = w->clpaths == 0 ? 16 :
				    w->clpaths * 2;
				w->lpaths = xreallocarray(w->lpaths,
				    w->clpaths, sizeof *w->lpaths);
			}
			w->lpaths[w->nlpaths++] = xstrdup(line);
		}
		return;
	}
	if (line == NULL)
		return;
	if (strncmp(line, "T ", 2) == 0 && fsw_token_ok(line + 2))
		fsw_take(w, line + 2);
	else if (strncmp(line, "L ", 2) == 0 && fsw_token_ok(line + 2))
		snprintf(w->listing, sizeof w->listing, "%s", line + 2);
}

/* Read what stdin has; its end ends the watcher. */
static void
fsw_input(struct fsw *w)
{
	char	*nl;
	ssize_t	 n;
	size_t	 off;

	if (w->incap - w->inlen < 4096) {
		w->incap = w->incap == 0 ? 8192 : w->incap * 2;
		w->in = xreallocarray(w->in, w->incap, 1);
	}
	if ((n = read(STDIN_FILENO, w->in + w->inlen, w->incap - w->inlen -
	    1)) == -1) {
		if (errno == EINTR || errno == EAGAIN)
			return;
		exit(0);
	}
	if (n == 0)
		exit(0);
	w->inlen += (size_t)n;
	while ((nl = memchr(w->in, '\n', w->inlen)) != NULL) {
		*nl = '\0';
		off = (size_t)(nl - w->in) + 1;
		if (w->skip || memchr(w->in, '\0', off - 1) != NULL)
			fsw_line(w, NULL);
		else
			fsw_line(w, w->in);
		w->skip = 0;
		memmove(w->in, w->in + off, w->inlen - off);
		w->inlen -= off;
	}
	if (w->inlen > FSW_LINE_MAX) {
		w->skip = 1;		/* refused when its end comes */
		w->inlen = 0;
	}
}

/* Open the workspace, raise the descriptor limit, watch everything. */
static void
fsw_start(struct fsw *w)
{
	struct rlimit	 rl;
	char		*path;

	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	if ((w->root = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fstat(w->root, &w->rootst) != 0 ||
	    getcwd(w->cwd, sizeof w->cwd) == NULL)
		fsw_end(w, "clawssh-watch: cannot open the workspace");
	if ((w->ifd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		fsw_end(w, "clawssh-watch: inotify is not available");
	path = xcalloc(PATH_MAX * 2, 1);
	w->rootwd = -1;
	fsw_watch_dir(w, w->root, path, 0);
	free(path);
	if (w->ndirs == 0 || (w->rootwd = w->dirs[0].wd) < 0 ||
	    w->dirs[0].path[0] != '\0')
		fsw_end(w, "clawssh-watch: cannot watch the workspace");
}

/* clawssh-agent watch: see the comment at the top. */
int
fs_watch_main(int argc, char **argv)
{
	struct fsw	w;
	struct pollfd	pfd[2];

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: clawssh-agent watch\n");
		return AGENT_EXIT_ERR;
	}
	fd_close_from(3, NULL, 0);
	memset(&w, 0, sizeof w);
	fsw_start(&w);
	fsw_put(&w, "Watches established.\n", 21);
	fsw_flush(&w);
	for (;;) {
		pfd[0].fd = STDIN_FILENO;
		pfd[0].events = POLLIN;
		pfd[1].fd = w.ifd;
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			return AGENT_EXIT_ERR;
		}
		if (pfd[1].revents != 0)
			fsw_drain(&w);
		if (pfd[0].revents != 0)
			fsw_input(&w);
		fsw_flush(&w);
	}
}
