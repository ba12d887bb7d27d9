/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bubblewrap runtime: the sh text that runs a sandbox's command inside
 * bwrap(1) on the host, with the image as a read-only root, the workspace
 * at /workspace per access, private /tmp, /proc and /dev, new namespaces
 * (no network unless the sandbox's network is host), no capabilities, no
 * new privileges, a cleared environment and the limits in force.
 */
#ifndef CLAW_CONTAIN_BWRAP_H
#define CLAW_CONTAIN_BWRAP_H

#include <stddef.h>
#include <stdint.h>

#include "contain.h"
#include "sandbox.h"

/* Where a command runs and what it may see. */
struct contain_spec {
	const struct sandbox_settings	*settings;
	const char			*root;	/* remoteRoot */
	const char			*id;	/* sandbox id (checked) */
	const char			*cwd;	/* inside (relative:
						   to the workdir), or
						   NULL */
	const char			*workdir; /* the workspace's
						   path inside besides
						   /workspace (checked,
						   sandbox_workdir_check),
						   or NULL */
	const char *const		*keep;	/* variable names kept */
	size_t				 nkeep;
	const struct contain_limits	*limits;	/* or NULL */
	int				 note_user;	/* say when the
							   user is not
							   switched */
	const char			*agent;	/* the host agent's
						   path, or NULL */
	int				 pty;	/* on a terminal */
	int				 pty_agent_only; /* the
						   terminal is the agent's
						   or none (a background
						   process): no fallback */
};

/*
 * Return (allocated) sh code for remote_cmd's wrap slot: it checks that
 * bwrap is installed (else exits 125 with a message naming the runtime),
 * unsets every exported variable except PATH, LANG, LC_*, TERM, TZ and
 * the names in keep (HOME becomes /tmp), and sets the positional
 * parameters to the bwrap command line (ending in "--"), wrapped in
 * prlimit(1) for the limits (memory as RLIMIT_AS, cpu, fsize, nofile;
 * processes through the sandbox's pids cgroup where one is writable,
 * else RLIMIT_NPROC), so that
 * 'exec "$@" ARGV' runs ARGV contained.  Every word from spec is
 * sh-quoted.
 *
 * With the host user root, bwrap itself runs as the sandbox's identity
 * (the user in the settings; by default the sandbox's own uid,
 * sandbox_default_uid; "root" keeps root) through setpriv(1) (--reuid, --regid, --clear-groups,
 * --no-new-privs: no capabilities, no privilege regained by exec, the
 * sandbox's files owned by that uid on the host); the bound directory is
 * given to it (chown -R when its top is not the user's yet, mode 0700) and the directories above it and the
 * image are made searchable (0711).  A user name is resolved on the host;
 * a missing user, or one that is uid 0, exits 125.  With another host
 * user nothing changes (with note_user, a note says so on stderr).
 */
char	*contain_bwrap_wrap(const struct contain_spec *spec);

/*
 * With spec->workdir (another path than /workspace), the workspace is
 * bound at both paths and commands start at the workdir.  Return
 * (allocated) the sh code that refuses, with a message on stderr and
 * exit status 125, a workdir bwrap could not make a mount point for in
 * the sandbox's view: with the host's root, one under a top-level
 * directory of the host that is bound read-only (not /home, /root, the
 * sandbox's own /proc, /dev, /tmp, /run, /workspace: those are bwrap's
 * tmpfs) when the host has no such directory; with an image, one the
 * image (bound read-only) lacks.  The wraps run it before bwrap;
 * provision runs it alone.  ":" when there is nothing to check.
 */
char	*contain_bwrap_workdir(const struct contain_spec *spec);

/*
 * Return (allocated) sh code for remote_cmd's wrap slot that runs the
 * command in the sandbox's persistent environment: when the host agent
 * (spec->agent) is there, `clawssh-agent box-exec' joins the holder of
 * <root>/<id>/run (starting it first, under a lock, with the start script
 * it gets in __claw_box_start: the bwrap of contain_bwrap_wrap without
 * --die-with-parent, run by `box-hold' as the sandbox's identity under
 * the limits in force; the workdir is part of it, and box-exec's working
 * directory is the workdir[/cwd]); the command then shares /tmp, HOME, loopback,
 * processes and limits with every other command of the sandbox.  When
 * the agent is gone, the code of contain_bwrap_wrap runs instead (a fresh
 * sandbox for this command, said on stderr with note_user).  spec->pty
 * runs the command on a terminal of the sandbox's own, relayed to the
 * wrapper's stdin and stdout (sshd's terminal, or a background process's
 * FIFO and log); with spec->pty_agent_only, a missing agent is an error
 * (exit 125), not a fallback without a terminal.  See docs/agent.md.
 */
char	*contain_bwrap_box(const struct contain_spec *spec);

/*
 * How a command reaches the persistent environment of contain_bwrap_box
 * without a shell on the host: the host agent's serve (docs/agent.md)
 * connects to the holder in dir, checks it runs the start script whose
 * token this is, and starts the command in cwd (absolute, inside).
 */
struct contain_route {
	char	*agent;		/* the agent's path (cmd_env_wrap sets it) */
	char	*dir;		/* <root>/<id>/run */
	char	 token[17];	/* the start script's (bw_start) */
	char	*cwd;		/* workdir[/cwd], or the absolute cwd */
	char	*workdir;	/* where the workspace is inside */
};

/*
 * Fill r for spec: 0, or CLAW_ERR_UNSUPPORTED when the command must take
 * the sh path of contain_bwrap_box (no agent, a terminal, GPUs: their
 * variables come from the host's assignment file).  A route does not
 * start the holder: a refusal (none running, other settings) means "take
 * the sh path", which starts it.
 */
int	contain_bwrap_route(const struct contain_spec *spec,
	    struct contain_route *r);

/* Free what r holds. */
void	contain_route_free(struct contain_route *r);

/*
 * The holder's run directory of a sandbox, <root>/<id>/run (allocated).
 */
char	*contain_bwrap_rundir(const char *root, const char *id);

/*
 * Return (allocated) sh code that sets the positional parameters to the
 * jail of a host-side step on the sandbox's files (a push, deletions, a
 * pull's listing and tar, the watcher, the file tools), so that
 * 'exec "$@" sh -c BODY' runs BODY with only what the sandbox's own
 * command could reach: bwrap with new namespaces (but the network's:
 * nothing of the sandbox's runs there, only clawssh's steps), no
 * capabilities, no new privileges, the host's programs read-only
 * (/usr, /bin, /sbin, /lib*, the loader's cache; nothing else of the
 * host), private /tmp, /proc and /dev, and the sandbox's directory sub
 * ("workspace", or "private" for the file tools of access none)
 * read-write at /workspace, the working directory; as the sandbox's
 * identity when the host user is root (as contain_bwrap_wrap: the user
 * set, by default the sandbox's own uid).  Whatever the sandbox planted
 * in its workspace (links to the host's files or to other sandboxes)
 * resolves inside that view.  The directory is made (0700) when
 * missing; a missing bwrap exits 125 with a message.
 */
char	*contain_bwrap_step(const struct contain_spec *spec,
	    const char *sub);

#endif /* CLAW_CONTAIN_BWRAP_H */
