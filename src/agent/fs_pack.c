/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fs-pack: a mirror pull's host side as one process of the agent's own,
 * run in the sandbox's environment from its workspace (serve's EXEC with
 * FRAME_EXEC_SELF), in place of the shell step of sync/transfer.c
 * (transfer_pull_do: sh, tar --version, then tar --format=posix --sparse
 * --no-recursion -T -).  The same contract: stdin names the entries, one
 * a line, relative to the workspace; stdout is a pax tar stream of
 * exactly those entries (a directory alone, not its content), mtimes to
 * the nanosecond, files with holes in GNU sparse format 1.0; names with
 * a ".clawssh-tmp-" component are left out.  What cannot be sent (gone,
 * not a file, directory or link, a link on the way) is said on stderr,
 * as tar says it, and the exit status is then 2 (1: a file changed while
 * it was read, padded or cut to the size its header gave), as GNU tar's:
 * the client takes the rest and leaves those for the next sync.  Every
 * name is opened from a directory descriptor with O_NOFOLLOW.  The
 * stream is hostile to the client like any host output: it checks each
 * entry against what it asked for (sync/tarstream.c).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "fs_tar.h"

#define FSP_CHUNK	(64 * 1024)
#define FSP_TMP		".clawssh-tmp-"		/* PATHGUARD_TMP_PREFIX */

static int	fsp_status;		/* 0, 1 changed, 2 not sent */

/* A write failed: the client left; the step ends. */
static void __attribute__((noreturn))
fsp_write_failed(const struct obuf *o)
{
	fprintf(stderr, "clawssh-agent fs-pack: write: %s\n",
	    strerror(o->err));
	exit(AGENT_EXIT_ERR);
}

/* Flush out to stdout. */
static void
fsp_flush(struct obuf *o)
{
	if (obuf_flush(o) != 0)
		fsp_write_failed(o);
}

/* Append len bytes. */
static void
fsp_put(struct obuf *o, const void *p, size_t len)
{
	if (obuf_put(o, p, len) != 0)
		fsp_write_failed(o);
}

/* Zeros up to the next block. */
static void
fsp_pad(struct obuf *o, uint64_t written)
{
	static const char	zero[TAR_BLOCK];
	size_t			n = (size_t)((TAR_BLOCK - written % TAR_BLOCK) %
				    TAR_BLOCK);

	fsp_put(o, zero, n);
}

/* Say what tar would say of name; the status becomes at least st. */
static void
fsp_warn(int st, const char *name, const char *what, int err)
{
	fprintf(stderr, "clawssh-agent fs-pack: %s: %s%s%s\n", name, what,
	    err != 0 ? ": " : "", err != 0 ? strerror(err) : "");
	if (st > fsp_status)
		fsp_status = st;
}

/* An octal field of len bytes (len - 1 digits and a NUL). */
static void
fsp_octal(unsigned char *f, size_t len, uint64_t v)
{
	size_t	i = len - 1;

	f[i] = '\0';
	while (i-- > 0) {
		f[i] = (unsigned char)('0' + (v & 7));
		v >>= 3;
	}
}

/* One "LEN key=value\n" record (LEN counts itself) into b. */
static void
fsp_record(char *b, size_t *at, size_t cap, const char *key,
    const char *val)
{
	size_t	body = strlen(key) + strlen(val) + 3, len = body, digits;
	int	n;

	for (;;) {		/* LEN's own digits are part of LEN */
		digits = (size_t)snprintf(NULL, 0, "%zu", len);
		if (body + digits == len)
			break;
		len = body + digits;
	}
	n = snprintf(b + *at, cap - *at, "%zu %s=%s\n", len, key, val);
	if (n < 0 || (size_t)n >= cap - *at)
		agent_die("fs-pack: an extended header too long");
	*at += (size_t)n;
}

/* A ustar header block for name, type, mode, size and mtime seconds. */
static void
fsp_header(struct obuf *o, const char *name, char type, mode_t mode,
    uint64_t size, time_t mtime, const char *link)
{
	unsigned char	h[TAR_BLOCK];
	unsigned int	sum = 0;
	size_t		i;

	memset(h, 0, sizeof h);
	memcpy(h, name, strnlen(name, 100));
	fsp_octal(h + 100, 8, mode & 07777);
	fsp_octal(h + 108, 8, 0);
	fsp_octal(h + 116, 8, 0);
	fsp_octal(h + 124, 12, size < (UINT64_C(1) << 33) ? size : 0);
	fsp_octal(h + 136, 12, mtime > 0 && (uint64_t)mtime <
	    (UINT64_C(1) << 33) ? (uint64_t)mtime : 0);
	h[156] = (unsigned char)type;
	if (link != NULL)
		memcpy(h + 157, link, strnlen(link, 100));
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < sizeof h; i++)
		sum += h[i];
	fsp_octal(h + 148, 7, sum);
	h[155] = ' ';
	fsp_put(o, h, sizeof h);
}

/* The pax header before an entry: mtime, path, linkpath, size, sparse. */
static void
fsp_pax(struct obuf *o, const char *name, const struct stat *st,
    const char *link, uint64_t stored, const char *sparse_real)
{
	char	 b[3 * PATH_MAX + 512], v[64];
	size_t	 at = 0;

	snprintf(v, sizeof v, "%lld.%09ld", (long long)st->st_mtim.tv_sec,
	    st->st_mtim.tv_nsec);
	fsp_record(b, &at, sizeof b, "mtime", v);
	if (sparse_real != NULL) {
		fsp_record(b, &at, sizeof b, "GNU.sparse.major", "1");
		fsp_record(b, &at, sizeof b, "GNU.sparse.minor", "0");
		fsp_record(b, &at, sizeof b, "GNU.sparse.name", name);
		fsp_record(b, &at, sizeof b, "GNU.sparse.realsize",
		    sparse_real);
	} else if (strlen(name) >= 98)	/* with a directory's "/" */
		fsp_record(b, &at, sizeof b, "path", name);
	if (link != NULL && strlen(link) >= 100)
		fsp_record(b, &at, sizeof b, "linkpath", link);
	if (stored >= (UINT64_C(1) << 33)) {
		snprintf(v, sizeof v, "%llu", (unsigned long long)stored);
		fsp_record(b, &at, sizeof b, "size", v);
	}
	fsp_header(o, "PaxHeaders/entry", 'x', 0644, at, 0, NULL);
	fsp_put(o, b, at);
	fsp_pad(o, at);
}

/*
 * The data segments of fd (size bytes) into segs (at most
 * TAR_SPARSE_MAX): their count, 0 for a file without holes (or one
 * SEEK_DATA cannot map), so that it goes whole.
 */
static size_t
fsp_map(int fd, uint64_t size, struct tar_seg *segs)
{
	off_t	data, hole = 0;
	size_t	n = 0;

	if (size == 0)
		return 0;
	while ((uint64_t)hole < size) {
		if ((data = lseek(fd, hole, SEEK_DATA)) == -1) {
			if (errno != ENXIO)
				return 0;
			data = (off_t)size;	/* a hole to the end */
		}
		if ((uint64_t)data >= size)
			break;
		if ((hole = lseek(fd, data, SEEK_HOLE)) == -1 || n ==
		    TAR_SPARSE_MAX)
			return 0;
		if ((uint64_t)hole > size)
			hole = (off_t)size;
		segs[n].off = (uint64_t)data;
		segs[n++].size = (uint64_t)(hole - data);
	}
	if (n == 1 && segs[0].off == 0 && segs[0].size == size)
		return 0;			/* no hole */
	if (n == 0 || segs[n - 1].off + segs[n - 1].size < size) {
		if (n == TAR_SPARSE_MAX)
			return 0;
		segs[n].off = size;		/* the real end, as tar marks it */
		segs[n++].size = 0;
	}
	return n;
}

/* Copy len bytes of fd from off; short reads padded with zeros. */
static void
fsp_copy(struct obuf *o, int fd, const char *name, uint64_t off,
    uint64_t len)
{
	static char	buf[FSP_CHUNK];
	ssize_t		n;
	size_t		k;
	int		shrank = 0;

	while (len > 0) {
		k = len < sizeof buf ? (size_t)len : sizeof buf;
		if (!shrank && (n = pread(fd, buf, k, (off_t)off)) > 0)
			k = (size_t)n;
		else {
			if (!shrank)
				fsp_warn(1, name, "File shrank by some bytes; "
				    "padding with zeros", 0);
			shrank = 1;
			memset(buf, 0, k);
		}
		fsp_put(o, buf, k);
		off += k;
		len -= k;
	}
}

/* A regular file: whole, or sparse with its map before the data. */
static void
fsp_file(struct obuf *o, const char *name, int fd, const struct stat *st)
{
	static struct tar_seg	segs[TAR_SPARSE_MAX];
	char			map[TAR_SPARSE_MAX * 44 + 32], real[32];
	uint64_t		size = (uint64_t)st->st_size, stored = 0;
	size_t			n = fsp_map(fd, size, segs), i, mlen = 0;

	if (n == 0) {
		fsp_pax(o, name, st, NULL, size, NULL);
		fsp_header(o, name, '0', st->st_mode, size, st->st_mtime,
		    NULL);
		fsp_copy(o, fd, name, 0, size);
		fsp_pad(o, size);
		return;
	}
	mlen = (size_t)snprintf(map, sizeof map, "%zu\n", n);
	for (i = 0; i < n; i++) {
		mlen += (size_t)snprintf(map + mlen, sizeof map - mlen,
		    "%llu\n%llu\n", (unsigned long long)segs[i].off,
		    (unsigned long long)segs[i].size);
		stored += segs[i].size;
	}
	while (mlen % TAR_BLOCK != 0)
		map[mlen++] = '\0';
	snprintf(real, sizeof real, "%llu", (unsigned long long)size);
	fsp_pax(o, name, st, NULL, mlen + stored, real);
	fsp_header(o, "GNUSparseFile.0/entry", '0', st->st_mode,
	    mlen + stored, st->st_mtime, NULL);
	fsp_put(o, map, mlen);
	for (i = 0; i < n; i++)
		fsp_copy(o, fd, name, segs[i].off, segs[i].size);
	fsp_pad(o, stored);
}

/* Whether a component of name is one of clawssh's temporary files. */
static int
fsp_is_tmp(const char *name)
{
	const char	*c = name;

	for (;;) {
		if (strncmp(c, FSP_TMP, sizeof FSP_TMP - 1) == 0)
			return 1;
		if ((c = strchr(c, '/')) == NULL)
			return 0;
		c++;
	}
}

/*
 * Open the directory of name (cleaned, below PATH_MAX) from ws, following
 * no link: a descriptor or -1; *last is name's last component.
 */
static int
fsp_parent(int ws, const char *name, const char **last)
{
	char		 dir[PATH_MAX];
	const char	*slash = strrchr(name, '/');

	if (slash == NULL) {
		*last = name;
		return dir_open_nofollow(ws, "");
	}
	memcpy(dir, name, (size_t)(slash - name));
	dir[slash - name] = '\0';
	*last = slash + 1;
	return dir_open_nofollow(ws, dir);
}

/* One entry of the list into the stream. */
static void
fsp_entry(struct obuf *o, int ws, char *name)
{
	char		 link[PATH_MAX + 1], clean[PATH_MAX];
	const char	*last;
	struct stat	 st;
	ssize_t		 n;
	int		 dfd, fd;

	snprintf(clean, sizeof clean, "%s", name);
	if (tar_path_clean(clean) != 0) {
		fsp_warn(2, name, "Not a plain path in the workspace", 0);
		return;
	}
	if (fsp_is_tmp(clean))
		return;
	if ((dfd = fsp_parent(ws, clean, &last)) == -1) {
		fsp_warn(2, name, "Cannot stat", errno);
		return;
	}
	if (fstatat(dfd, last, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		fsp_warn(2, name, "Cannot stat", errno);
		close(dfd);
		return;
	}
	if (S_ISDIR(st.st_mode)) {
		fsp_pax(o, clean, &st, NULL, 0, NULL);
		snprintf(link, sizeof link, "%.98s/", clean);
		fsp_header(o, link, '5', st.st_mode, 0, st.st_mtime, NULL);
	} else if (S_ISLNK(st.st_mode)) {
		if ((n = readlinkat(dfd, last, link, sizeof link - 1)) <= 0)
			fsp_warn(2, name, "Cannot readlink", errno);
		else {
			link[n] = '\0';
			fsp_pax(o, clean, &st, link, 0, NULL);
			fsp_header(o, clean, '2', st.st_mode, 0, st.st_mtime,
			    link);
		}
	} else if (!S_ISREG(st.st_mode))
		fsp_warn(2, name, "not a file, directory or link: not sent", 0);
	else if ((fd = openat(dfd, last, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		fsp_warn(2, name, "Cannot open", errno);
	else {
		if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
			fsp_file(o, clean, fd, &st);
		else
			fsp_warn(2, name, "Cannot stat", errno);
		close(fd);
	}
	close(dfd);
}

/* clawssh-agent fs-pack: see the top of this file. */
int
fs_pack_main(int argc, char **argv)
{
	static struct obuf	o;	/* stdout, in whole blocks */
	static char		zero[2 * TAR_BLOCK];
	char			*line = NULL;
	size_t			 cap = 0;
	ssize_t			 n;
	int			 ws;

	(void)argv;
	if (argc != 1) {
		fprintf(stderr, "usage: clawssh-agent fs-pack < NAMES\n");
		return AGENT_EXIT_ERR;
	}
	o.fd = STDOUT_FILENO;
	if ((ws = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "clawssh-agent fs-pack: the sandbox workspace "
		    "is missing\n");
		return AGENT_EXIT_ERR;
	}
	while ((n = getline(&line, &cap, stdin)) > 0) {
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (n > 0 && (size_t)n < PATH_MAX)
			fsp_entry(&o, ws, line);
		else if (n > 0)
			fsp_warn(2, "(a name)", "File name too long", 0);
	}
	free(line);
	fsp_put(&o, zero, sizeof zero);
	fsp_flush(&o);
	return fsp_status;
}
