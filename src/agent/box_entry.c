/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-entry ROOT ID|'*' [RUNDIR]: a sandbox's entry in the host
 * directory (every sandbox's for '*', in name order), as
 * src/host/hostdir_list.sh prints it (after
 * hostdir_prelude.sh), in one process instead of sh and its stat, wc
 * and cat: "clawssh-now EPOCH", then, when ROOT/ID is a directory (not
 * a link) holding a meta.json that is a regular file (not a link),
 * "clawssh-entry ID CREATED USED SIZE" (the modification times of
 * meta.json and last-used, 0 when unknown) and SIZE bytes of meta.json.
 * ROOT must be absolute with no component a symbolic link, as the
 * prelude checks: else "clawssh-error: ..." on stderr and status 3.
 * With RUNDIR, then "clawssh-env" and box-status's answer: clawssh
 * status's one step (src/cli/cmd_boxenv.c) where it took two scripts.
 * tests/integration/host_sh_hostdir.sh compares its entry with the
 * script's.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"

#define ENTRY_EXIT_FAIL	3		/* as the scripts' clawfail */
#define ENTRY_META_MAX	(1024 * 1024)	/* more: the parser refuses it */
#define ENTRY_ID_LEN	13		/* c and 12 of a-z 2-7 */

/* "clawssh-error: MESSAGE" and status 3, as the scripts' clawfail. */
static void __attribute__((noreturn, format(printf, 1, 2)))
entry_fail(const char *fmt, ...)
{
	va_list	ap;

	fflush(stdout);
	fputs("clawssh-error: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(ENTRY_EXIT_FAIL);
}

/* Whether id has a sandbox id's shape (the script's case pattern). */
static int
entry_id_ok(const char *id)
{
	size_t	i;

	if (strlen(id) != ENTRY_ID_LEN || id[0] != 'c')
		return 0;
	for (i = 1; i < ENTRY_ID_LEN; i++) {
		if (!((id[i] >= 'a' && id[i] <= 'z') ||
		    (id[i] >= '2' && id[i] <= '7')))
			return 0;
	}
	return 1;
}

/* The prelude's check: absolute, no component a symbolic link. */
static void
entry_root_check(const char *root)
{
	struct stat	 st;
	const char	*c, *e;
	char		*p;
	size_t		 n = 0;

	if (root[0] != '/')
		entry_fail("remoteRoot %s is not absolute", root);
	p = xmalloc(strlen(root) + 1);
	for (c = root; *c != '\0'; c = e) {
		while (*c == '/')
			c++;
		if (*c == '\0')
			break;
		e = c + strcspn(c, "/");
		p[n++] = '/';
		memcpy(p + n, c, (size_t)(e - c));
		n += (size_t)(e - c);
		p[n] = '\0';
		if (lstat(p, &st) == 0 && S_ISLNK(st.st_mode))
			entry_fail("remoteRoot component %s is a symbolic "
			    "link", p);
	}
	free(p);
}

/* A file's modification time in seconds, 0 when it cannot be told. */
static long long
entry_mtime(int dfd, const char *name)
{
	struct stat	st;

	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 ?
	    (long long)st.st_mtime : 0;
}

/* The entry's header line and meta.json's bytes (at most the cap). */
static void
entry_print(const char *root, const char *id, int dfd, int mfd,
    const struct stat *st)
{
	char	*meta;
	size_t	 len = 0;
	ssize_t	 n;

	meta = xmalloc(ENTRY_META_MAX);
	while (len < ENTRY_META_MAX && (n = read(mfd, meta + len,
	    ENTRY_META_MAX - len)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			entry_fail("%s/%s/meta.json: %s", root, id,
			    strerror(errno));
		len += (size_t)n;
	}
	printf("clawssh-entry %s %lld %lld %zu\n", id,
	    (long long)st->st_mtime, entry_mtime(dfd, "last-used"), len);
	fwrite(meta, 1, len, stdout);
	free(meta);
}

/* id's entry under rfd, if it is a sandbox (else nothing). */
static void
entry_one(const char *root, int rfd, const char *id)
{
	struct stat	st;
	int		dfd, mfd;

	if (!entry_id_ok(id) || (dfd = openat(rfd, id, O_RDONLY |
	    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return;
	if ((mfd = openat(dfd, "meta.json", O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC)) != -1) {
		if (fstat(mfd, &st) == 0 && S_ISREG(st.st_mode))
			entry_print(root, id, dfd, mfd, &st);
		close(mfd);
	}
	close(dfd);
}

/* Order names bytewise. */
static int
entry_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every sandbox's entry under rfd, in name order (the script's glob). */
static void
entry_all(const char *root, int rfd)
{
	struct dirent	 *de;
	DIR		 *d;
	char		**v = NULL;
	size_t		  n = 0, i;
	int		  fd;

	if ((fd = dup(rfd)) == -1 || (d = fdopendir(fd)) == NULL)
		entry_fail("cannot list %s", root);
	while ((de = readdir(d)) != NULL) {
		if (!entry_id_ok(de->d_name))
			continue;
		v = xreallocarray(v, n + 1, sizeof *v);
		v[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	qsort(v, n, sizeof *v, entry_cmp);
	for (i = 0; i < n; i++) {
		entry_one(root, rfd, v[i]);
		free(v[i]);
	}
	free(v);
}

/* End: with run (RUNDIR), "clawssh-env" and box-status's answer. */
static int
entry_status(const char *run)
{
	char	*argv[] = { (char *)(uintptr_t)"box-status",
		    (char *)(uintptr_t)"--dir", (char *)(uintptr_t)run, NULL };

	if (run != NULL) {
		printf("clawssh-env\n");
		if (fflush(stdout) != 0)
			return AGENT_EXIT_ERR;
		return box_status_main(3, argv);
	}
	return fflush(stdout) == 0 ? 0 : AGENT_EXIT_ERR;
}

int
box_entry_main(int argc, char **argv)
{
	const char	*root, *id;
	int		 rfd;

	if (argc != 3 && argc != 4)
		agent_die("usage: clawssh-agent box-entry ROOT ID [RUNDIR]");
	root = argv[1];
	id = argv[2];
	entry_root_check(root);
	printf("clawssh-now %lld\n", (long long)time(NULL));
	if ((rfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		if (errno != ENOENT && errno != ENOTDIR)
			entry_fail("cannot enter %s", root);
	} else if (strcmp(id, "*") == 0)
		entry_all(root, rfd);
	else
		entry_one(root, rfd, id);
	if (rfd != -1)
		close(rfd);
	return entry_status(argc == 4 ? argv[3] : NULL);
}
