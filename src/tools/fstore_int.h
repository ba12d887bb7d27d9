/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the fstore source files share: the store itself and the two
 * implementations behind the calls of fstore.h.
 */
#ifndef CLAW_FSTORE_INT_H
#define CLAW_FSTORE_INT_H

#include "fstore.h"
#include "hostws.h"

struct fstore_stage;

struct fstore {
	struct pathguard	*pg;	/* local: not NULL */
	struct fstore_stage	*stage;	/* staged: not NULL */
	struct transport	*t;	/* remote */
	struct hostws		 hw;	/* where its steps run */
	int			 timeout;	/* seconds a call; 0: none */
};

int	fstore_local_read(struct fstore *, const char *, uint64_t, uint64_t,
	    struct buf *, unsigned *, char **);
int	fstore_local_stat(struct fstore *, const char *, struct fstore_stat *,
	    char **);
int	fstore_local_list(struct fstore *, const char *,
	    struct fstore_entry **, size_t *, char **);
int	fstore_local_commit(struct fstore *, const struct fstore_change *,
	    size_t, char **);

int	fstore_remote_read(struct fstore *, const char *, uint64_t, uint64_t,
	    struct buf *, unsigned *, char **);
int	fstore_remote_stat(struct fstore *, const char *,
	    struct fstore_stat *, char **);
int	fstore_remote_list(struct fstore *, const char *,
	    struct fstore_entry **, size_t *, char **);
int	fstore_remote_commit(struct fstore *, const struct fstore_change *,
	    size_t, char **);

/* Sort entries by name. */
void	fstore_sort(struct fstore_entry *e, size_t n);

/* fstore_staged.c */
int	fstore_staged_read(struct fstore *, const char *, uint64_t, uint64_t,
	    struct buf *, unsigned *, char **);
int	fstore_staged_commit(struct fstore *, const struct fstore_change *,
	    size_t, char **);
void	fstore_staged_free(struct fstore_stage *);

#endif /* CLAW_FSTORE_INT_H */
