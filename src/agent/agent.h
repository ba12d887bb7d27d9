/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * clawssh-agent: the helper that holds one persistent contained
 * environment per sandbox (docs/agent.md).  Built static, with libc only:
 * nothing here may include a header from outside src/agent.
 */
#ifndef CLAW_AGENT_H
#define CLAW_AGENT_H

#include <sys/types.h>

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_EXIT_ERR		125	/* box-exec's own failures */
#define AGENT_EXIT_GONE		255	/* the holder ended mid-command */
#define AGENT_EXIT_NOJOIN	75	/* box-exec --join: no holder to join
					   (or another spec); nothing ran */
#define AGENT_SOCK		"box.sock"
#define AGENT_PID		"box.pid"
#define AGENT_LOG		"box.log"
#define AGENT_LOCK		"lock"
#define AGENT_STR_MAX		4096	/* one argv or env string */
#define AGENT_ARGS_MAX		4096	/* argv or env entries */
#define AGENT_HELLO_MS		10000	/* a holder answers within this */

/* The subcommands (argv starts at the subcommand's name). */
int	box_entry_main(int argc, char **argv);
int	box_exec_main(int argc, char **argv);
int	box_hold_main(int argc, char **argv);
int	box_init_main(int argc, char **argv);
int	box_status_main(int argc, char **argv);
int	box_stop_main(int argc, char **argv);
int	fs_list_main(int argc, char **argv);
int	fs_ls_main(int argc, char **argv);
int	fs_pack_main(int argc, char **argv);
int	fs_read_main(int argc, char **argv);
int	fs_stat_main(int argc, char **argv);
int	fs_unpack_main(int argc, char **argv);
int	fs_watch_main(int argc, char **argv);
/* proc-list, proc-poll, ...: argv[0] says which (proc_ops.c). */
int	proc_main(int argc, char **argv);
int	proc_start_main(int argc, char **argv);

/* "clawssh: MESSAGE" on stderr. */
void	agent_warn(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));
/* agent_warn, then exit AGENT_EXIT_ERR. */
void	agent_die(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/* Allocation that aborts on failure. */
void	*xmalloc(size_t n);
void	*xcalloc(size_t n, size_t size);
void	*xreallocarray(void *p, size_t n, size_t size);
char	*xstrdup(const char *s);
/* snprintf into buf that dies on truncation (paths built from RUNDIR). */
void	 xsnprintf(char *buf, size_t len, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));

/* fd flags: 0 or -errno. */
int	fd_set_cloexec(int fd, int on);
int	fd_set_nonblock(int fd, int on);
/* Move fd to exactly want (want must be free or fd itself): 0 or -errno. */
int	fd_move(int fd, int want);
/* Close every fd from lo up but keep[0..n) (sorted ascending). */
void	fd_close_from(int lo, const int *keep, int n);
/* Write all of p (EINTR retried): 0 or -errno. */
int	write_all(int fd, const void *p, size_t n);

/* Output to fd in 64 KiB writes (fs-pack's tar, fs-list's records). */
struct obuf {
	int	fd;
	int	err;		/* 0, or the errno of a write that failed */
	size_t	len;
	char	buf[64 * 1024];
};
/* Append n bytes, writing out full buffers: 0, or -1 once a write failed. */
int	obuf_put(struct obuf *, const void *p, size_t n);
/* Write out what is buffered: 0, or -1 once a write failed. */
int	obuf_flush(struct obuf *);
/*
 * "clawssh-error: MESSAGE" on stderr, as the host-side shell steps say
 * it (the fs-* steps' refusals).
 */
void	step_error(const char *fmt, va_list ap)
	    __attribute__((format(printf, 1, 0)));

/*
 * Open the directory dir (relative, no "." or ".." components; "" for
 * root itself) below root, each component with O_NOFOLLOW: a descriptor,
 * or -1 with errno (ENOENT, ENOTDIR, ELOOP for a link on the way...).
 */
int	dir_open_nofollow(int root, const char *dir);

/* Read at most max - 1 bytes of path, NUL-terminated: length or -errno. */
ssize_t	read_file(const char *path, char *buf, size_t max);
/* Monotonic milliseconds. */
uint64_t mono_ms(void);
/* The start time of pid (clock ticks after boot, /proc): 0 or -errno. */
int	proc_starttime(pid_t pid, unsigned long long *ticks);
/* 1 if pid, started at ticks, is gone (or a zombie, or another one). */
int	proc_gone(pid_t pid, unsigned long long ticks);
/* SIGKILL pid's children, then pid (a bwrap and its namespace's init). */
void	proc_kill_tree(pid_t pid);
/* A string the caller owns, "NAME" of RUNDIR's parent (the sandbox id). */
char	*box_id(const char *rundir);

#endif /* CLAW_AGENT_H */
