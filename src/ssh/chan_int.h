/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside chan.c: a channel is one of three kinds, each a table of
 * operations (the transport as an interface, issue 20 part 2): a libssh2
 * channel of this process's own session (chan_ssh.c), a channel through
 * the daemon (chan_mux.c), or a local /bin/sh for tests and for work on
 * this machine (chan_local.c).  chan.c dispatches; the callers of chan.h
 * never know which.
 */
#ifndef CLAW_CHAN_INT_H
#define CLAW_CHAN_INT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>


#include "chan.h"

struct chan_local;
struct mux_chan;
struct sshchan;

/*
 * What each kind does; the meanings are chan.h's.  pending, started and
 * set_pgid may be NULL: nothing buffered here, started once opened, no
 * process group to keep.
 */
struct chan_ops {
	ssize_t	(*read)(struct chan *, int, char *, size_t, char **);
	ssize_t	(*write)(struct chan *, const char *, size_t, char **);
	int	(*send_eof)(struct chan *, char **);
	int	(*eof)(struct chan *);
	int	(*pending)(struct chan *);
	int	(*wait_closed)(struct chan *, char **);
	void	(*exit)(struct chan *, int *, char **);
	int	(*resize)(struct chan *, unsigned, unsigned, char **);
	int	(*signal)(struct chan *, int, char **);
	int	(*started)(struct chan *);
	void	(*set_pgid)(struct chan *, long, const char *);
	void	(*free)(struct chan *);	/* the kind's part, not c */
};

struct chan {
	const struct chan_ops	*ops;
	struct transport	*t;
	struct sshchan		*sc;	/* chan_ssh.c */
	struct mux_chan		*mc;	/* chan_mux.c */
	struct chan_local	*lc;	/* chan_local.c */
};

extern const struct chan_ops chan_ssh_ops;
extern const struct chan_ops chan_mux_ops;
extern const struct chan_ops chan_local_ops;

/*
 * Start command on c (ops, t set) through each kind: 0, or a negative
 * CLAW_ERR_* with *cause.
 */
int	chan_ssh_start(struct chan *c, const char *command,
	    const struct pty_req *pty, int64_t deadline, char **cause);
int	chan_mux_start(struct chan *c, const char *command, const char *nonce,
	    const struct pty_req *pty, char **cause);
int	chan_mux_start_agent(struct chan *c, const char *agent,
	    const void *frame, size_t len, char **cause);
int	chan_local_start(struct chan *c, const char *command,
	    const struct pty_req *pty, char **cause);

#endif /* CLAW_CHAN_INT_H */
