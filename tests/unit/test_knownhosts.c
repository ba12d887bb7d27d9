/*
 * Unit tests for known_hosts verification, against keys and files made by
 * OpenSSH's own ssh-keygen.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
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
#include <openssl/evp.h>

#include "compat.h"
#include "buf.h"
#include "error.h"
#include "knownhosts.h"
#include "xmalloc.h"

#define HOST	"example.com"

/* One test's scratch directory. */
struct tk {
	char	dir[64];
};

/* A public key made by ssh-keygen. */
struct tk_key {
	char		*type;		/* e.g. "ssh-ed25519" */
	char		*b64;		/* the blob as in the .pub file */
	unsigned char	*blob;
	size_t		 len;
	char		*path;		/* the private key; .pub beside it */
};

/* Make a fresh scratch directory for one test. */
static int
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

/* Remove one entry under the scratch directory. */
static int
tk_rm(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	(void)sb;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* Remove the scratch directory and everything in it. */
static int
tk_teardown(void **state)
{
	struct tk	*t = *state;
	int		 r;

	r = nftw(t->dir, tk_rm, 16, FTW_DEPTH | FTW_PHYS);
	free(t);
	return r == 0 ? 0 : -1;
}

/* Return DIR/name (allocated). */
static char *
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
static int
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
static char *
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
static char *
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
static char *
tk_write(const struct tk *t, const char *name, const char *data)
{
	return tk_write_len(t, name, data, strlen(data));
}

/* Decode padded base64 (test side, independent of the module). */
static unsigned char *
tk_b64_decode(const char *s, size_t *len)
{
	unsigned char	*p;
	size_t		 slen = strlen(s), pad = 0;
	int		 n;

	assert_true(slen > 0 && slen % 4 == 0);
	pad = s[slen - 1] == '=' ? (s[slen - 2] == '=' ? 2 : 1) : 0;
	p = xmalloc(slen / 4 * 3);
	n = EVP_DecodeBlock(p, (const unsigned char *)s, (int)slen);
	assert_int_equal(n, slen / 4 * 3);
	*len = (size_t)n - pad;
	return p;
}

/* Encode bytes as padded base64 (allocated). */
static char *
tk_b64_encode(const unsigned char *p, size_t len)
{
	char	*s;

	s = xmalloc((len + 2) / 3 * 4 + 1);
	EVP_EncodeBlock((unsigned char *)s, p, (int)len);
	return s;
}

/* Generate a key of kind ("ed25519", "ecdsa", "rsa") as DIR/name. */
static void
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
	k->blob = tk_b64_decode(k->b64, &k->len);
}

/* Free what tk_keygen made. */
static void
tk_key_free(struct tk_key *k)
{
	free(k->type);
	free(k->b64);
	free(k->blob);
	free(k->path);
}

/* Check k for host:port against one file. */
static int
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

/* Run ssh-keygen -F host -f file; return its status, output in *out. */
static int
tk_keygen_find(const char *file, const char *host, char **out)
{
	const char	*argv[] = { "ssh-keygen", "-F", host, "-f", file,
	    NULL };

	return tk_run(argv, out);
}

/* A plain line for the host lists the key: match, naming the line. */
static void
test_plain_match(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("# comment\n\nother.org %s %s\n"
	    HOST " %s %s a comment\n", a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 4);
	knownhosts_where_clear(&w);
	assert_null(w.file);
	assert_int_equal(w.line, 0);
	assert_int_equal(tk_check(file, "example.net", 22, &a, &w),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_null(w.file);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* A non-22 port is looked up as "[host]:port" and only as that. */
static void
test_port(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("[" HOST "]:2222 %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 2222, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 0, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 2223, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Port 22 and port 0 both mean the bare host name. */
static void
test_port_default(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf(HOST " %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 0, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, HOST, 2222, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Host names compare without regard to case. */
static void
test_case_insensitive(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("Example.COM %s %s\n[Example.COM]:2222 %s %s\n",
	    a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "eXAMPLE.com", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "example.com", 2222, &a, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Entries hashed by ssh-keygen -H are found, by lower-cased name. */
static void
test_hashed_keygen(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file, *after;
	const char			*argv[] = { "ssh-keygen", "-H",
	    "-f", NULL, NULL };

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("other.org %s %s\n" HOST " %s %s\n"
	    "[" HOST "]:2222 %s %s\n", a.type, a.b64, a.type, a.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	argv[3] = file;
	assert_int_equal(tk_run(argv, NULL), 0);
	after = tk_read(file);
	assert_null(strstr(after, HOST));
	assert_int_equal(strncmp(after, "|1|", 3), 0);
	assert_int_equal(tk_check(file, "Example.Com", 22, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, HOST, 2222, &a, &w), 0);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, "example.net", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 2223, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(after);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* knownhosts_add(hash=1) writes entries ssh-keygen -F can find. */
static void
test_add_hashed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*file, *text, *out = NULL;
	char				*cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_path(t, "kh");
	assert_int_equal(knownhosts_add(file, "Example.COM", 22, a.blob,
	    a.len, 1, &cause), 0);
	assert_int_equal(knownhosts_add(file, HOST, 2222, a.blob, a.len, 1,
	    &cause), 0);
	text = tk_read(file);
	assert_null(strstr(text, "xample"));
	assert_int_equal(strncmp(text, "|1|", 3), 0);
	assert_non_null(strstr(text, "\n|1|"));
	assert_int_equal(tk_keygen_find(file, HOST, &out), 0);
	assert_non_null(strstr(out, "found: line 1"));
	free(out);
	assert_int_equal(tk_keygen_find(file, "[" HOST "]:2222", &out), 0);
	assert_non_null(strstr(out, "found: line 2"));
	free(out);
	assert_int_equal(tk_keygen_find(file, "example.net", NULL), 1);
	assert_int_equal(tk_check(file, HOST, 2222, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* Wildcards in the host field match, '?' standing for one character. */
static void
test_wildcard(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("*.example.com,10.0.0.? %s %s\n", a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "www.example.com", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "10.0.0.7", 22, &a, NULL), 0);
	assert_int_equal(tk_check(file, "10.0.0.17", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, "example.org", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* A negated pattern keeps a line from applying, even with a match. */
static void
test_negated(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf("*.example.com,!bad.example.com %s %s\n"
	    "!solo.example.com %s %s\n", a.type, a.b64, b.type, b.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, "good.example.com", 22, &a, NULL),
	    0);
	assert_int_equal(tk_check(file, "bad.example.com", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	/* A list of only negations matches nothing, so b is no conflict. */
	assert_int_equal(tk_check(file, "other.org", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A line for another key type is no conflict: UNKNOWN, not CHANGED. */
static void
test_type_isolation(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	text = xasprintf(HOST " %s %s\n", e.type, e.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(tk_check(file, HOST, 22, &e, NULL), 0);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&e);
}

/* Another key of the same type is CHANGED, naming the first such line. */
static void
test_changed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b, c;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	tk_keygen(t, "ed25519", "c", &c);
	text = xasprintf("# header\nother.org %s %s\n\n" HOST " %s %s\n"
	    HOST " %s %s\n", a.type, a.b64, b.type, b.b64, c.type, c.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w),
	    CLAW_ERR_HOSTKEY_CHANGED);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 4);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
	tk_key_free(&c);
}

/* A line with this exact key wins over an earlier conflicting line. */
static void
test_match_beats_changed(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf(HOST " %s %s\n" HOST " %s %s\n", b.type, b.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A @revoked line for the key wins over a match. */
static void
test_revoked(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf(HOST " %s %s\n@revoked * %s %s\n"
	    "@revoked " HOST " %s %s\n", a.type, a.b64, b.type, b.b64,
	    a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w),
	    CLAW_ERR_HOSTKEY_REVOKED);
	assert_string_equal(w.file, file);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	/* b is revoked for every host; its line is no conflict for a. */
	assert_int_equal(tk_check(file, "example.net", 22, &b, &w),
	    CLAW_ERR_HOSTKEY_REVOKED);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_check(file, "example.net", 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A @cert-authority line is skipped: no match, no conflict. */
static void
test_cert_authority(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	text = xasprintf("@cert-authority * %s %s\n"
	    "@cert-authority * %s %s\n", a.type, a.b64, b.type, b.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	free(text);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* Lines from all files count; the second file can decide. */
static void
test_multiple_files(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a, b;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*t1, *t2, *files[2], *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	t1 = xasprintf("other.org %s %s\n" HOST " %s %s\n", a.type, a.b64,
	    b.type, b.b64);
	t2 = xasprintf("# second\n" HOST " %s %s\n", a.type, a.b64);
	files[0] = tk_write(t, "kh1", t1);
	files[1] = tk_write(t, "kh2", t2);
	assert_int_equal(knownhosts_check(files, 2, HOST, 22, a.blob, a.len,
	    &w, &cause), 0);
	assert_string_equal(w.file, files[1]);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	assert_int_equal(knownhosts_check(files, 1, HOST, 22, a.blob, a.len,
	    &w, &cause), CLAW_ERR_HOSTKEY_CHANGED);
	assert_string_equal(w.file, files[0]);
	assert_int_equal(w.line, 2);
	knownhosts_where_clear(&w);
	free(t1);
	free(t2);
	free(files[0]);
	free(files[1]);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A missing file is skipped; the others still count. */
static void
test_missing_file(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *files[3], *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf(HOST " %s %s\n", a.type, a.b64);
	files[0] = tk_path(t, "nonexistent");
	files[1] = tk_path(t, "nodir/known_hosts");
	files[2] = tk_write(t, "kh", text);
	assert_int_equal(knownhosts_check(files, 2, HOST, 22, a.blob, a.len,
	    &w, &cause), CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_null(cause);
	assert_null(w.file);
	assert_int_equal(knownhosts_check(files, 3, HOST, 22, a.blob, a.len,
	    &w, &cause), 0);
	assert_null(cause);
	assert_string_equal(w.file, files[2]);
	knownhosts_where_clear(&w);
	free(text);
	free(files[0]);
	free(files[1]);
	free(files[2]);
	tk_key_free(&a);
}

/* A file that exists but cannot be read is an error with a cause. */
static void
test_unreadable_file(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*files[1], *cause = NULL, **types = NULL;
	int		 r;

	tk_keygen(t, "ed25519", "a", &a);
	files[0] = tk_path(t, "adir");
	assert_int_equal(mkdir(files[0], 0700), 0);
	r = knownhosts_check(files, 1, HOST, 22, a.blob, a.len, NULL, &cause);
	assert_true(r < 0);
	assert_int_not_equal(r, CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_non_null(cause);
	assert_non_null(strstr(cause, files[0]));
	free(cause);
	assert_true(knownhosts_types(files, 1, HOST, 22, &types) < 0);
	assert_null(types);
	free(files[0]);
	tk_key_free(&a);
}

/* A bad key blob or host is an argument error, not a verdict. */
static void
test_check_bad_args(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	char		*file, *cause = NULL;
	unsigned char	 junk[] = { 0, 0, 0, 200, 's', 's', 'h' };

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_write(t, "kh", "");
	assert_int_equal(knownhosts_check(&file, 1, HOST, 22, junk,
	    sizeof junk, NULL, &cause), CLAW_ERR_INVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(knownhosts_check(&file, 1, HOST, 70000, a.blob,
	    a.len, NULL, &cause), CLAW_ERR_INVAL);
	assert_non_null(cause);
	free(cause);
	cause = NULL;
	assert_int_equal(knownhosts_check(&file, 1, "", 22, a.blob, a.len,
	    NULL, &cause), CLAW_ERR_INVAL);
	free(cause);
	free(file);
	tk_key_free(&a);
}

/* Build a line for HOST with the type field and a raw blob. */
static char *
tk_raw_line(const char *type, const unsigned char *blob, size_t len)
{
	char	*b64, *line;

	b64 = tk_b64_encode(blob, len);
	line = xasprintf(HOST " %s %s\n", type, b64);
	free(b64);
	return line;
}

/* Build malformed lines for HOST, each carrying key k if it had one. */
static char *
tk_malformed(const struct tk_key *k)
{
	static const unsigned char	 hugeinner[] = { 0, 0, 0, 11, 's', 's',
	    'h', '-', 'e', 'd', '2', '5', '5', '1', '9', 0xff, 0xff, 0xff,
	    0xf0, 1, 2, 3, 4 };
	static const unsigned char	 hugetype[] = { 0xff, 0xff, 0xff, 0xff,
	    's', 's', 'h', '-', 'e', 'd', '2', '5', '5', '1', '9', 0, 0, 0, 1,
	    1 };
	char				*l1, *l2, *s;

	l1 = tk_raw_line("ssh-ed25519", hugeinner, sizeof hugeinner);
	l2 = tk_raw_line("ssh-ed25519", hugetype, sizeof hugetype);
	s = xasprintf("\n   \t \n" HOST "\n" HOST " %s\n"
	    HOST " %s %.30s\n"		/* truncated base64 */
	    HOST " %s %.40s\n"		/* truncated blob */
	    HOST " %s !!!!%s\n"		/* not base64 */
	    "%s%s"			/* huge length prefixes */
	    HOST " ecdsa-sha2-nistp256 %s\n"	/* type disagrees */
	    "@bogus " HOST " %s %s\n"
	    "@revoked\n@revoked " HOST "\n"
	    "|1|garbage|garbage %s %s\n"
	    "|1|%s|%s %s %s\n"		/* salt/hash of wrong size */
	    "%s%.*s=\n",
	    k->type, k->type, k->b64, k->type, k->b64, k->type, k->b64,
	    l1, l2, k->b64, k->type, k->b64, k->type, k->b64,
	    "AAAA", "AAAA", k->type, k->b64, HOST " ssh-ed25519 ",
	    (int)strlen(k->b64) - 1, k->b64);
	free(l1);
	free(l2);
	return s;
}

/* Malformed lines are skipped; a good line after them still counts. */
static void
test_malformed_skipped(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	struct buf			 b = BUF_INIT;
	char				*bad, *file;
	size_t				 nlines = 0, i;

	tk_keygen(t, "ed25519", "a", &a);
	bad = tk_malformed(&a);
	for (i = 0; bad[i] != '\0'; i++)
		nlines += bad[i] == '\n';
	buf_append_str(&b, bad);
	/* A NUL byte cuts a good line short: the line must be skipped. */
	buf_appendf(&b, HOST " %s %s", a.type, a.b64);
	buf_append(&b, "\0 x\n", 4);
	/* A line over 64 KiB is skipped, though it starts well. */
	buf_appendf(&b, HOST " %s %s %070000d\n", a.type, a.b64, 0);
	buf_appendf(&b, HOST " %s %s\n", a.type, a.b64);
	file = tk_write_len(t, "kh", b.data, b.len);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, nlines + 3);
	knownhosts_where_clear(&w);
	buf_free(&b);
	free(bad);
	free(file);
	tk_key_free(&a);
}

/* Malformed lines with another key are no conflict and list no type. */
static void
test_malformed_no_conflict(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b;
	char		*bad, *file, **types = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	bad = tk_malformed(&b);
	file = tk_write(t, "kh", bad);
	assert_int_equal(tk_check(file, HOST, 22, &a, NULL),
	    CLAW_ERR_HOSTKEY_UNKNOWN);
	assert_int_equal(knownhosts_types(&file, 1, HOST, 22, &types), 0);
	assert_non_null(types);
	assert_null(types[0]);
	knownhosts_types_free(types);
	free(bad);
	free(file);
	tk_key_free(&a);
	tk_key_free(&b);
}

/* A file with no final newline and CRLF line ends still parses. */
static void
test_crlf_no_final_newline(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 a;
	struct knownhosts_where		 w = { NULL, 0 };
	char				*text, *file;

	tk_keygen(t, "ed25519", "a", &a);
	text = xasprintf("# crlf\r\nother.org %s %s\r\n" HOST " %s %s",
	    a.type, a.b64, a.type, a.b64);
	file = tk_write(t, "kh", text);
	assert_int_equal(tk_check(file, HOST, 22, &a, &w), 0);
	assert_int_equal(w.line, 3);
	knownhosts_where_clear(&w);
	free(text);
	free(file);
	tk_key_free(&a);
}

/* knownhosts_key_type reads the first string and bounds its length. */
static void
test_key_type(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, r;
	char		*type;
	unsigned char	 huge[] = { 0x7f, 0xff, 0xff, 0xff, 's', 's', 'h' };
	unsigned char	 ctl[] = { 0, 0, 0, 3, 's', '\n', 'h' };
	unsigned char	 empty[] = { 0, 0, 0, 0 };

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "rsa", "r", &r);
	type = knownhosts_key_type(a.blob, a.len);
	assert_string_equal(type, "ssh-ed25519");
	free(type);
	type = knownhosts_key_type(r.blob, r.len);
	assert_string_equal(type, "ssh-rsa");
	free(type);
	assert_null(knownhosts_key_type(a.blob, 14));
	assert_null(knownhosts_key_type(a.blob, 3));
	assert_null(knownhosts_key_type(NULL, 0));
	assert_null(knownhosts_key_type(huge, sizeof huge));
	assert_null(knownhosts_key_type(ctl, sizeof ctl));
	assert_null(knownhosts_key_type(empty, sizeof empty));
	tk_key_free(&a);
	tk_key_free(&r);
}

/* Compare knownhosts_fingerprint with ssh-keygen -lf for one key. */
static void
tk_fp_compare(const struct tk_key *k)
{
	char		*pub, *out = NULL, *fp, *field, *sp;
	const char	*argv[] = { "ssh-keygen", "-l", "-E", "sha256", "-f",
	    NULL, NULL };

	pub = xasprintf("%s.pub", k->path);
	argv[5] = pub;
	assert_int_equal(tk_run(argv, &out), 0);
	assert_non_null(strtok_r(out, " ", &sp));
	field = strtok_r(NULL, " ", &sp);
	assert_non_null(field);
	fp = knownhosts_fingerprint(k->blob, k->len);
	assert_string_equal(fp, field);
	assert_null(strchr(fp, '='));
	free(fp);
	free(out);
	free(pub);
}

/* Fingerprints equal the SHA256 field of ssh-keygen -lf. */
static void
test_fingerprint(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e, r;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	tk_keygen(t, "rsa", "r", &r);
	tk_fp_compare(&a);
	tk_fp_compare(&e);
	tk_fp_compare(&r);
	tk_key_free(&a);
	tk_key_free(&e);
	tk_key_free(&r);
}

/* knownhosts_add makes the directory 0700 and the file 0600. */
static void
test_add_creates(void **state)
{
	struct tk			*t = *state;
	struct tk_key			 r;
	struct knownhosts_where		 w = { NULL, 0 };
	struct stat			 sb;
	char				*dir, *file, *text, *want, *out = NULL;
	char				*cause = NULL;
	mode_t				 old;

	tk_keygen(t, "rsa", "r", &r);
	dir = tk_path(t, "ssh");
	file = tk_path(t, "ssh/known_hosts");
	old = umask(022);
	assert_int_equal(knownhosts_add(file, HOST, 22, r.blob, r.len, 0,
	    &cause), 0);
	umask(old);
	assert_null(cause);
	assert_int_equal(stat(dir, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0700);
	assert_int_equal(stat(file, &sb), 0);
	assert_int_equal(sb.st_mode & 07777, 0600);
	text = tk_read(file);
	want = xasprintf(HOST " %s %s\n", r.type, r.b64);
	assert_string_equal(text, want);
	assert_int_equal(tk_check(file, HOST, 22, &r, &w), 0);
	assert_int_equal(w.line, 1);
	knownhosts_where_clear(&w);
	assert_int_equal(tk_keygen_find(file, HOST, &out), 0);
	assert_non_null(strstr(out, want));
	free(out);
	free(want);
	free(text);
	free(file);
	free(dir);
	tk_key_free(&r);
}

/* knownhosts_add ends an unterminated last line before appending. */
static void
test_add_newline(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, e;
	char		*old, *file, *text, *want, *cause = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ecdsa", "e", &e);
	old = xasprintf("other.org %s %s", a.type, a.b64);
	file = tk_write(t, "kh", old);
	assert_int_equal(knownhosts_add(file, HOST, 2222, e.blob, e.len, 0,
	    &cause), 0);
	assert_int_equal(knownhosts_add(file, HOST, 22, a.blob, a.len, 0,
	    &cause), 0);
	text = tk_read(file);
	want = xasprintf("%s\n[" HOST "]:2222 %s %s\n" HOST " %s %s\n", old,
	    e.type, e.b64, a.type, a.b64);
	assert_string_equal(text, want);
	assert_int_equal(tk_check(file, HOST, 2222, &e, NULL), 0);
	assert_int_equal(tk_check(file, "other.org", 22, &a, NULL), 0);
	assert_int_equal(tk_keygen_find(file, "[" HOST "]:2222", NULL), 0);
	free(want);
	free(text);
	free(file);
	free(old);
	tk_key_free(&a);
	tk_key_free(&e);
}

/* knownhosts_add refuses names that would change the line's meaning. */
static void
test_add_bad_host(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a;
	const char	*bad[] = { "", "a b", "a\nb", "a,b", "*", "!a", "#a",
	    "@revoked", "|1|x", "a\tb" };
	char		*file, *cause;
	size_t		 i;

	tk_keygen(t, "ed25519", "a", &a);
	file = tk_path(t, "kh");
	for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		cause = NULL;
		assert_int_equal(knownhosts_add(file, bad[i], 22, a.blob,
		    a.len, 0, &cause), CLAW_ERR_INVAL);
		assert_non_null(cause);
		free(cause);
	}
	cause = NULL;
	assert_int_equal(knownhosts_add(file, HOST, 22, a.blob, 10, 0,
	    &cause), CLAW_ERR_INVAL);
	free(cause);
	assert_int_equal(access(file, F_OK), -1);
	free(file);
	tk_key_free(&a);
}

/* Types come in file order, once each, skipping marker lines. */
static void
test_types(void **state)
{
	struct tk	*t = *state;
	struct tk_key	 a, b, e, r;
	char		*t1, *t2, *files[2], **types = NULL;

	tk_keygen(t, "ed25519", "a", &a);
	tk_keygen(t, "ed25519", "b", &b);
	tk_keygen(t, "ecdsa", "e", &e);
	tk_keygen(t, "rsa", "r", &r);
	t1 = xasprintf(HOST " %s %s\n@revoked " HOST " %s %s\n"
	    "@cert-authority * %s %s\nother.org %s %s\n" HOST " %s %s\n"
	    HOST " %s %s\n", e.type, e.b64, r.type, r.b64, r.type, r.b64,
	    r.type, r.b64, a.type, a.b64, e.type, e.b64);
	t2 = xasprintf(HOST " %s %s\n" HOST " %s %s\n[" HOST "]:2 %s %s\n",
	    b.type, b.b64, r.type, r.b64, r.type, r.b64);
	files[0] = tk_write(t, "kh1", t1);
	files[1] = tk_write(t, "kh2", t2);
	assert_int_equal(knownhosts_types(files, 2, "EXAMPLE.com", 22,
	    &types), 0);
	assert_string_equal(types[0], "ecdsa-sha2-nistp256");
	assert_string_equal(types[1], "ssh-ed25519");
	assert_string_equal(types[2], "ssh-rsa");
	assert_null(types[3]);
	knownhosts_types_free(types);
	assert_int_equal(knownhosts_types(files, 2, HOST, 2, &types), 0);
	assert_string_equal(types[0], "ssh-rsa");
	assert_null(types[1]);
	knownhosts_types_free(types);
	assert_int_equal(knownhosts_types(files, 1, "example.net", 22,
	    &types), 0);
	assert_null(types[0]);
	knownhosts_types_free(types);
	knownhosts_types_free(NULL);
	free(t1);
	free(t2);
	free(files[0]);
	free(files[1]);
	tk_key_free(&a);
	tk_key_free(&b);
	tk_key_free(&e);
	tk_key_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
#define T(f) cmocka_unit_test_setup_teardown(f, tk_setup, tk_teardown)
		T(test_plain_match),
		T(test_port),
		T(test_port_default),
		T(test_case_insensitive),
		T(test_hashed_keygen),
		T(test_add_hashed),
		T(test_wildcard),
		T(test_negated),
		T(test_type_isolation),
		T(test_changed),
		T(test_match_beats_changed),
		T(test_revoked),
		T(test_cert_authority),
		T(test_multiple_files),
		T(test_missing_file),
		T(test_unreadable_file),
		T(test_check_bad_args),
		T(test_malformed_skipped),
		T(test_malformed_no_conflict),
		T(test_crlf_no_final_newline),
		T(test_key_type),
		T(test_fingerprint),
		T(test_add_creates),
		T(test_add_newline),
		T(test_add_bad_host),
		T(test_types),
#undef T
	};

	knownhosts_where_clear(NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
