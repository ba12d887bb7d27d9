/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A JSON-RPC params object checked against its operation (ops.h: the
 * types, ranges and names live in the operations table, not here), and
 * the worker argv built from it, for rpc_methods.c.  The getters read
 * values ops_check has passed; asking for a parameter the table does not
 * declare is a bug (abort).  The first failure sticks: later calls do
 * nothing and return its code again, rp->err keeps that code
 * (CLAW_ERR_INVAL, or CLAW_ERR_RANGE for a worker argv over its limits;
 * 0 until a failure), and rp->msg says what was wrong with which
 * parameter.  The int functions below return 0 or that code.
 */
#ifndef CLAW_RPC_PARAMS_H
#define CLAW_RPC_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "ops.h"

#define RP_SEEN_MAX	48

struct rpc_params {
	const struct op_entry *op;	/* the method's operation */
	const cJSON	 *params;	/* the object, or NULL when absent */
	const char	 *seen[RP_SEEN_MAX];
	size_t		  nseen;
	char		**argv;
	int		  argc;
	size_t		  argvbytes;
	char		 *msg;		/* set on the first failure */
	int		  err;		/* its CLAW_ERR_* code, or 0 */
};

/* Check params (NULL: none given) against op; 0 or CLAW_ERR_INVAL. */
int	rp_init(struct rpc_params *rp, const struct op_entry *op,
	    const cJSON *params);

/*
 * Fail with a message (the first one is kept); returns the first
 * failure's code (CLAW_ERR_INVAL if this is the first).
 */
int	rp_fail(struct rpc_params *rp, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* Mark key as read and return its value, or NULL if absent. */
const cJSON *rp_get(struct rpc_params *rp, const char *key);

/* A string param; *out is NULL when absent. */
int	rp_string(struct rpc_params *rp, const char *key, const char **out);

/* An integer param; *present says if it was given. */
int	rp_int(struct rpc_params *rp, const char *key, int64_t *out,
	    int *present);

/* A boolean param; *out is 0 when absent. */
int	rp_bool(struct rpc_params *rp, const char *key, int *out);

/* An enum param: *out is the table's own name, or NULL when absent. */
int	rp_enum(struct rpc_params *rp, const char *key, const char **out);

/*
 * Bytes given as key (a string) or key_base64 (base64); *out allocated
 * (NULL when neither is given).
 */
int	rp_data(struct rpc_params *rp, const char *key, char **out,
	    size_t *outlen);

/* Refuse members not asked for and repeated members. */
int	rp_finish(struct rpc_params *rp);

/*
 * Append an argument (a copy) to the worker argv; CLAW_ERR_RANGE past
 * the limits.
 */
int	rp_arg(struct rpc_params *rp, const char *arg);
int	rp_argf(struct rpc_params *rp, const char *fmt, ...)
	    __attribute__((__format__(__printf__, 2, 3)));

/* Free what rp holds (argv and message). */
void	rp_free(struct rpc_params *rp);

#endif /* CLAW_RPC_PARAMS_H */
