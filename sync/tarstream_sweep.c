/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Removing the temporary files a killed extraction left behind.  See
 * tarstream.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "pathguard.h"
#include "tarstream.h"

#define TS_SWEEP_HEX	16	/* hex digits after PATHGUARD_TMP_PREFIX */
#define TS_SWEEP_AGE	2	/* s: older, and unlocked, is stale */
#define TS_SWEEP_LINK	60	/* s: a temporary link (no lock) */

/* Return 1 if name is PATHGUARD_TMP_PREFIX and 16 hex digits. */
static int
ts_sweep_name(const char *name)
{
	size_t	plen = strlen(PATHGUARD_TMP_PREFIX), i;

	if (strncmp(name, PATHGUARD_TMP_PREFIX, plen) != 0 ||
	    strlen(name) != plen + TS_SWEEP_HEX)
		return 0;
	for (i = plen; name[i] != '\0'; i++) {
		if (strchr("0123456789abcdef", name[i]) == NULL)
			return 0;
	}
	return 1;
}

/*
 * Return 1 if the temporary name in dfd is stale: a file nobody holds
 * locked (a live extraction locks its temporary while it writes) and
 * untouched for a moment, or a link older than a minute.
 */
static int
ts_sweep_stale(int dfd, const char *name)
{
	struct stat	sb;
	time_t		now = time(NULL);
	int		fd, stale;

	if (fstatat(dfd, name, &sb, AT_SYMLINK_NOFOLLOW) != 0)
		return 0;
	if (S_ISLNK(sb.st_mode))
		return now - sb.st_mtime > TS_SWEEP_LINK;
	if (!S_ISREG(sb.st_mode) || now - sb.st_mtime <= TS_SWEEP_AGE)
		return 0;
	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return 0;
	stale = fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) &&
	    flock(fd, LOCK_EX | LOCK_NB) == 0;
	close(fd);
	return stale;
}

/* Open dir ("" for the root) beneath the root of pg, or -1. */
static int
ts_sweep_open(struct pathguard *pg, const char *dir)
{
	struct stat	 sb;
	char		*why = NULL;
	int		 fd;

	if (*dir == '\0')
		fd = open(pathguard_root(pg), O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC);
	else if (pathguard_open_read(pg, dir, &fd, &why) != 0) {
		free(why);
		return -1;
	}
	if (fd != -1 && (fstat(fd, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Remove the stale temporaries in dir; see tarstream.h. */
size_t
tarstream_sweep(struct pathguard *pg, const char *dir)
{
	struct dirent	*de;
	DIR		*d;
	size_t		 n = 0;
	int		 fd;

	if ((fd = ts_sweep_open(pg, dir)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (ts_sweep_name(de->d_name) &&
		    ts_sweep_stale(dirfd(d), de->d_name) &&
		    unlinkat(dirfd(d), de->d_name, 0) == 0)
			n++;
	}
	closedir(d);
	if (n != 0)
		log_info("removed %zu temporary file%s an interrupted sync "
		    "left in %s", n, n == 1 ? "" : "s", *dir != '\0' ? dir :
		    ".");
	return n;
}
