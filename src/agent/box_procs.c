/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The holder lists the sandbox's processes for box-status: /proc is the
 * sandbox's own (bwrap mounts it for the pid namespace), so every entry
 * is one of the sandbox's processes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "box_init.h"
#include "frame.h"
#include "msg.h"

#define PROCS_MAX	2048	/* keeps a listing well under FRAME_MAX */

/* What /proc/PID/stat says, parsed after the command's last ')'. */
struct procs_stat {
	char			comm[64];
	char			state;
	long			ppid;
	unsigned long		utime;
	unsigned long		stime;
	unsigned long long	start;
	long			rss;
};

/* Parse /proc/PID/stat: 0 or -1. */
static int
procs_stat(long pid, struct procs_stat *s)
{
	char	path[64], buf[1024], *l, *r;
	size_t	n;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    (l = strchr(buf, '(')) == NULL || (r = strrchr(buf, ')')) == NULL ||
	    r < l)
		return -1;
	n = (size_t)(r - l - 1) < sizeof(s->comm) - 1 ?
	    (size_t)(r - l - 1) : sizeof(s->comm) - 1;
	memcpy(s->comm, l + 1, n);
	s->comm[n] = '\0';
	if (sscanf(r + 1, " %c %ld %*d %*d %*d %*d %*u %*u %*u %*u %*u "
	    "%lu %lu %*d %*d %*d %*d %*d %*d %llu %*u %ld", &s->state,
	    &s->ppid, &s->utime, &s->stime, &s->start, &s->rss) != 6)
		return -1;
	return 0;
}

/* The command line: NULs as spaces, bounded; "[comm]" if it has none. */
static void
procs_cmdline(long pid, const char *comm, char *cmd, size_t len)
{
	char	path[64];
	ssize_t	n, i;

	snprintf(path, sizeof(path), "/proc/%ld/cmdline", pid);
	if ((n = read_file(path, cmd, len)) <= 0) {
		snprintf(cmd, len, "[%s]", comm);
		return;
	}
	for (i = 0; i < n; i++)
		if (cmd[i] == '\0')
			cmd[i] = ' ';
	while (n > 0 && cmd[n - 1] == ' ')
		cmd[--n] = '\0';
}

/* Seconds since boot, from /proc/uptime. */
static double
procs_uptime(void)
{
	char	buf[128];

	if (read_file("/proc/uptime", buf, sizeof(buf)) < 0)
		return 0;
	return strtod(buf, NULL);
}

/* One process into p: 0, or -1 if it is gone. */
static int
procs_one(long pid, double up, double base, struct msg_proc *p)
{
	struct procs_stat	s;
	long			hz = sysconf(_SC_CLK_TCK), page;
	double			start;

	if (procs_stat(pid, &s) != 0)
		return -1;
	if (hz <= 0)
		hz = 100;
	page = sysconf(_SC_PAGESIZE) / 1024;
	memset(p, 0, sizeof(*p));
	p->pid = (uint32_t)pid;
	p->ppid = (uint32_t)s.ppid;
	p->state[0] = s.state;
	procs_cmdline(pid, s.comm, p->cmd, sizeof(p->cmd));
	p->rss_kb = s.rss > 0 ? (uint64_t)s.rss * (uint64_t)page : 0;
	p->cpu_ms = (uint64_t)(s.utime + s.stime) * 1000 / (uint64_t)hz;
	start = (double)s.start / (double)hz;
	p->age_s = up > start ? (uint64_t)(up - start) : 0;
	p->start_s = start > base ? (uint64_t)(start - base) : 0;
	return 0;
}

/* The holder's own start, seconds after boot. */
static double
procs_base(void)
{
	unsigned long long	ticks;
	long			hz = sysconf(_SC_CLK_TCK);

	if (proc_starttime(getpid(), &ticks) != 0 || hz <= 0)
		return 0;
	return (double)ticks / (double)hz;
}

/* A PROCS frame of every process in /proc. */
void
procs_put(struct frame_wr *w, uint32_t id, time_t started, const char *spec)
{
	struct msg_proc	 p;
	struct dirent	*de;
	DIR		*d;
	double		 up = procs_uptime(), base = procs_base();
	int		 n = 0;

	frame_begin(w, FRAME_PROCS, id);
	frame_put_u64(w, TAG_STARTED, (uint64_t)started);
	frame_put_str(w, TAG_SPEC, spec);
	if ((d = opendir("/proc")) != NULL) {
		while ((de = readdir(d)) != NULL && n < PROCS_MAX) {
			if (!isdigit((unsigned char)de->d_name[0]))
				continue;
			if (procs_one(strtol(de->d_name, NULL, 10), up, base,
			    &p) == 0) {
				msg_proc_put(w, &p);
				n++;
			}
		}
		closedir(d);
	}
	if (frame_end(w) != 0) {
		frame_wr_reset(w);
		msg_error(w, id, "the process listing is too long");
	}
}
