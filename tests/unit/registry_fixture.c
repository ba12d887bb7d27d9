/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture shared by the registry unit tests: a private temporary directory
 * per test, a valid record to store, and checks that fail the running test.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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
#include "registry.h"
#include "registry_fixture.h"
#include "sandbox.h"
#include "xmalloc.h"
#include "tmpdir.h"

#define HASH	"0123456789abcdef0123456789abcdef" \
		"0123456789abcdef0123456789abcdef"

/* Create the test's directory, a home inside it, and enter it. */
int
rf_setup(void **state)
{
	struct rf	*f;

	f = xcalloc(1, sizeof(*f));
	f->arg = *state;
	strlcpy(f->dir, "/tmp/test_registry.XXXXXX", sizeof(f->dir));
	if (mkdtemp(f->dir) == NULL) {
		free(f);
		return -1;
	}
	snprintf(f->state, sizeof(f->state), "%s/state", f->dir);
	snprintf(f->home, sizeof(f->home), "%s/home", f->dir);
	snprintf(f->sbdir, sizeof(f->sbdir), "%s/sandboxes", f->state);
	snprintf(f->path_a, sizeof(f->path_a), "%s/%s.json", f->sbdir, ID_A);
	if (mkdir(f->home, 0700) == -1 || chdir(f->dir) == -1)
		return -1;
	unsetenv("CLAWSSH_STATE_DIR");
	unsetenv("XDG_STATE_HOME");
	*state = f;
	return 0;
}

/* Close the registry and remove the test's directory. */
int
rf_teardown(void **state)
{
	struct rf	*f = *state;
	int		 r;

	registry_close(f->reg);
	unsetenv("CLAWSSH_STATE_DIR");
	unsetenv("XDG_STATE_HOME");
	r = chdir("/");
	if (tmpdir_remove(f->dir) != 0)
		r = -1;
	free(f);
	return r == 0 ? 0 : -1;
}

/* Write len bytes of data to path, replacing it. */
void
rf_write_file(const char *path, const char *data, size_t len)
{
	int	fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	assert_true(fd != -1);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	assert_int_equal(close(fd), 0);
}

/* Check a failure: r is want and *cause (then freed) holds fragment. */
void
rf_check_fail(int r, int want, char **cause, const char *fragment)
{
	assert_int_equal(r, want);
	assert_non_null(*cause);
	if (fragment != NULL && strstr(*cause, fragment) == NULL)
		fail_msg("cause \"%s\" lacks \"%s\"", *cause, fragment);
	free(*cause);
	*cause = NULL;
}

/* Open (or reopen) the registry at the fixture's state directory. */
struct registry *
rf_open(struct rf *f)
{
	char	*cause = NULL;

	registry_close(f->reg);
	f->reg = NULL;
	assert_int_equal(registry_open(f->state, NULL, &f->reg, &cause), 0);
	assert_null(cause);
	assert_non_null(f->reg);
	return f->reg;
}

/* Return a record for id with valid values, every field set. */
struct registry_record *
rf_make_record(const char *id)
{
	struct registry_record	*rec = xcalloc(1, sizeof(*rec));

	strlcpy(rec->id, id, sizeof(rec->id));
	rec->backend = xstrdup("ssh");
	rec->target = xstrdup("gpu-box");
	rec->ssh_config = xstrdup("/home/u/.ssh/config");
	rec->user = xstrdup("alice");
	rec->host = xstrdup("gpu.example.net");
	rec->port = 2222;
	rec->remote_root = xstrdup("/srv/clawssh");
	rec->scope = SANDBOX_SCOPE_AGENT;
	rec->key = xstrdup("agent-7");
	rec->settings.mode = SANDBOX_MODE_REMOTE;
	rec->settings.access = SANDBOX_ACCESS_RO;
	strlcpy(rec->settings.image, "ubuntu-22.04",
	    sizeof(rec->settings.image));
	strlcpy(rec->config_hash, HASH, sizeof(rec->config_hash));
	rec->workspace = xstrdup("/home/u/project");
	rec->created = 4102444800LL;	/* past 2^32 */
	return rec;
}

/* Store a valid record for id in reg. */
void
rf_put_record(struct registry *reg, const char *id)
{
	struct registry_record	*rec;
	char			*cause = NULL;

	rec = rf_make_record(id);
	assert_int_equal(registry_put(reg, rec, &cause), 0);
	assert_null(cause);
	registry_record_free(rec);
}

/* Load id from reg, expecting success. */
struct registry_record *
rf_get_record(struct registry *reg, const char *id)
{
	struct registry_record	*got = NULL;
	char			*cause = NULL;

	assert_int_equal(registry_get(reg, id, &got, &cause), 0);
	assert_null(cause);
	assert_non_null(got);
	return got;
}

/* Append an RF_TEST of fn per case, named by the case's first member. */
void
rf_add_cases(struct CMUnitTest *all, size_t *n, void (*fn)(void **),
    void *cases, size_t size, size_t count)
{
	char	*c = cases;
	size_t	 i;

	for (i = 0; i < count; i++, c += size) {
		all[*n] = (struct CMUnitTest)RF_TEST(fn);
		all[*n].name = *(const char **)(void *)c;
		all[(*n)++].initial_state = c;
	}
}
