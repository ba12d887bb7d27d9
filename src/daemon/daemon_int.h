/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inside the daemon: clients of the control socket, hosts with their pool
 * of SSH sessions, and the channels that run on them.  Everything here is
 * owned by the one thread that runs the poll loop; connector threads only
 * ever hand a finished transport back through the wake pipe.
 */
#ifndef CLAW_DAEMON_INT_H
#define CLAW_DAEMON_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include <poll.h>

#include <stdint.h>


#include <cjson/cJSON.h>

#include "buf.h"
#include "contain.h"
#include "remote_cmd.h"
#include "rpc_methods.h"
#include "sshchan.h"

struct audit;
struct claw_policy;
struct daemon;
struct dagent;
struct dareq;
struct dclient;
struct dfs_patch;
struct dproc;
struct mcp_spill;
struct mcp_spills;
struct dhost;
struct djournal;
struct claw_env;
struct droute;
struct dwatch;
struct jsonrpc_framer;
struct mux_frame;
struct pty_req;
struct sshconfig;
struct transport;

#define DCLIENT_OUT_MAX	(1024 * 1024)	/* stop reading channels above */
#define DCHAN_IN_MAX	(1024 * 1024)	/* stop reading the client above */

enum dchan_state {
	DCHAN_QUEUED = 0,	/* waiting for a session with room */
	DCHAN_STARTING,		/* open, terminal, exec (ch->sc) */
	DCHAN_RUNNING,
	DCHAN_FREEING,		/* sshchan_free in progress */
	DCHAN_DONE		/* ended; waiting for the client's CLOSE */
};

struct dchan {
	TAILQ_ENTRY(dchan)	 hentry;	/* host queue or conn list */
	TAILQ_ENTRY(dchan)	 centry;	/* the client's channels */
	struct dclient		*client;	/* NULL: the daemon's own */
	struct dhost		*host;
	struct dconn		*conn;		/* NULL while queued */
	uint32_t		 id;
	enum dchan_state	 state;
	char			*command;
	struct sshchan		 sc;		/* the libssh2 channel */
	struct buf		 in;		/* stdin waiting */
	int			 in_eof;
	int			 eof_sent;
	int			 eof_told;	/* EOF sent to the client */
	long			 pgid;		/* remote process group */
	char			 ident[REMOTE_IDENT_MAX]; /* its leader's */
	char			 nonce[REMOTE_CMD_NONCE_LEN + 1];
	struct buf		 head;		/* stdout up to the marker */
	int			 marker_done;	/* seen, or never coming */
	int			 abandoned;	/* nobody reads it any more */
	int64_t			 kill_by;	/* abandoned: marker deadline */
	struct dwatch		*watch;		/* a change watcher's channel */
	struct dagent		*agent;		/* a host agent's channel */
	struct dcall		*call;		/* a process call's step */
	struct pty_req		*pty;		/* asked for a terminal */
	unsigned		 win_cols;	/* a new size to send */
	unsigned		 win_rows;
	int			 win_pending;
	int			 refused;	/* opens refused, session near full */
};
TAILQ_HEAD(dchan_list, dchan);

enum dconn_state {
	DCONN_CONNECTING = 0,
	DCONN_UP,
	DCONN_DEAD
};

struct dconn {
	TAILQ_ENTRY(dconn)	 entry;
	struct dhost		*host;
	enum dconn_state	 state;
	struct transport	*t;
	struct dchan_list	 chans;
	int			 nchan;
	int			 cap;		/* channels it takes */
	struct dchan		*opening;	/* one open at a time */
	int			 got_data;
	int64_t			 next_alive;	/* keepalive due */
	int64_t			 full_until;	/* no opens before (monotonic ms) */
	uint64_t		 rx_seen;	/* transport_rx_bytes at step */
};
TAILQ_HEAD(dconn_list, dconn);

struct dhost {
	TAILQ_ENTRY(dhost)	 entry;
	struct daemon		*d;
	char			*key;		/* canonical settings */
	struct sshconfig	*sc;
	char			*passphrase_file;
	char			*label;
	struct dconn_list	 conns;
	struct dchan_list	 queue;
	TAILQ_HEAD(, dagent)	 agents;	/* daemon_agent.c */
	int			 nclients;
	int			 fails;		/* connects failed in a row */
	int64_t			 retry_at;	/* no connect before */
	char			*last_error;
};
TAILQ_HEAD(dhost_list, dhost);

/* One JSON-RPC or MCP tool call: a worker process and its pipes. */
struct dcall {
	TAILQ_ENTRY(dcall)	 entry;		/* the daemon's calls */
	TAILQ_ENTRY(dcall)	 centry;	/* its client's calls */
	struct daemon		*d;
	struct dclient		*client;	/* NULL once it left */
	cJSON			*id;
	char			*method;
	int			 mcp;		/* answer as MCP tools/call */
	int			 mcp_flags;	/* MCP_CALL_* */
	struct mcp_spill	*spill;		/* MCP exec: its output */
	cJSON			*progress;	/* MCP: _meta.progressToken */
	int64_t			 progress_at;	/* last notification, ms */
	int			 cancelled;	/* notifications/cancelled */
	struct rpc_call		 rc;
	pid_t			 pid;		/* 0: waiting for a worker slot */
	int			 in_fd;		/* -1 once all was written */
	int			 out_fd;	/* -1 at EOF */
	int			 err_fd;
	size_t			 in_off;
	struct buf		 out;		/* collected stdout */
	struct buf		 err;		/* stderr (its tail) */
	uint64_t		 bytes_out;
	int64_t			 start;		/* monotonic ms */
	int64_t			 start_wall;	/* epoch ms, for audit */
	uint64_t		 deaths;	/* sessions dead at start */
	int			 retried;
	int			 overflow;
	/* in the daemon itself (daemon_route.c), not a worker: */
	struct dareq		*areq;		/* its command on the agent */
	int			 learn;		/* a worker learning a route */
	int			 timeout_s;	/* 0: none */
	int64_t			 deadline;	/* timeout, monotonic ms */
	int64_t			 kill_at;	/* TERM sent: KILL then */
	int64_t			 give_up_at;	/* KILL sent: stop waiting */
	int			 timed_out;
	struct contain_limits	 limits;	/* for the note at its end */
	char			*fs_label;	/* a file tool's step: the host */
	struct buf		 fs_in;		/* ... and its stdin */
	int			 fs_phase;	/* DFS_EDIT_*, 0: one step */
	size_t			 fs_count;	/* an edit's replacements */
	struct dfs_patch	*fs_patch;	/* a patch's files, stage */
	struct dproc		*proc;		/* a process call's step */
};
TAILQ_HEAD(dcall_list, dcall);

enum dclient_kind {
	DCLIENT_NEW = 0,	/* nothing read yet */
	DCLIENT_MUX,		/* control protocol */
	DCLIENT_RPC		/* JSON-RPC lines */
};

struct dclient {
	TAILQ_ENTRY(dclient)	 entry;
	struct daemon		*d;
	int			 fd;		/* read (and, on a socket, write) */
	int			 wfd;		/* write */
	int			 stdio;		/* EOF: finish, then the daemon ends */
	int			 rclosed;	/* no more requests */
	int			 mcp;		/* MCP, not plain JSON-RPC */
	char			*agent;		/* for policy and audit */
	char			*sandbox;	/* MCP: the bound sandbox */
	struct mcp_spills	*spills;	/* MCP: outputs over the cap */
	struct jsonrpc_framer	*framer;
	struct dcall_list	 calls;
	enum dclient_kind	 kind;
	struct buf		 in;
	struct buf		 out;
	struct dhost		*host;		/* after HELLO */
	int			 ready;		/* READY sent */
	struct dchan_list	 chans;
	TAILQ_HEAD(, dareq)	 areqs;		/* OPEN_AGENT commands */
	int			 dead;
	pid_t			 pid;		/* peer, for logs */
};
TAILQ_HEAD(dclient_list, dclient);

struct daemon {
	int			 lfd;
	int			 lockfd;	/* PATH.lock, held (flock) */
	char			*path;
	int			 wake[2];	/* connector threads */
	int			 connecting;	/* of them, still running */
	struct dclient_list	 clients;
	struct dhost_list	 hosts;
	int			 idle_ms;
	int			 max_sessions;
	int			 max_conns;
	int64_t			 idle_since;
	int			 again;		/* progress: poll without waiting */
	int			 quit;
	struct dcall_list	 calls;
	const struct claw_policy *policy;
	struct audit		*audit;
	size_t			 max_line;	/* JSON-RPC line cap */
	size_t			 mcp_max_result; /* MCP result cap */
	uint64_t		 deaths;	/* sessions that died so far */
	int			 nworkers;	/* calls with a worker running */
	int			 max_workers;
	const char		*config;	/* --config for workers, or NULL */
	struct djournal		*journal;	/* change journals, lazily */
	TAILQ_HEAD(, dwatch)	 watches;	/* change watchers on hosts */
	TAILQ_HEAD(, droute)	 routes;	/* daemon_route.c */
	int64_t			 started;	/* monotonic ms */
	uint64_t		 nchannels;	/* commands run for clients */
	uint64_t		 ncalls;	/* JSON-RPC calls taken */
};

/*
 * daemon.c: the answer to "daemon.status" (pid, socket, uptime, clients,
 * hosts with live sessions, counts) or "daemon.stop" (the daemon ends
 * once this turn's answers are flushed); NULL for another method.
 */
cJSON	*daemon_control(struct daemon *, const char *method);

/* daemon_client.c */
void	dclient_accept(struct daemon *);
void	dclient_read(struct dclient *, int hup);
void	dclient_flush(struct dclient *);
void	dclient_free(struct dclient *);
int	dclient_paused(struct dclient *);

/* daemon_rpc.c */
void	drpc_read(struct dclient *);
void	drpc_gone(struct dclient *);
/*
 * At the daemon's end: stop the calls still running (a client's that went
 * away, a route being learnt) and free them; their workers are not waited
 * for.
 */
void	drpc_end(struct daemon *);
void	drpc_finish(struct dcall *, int status);
/* MCP: a progress notification for a call that asked (1 a second). */
void	drpc_progress(struct dcall *);
struct dclient	*drpc_stdio(struct daemon *, int mcp, const char *agent,
		    const char *sandbox);

/* A set of paths taken by a sync, unsorted until handed over. */
struct djset {
	char	**v;
	size_t	  n, cap;
	char	 *why;		/* set: a full scan is needed */
};

/* A change set handed to commands: pending, and held by one until JACK. */
struct djtrack {
	struct djset	 pending;	/* changed, not yet taken */
	struct djset	 held;		/* taken, not yet synced */
	struct dclient	*holder;	/* who took held */
};

/* daemon_set.c */
void	djset_add(struct djset *, const char *path);
void	djset_full(struct djset *, const char *why);	/* first stays */
void	djset_move(struct djset *to, struct djset *from);
void	djset_clear(struct djset *);
void	djset_uniq(struct djset *);			/* sort, dedupe */
/* Answer with s in a frame of type: "P" and paths, or "F" and why. */
void	djset_answer(struct dclient *, int type, struct djset *s);
void	djset_answer_why(struct dclient *, int type, const char *why);
/* Answer with the pending set (djset_answer) and hold it for cl. */
void	djtrack_give(struct djtrack *, struct dclient *cl, int type);
/* Add taken (emptied) to what cl holds. */
void	djtrack_hold(struct djtrack *, struct dclient *cl,
	    struct djset *taken);
/* cl's JACK (synced 1) or cl gone (0): forget or give back what it held. */
void	djtrack_settle(struct djtrack *, struct dclient *cl, int synced);
void	djtrack_clear(struct djtrack *);

/* daemon_journal.c */
void	djournal_take(struct dclient *, const struct mux_frame *);
void	djournal_ack(struct dclient *);
void	djournal_gone(struct dclient *);
void	djournal_free(struct daemon *);

/* daemon_watch.c */
void	dwatch_take(struct dclient *, const struct mux_frame *);
/* Output of a watcher channel (ch->watch set): stream 0 or 1. */
void	dwatch_output(struct dchan *ch, int stream, const char *p, size_t n);
/* A watcher channel is being released. */
void	dwatch_chan_gone(struct dwatch *);
/* JACK (synced 1) or the client leaving (0). */
void	dwatch_settle(struct dclient *, int synced);
void	dwatch_free_all(struct daemon *);

/* daemon_agent.c: commands through the host agent's channel */
/* OPEN_AGENT: NULL, or what is wrong with the frame (drop the client). */
const char	*dagent_open(struct dclient *, const struct mux_frame *);
/* The client's agent command on channel number chan, or NULL. */
struct dareq	*dareq_find(struct dclient *, uint32_t chan);
/* DATA, EOF, SIGNAL, CLOSE for an agent command: 1 taken, 0 not one. */
int	dagent_client_frame(struct dclient *, const struct mux_frame *);
void	dareq_abandon(struct dareq *);
void	dagent_client_gone(struct dclient *);
int	dagent_client_paused(struct dclient *);
/* The agent's channel: output (stream 0 stdout, 1 stderr), its end. */
void	dagent_output(struct dagent *, int stream, const char *p, size_t n);
void	dagent_chan_gone(struct dagent *);
int	dagent_blocked(struct dagent *);
int	dagent_busy(struct dagent *);

/*
 * How many host agents, and change watchers, of h hold a channel: the
 * long-lived channels, which together always leave one of the host's
 * pool for ordinary commands.
 */
int	dagent_live(const struct dhost *h);
int	dwatch_live(const struct dhost *h);
void	dagent_free_all(struct dhost *);

/*
 * In-process commands: c's EXEC frame (its id patched) on h's agent at
 * path: the request, or NULL when that agent is not up (no channel, or
 * no HELLO yet).  Its replies come to droute_started, dcall_output,
 * droute_exit and droute_failed.
 */
struct dareq	*dagent_call(struct dhost *h, const char *path,
		    struct dcall *c, const struct buf *frame);
/* Whether h's agent at path said HELLO with capability cap (MSG_CAP_*). */
int	dagent_has(struct dhost *h, const char *path, int cap);
/* Signal its command; send p (n bytes) as its stdin, then EOF. */
void	dareq_signal(struct dareq *, int sig);
void	dareq_stdin(struct dareq *, const char *p, size_t n);

/* daemon_route.c: JSON-RPC/MCP execs run in the daemon itself */
/* Run c on its sandbox's host agent channel: 1 started, 0 not (worker). */
int	droute_exec(struct dcall *c);
/* c is a route-learning worker that ended with status: keep what it said. */
void	droute_learned(struct dcall *c, int status);
void	droute_started(struct dcall *c);
void	droute_exit(struct dcall *c, int status);
/* The agent refused (started 0: the worker runs it) or dropped it. */
void	droute_failed(struct dcall *c, int started, const char *why);
/*
 * Hand c, which did not start, to a worker, saying why at -v; drop: its
 * route is wrong (forget it).  0 when no worker may (the daemon quits,
 * the client left, the call was cancelled).
 */
int	droute_to_worker(struct dcall *c, const char *why, int drop);
/* Stop c's command: TERM, KILL after EXEC_TERM_KILL_MS. */
void	droute_kill(struct dcall *c);
/*
 * The route for c's sandbox, fresh; NULL when there is none yet (it is
 * learnt in the background when there is none or it is stale).
 */
struct droute *droute_lookup(struct dcall *c);
/*
 * The local workspace that r's file tools act on (a mirror sandbox's),
 * or NULL: they act on the host's copy.  *ro: it is read-only.
 */
const char *droute_fs_local(const struct droute *r, int *ro);
/*
 * Run a file tool's step in r's sandbox's running environment on the
 * host agent's channel: argv (sh -c BODY, or with self the agent's own
 * command, clawssh-agent fs-read ...), within timeout_s seconds (0:
 * none), with c as its sink (c->fs_label set) and c->fs_in as its
 * stdin: 1 sent, 0 not (the tools act elsewhere, or the agent is not
 * up).
 */
int	droute_fs_step(struct dcall *c, struct droute *r, char *const *argv,
	    int self, int timeout_s);
/*
 * What a process call needs of r: the host's label, the sandbox's
 * directory there and the host agent's path (all r's); the host, or
 * NULL when the daemon has no session to it now.
 */
struct dhost	*droute_proc_at(struct dcall *c, const struct droute *r,
		    const char **label, const char **sd, const char **agent);
/*
 * What a process.start (c) needs of r to start its command in the
 * sandbox's running environment: the command as box-exec --join runs it
 * there, the sh that checks the environment is up (exit 75 if not), the
 * variables (c's, then the route's exec.env: pointers into c and r) and
 * the host's workspace.  droute_proc_box: 0, or -1 when a worker must (a
 * mirror sandbox pushes first).
 */
struct droute_box {
	char		**argv;
	int		  argc;
	char		 *check;
	struct claw_env	 *env;
	size_t		  nenv;
	char		 *workspace;
};
int	droute_proc_box(struct dcall *c, const struct droute *r,
	    struct droute_box *b);
void	droute_box_clear(struct droute_box *b);
/* clawssh stop's script for r's sandbox (box_stop.h), allocated. */
char	*droute_stop_script(const struct droute *r);
/* Whether r's host agent is up and runs its own steps (fs-read). */
int	droute_agent_self(struct dcall *c, const struct droute *r);
/* Timeouts and kills due; the next one's time (monotonic ms). */
void	droute_tick(struct daemon *);
int64_t	droute_next_event(struct daemon *);
void	droute_free_all(struct daemon *);

/* daemon_fs.c: file tools on a local copy, in the daemon */
/* Answer c (and free it) or start its step: 1, or 0 when a worker must. */
int	dfs_call(struct dcall *c);
/* c's step ended with status (124: timed out), or the agent dropped it. */
void	dfs_step_exit(struct dcall *c, int status);
/* Free c->fs_patch (a remote fs.applyPatch's state); NULL is fine. */
void	dfs_patch_free(struct dfs_patch *);
void	dfs_step_failed(struct dcall *c, const char *why);

/*
 * daemon_proc.c: process calls (poll, list, ...) and sandbox.stop made
 * by the daemon
 */
/* Start c's step on its sandbox's host: 1, or 0 when a worker must. */
int	dproc_call(struct dcall *c);
/* The same for a sandbox.stop (c->rc.stop). */
int	dproc_stop(struct dcall *c);
/* Output of its step's channel (stream 0 stdout, 1 stderr). */
void	dproc_output(struct dcall *c, int stream, const char *p, size_t n);
/* The step ended: its exit status, or the signal that ended it. */
void	dproc_exit(struct dcall *c, int status, const char *sig);
/* The step's channel failed (why) before it ended. */
void	dproc_failed(struct dcall *c, const char *why);
/*
 * Stop c's step: its channel abandoned (a cancelled call; its caller
 * finishes it).  dproc_free does that and frees the step.
 */
void	dproc_kill(struct dcall *c);
void	dproc_free(struct dcall *c);

/* daemon_call.c */
int	dcall_start(struct dcall *, const char *sockpath, char **cause);
/* Pass output on: a notification, or the collected result. */
void	dcall_output(struct dcall *, int stream, const char *p, size_t n);
size_t	dcall_pollfds(struct daemon *, struct pollfd *);
void	dcall_io(struct daemon *, const struct pollfd *, size_t n);
void	dcall_kill(struct dcall *);
void	drpc_start_pending(struct daemon *);

/* daemon_host.c */
struct dhost	*dhost_get(struct daemon *, const char *key,
		    struct sshconfig *sc, const char *passphrase_file);
void	dhost_attach(struct dhost *, struct dclient *);
void	dhost_detach(struct dhost *, struct dclient *);
void	dhost_free(struct dhost *);
struct dchan	*dchan_new(struct dhost *, struct dclient *, uint32_t id,
		    const char *command, const struct pty_req *pty);
void	dchan_abandon(struct dchan *);
void	dchan_release(struct dchan *);
void	dhost_schedule(struct dhost *);
void	dhost_step(struct dhost *);
void	dhost_reap(struct dhost *);
void	daemon_connected(struct daemon *);
/*
 * At the end: wait at most ms for the connector threads still running,
 * dropping what they bring, so that none is inside libssh2 or OpenSSL
 * while the process exits (its atexit clean-up freed what a handshake
 * used: serve --stdio died of SIGSEGV).  0, or CLAW_ERR_TIMEOUT (or
 * poll's error) if some still run.
 */
int	daemon_connectors_end(struct daemon *, int ms);
int	dhost_busy(struct dhost *);
int64_t	dhost_next_event(struct dhost *);

#endif /* CLAW_DAEMON_INT_H */
