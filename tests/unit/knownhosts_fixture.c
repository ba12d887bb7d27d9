/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Scratch directories, ssh-keygen keys and file helpers shared by the
 * known_hosts unit tests.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "compat.h"
#include "base64.h"
#include "knownhosts.h"
#include "knownhosts_fixture.h"
#include "xmalloc.h"
#include "tmpdir.h"

/* Make a fresh scratch directory for one test. */
int
tk_setup(void **state)
{
	struct tk	*t;

	t = xcalloc(1, sizeof *t);
	strlcpy(t->dir, "/tmp/test_knownhosts.XXXXXX", sizeof t->dir);
	if (mkdtemp(t->dir) == NULL) {
		free(t);
		return -1;
	}
	*state = t;
	return 0;
}

/* Remove the scratch directory and everything in it. */
int
tk_teardown(void **state)
{
	struct tk	*t = *state;
	int		 r;

	r = tmpdir_remove(t->dir);
	free(t);
	return r == 0 ? 0 : -1;
}

/* Return DIR/name (allocated). */
char *
tk_path(const struct tk *t, const char *name)
{
	return xasprintf("%s/%s", t->dir, name);
}

/* Copy a NULL-terminated argument vector (allocated strings). */
static char **
tk_argv_copy(const char *const argv[])
{
	char	**v;
	size_t	  n, i;

	for (n = 0; argv[n] != NULL; n++)
		;
	v = xcalloc(n + 1, sizeof *v);
	for (i = 0; i < n; i++)
		v[i] = xstrdup(argv[i]);
	return v;
}

/* Free what tk_argv_copy made. */
static void
tk_argv_free(char **v)
{
	size_t	i;

	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Read all of fd into an allocated string. */
static char *
tk_slurp(int fd)
{
	char	 chunk[4096], *s = xstrdup("");
	size_t	 len = 0;
	ssize_t	 n;

	while ((n = read(fd, chunk, sizeof chunk)) > 0) {
		s = xreallocarray(s, 1, len + (size_t)n + 1);
		memcpy(s + len, chunk, (size_t)n);
		len += (size_t)n;
		s[len] = '\0';
	}
	return s;
}

/* Run argv without a shell; return its exit status, stdout in *out. */
int
tk_run(const char *const argv[], char **out)
{
	char	**v, *s;
	pid_t	  pid;
	int	  fds[2], status, devnull;

	if (pipe(fds) != 0)
		return -1;
	v = tk_argv_copy(argv);
	if ((pid = fork()) == 0) {
		devnull = open("/dev/null", O_RDWR);
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDERR_FILENO);
		dup2(fds[1], STDOUT_FILENO);
		close(fds[0]);
		close(fds[1]);
		execvp(v[0], v);
		_exit(127);
	}
	tk_argv_free(v);
	close(fds[1]);
	s = tk_slurp(fds[0]);
	close(fds[0]);
	if (pid == -1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status)) {
		free(s);
		return -1;
	}
	if (out != NULL)
		*out = s;
	else
		free(s);
	return WEXITSTATUS(status);
}

/* Read a whole file (text, no NULs) into an allocated string. */
char *
tk_read(const char *path)
{
	char	*s;
	FILE	*f;
	long	 size;

	if ((f = fopen(path, "r")) == NULL)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	size = ftell(f);
	rewind(f);
	s = xmalloc((size_t)size + 1);
	if (fread(s, 1, (size_t)size, f) != (size_t)size)
		fail_msg("cannot read %s", path);
	s[size] = '\0';
	fclose(f);
	return s;
}

/* Write len bytes to DIR/name; return the path (allocated). */
char *
tk_write_len(const struct tk *t, const char *name, const char *data,
    size_t len)
{
	char	*path;
	FILE	*f;

	path = tk_path(t, name);
	if ((f = fopen(path, "w")) == NULL)
		fail_msg("cannot create %s", path);
	assert_int_equal(fwrite(data, 1, len, f), len);
	assert_int_equal(fclose(f), 0);
	return path;
}

/* Write a string to DIR/name; return the path (allocated). */
char *
tk_write(const struct tk *t, const char *name, const char *data)
{
	return tk_write_len(t, name, data, strlen(data));
}

/* Generate a key of kind ("ed25519", "ecdsa", "rsa") as DIR/name. */
void
tk_keygen(const struct tk *t, const char *kind, const char *name,
    struct tk_key *k)
{
	char		*pub, *text, *sp;
	const char	*argv[] = { "ssh-keygen", "-q", "-t", NULL, "-N", "",
	    "-f", NULL, "-C", "test", NULL, NULL, NULL };

	k->path = tk_path(t, name);
	argv[3] = kind;
	argv[7] = k->path;
	if (strcmp(kind, "rsa") == 0) {
		argv[10] = "-b";
		argv[11] = "2048";
	}
	assert_int_equal(tk_run(argv, NULL), 0);
	pub = xasprintf("%s.pub", k->path);
	text = tk_read(pub);
	free(pub);
	k->type = xstrdup(strtok_r(text, " ", &sp));
	k->b64 = xstrdup(strtok_r(NULL, " \n", &sp));
	free(text);
	k->blob = base64_decode_strict(k->b64, strlen(k->b64), &k->len);
	assert_non_null(k->blob);
}

/* Free what tk_keygen made. */
void
tk_key_free(struct tk_key *k)
{
	free(k->type);
	free(k->b64);
	free(k->blob);
	free(k->path);
}

/* Check k for host:port against one file. */
int
tk_check(char *file, const char *host, int port, const struct tk_key *k,
    struct knownhosts_where *where)
{
	char	*files[] = { file };
	char	*cause = NULL;
	int	 r;

	r = knownhosts_check(files, 1, host, port, k->blob, k->len, where,
	    &cause);
	free(cause);
	return r;
}
