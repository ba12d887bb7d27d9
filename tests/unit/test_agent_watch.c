/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Unit tests for the agent's change watcher (src/agent/fs_watch.c) and
 * its listings (src/agent/fs_list.c: the watcher's L, and fs-list, a
 * mirror pull's full listing), run as the built ./clawssh-agent
 * in a scratch workspace, no sshd: every kind of change made before a
 * take is in it (and nothing made outside the workspace, through a link
 * or a directory moved away); a moved directory is followed at its new
 * name; the workspace removed or moved ends the watcher with its line;
 * a listing is GNU find's (the script's) for the same paths, record for
 * record, but never walks through a link planted on the way; bad input
 * on stdin changes nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
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
#include "manifest.h"
#include "tmpdir.h"
#include "xmalloc.h"

#define AGENT		"./clawssh-agent"
#define WAIT_MS		10000

/* A running watcher and its scratch directories. */
struct wt {
	char	top[PATH_MAX], ws[PATH_MAX], out[PATH_MAX];
	char	agent[PATH_MAX];	/* ./clawssh-agent, absolute */
	pid_t	pid;
	int	in, o, e;		/* its stdin, stdout, stderr */
	struct buf ob, eb;		/* read, not yet taken */
};

/* Run sh -c cmd in dir; assert it succeeded. */
static void
sh(const char *dir, const char *cmd)
{
	char	*full = xasprintf("cd '%s' && %s", dir, cmd);

	assert_int_equal(system(full), 0);
	free(full);
}

/* Read what fd has within WAIT_MS into b: 0, or -1 at its end. */
static int
wt_read(int fd, struct buf *b)
{
	struct pollfd	pfd = { fd, POLLIN, 0 };
	char		chunk[65536];
	ssize_t		n;

	assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
	n = read(fd, chunk, sizeof chunk);
	assert_true(n >= 0);
	if (n == 0)
		return -1;
	buf_append(b, chunk, (size_t)n);
	return 0;
}

/* The next stdout line (allocated), or NULL at the end. */
static char *
wt_line(struct wt *w)
{
	char	*nl, *line;

	while (w->ob.len == 0 ||
	    (nl = memchr(w->ob.data, '\n', w->ob.len)) == NULL)
		if (wt_read(w->o, &w->ob) != 0)
			return NULL;
	line = xstrndup(w->ob.data, (size_t)(nl - w->ob.data));
	buf_consume(&w->ob, (size_t)(nl - w->ob.data) + 1);
	return line;
}

/* Send s on the watcher's stdin. */
static void
wt_send(struct wt *w, const char *s)
{
	assert_int_equal(fdio_write_all(w->in, s, strlen(s)), 0);
}

/* Make top/{ws,out} with a few files (the watcher starts in the test). */
static int
wt_setup(void **state)
{
	struct wt	*w = xcalloc(1, sizeof *w);
	const char	*tmp = getenv("TMPDIR");

	assert_non_null(realpath(AGENT, w->agent));
	tmpdir_pathf(w->top, "%s/fsw.XXXXXX", tmp != NULL && *tmp == '/' ? tmp :
	    "/tmp");
	assert_non_null(mkdtemp(w->top));
	tmpdir_pathf(w->ws, "%s/ws", w->top);
	tmpdir_pathf(w->out, "%s/out", w->top);
	assert_int_equal(mkdir(w->ws, 0755), 0);
	assert_int_equal(mkdir(w->out, 0755), 0);
	sh(w->ws, "mkdir -p src/deep/er old && echo a > src/a.txt && "
	    "echo c > old/c.txt && echo e > src/deep/er/e.txt");
	sh(w->out, "echo sentinel > s.txt && mkdir d");
	*state = w;
	return 0;
}

/* Start the agent's watch in w->ws; wait for its first line. */
static void
wt_run(struct wt *w)
{
	int	 pin[2], pout[2], perr[2];
	char	*line;

	assert_int_equal(pipe(pin), 0);
	assert_int_equal(pipe(pout), 0);
	assert_int_equal(pipe(perr), 0);
	w->pid = fork();
	assert_true(w->pid != -1);
	if (w->pid == 0) {
		if (dup2(pin[0], 0) == -1 || dup2(pout[1], 1) == -1 ||
		    dup2(perr[1], 2) == -1 || chdir(w->ws) != 0)
			_exit(127);
		execl(w->agent, "clawssh-agent", "watch", (char *)NULL);
		_exit(127);
	}
	close(pin[0]);
	close(pout[1]);
	close(perr[1]);
	w->in = pin[1];
	w->o = pout[0];
	w->e = perr[0];
	line = wt_line(w);
	assert_non_null(line);
	assert_string_equal(line, "Watches established.");
	free(line);
}

/* Stop the watcher (stdin's end), remove the scratch tree. */
static int
wt_teardown(void **state)
{
	struct wt	*w = *state;
	char		*cmd;
	int		 st;

	if (w->pid > 0) {
		close(w->in);
		if (waitpid(w->pid, &st, 0) == w->pid)
			assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(w->o);
		close(w->e);
	}
	cmd = xasprintf("rm -rf '%s'", w->top);
	(void)system(cmd);
	free(cmd);
	buf_free(&w->ob);
	buf_free(&w->eb);
	free(w);
	return 0;
}

/* qsort's comparison of two strings. */
static int
cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A take: the changed paths (a sorted strv), asserting the token. */
static char **
wt_take(struct wt *w, size_t *n)
{
	char	**v = NULL, *line;

	*n = 0;
	wt_send(w, "T 00112233445566778899aabbccddeeff\n");
	for (;;) {
		line = wt_line(w);
		assert_non_null(line);
		if (strcmp(line, "clawssh-take "
		    "00112233445566778899aabbccddeeff") == 0) {
			free(line);
			break;
		}
		assert_true(strncmp(line, "E ./", 4) == 0);
		v = xreallocarray(v, *n + 1, sizeof *v);
		v[(*n)++] = xstrdup(line + 4);
		free(line);
	}
	if (*n > 1)
		qsort(v, *n, sizeof *v, cmpstr);
	return v;
}

/* Whether v[0..n) has s. */
static int
has(char **v, size_t n, const char *s)
{
	size_t	i;

	for (i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return 1;
	return 0;
}

/* Free v[0..n). */
static void
vfree(char **v, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* Every kind of change made before a take is in it, once. */
static void
test_changes(void **state)
{
	struct wt	*w = *state;
	char		**v;
	size_t		 n, i;

	wt_run(w);
	v = wt_take(w, &n);
	assert_int_equal(n, 0);
	vfree(v, n);
	sh(w->ws, "echo A >> src/a.txt && echo A >> src/a.txt && "
	    "rm src/deep/er/e.txt && mv old new && mkdir -p made/sub && "
	    "echo four > made/sub/d.txt && chmod 600 new/c.txt && "
	    "ln -s ../src/a.txt made/link && touch \"$(printf 'nl\\nx')\"");
	v = wt_take(w, &n);
	assert_true(has(v, n, "src/a.txt"));
	assert_true(has(v, n, "src/deep/er/e.txt"));
	assert_true(has(v, n, "old"));
	assert_true(has(v, n, "new"));
	assert_true(has(v, n, "made"));
	assert_false(has(v, n, "nl\nx"));
	for (i = 1; i < n; i++)
		assert_string_not_equal(v[i - 1], v[i]);	/* once each */
	vfree(v, n);
	/* inside the moved and the new directory, at their names now */
	sh(w->ws, "echo C > new/c.txt && echo D > made/sub/d.txt && "
	    "echo q > made/sub/q");
	v = wt_take(w, &n);
	assert_int_equal(n, 3);
	assert_string_equal(v[0], "made/sub/d.txt");
	assert_string_equal(v[1], "made/sub/q");
	assert_string_equal(v[2], "new/c.txt");
	vfree(v, n);
}

/* Links and moves out: nothing outside the workspace is watched. */
static void
test_outside(void **state)
{
	struct wt	*w = *state;
	char		*cmd, **v;
	size_t		 n;

	cmd = xasprintf("ln -s '%s' lnk && ln -s '%s/d' src/ld", w->out,
	    w->out);
	sh(w->ws, cmd);
	free(cmd);
	wt_run(w);
	sh(w->out, "echo x >> s.txt && touch d/new");
	v = wt_take(w, &n);
	assert_int_equal(n, 0);
	vfree(v, n);
	/* a directory moved out is no longer watched */
	cmd = xasprintf("mv src/deep '%s/moved'", w->out);
	sh(w->ws, cmd);
	free(cmd);
	v = wt_take(w, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v[0], "src/deep");
	vfree(v, n);
	sh(w->out, "echo y > moved/er/e.txt && touch moved/z");
	v = wt_take(w, &n);
	assert_int_equal(n, 0);
	vfree(v, n);
	/* a directory swapped for a link: its new content is outside */
	sh(w->ws, "rm -rf old && ln -s ../out/d old");
	v = wt_take(w, &n);
	assert_true(has(v, n, "old"));
	vfree(v, n);
	sh(w->out, "touch d/after");
	v = wt_take(w, &n);
	assert_int_equal(n, 0);
	vfree(v, n);
}

/* The output of sh -c cmd into b (emptied first). */
static void
capture(const char *cmd, struct buf *b)
{
	FILE	*f = popen(cmd, "r");
	char	 chunk[4096];
	size_t	 got;

	assert_non_null(f);
	buf_reset(b);
	while ((got = fread(chunk, 1, sizeof chunk, f)) > 0)
		buf_append(b, chunk, got);
	pclose(f);
}

/* The listing of paths by the agent (L) and by find, same records. */
static void
listing(struct wt *w, const char *paths, struct buf *agent, struct buf *find,
    int *st)
{
	char	*cmd, *tail, *end;
	size_t	 k;

	buf_reset(agent);
	wt_send(w, "L 42\n");
	wt_send(w, paths);
	wt_send(w, "\n");
	while (w->eb.len == 0 || (end = memmem(w->eb.data, w->eb.len,
	    "\0\0clawssh-end 42 ", 17)) == NULL || memchr(end + 17, '\n',
	    w->eb.len -
	    (size_t)(end + 17 - w->eb.data)) == NULL)
		assert_int_equal(wt_read(w->e, &w->eb), 0);
	k = strlen("clawssh-list 42\n");
	assert_memory_equal(w->eb.data, "clawssh-list 42\n", k);
	buf_append(agent, w->eb.data + k, (size_t)(end - w->eb.data) - k);
	*st = atoi(end + 17);
	tail = memchr(end + 17, '\n', w->eb.len - (size_t)(end + 17 -
	    w->eb.data));
	buf_consume(&w->eb, (size_t)(tail + 1 - w->eb.data));
	/* the script's: test -e || test -L, then find -files0-from */
	cmd = xasprintf("cd '%s' && printf '%%s' '%s' | while IFS= read -r p; "
	    "do if [ -e \"./$p\" ] || [ -L \"./$p\" ]; then printf '%%s\\0' "
	    "\"$p\"; fi; done | find -files0-from - \\( -type f -o -type d "
	    "-o -type l \\) -printf '%%y %%m %%s %%T@ %%p\\0%%l\\0' "
	    "2>/dev/null", w->ws, paths);
	capture(cmd, find);
	free(cmd);
}

/* Parse a listing; assert it parses. */
static struct manifest *
parse(const struct buf *b)
{
	struct manifest	*m = NULL;
	char		*cause = NULL;

	assert_int_equal(manifest_parse_find0_part(b->len > 0 ? b->data : "",
	    b->len, NULL, &m, &cause), 0);
	free(cause);
	return m;
}

/* Assert two manifests hold the same entries. */
static void
same(const struct manifest *a, const struct manifest *b)
{
	size_t	i;

	assert_int_equal(a->n, b->n);
	for (i = 0; i < a->n; i++) {
		assert_string_equal(a->e[i].path, b->e[i].path);
		assert_int_equal(a->e[i].type, b->e[i].type);
		assert_int_equal(a->e[i].mode, b->e[i].mode);
		assert_int_equal(a->e[i].size, b->e[i].size);
		assert_int_equal(a->e[i].mtime_sec, b->e[i].mtime_sec);
		assert_int_equal(a->e[i].mtime_nsec, b->e[i].mtime_nsec);
		assert_true((a->e[i].link == NULL) == (b->e[i].link == NULL));
		if (a->e[i].link != NULL)
			assert_string_equal(a->e[i].link, b->e[i].link);
	}
}

/* L lists as the script's find does; a link on the way is not walked. */
static void
test_list(void **state)
{
	struct wt	*w = *state;
	struct buf	 a = BUF_INIT, f = BUF_INIT;
	struct manifest	*ma, *mf;
	char		*cmd;
	int		 st;

	sh(w->ws, "ln -s a.txt src/l && mkfifo src/fifo && "
	    "truncate -s 5M src/sparse && chmod 4755 src/deep && "
	    "touch -d @-5.25 src/old");
	cmd = xasprintf("ln -s '%s' out", w->out);
	sh(w->ws, cmd);
	free(cmd);
	wt_run(w);
	listing(w, "src\nold\nmissing\nout\n", &a, &f, &st);
	assert_int_equal(st, 0);
	ma = parse(&a);
	mf = parse(&f);
	assert_true(ma->n >= 10);
	same(ma, mf);
	manifest_free(ma);
	manifest_free(mf);
	/* through a link: find follows it, the agent leaves it out */
	listing(w, "out/d\nout/s.txt\n", &a, &f, &st);
	assert_int_equal(st, 0);
	assert_int_equal(a.len, 0);
	assert_true(f.len > 0);
	/* not a plain relative path: status 1, nothing walked up */
	listing(w, "src/../../out\n", &a, &f, &st);
	assert_int_equal(st, 1);
	assert_int_equal(a.len, 0);
	buf_free(&a);
	buf_free(&f);
}

/* fs-list: the whole workspace as the full listing's find gives it. */
static void
test_fs_list(void **state)
{
	struct wt	*w = *state;
	struct buf	 a = BUF_INIT, f = BUF_INIT;
	struct manifest	*ma, *mf;
	char		*cmd, *cause = NULL;

	sh(w->ws, "ln -s a.txt src/l && mkfifo src/fifo && "
	    "truncate -s 5M src/sparse && chmod 700 src/deep && "
	    "touch -d @-5.25 src/old && mkdir -p e/m/p/t/y");
	cmd = xasprintf("ln -s '%s' out", w->out);
	sh(w->ws, cmd);
	free(cmd);
	cmd = xasprintf("cd '%s' && '%s' fs-list", w->ws, w->agent);
	capture(cmd, &a);
	free(cmd);
	cmd = xasprintf("cd '%s' && find . -mindepth 1 \\( -type f -o -type "
	    "d -o -type l \\) -printf '%%y %%m %%s %%T@ %%P\\0%%l\\0'",
	    w->ws);
	capture(cmd, &f);
	free(cmd);
	assert_int_equal(manifest_parse_find0(a.data, a.len, NULL, &ma,
	    &cause), 0);
	assert_int_equal(manifest_parse_find0(f.data, f.len, NULL, &mf,
	    &cause), 0);
	assert_true(ma->n >= 14);
	same(ma, mf);
	manifest_free(ma);
	manifest_free(mf);
	/* fs-list -: the paths on stdin; a link on the way is not walked */
	cmd = xasprintf("cd '%s' && printf 'src/deep\\nout/d\\nnone\\n' | "
	    "'%s' fs-list -; echo \"st=$?\"", w->ws, w->agent);
	capture(cmd, &a);
	free(cmd);
	assert_true(a.len > 5);
	assert_memory_equal(a.data + a.len - 5, "st=0\n", 5);
	assert_int_equal(manifest_parse_find0_part(a.data, a.len - 5, NULL,
	    &ma, &cause), 0);
	assert_int_equal(ma->n, 3);
	assert_string_equal(ma->e[0].path, "src/deep");
	assert_string_equal(ma->e[2].path, "src/deep/er/e.txt");
	manifest_free(ma);
	/* a line with a NUL: refused, nothing listed */
	cmd = xasprintf("cd '%s' && printf 'src\\0x\\n' | '%s' fs-list - "
	    "2>/dev/null; echo \"st=$?\"", w->ws, w->agent);
	capture(cmd, &a);
	free(cmd);
	buf_append(&a, "", 1);
	assert_string_equal(a.data, "st=125\n");
	buf_free(&a);
	buf_free(&f);
}

/* Bad input changes nothing; the watcher still answers. */
static void
test_bad_input(void **state)
{
	struct wt	*w = *state;
	char		*big, **v;
	size_t		 n;

	wt_run(w);
	wt_send(w, "T zz\nT \nX y\nT 0123456789abcdef0123456789abcdef"
	    "0123456789abcdef0123456789abcdef0\n");
	assert_int_equal(fdio_write_all(w->in, "T ab\0cd\n", 8), 0);
	big = xmalloc(2 * 1024 * 1024 + 2);
	memset(big, 'a', 2 * 1024 * 1024);
	memcpy(big + 2 * 1024 * 1024, "\n", 2);
	wt_send(w, big);
	free(big);
	sh(w->ws, "touch src/after");
	v = wt_take(w, &n);
	assert_int_equal(n, 1);
	assert_string_equal(v[0], "src/after");
	vfree(v, n);
}

/* The workspace removed or moved: "DELETE_SELF ./", then the end. */
static void
test_root_gone(void **state)
{
	struct wt	*w = *state;
	char		*line, *cmd;
	int		 st;

	wt_run(w);
	cmd = xasprintf("mv '%s' '%s.moved' && mkdir '%s'", w->ws, w->ws,
	    w->ws);
	sh("/", cmd);
	free(cmd);
	/* it may have seen the move and ended already: stdin then fails */
	(void)fdio_write_all(w->in, "T 0a\n", 5);
	while ((line = wt_line(w)) != NULL &&
	    strcmp(line, "DELETE_SELF ./") != 0)
		free(line);
	assert_non_null(line);
	free(line);
	assert_null(wt_line(w));
	assert_int_equal(waitpid(w->pid, &st, 0), w->pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	w->pid = 0;
	close(w->in);
	close(w->o);
	close(w->e);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_changes, wt_setup,
		    wt_teardown),
		cmocka_unit_test_setup_teardown(test_outside, wt_setup,
		    wt_teardown),
		cmocka_unit_test_setup_teardown(test_list, wt_setup,
		    wt_teardown),
		cmocka_unit_test_setup_teardown(test_fs_list, wt_setup,
		    wt_teardown),
		cmocka_unit_test_setup_teardown(test_bad_input, wt_setup,
		    wt_teardown),
		cmocka_unit_test_setup_teardown(test_root_gone, wt_setup,
		    wt_teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
