/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * box-status (the sandbox's processes as JSON) and box-stop (end the
 * sandbox, and make sure its holder's bwrap is gone).
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent.h"
#include "box_client.h"
#include "frame.h"
#include "msg.h"
#include "wire.h"

#define CTL_STOP_MS	5000

/* The --dir of box-status and box-stop. */
static const char *
ctl_parse(int argc, char **argv)
{
	if (argc != 3 || strcmp(argv[1], "--dir") != 0 || argv[2][0] != '/')
		agent_die("%s: usage: %s --dir RUNDIR", argv[0], argv[0]);
	return argv[2];
}

/* The length of the valid UTF-8 sequence at s (0: none). */
static size_t
ctl_utf8(const unsigned char *s)
{
	size_t	n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	for (i = 1; i < n; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	if ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] > 0x9f) ||
	    (s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] > 0x8f))
		return 0;
	return n;
}

/* s as a JSON string: escaped, invalid UTF-8 as U+FFFD. */
static void
ctl_json_str(const char *str)
{
	const unsigned char	*s = (const unsigned char *)str;
	size_t			 n;

	putchar('"');
	while (*s != '\0') {
		if (*s == '"' || *s == '\\')
			printf("\\%c", *s++);
		else if (*s < 0x20 || *s == 0x7f)
			printf("\\u%04x", *s++);
		else if ((n = ctl_utf8(s)) == 0) {
			printf("\\ufffd");
			s++;
		} else {
			fwrite(s, 1, n, stdout);
			s += n;
		}
	}
	putchar('"');
}

/* One process as a JSON object. */
static void
ctl_json_proc(const struct msg_proc *p, int first)
{
	printf("%s{\"pid\":%u,\"ppid\":%u,\"state\":", first ? "" : ",",
	    p->pid, p->ppid);
	ctl_json_str(p->state);
	printf(",\"rss_kb\":%llu,\"cpu_ms\":%llu,\"age_s\":%llu,\"cmd\":",
	    (unsigned long long)p->rss_kb, (unsigned long long)p->cpu_ms,
	    (unsigned long long)p->age_s);
	ctl_json_str(p->cmd);
	putchar('}');
}

/* Print a PROCS frame as box-status's JSON. */
static void
ctl_json(const struct frame *f)
{
	struct frame_buf	b = f->body, val;
	struct msg_proc		p;
	uint64_t		started = 0;
	uint16_t		tag;
	char			*spec = NULL;
	int			first = 1;

	printf("{\"running\":true");
	while (frame_next_field(&b, &tag, &val) == 1) {
		if (tag == TAG_STARTED && frame_val_u64(&val, &started) == 0)
			printf(",\"started\":%llu",
			    (unsigned long long)started);
		else if (tag == TAG_SPEC && spec == NULL &&
		    frame_val_str(&val, 256, &spec) == 0) {
			printf(",\"spec\":");
			ctl_json_str(spec);
			printf(",\"processes\":[");
		} else if (tag == TAG_PROC && spec != NULL &&
		    msg_proc_get(&val, &p) == 0) {
			ctl_json_proc(&p, first);
			first = 0;
		}
	}
	if (spec == NULL)
		agent_die("the sandbox environment: a bad process listing");
	printf("]}\n");
	free(spec);
}

/* box-status --dir RUNDIR */
int
box_status_main(int argc, char **argv)
{
	struct box_client	 c;
	struct frame_wr		 fw = FRAME_WR_INIT;
	struct frame		 f;
	const char		*dir = ctl_parse(argc, argv);
	char			*msg;
	int			 r;

	if ((r = box_connect(dir, &c)) == -ENOENT || r == -ECONNREFUSED) {
		printf("{\"running\":false}\n");
		return 0;
	}
	if (r != 0)
		agent_die("%s/%s: %s", dir, AGENT_SOCK, strerror(-r));
	box_hello(&c);
	msg_simple(&fw, FRAME_STATUS, c.next_id++);
	if ((r = wire_send(&c.w, &fw, NULL, 0, AGENT_HELLO_MS)) != 0)
		agent_die("the sandbox environment: %s", strerror(-r));
	frame_wr_free(&fw);
	box_expect(&c, &f, AGENT_HELLO_MS);
	if (f.type == FRAME_ERROR && msg_error_get(&f, &msg) == 0)
		agent_die("%s", msg);
	if (f.type != FRAME_PROCS)
		agent_die("the sandbox environment: a bad answer");
	ctl_json(&f);
	box_client_close(&c);
	return fflush(stdout) == 0 ? 0 : AGENT_EXIT_ERR;
}

/* RUNDIR/box.pid: 0 and the pid and start time, or -1. */
static int
ctl_read_pid(const char *dir, pid_t *pid, unsigned long long *ticks)
{
	char	path[4096], buf[64];
	long	p;

	xsnprintf(path, sizeof(path), "%s/%s", dir, AGENT_PID);
	if (read_file(path, buf, sizeof(buf)) < 0 ||
	    sscanf(buf, "%ld %llu", &p, ticks) != 2 || p <= 1)
		return -1;
	*pid = (pid_t)p;
	return 0;
}

/* Ask the holder to stop; wait for its answer and its end. */
static void
ctl_send_stop(struct box_client *c)
{
	struct frame_wr	fw = FRAME_WR_INIT;
	struct frame	f;
	int		r;

	box_hello(c);
	msg_simple(&fw, FRAME_STOP, c->next_id++);
	r = wire_send(&c->w, &fw, NULL, 0, CTL_STOP_MS);
	frame_wr_free(&fw);
	while (r == 0 && (r = wire_wait(&c->w, &f, CTL_STOP_MS)) == 1)
		wire_consume(&c->w, &f);	/* OK, then EOF */
}

/* Wait up to CTL_STOP_MS for pid to go, then kill it: 1 if it ran. */
static int
ctl_reap(pid_t pid, unsigned long long ticks)
{
	uint64_t	end = mono_ms() + CTL_STOP_MS;

	if (proc_gone(pid, ticks))
		return 0;
	while (mono_ms() < end && !proc_gone(pid, ticks))
		usleep(20000);
	if (!proc_gone(pid, ticks))
		proc_kill_tree(pid);
	return 1;
}

/* Remove RUNDIR/NAME. */
static void
ctl_unlink(const char *dir, const char *name)
{
	char	path[4096];

	xsnprintf(path, sizeof(path), "%s/%s", dir, name);
	if (unlink(path) == -1 && errno != ENOENT)
		agent_warn("%s: %s", path, strerror(errno));
}

/* box-stop --dir RUNDIR */
int
box_stop_main(int argc, char **argv)
{
	struct box_client	 c;
	struct stat		 st;
	const char		*dir = ctl_parse(argc, argv);
	unsigned long long	 ticks = 0;
	pid_t			 pid = 0;
	int			 lock, ran = 0;

	if (stat(dir, &st) == -1 && errno == ENOENT) {
		printf("not running\n");
		return 0;
	}
	lock = box_lock(dir);
	if (ctl_read_pid(dir, &pid, &ticks) != 0)
		pid = 0;
	if (box_connect(dir, &c) == 0) {
		ctl_send_stop(&c);
		box_client_close(&c);
		ran = 1;
	}
	if (pid != 0 && ctl_reap(pid, ticks))
		ran = 1;
	ctl_unlink(dir, AGENT_SOCK);
	ctl_unlink(dir, AGENT_PID);
	close(lock);
	printf("%s\n", ran ? "stopped" : "not running");
	return 0;
}
