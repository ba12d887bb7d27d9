/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the agent's sync steps, run as the built
 * ./clawssh-agent, against the shell steps they stand in for.
 * fs-unpack (src/agent/fs_unpack.c) against TRANSFER_FIX_PARENTS and
 * transfer_stage_body under /bin/sh: for each case, the same workspace
 * and the same input (the parents and the tar stream the client's
 * tarstream_create writes) go to both, and the two trees must come out
 * the same, entry by entry (type, mode, size, time, content, link
 * target), with a sentinel outside untouched; then what the shell step
 * cannot be asked: broken streams change nothing and leave no stage, and
 * a planted link on the way is not followed.  fs-pack (src/agent/
 * fs_pack.c) against the pull's tar command: both streams of the same
 * names, each taken by the client's tarstream_extract, must give the
 * same tree.  No sshd.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "buf.h"
#include "fdio.h"
#include "pathguard.h"
#include "sha256.h"
#include "tarstream.h"
#include "tmpdir.h"
#include "transfer.h"
#include "xmalloc.h"

#define AGENT	"./clawssh-agent"
#define UX_NOW	1700000000	/* later than every time a case sets */
#define P(s)	((char *)(uintptr_t)(s))	/* a literal in a char *[] */

/* Per test: top/{src,a,b,outside}; the input for both sides. */
struct ux {
	char		top[PATH_MAX];
	char		src[PATH_MAX], a[PATH_MAX], b[PATH_MAX], out[PATH_MAX];
	struct buf	in;
};

/* Make the four directories. */
static int
ux_setup(void **state)
{
	struct ux	*u = xcalloc(1, sizeof *u);
	const char	*tmp = getenv("TMPDIR");

	tmpdir_pathf(u->top, "%s/fsu.XXXXXX", tmp != NULL && *tmp == '/' ? tmp :
	    "/tmp");
	assert_non_null(mkdtemp(u->top));
	tmpdir_pathf(u->src, "%s/src", u->top);
	tmpdir_pathf(u->a, "%s/a", u->top);
	tmpdir_pathf(u->b, "%s/b", u->top);
	tmpdir_pathf(u->out, "%s/outside", u->top);
	assert_int_equal(mkdir(u->src, 0755), 0);
	assert_int_equal(mkdir(u->a, 0755), 0);
	assert_int_equal(mkdir(u->b, 0755), 0);
	assert_int_equal(mkdir(u->out, 0755), 0);
	*state = u;
	return 0;
}

/* Remove them. */
static int
ux_teardown(void **state)
{
	struct ux	*u = *state;

	tmpdir_remove(u->top);
	buf_free(&u->in);
	free(u);
	return 0;
}

/* Write a file under dir with content, mode and mtime sec. */
static void
put(const char *dir, const char *rel, const char *content, mode_t mode,
    time_t sec)
{
	struct timespec	ts[2] = { { sec, 5 }, { sec, 5 } };
	char		p[PATH_MAX];
	int		fd;

	tmpdir_pathf(p, "%s/%s", dir, rel);
	assert_true((fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >= 0);
	assert_int_equal(fdio_write_all(fd, content, strlen(content)), 0);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(futimens(fd, ts), 0);
	close(fd);
}

/* mkdir under dir with mode and mtime sec (set after its content). */
static void
putdir(const char *dir, const char *rel, mode_t mode)
{
	char	p[PATH_MAX];

	tmpdir_pathf(p, "%s/%s", dir, rel);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, mode), 0);
}

/* Set a directory's mtime. */
static void
dirtime(const char *dir, const char *rel, time_t sec)
{
	struct timespec	ts[2] = { { sec, 0 }, { sec, 0 } };
	char		p[PATH_MAX];

	tmpdir_pathf(p, "%s/%s", dir, rel);
	assert_int_equal(utimensat(AT_FDCWD, p, ts, AT_SYMLINK_NOFOLLOW), 0);
}

/* A symbolic link under dir. */
static void
putlink(const char *dir, const char *rel, const char *target)
{
	char	p[PATH_MAX];

	tmpdir_pathf(p, "%s/%s", dir, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* Apply the same preparation to both workspaces. */
#define BOTH(call, ...) do {						\
	call(u->a, __VA_ARGS__);					\
	call(u->b, __VA_ARGS__);					\
} while (0)

/* A tarstream_write_fn appending to the struct buf arg. */
static int
buf_sink(void *arg, const void *p, size_t len)
{
	buf_append(arg, p, len);
	return 0;
}

/* The input: parents of paths, ".", the tar stream of paths from src. */
static void
make_input(struct ux *u, char *const *paths, size_t n)
{
	struct tarstream_stats	 st;
	struct pathguard	*pg;
	char			*cause = NULL;

	memset(&st, 0, sizeof st);
	buf_reset(&u->in);
	transfer_parents(paths, n, &u->in);
	assert_int_equal(pathguard_open(u->src, &pg, &cause), 0);
	assert_int_equal(tarstream_ready(&cause), 0);
	if (tarstream_create(pg, paths, n, buf_sink, &u->in, &st,
	    &cause) != 0)
		fail_msg("tarstream_create: %s", cause);
	pathguard_close(pg);
}

/*
 * Run argv in dir with stdin from in and stdout into the file out (NULL:
 * this process's); its exit status, stderr into err.
 */
static int
run_io(const char *dir, char *const *argv, const struct buf *in,
    struct buf *err, const char *out)
{
	char	 path[PATH_MAX], line[512];
	FILE	*f;
	pid_t	 pid;
	int	 fd, efd, status;

	tmpdir_pathf(path, "%s/../input", dir);
	assert_true((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) >=
	    0);
	assert_int_equal(fdio_write_all(fd, in->data, in->len), 0);
	close(fd);
	tmpdir_pathf(line, "%s/../stderr", dir);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (chdir(dir) != 0 || (fd = open(path, O_RDONLY)) < 0 ||
		    (efd = open(line, O_WRONLY | O_CREAT | O_TRUNC, 0600)) <
		    0 || dup2(fd, 0) < 0 || dup2(efd, 2) < 0)
			_exit(99);
		if (out != NULL && ((fd = open(out, O_WRONLY | O_CREAT |
		    O_TRUNC, 0600)) < 0 || dup2(fd, 1) < 0))
			_exit(99);
		execv(argv[0], argv);
		_exit(98);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	buf_reset(err);
	if ((f = fopen(line, "r")) != NULL) {
		while (fgets(path, sizeof path, f) != NULL)
			buf_append_str(err, path);
		fclose(f);
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

/* Run argv in dir with stdin from in; its exit status, stderr into err. */
static int
run_in(const char *dir, char *const *argv, const struct buf *in,
    struct buf *err)
{
	return run_io(dir, argv, in, err, NULL);
}

/* The agent's step in dir; its status. */
static int
run_agent(const char *dir, const struct buf *in, struct buf *err)
{
	char	abs[PATH_MAX];
	char	*argv[3];

	assert_non_null(realpath(AGENT, abs));
	argv[0] = abs;
	argv[1] = (char *)(uintptr_t)"fs-unpack";
	argv[2] = NULL;
	return run_in(dir, argv, in, err);
}

/* The shell step in dir; its status. */
static int
run_shell(const char *dir, const struct buf *in, struct buf *err)
{
	struct buf	 body = BUF_INIT;
	char		*argv[4];
	int		 st;

	buf_append_str(&body, TRANSFER_FIX_PARENTS);
	transfer_stage_body(&body, "");
	argv[0] = (char *)(uintptr_t)"/bin/sh";
	argv[1] = (char *)(uintptr_t)"-c";
	argv[2] = body.data;
	argv[3] = NULL;
	st = run_in(dir, argv, in, err);
	buf_free(&body);
	return st;
}

/* One line per entry under dir (rel names it), sorted: the tree's shape. */
static void
walk(const char *dir, const char *rel, char ***v, size_t *n)
{
	char		 p[PATH_MAX], line[PATH_MAX * 2], target[PATH_MAX];
	char		 hex[2 * SHA256_LEN + 1], sub[PATH_MAX];
	unsigned char	 md[SHA256_LEN], data[65536];
	struct dirent	*d;
	struct stat	 st;
	struct sha256	 c;
	DIR		*dd;
	ssize_t		 r;
	int		 fd, i;

	tmpdir_pathf(p, "%s%s%s", dir, *rel ? "/" : "", rel);
	assert_non_null(dd = opendir(p));
	while ((d = readdir(dd)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		tmpdir_pathf(sub, "%s%s%s", rel, *rel ? "/" : "", d->d_name);
		tmpdir_pathf(p, "%s/%s", dir, sub);
		assert_int_equal(lstat(p, &st), 0);
		hex[0] = '\0';
		target[0] = '\0';
		if (S_ISREG(st.st_mode)) {
			sha256_init(&c);
			assert_true((fd = open(p, O_RDONLY)) >= 0);
			while ((r = read(fd, data, sizeof data)) > 0)
				sha256_update(&c, data, (size_t)r);
			close(fd);
			sha256_final(&c, md);
			for (i = 0; i < SHA256_LEN; i++)
				snprintf(hex + 2 * i, 3, "%02x", md[i]);
		} else if (S_ISLNK(st.st_mode)) {
			assert_true((r = readlink(p, target,
			    sizeof target - 1)) > 0);
			target[r] = '\0';
		}
		/* a link's time, and a directory's made or changed by
		   the push itself (now, not the stream's), differ */
		if (S_ISLNK(st.st_mode) || (S_ISDIR(st.st_mode) &&
		    st.st_mtim.tv_sec > UX_NOW))
			st.st_mtim.tv_sec = st.st_mtim.tv_nsec = 0;
		snprintf(line, sizeof line, "%s %o %lld %lld.%09ld %s %s",
		    sub, (unsigned)st.st_mode, S_ISDIR(st.st_mode) ? 0LL :
		    (long long)st.st_size, (long long)st.st_mtim.tv_sec,
		    st.st_mtim.tv_nsec, hex, target);
		*v = xreallocarray(*v, *n + 1, sizeof **v);
		(*v)[(*n)++] = xstrdup(line);
		if (S_ISDIR(st.st_mode))
			walk(dir, sub, v, n);
	}
	closedir(dd);
}

/* qsort's string comparison. */
static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Assert that trees a and b are the same, entry by entry. */
static void
same_trees(const char *a, const char *b)
{
	char	**va = NULL, **vb = NULL;
	size_t	  na = 0, nb = 0, i;

	walk(a, "", &va, &na);
	walk(b, "", &vb, &nb);
	qsort(va, na, sizeof *va, cmp_str);
	qsort(vb, nb, sizeof *vb, cmp_str);
	for (i = 0; i < na && i < nb; i++)
		if (strcmp(va[i], vb[i]) != 0)
			fail_msg("agent: %s\nshell: %s", va[i], vb[i]);
	if (na != nb)
		fail_msg("agent has %zu entries, the shell %zu", na, nb);
	for (i = 0; i < na; i++) {
		free(va[i]);
		free(vb[i]);
	}
	free(va);
	free(vb);
}

/* Run both on the input, both must succeed, the trees must agree. */
static void
both_agree(struct ux *u)
{
	struct buf	err = BUF_INIT;
	int		st;

	if ((st = run_shell(u->b, &u->in, &err)) != 0)
		fail_msg("shell step: status %d: %s", st, err.data);
	if ((st = run_agent(u->a, &u->in, &err)) != 0)
		fail_msg("fs-unpack: status %d: %s", st, err.data);
	same_trees(u->a, u->b);
	buf_free(&err);
}

/* Assert that outside/ is still empty. */
static void
outside_empty(struct ux *u)
{
	char	**v = NULL;
	size_t	  n = 0;

	walk(u->out, "", &v, &n);
	assert_int_equal(n, 0);
	free(v);
}

/* New files, new directories with modes, an existing directory entered. */
static void
test_new_entries(void **state)
{
	struct ux	*u = *state;
	char		*paths[] = { P("d"), P("d/sub"), P("d/sub/x.c"), P("keep/new.txt"),
			    P("top.sh"), P("empty") };

	BOTH(putdir, "keep", 0750);
	BOTH(put, "keep/old.txt", "old\n", 0644, 1000);
	putdir(u->src, "d", 0751);
	putdir(u->src, "d/sub", 0700);
	putdir(u->src, "keep", 0755);
	put(u->src, "d/sub/x.c", "int x;\n", 0640, 1600000000);
	put(u->src, "keep/new.txt", "new\n", 0600, 1600000001);
	put(u->src, "top.sh", "#!/bin/sh\n", 0755, 1600000002);
	put(u->src, "empty", "", 0444, 1600000003);
	dirtime(u->src, "d/sub", 1500000000);
	dirtime(u->src, "d", 1500000001);
	make_input(u, paths, sizeof paths / sizeof *paths);
	both_agree(u);
}

/* Types swap: a file over a link, a link over a file, a file where a
 * directory was (removed whole), a directory where a file was. */
static void
test_replace(void **state)
{
	struct ux	*u = *state;
	char		*paths[] = { P("was-dir"), P("was-file"), P("was-file/in"),
			    P("was-link"), P("now-link") };

	BOTH(putdir, "was-dir", 0755);
	BOTH(put, "was-dir/inner", "x", 0644, 1000);
	BOTH(put, "was-file", "f", 0644, 1000);
	BOTH(putlink, "was-link", "elsewhere");
	BOTH(put, "now-link", "n", 0644, 1000);
	put(u->src, "was-dir", "now a file\n", 0644, 1600000000);
	putdir(u->src, "was-file", 0755);
	put(u->src, "was-file/in", "in\n", 0644, 1600000001);
	put(u->src, "was-link", "a file now\n", 0600, 1600000002);
	putlink(u->src, "now-link", "target/of/link");
	make_input(u, paths, sizeof paths / sizeof *paths);
	both_agree(u);
}

/* A parent planted as a link out of the workspace is replaced by a real
 * directory; nothing is written outside. */
static void
test_planted_parent(void **state)
{
	struct ux	*u = *state;
	char		*paths[] = { P("p/x.txt"), P("q/r/y.txt") };
	char		 rel[PATH_MAX];

	tmpdir_pathf(rel, "../outside");
	BOTH(putlink, "p", rel);
	BOTH(putdir, "q", 0755);
	BOTH(putlink, "q/r", "../../outside");
	putdir(u->src, "p", 0755);
	putdir(u->src, "q", 0755);
	putdir(u->src, "q/r", 0755);
	put(u->src, "p/x.txt", "x\n", 0644, 1600000000);
	put(u->src, "q/r/y.txt", "y\n", 0644, 1600000001);
	make_input(u, paths, sizeof paths / sizeof *paths);
	both_agree(u);
	outside_empty(u);
}

/* Long names (pax path) and a sparse file (GNU sparse 1.0 map). */
static void
test_long_and_sparse(void **state)
{
	struct ux	*u = *state;
	char		 longname[300], p[PATH_MAX];
	char		*paths[2];
	int		 fd;

	memset(longname, 'n', 250);
	longname[250] = '\0';
	put(u->src, longname, "long\n", 0644, 1600000000);
	tmpdir_pathf(p, "%s/sparse", u->src);
	assert_true((fd = open(p, O_WRONLY | O_CREAT, 0644)) >= 0);
	assert_int_equal(pwrite(fd, "data", 4, 3 << 20), 4);
	assert_int_equal(ftruncate(fd, 8 << 20), 0);
	close(fd);
	paths[0] = longname;
	paths[1] = (char *)(uintptr_t)"sparse";
	make_input(u, paths, 2);
	both_agree(u);
}

/* A dead push's stage (no lock, an hour old) goes; a fresh one stays. */
static void
test_dead_stages(void **state)
{
	struct ux	*u = *state;
	char		*paths[] = { P("f") };

	BOTH(putdir, ".clawssh-tmp-push.00000000deadbeef", 0700);
	BOTH(put, ".clawssh-tmp-push.00000000deadbeef/x", "x", 0644, 1000);
	BOTH(dirtime, ".clawssh-tmp-push.00000000deadbeef", 1000);
	BOTH(putdir, ".clawssh-tmp-push.00000000000fresh", 0700);
	put(u->src, "f", "f\n", 0644, 1600000000);
	make_input(u, paths, 1);
	both_agree(u);
}

/* Broken input: a cut stream, a bad checksum, a path with "..": status
 * 1 with a reason, nothing new in the workspace, no stage left. */
static void
test_broken_input(void **state)
{
	struct ux	*u = *state;
	char		*paths[] = { P("a1"), P("a2") };
	struct buf	 err = BUF_INIT, bad = BUF_INIT;
	size_t		 tar_at, i;
	char		**v = NULL;
	size_t		  n = 0;

	put(u->src, "a1", "first\n", 0644, 1600000000);
	put(u->src, "a2", "second\n", 0644, 1600000001);
	make_input(u, paths, 2);
	assert_memory_equal(u->in.data, ".\n", 2);	/* no parents */
	tar_at = 2;
	/* cut inside the first file's data */
	buf_append(&bad, u->in.data, tar_at + 3 * 512 + 3);
	assert_int_equal(run_agent(u->a, &bad, &err), 1);
	assert_non_null(strstr(err.data, "clawssh-error: "));
	/* a bad checksum in the first header */
	buf_reset(&bad);
	buf_append(&bad, u->in.data, u->in.len);
	bad.data[tar_at + 150] ^= 1;
	assert_int_equal(run_agent(u->a, &bad, &err), 1);
	assert_non_null(strstr(err.data, "checksum"));
	/* no list of parents */
	buf_reset(&bad);
	buf_append_str(&bad, "a\nb\n");
	assert_int_equal(run_agent(u->a, &bad, &err), 1);
	walk(u->a, "", &v, &n);
	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
	assert_int_equal(n, 0);		/* nothing, no stage */
	buf_free(&err);
	buf_free(&bad);
}

/* A name with ".." (made by hand: the client's writer refuses it). */
static void
test_dotdot(void **state)
{
	struct ux	*u = *state;
	struct buf	 in = BUF_INIT, err = BUF_INIT;
	unsigned char	 h[512];
	unsigned int	 sum = 0;
	char		 zero[1024];
	int		 i;

	memset(h, 0, sizeof h);
	snprintf((char *)h, 100, "../outside/evil");
	memcpy(h + 100, "0000644", 8);
	memcpy(h + 124, "00000000004", 12);
	memcpy(h + 136, "00000000000", 12);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	memset(h + 148, ' ', 8);
	for (i = 0; i < 512; i++)
		sum += h[i];
	snprintf((char *)h + 148, 8, "%06o", sum);
	buf_append_str(&in, ".\n");
	buf_append(&in, h, sizeof h);
	memset(zero, 0, sizeof zero);
	buf_append(&in, "evil", 4);
	buf_append(&in, zero, 508);
	buf_append(&in, zero, sizeof zero);
	assert_int_equal(run_agent(u->a, &in, &err), 1);
	assert_non_null(strstr(err.data, "not a plain path"));
	outside_empty(u);
	buf_free(&in);
	buf_free(&err);
}

/* The pull's shell step for an exact list (transfer_pull_do's tar). */
#define PULL_TAR	"set -f; f= && case $(tar --version 2>/dev/null) in " \
	"*GNU*) f='--format=posix --sparse';; esac && exec tar $f " \
	"--exclude='.clawssh-tmp-*' -cf - --no-unquote --no-recursion -T -"

/* Run argv in dir with names on stdin; its stdout into out, its status. */
static int
pack_in(const char *dir, char *const *argv, const char *names,
    struct buf *out)
{
	struct buf	 in = BUF_INIT, err = BUF_INIT;
	char		 path[PATH_MAX], chunk[8192];
	ssize_t		 n;
	int		 fd, st;

	buf_append_str(&in, names);
	tmpdir_pathf(path, "%s/../stdout", dir);
	st = run_io(dir, argv, &in, &err, path);
	buf_reset(out);
	assert_true((fd = open(path, O_RDONLY)) >= 0);
	while ((n = read(fd, chunk, sizeof chunk)) > 0)
		buf_append(out, chunk, (size_t)n);
	close(fd);
	buf_free(&in);
	buf_free(&err);
	return st;
}

/* A tarstream_read_fn over a struct buf, 1000 bytes at a time. */
struct rd_buf {
	const struct buf	*b;
	size_t			 at;
};
static ssize_t
rd_buf(void *arg, const void **p)
{
	struct rd_buf	*r = arg;
	size_t		 k = r->b->len - r->at < 1000 ? r->b->len - r->at :
			    1000;

	*p = r->b->data + r->at;
	r->at += k;
	return (ssize_t)k;
}

/* Extract the stream s into dir with the client's tarstream_extract. */
static void
extract(const char *dir, const struct buf *s)
{
	struct tarstream_stats	 st;
	struct pathguard	*pg;
	struct rd_buf		 r = { s, 0 };
	char			*cause = NULL;

	memset(&st, 0, sizeof st);
	assert_int_equal(pathguard_open(dir, &pg, &cause), 0);
	if (tarstream_extract(pg, rd_buf, &r, NULL, &st, &cause) != 0)
		fail_msg("tarstream_extract: %s", cause);
	assert_int_equal(st.refused, 0);
	pathguard_close(pg);
}

/*
 * fs-pack and the pull's tar of the same names give the same tree at
 * the client: files, a sparse file, directories alone, links, long
 * names; a missing name and a temporary file left out by both (status
 * 2 for the missing one, as GNU tar's).
 */
static void
test_pack(void **state)
{
	struct ux	*u = *state;
	char		*agent[3], *shell[4], abs[PATH_MAX], longname[200];
	struct buf	 names = BUF_INIT, sa = BUF_INIT, sb = BUF_INIT;
	char		 p[PATH_MAX];
	int		 fd;

	memset(longname, 'l', 150);
	longname[150] = '\0';
	putdir(u->src, "d", 0751);
	putdir(u->src, "d/inner", 0700);
	put(u->src, "d/inner/not-asked", "no\n", 0644, 1600000000);
	put(u->src, "d/f.txt", "text\n", 0640, 1600000001);
	put(u->src, "d/empty", "", 0600, 1600000004);
	put(u->src, longname, "long\n", 0644, 1600000002);
	put(u->src, ".clawssh-tmp-0123456789abcdef", "tmp", 0600,
	    1600000003);
	putlink(u->src, "d/link", "../somewhere/else");
	tmpdir_pathf(p, "%s/sparse", u->src);
	assert_true((fd = open(p, O_WRONLY | O_CREAT, 0644)) >= 0);
	assert_int_equal(pwrite(fd, "data", 4, 5 << 20), 4);
	assert_int_equal(ftruncate(fd, 9 << 20), 0);
	close(fd);
	dirtime(u->src, "d/inner", 1500000000);
	dirtime(u->src, "d", 1500000001);
	buf_appendf(&names, "d\nd/inner\nd/f.txt\nd/empty\nd/link\nsparse\n%s\n"
	    "missing\n.clawssh-tmp-0123456789abcdef\n", longname);
	assert_non_null(realpath(AGENT, abs));
	agent[0] = abs;
	agent[1] = P("fs-pack");
	agent[2] = NULL;
	shell[0] = P("/bin/sh");
	shell[1] = P("-c");
	shell[2] = P(PULL_TAR);
	shell[3] = NULL;
	assert_int_equal(pack_in(u->src, agent, names.data, &sa), 2);
	assert_int_equal(pack_in(u->src, shell, names.data, &sb), 2);
	extract(u->a, &sa);
	extract(u->b, &sb);
	same_trees(u->a, u->b);
	tmpdir_pathf(p, "%s/d/inner/not-asked", u->a);
	assert_int_equal(access(p, F_OK), -1);
	buf_free(&names);
	buf_free(&sa);
	buf_free(&sb);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_entries, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_replace, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_planted_parent, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_long_and_sparse,
		    ux_setup, ux_teardown),
		cmocka_unit_test_setup_teardown(test_dead_stages, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_broken_input, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_dotdot, ux_setup,
		    ux_teardown),
		cmocka_unit_test_setup_teardown(test_pack, ux_setup,
		    ux_teardown),
	};

	if (access(AGENT, X_OK) != 0) {
		fprintf(stderr, "SKIP: no %s (run from the build tree)\n",
		    AGENT);
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
