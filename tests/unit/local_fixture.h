/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fixture of the tests over the local transport (transport_local):
 * a fresh directory under /tmp with two named subdirectories (a local
 * side and a "host" side), the transport, and small helpers.
 */
#ifndef CLAW_TEST_LOCAL_FIXTURE_H
#define CLAW_TEST_LOCAL_FIXTURE_H

#include "hostws.h"

struct CMUnitTest;

struct pathguard;
struct transport;

struct local_fx {
	char			 top[64];
	char			 a[128];	/* top/A, made ("": none) */
	char			 b[128];	/* top/B, made ("": none) */
	struct transport	*t;
};

/* The sync tests' fixture: a is the local workspace, b the host's. */
struct local_sync {
	struct local_fx		 lx;
	struct pathguard	*pg;		/* on lx.a */
	struct hostws		 hw;		/* lx.b, no jail */
};

/* Make /tmp/name.XXXXXX, top/a and top/b (0755), and the transport. */
void	local_fx_init(struct local_fx *f, const char *name, const char *a,
	    const char *b);

/* Free the transport and remove the directory. */
void	local_fx_free(struct local_fx *f);

/* local_fx_init with "local" and "host", then the pathguard and hostws. */
void	local_sync_init(struct local_sync *s, const char *name);
void	local_sync_free(struct local_sync *s);

/* Run cmd under sh in dir; the test fails if it fails. */
void	local_sh(const char *dir, const char *cmd);

/* Whether dir/rel holds exactly text (NULL: that it does not exist). */
int	local_holds(const char *dir, const char *rel, const char *text);

/*
 * Run the group tests[0..n) once under each shell a host may have as its
 * sh (/bin/sh, dash, bash, where installed), the local transport's
 * commands run by it (CLAWSSH_LOCAL_SH): the host scripts of src/host
 * under each.  The failures summed.
 */
int	local_each_shell(const char *name, const struct CMUnitTest *tests,
	    size_t n);

#endif /* CLAW_TEST_LOCAL_FIXTURE_H */
