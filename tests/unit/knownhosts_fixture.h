/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the known_hosts unit tests: a scratch directory per test, keys
 * made by OpenSSH's own ssh-keygen, and small file helpers.  Helpers fail the
 * running cmocka test on error.
 */
#ifndef CLAW_KNOWNHOSTS_FIXTURE_H
#define CLAW_KNOWNHOSTS_FIXTURE_H

#include <stddef.h>

#include "knownhosts.h"

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

/* cmocka setup and teardown: make, then remove, a struct tk in *state. */
int	 tk_setup(void **);
int	 tk_teardown(void **);

/* Return DIR/name (allocated). */
char	*tk_path(const struct tk *, const char *);

/* Run argv without a shell; return its exit status, stdout in *out. */
int	 tk_run(const char *const [], char **);

/* Read a whole file (text, no NULs) into an allocated string. */
char	*tk_read(const char *);

/* Write len bytes, or a string, to DIR/name; return the path (allocated). */
char	*tk_write_len(const struct tk *, const char *, const char *, size_t);
char	*tk_write(const struct tk *, const char *, const char *);

/* Generate a key of kind ("ed25519", "ecdsa", "rsa") as DIR/name. */
void	 tk_keygen(const struct tk *, const char *, const char *,
	    struct tk_key *);

/* Free what tk_keygen made. */
void	 tk_key_free(struct tk_key *);

/* Check k for host:port against one file; return knownhosts_check's code. */
int	 tk_check(char *, const char *, int, const struct tk_key *,
	    struct knownhosts_where *);

#endif /* CLAW_KNOWNHOSTS_FIXTURE_H */
