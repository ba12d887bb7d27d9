/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the tests over the local transport; see local_fixture.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <limits.h>
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

#include "local_fixture.h"
#include "pathguard.h"
#include "tmpdir.h"
#include "transport.h"

/* Make the directories and the transport; see local_fixture.h. */
void
local_fx_init(struct local_fx *f, const char *name, const char *a,
    const char *b)
{
	char	*cause = NULL;

	memset(f, 0, sizeof *f);
	signal(SIGPIPE, SIG_IGN);
	snprintf(f->top, sizeof f->top, "/tmp/%s.XXXXXX", name);
	assert_non_null(mkdtemp(f->top));
	if (a != NULL) {
		snprintf(f->a, sizeof f->a, "%s/%s", f->top, a);
		assert_int_equal(mkdir(f->a, 0755), 0);
	}
	if (b != NULL) {
		snprintf(f->b, sizeof f->b, "%s/%s", f->top, b);
		assert_int_equal(mkdir(f->b, 0755), 0);
	}
	f->t = transport_local("local", &cause);
	if (f->t == NULL)
		fail_msg("transport_local: %s", cause);
}

/* Free; see local_fixture.h. */
void
local_fx_free(struct local_fx *f)
{
	transport_free(f->t);
	tmpdir_remove(f->top);
}

/* Run cmd in dir; see local_fixture.h. */
void
local_sh(const char *dir, const char *cmd)
{
	char	buf[2048];

	snprintf(buf, sizeof buf, "cd '%s' && %s", dir, cmd);
	assert_int_equal(system(buf), 0);
}

/* Whether dir/rel holds text; see local_fixture.h. */
int
local_holds(const char *dir, const char *rel, const char *text)
{
	char	 p[PATH_MAX], buf[256];
	FILE	*fp;
	size_t	 n;

	snprintf(p, sizeof p, "%s/%s", dir, rel);
	if ((fp = fopen(p, "r")) == NULL)
		return text == NULL;
	n = fread(buf, 1, sizeof buf - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	return text != NULL && strcmp(buf, text) == 0;
}

/* The sync fixture; see local_fixture.h. */
void
local_sync_init(struct local_sync *s, const char *name)
{
	char	*cause = NULL;

	local_fx_init(&s->lx, name, "local", "host");
	if (pathguard_open(s->lx.a, &s->pg, &cause) != 0)
		fail_msg("pathguard_open: %s", cause);
	hostws_init(&s->hw, s->lx.b, NULL);
}

/* Free the sync fixture; see local_fixture.h. */
void
local_sync_free(struct local_sync *s)
{
	hostws_clear(&s->hw);
	pathguard_close(s->pg);
	local_fx_free(&s->lx);
}

/* Each shell in turn; see local_fixture.h. */
int
local_each_shell(const char *name, const struct CMUnitTest *tests, size_t n)
{
	static const char *const shells[] = {
		"/bin/sh", "/bin/dash", "/bin/bash",
	};
	char	real[PATH_MAX], seen[3][PATH_MAX];
	size_t	i, j, nseen = 0;
	int	failed = 0, ran = 0;

	for (i = 0; i < sizeof shells / sizeof shells[0]; i++) {
		if (access(shells[i], X_OK) != 0 ||
		    realpath(shells[i], real) == NULL)
			continue;
		for (j = 0; j < nseen && strcmp(seen[j], real) != 0; j++)
			;
		if (j < nseen)
			continue;		/* /bin/sh is dash: once */
		memcpy(seen[nseen++], real, sizeof real);
		fprintf(stderr, "# under %s\n", shells[i]);
		setenv("CLAWSSH_LOCAL_SH", shells[i], 1);
		failed += _cmocka_run_group_tests(name, tests, n, NULL, NULL);
		ran++;
	}
	unsetenv("CLAWSSH_LOCAL_SH");
	return ran == 0 ? 1 : failed;
}
