/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Strict checks of a JSON-RPC params object and the worker argv built
 * from it, for rpc_methods.c.  The first failure sticks: later calls do
 * nothing and return -1, and rp->msg says what was wrong with which
 * parameter.
 */
#ifndef CLAW_RPC_PARAMS_H
#define CLAW_RPC_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "names.h"

#define RP_SEEN_MAX	48

/* String flags. */
#define RP_REQUIRED	0x01	/* absent is an error */
#define RP_NONEMPTY	0x02	/* "" is an error */
#define RP_TEXT		0x04	/* any characters (file text, stdin) */
#define RP_NODASH	0x08	/* may not start with '-' */
#define RP_WORD		0x10	/* no white space either */

struct rpc_params {
	const cJSON	 *params;	/* the object, or NULL when absent */
	const char	 *seen[RP_SEEN_MAX];
	size_t		  nseen;
	char		**argv;
	int		  argc;
	size_t		  argvbytes;
	char		 *msg;		/* set on the first failure */
};

/* Start checking params (NULL: none given); -1 if not an object. */
int	rp_init(struct rpc_params *rp, const cJSON *params);

/* Fail with a message (the first one is kept); returns -1. */
int	rp_fail(struct rpc_params *rp, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* Mark key as known and return its value, or NULL if absent. */
const cJSON *rp_get(struct rpc_params *rp, const char *key);

/* A string param; *out is NULL when absent.  0 or -1. */
int	rp_string(struct rpc_params *rp, const char *key, int flags,
	    size_t max, const char **out);

/* An integer param in [lo, hi]; *present says if it was given. */
int	rp_int(struct rpc_params *rp, const char *key, int64_t lo, int64_t hi,
	    int64_t *out, int *present);

/* A boolean param; *out is 0 when absent. */
int	rp_bool(struct rpc_params *rp, const char *key, int *out);

/* A string param that must be one of the names in t. */
int	rp_enum(struct rpc_params *rp, const char *key,
	    const struct names *t, const char **out);

/*
 * Bytes given as key (a string) or key_base64 (base64), not both; *out
 * allocated (NULL when neither is given).
 */
int	rp_data(struct rpc_params *rp, const char *key, const char *key_b64,
	    char **out, size_t *outlen);

/* Refuse members not asked for and repeated members.  0 or -1. */
int	rp_finish(struct rpc_params *rp);

/* Append an argument (a copy) to the worker argv, within the limits. */
int	rp_arg(struct rpc_params *rp, const char *arg);
int	rp_argf(struct rpc_params *rp, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* Free what rp holds (argv and message). */
void	rp_free(struct rpc_params *rp);

#endif /* CLAW_RPC_PARAMS_H */
