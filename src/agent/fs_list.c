/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The listing of some paths of a workspace, each with all below it, in
 * the record format the client reads from GNU find (manifest_parse_find0
 * in sync/manifest.h): "TYPE MODE SIZE SEC.NSEC PATH", NUL, the link's
 * target or nothing, NUL; files, directories and links only.  It stands
 * in for the host watcher's
 *
 *	find -files0-from - \( -type f -o -type d -o -type l \)
 *	    -printf '%y %m %s %T@ %p\0%l\0'
 *
 * with the same exit status (0, or 1 when something could not be read
 * or vanished during the walk: the caller then lists by other means),
 * but every name is opened from its directory's descriptor with
 * O_NOFOLLOW, so a link planted on the way is never followed, where
 * find's lstat of "a/b" follows a link at "a".  fs-list lists a whole
 * workspace the same way, for a mirror pull's full listing (in place of
 * find . -mindepth 1 with the same -printf).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "fs_list.h"

#define FSL_DEPTH_MAX	1024		/* deeper: status 1 (EMFILE first) */

/* The output, buffered, and the walk's status. */
struct fsl {
	struct obuf	 out;
	int		 status;
	char		*path;		/* the current path, grown */
	size_t		 plen, pcap;
};

/* Append n bytes of output (a failed write is seen at the end). */
static void
fsl_put(struct fsl *l, const char *p, size_t n)
{
	(void)obuf_put(&l->out, p, n);
}

/* Set the current path's tail from at on to s ("/" joined when at > 0). */
static void
fsl_path_set(struct fsl *l, size_t at, const char *s)
{
	size_t	n = strlen(s), need = at + 1 + n + 1;

	if (need > l->pcap) {
		l->pcap = need * 2;
		l->path = xreallocarray(l->path, l->pcap, 1);
	}
	if (at > 0)
		l->path[at++] = '/';
	memcpy(l->path + at, s, n + 1);
	l->plen = at + n;
}

/* One record for the current path, stat'ed as st in dfd under name. */
static void
fsl_record(struct fsl *l, int dfd, const char *name, const struct stat *st)
{
	char	head[128], target[PATH_MAX];
	ssize_t	tn = 0;
	char	type;
	int	n;

	if (S_ISREG(st->st_mode))
		type = 'f';
	else if (S_ISDIR(st->st_mode))
		type = 'd';
	else if (S_ISLNK(st->st_mode))
		type = 'l';
	else
		return;
	if (type == 'l' && (tn = readlinkat(dfd, name, target,
	    sizeof target)) < 0) {
		l->status = 1;
		return;
	}
	if ((size_t)tn == sizeof target) {	/* longer than any path */
		l->status = 1;
		return;
	}
	n = snprintf(head, sizeof head, "%c %o %lld %lld.%09ld ", type,
	    (unsigned)(st->st_mode & 07777), (long long)st->st_size,
	    (long long)st->st_mtim.tv_sec, (long)st->st_mtim.tv_nsec);
	fsl_put(l, head, (size_t)n);
	fsl_put(l, l->path, l->plen + 1);
	fsl_put(l, target, (size_t)tn);
	fsl_put(l, "", 1);
}

/*
 * The entry name in the directory dfd, at the current path, and all below
 * it.  start: a path the caller named, which may be gone (not an error,
 * as the watcher's script checked with test -e first).
 */
static void
fsl_walk(struct fsl *l, int dfd, const char *name, int start, int depth)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	size_t		 at;
	int		 fd;

	if (l->out.err != 0)
		return;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		if (!start || errno != ENOENT)
			l->status = 1;
		return;
	}
	fsl_record(l, dfd, name, &st);
	if (!S_ISDIR(st.st_mode))
		return;
	if (depth >= FSL_DEPTH_MAX || (fd = openat(dfd, name, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		l->status = 1;
		return;
	}
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		l->status = 1;
		return;
	}
	at = l->plen;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		fsl_path_set(l, at, de->d_name);
		fsl_walk(l, fd, de->d_name, 0, depth + 1);
		errno = 0;
	}
	if (errno != 0)
		l->status = 1;
	closedir(d);
	l->plen = at;
	l->path[at] = '\0';
}

/* Whether p is a relative path of plain components (no "", ".", ".."). */
static int
fsl_path_ok(const char *p)
{
	size_t	n;

	if (*p == '\0')
		return 0;
	for (;;) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.') || n > NAME_MAX)
			return 0;
		if (p[n] == '\0')
			return 1;
		p += n + 1;
	}
}

/* One path the caller named. */
static void
fsl_start(struct fsl *l, int root, const char *p)
{
	const char	*slash = strrchr(p, '/');
	char		*parent;
	int		 dfd;

	if (!fsl_path_ok(p)) {
		l->status = 1;
		return;
	}
	if (slash == NULL)
		dfd = dup(root);
	else {
		parent = xstrdup(p);
		parent[slash - p] = '\0';
		dfd = dir_open_nofollow(root, parent);
		free(parent);
	}
	if (dfd == -1) {
		/* gone, or a link or a file on the way: not there as named */
		if (errno != ENOENT && errno != ENOTDIR && errno != ELOOP)
			l->status = 1;
		return;
	}
	fsl_path_set(l, 0, p);
	fsl_walk(l, dfd, slash != NULL ? slash + 1 : p, 1, 0);
	close(dfd);
}

/* List paths below root to fd; see fs_list.h. */
int
fs_list(int root, char *const *paths, size_t n, int fd)
{
	struct fsl	*l = xcalloc(1, sizeof *l);
	size_t		 i;
	int		 status;

	l->out.fd = fd;
	for (i = 0; i < n && l->out.err == 0; i++)
		fsl_start(l, root, paths[i]);
	status = obuf_flush(&l->out) != 0 ? -1 : l->status;
	free(l->path);
	free(l);
	return status;
}

/* qsort's order of names. */
static int
fsl_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Add a copy of s to v[0..*n). */
static void
fsl_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	if (*n == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		*v = xreallocarray(*v, *cap, sizeof **v);
	}
	(*v)[(*n)++] = xstrdup(s);
}

/* The names in the directory root (sorted): 0, or -1 with errno. */
static int
fsl_top(int root, char ***v, size_t *n, size_t *cap)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	if ((fd = dup(root)) == -1 || (d = fdopendir(fd)) == NULL)
		return -1;
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			fsl_push(v, n, cap, de->d_name);
	closedir(d);
	if (*n > 1)
		qsort(*v, *n, sizeof **v, fsl_cmp);
	return 0;
}

/* The paths on stdin, a line each (a longer line: -1). */
static int
fsl_stdin(char ***v, size_t *n, size_t *cap)
{
	char	*line = NULL;
	size_t	 lcap = 0;
	ssize_t	 len;

	while ((len = getline(&line, &lcap, stdin)) > 0) {
		if (line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line) || len > PATH_MAX * 4) {
			free(line);
			return -1;
		}
		if (len > 0)
			fsl_push(v, n, cap, line);
	}
	free(line);
	return ferror(stdin) ? -1 : 0;
}

/*
 * clawssh-agent fs-list [-]: every entry below the working directory
 * (the workspace), or the paths on stdin (a line each) and all below
 * them, as fs_list writes them, on stdout; status 0, 1 as find's, or
 * AGENT_EXIT_ERR when the workspace cannot be read at all.
 */
int
fs_list_main(int argc, char **argv)
{
	char		**v = NULL;
	size_t		  n = 0, cap = 0, i;
	int		  root, st, part = argc == 2 &&
			      strcmp(argv[1], "-") == 0;

	if (argc != 1 && !part) {
		fprintf(stderr, "usage: clawssh-agent fs-list [-]\n");
		return AGENT_EXIT_ERR;
	}
	if ((root = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (!part && fsl_top(root, &v, &n, &cap) != 0)) {
		fprintf(stderr, "clawssh-agent fs-list: .: %s\n",
		    strerror(errno));
		return AGENT_EXIT_ERR;
	}
	if (part && fsl_stdin(&v, &n, &cap) != 0) {
		fprintf(stderr, "clawssh-agent fs-list: stdin: a line too "
		    "long or not text\n");
		return AGENT_EXIT_ERR;
	}
	st = fs_list(root, v, n, STDOUT_FILENO);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	close(root);
	return st < 0 ? AGENT_EXIT_ERR : st;
}
