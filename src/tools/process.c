/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Background processes in a sandbox: the start (one sh script of
 * process_scripts.h over one exec channel: the supervisor), handles,
 * names, display forms and the state line every call answers with
 * (process_step.c makes the other calls); what comes back is checked
 * line by line with caps before anything is believed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/types.h>

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


#include "compat.h"
#include "buf.h"
#include "clock.h"
#include "error.h"
#include "exec.h"
#include "lines.h"
#include "num.h"
#include "process.h"
#include "remote_err.h"
#include "process_scripts.h"
#include "shquote.h"
#include "signals.h"
#include "transport.h"
#include "xmalloc.h"


/* Return 1 if h is "p" and 8 lowercase hex digits. */
int
process_handle_ok(const char *h)
{
	size_t	i;

	if (h == NULL || h[0] != 'p')
		return 0;
	for (i = 1; i < PROCESS_HANDLE_LEN; i++) {
		if (!((h[i] >= '0' && h[i] <= '9') ||
		    (h[i] >= 'a' && h[i] <= 'f')))
			return 0;
	}
	return h[PROCESS_HANDLE_LEN] == '\0';
}

/* Return 1 if name is 1..PROCESS_NAME_MAX of [A-Za-z0-9._-]. */
int
process_name_ok(const char *name)
{
	size_t	i;

	for (i = 0; name[i] != '\0'; i++) {
		if (i >= PROCESS_NAME_MAX || !(isalnum((unsigned char)name[i])
		    || name[i] == '.' || name[i] == '_' || name[i] == '-'))
			return 0;
	}
	return i > 0 && strcmp(name, "-") != 0;
}

/* The word for a run state. */
const char *
process_run_name(enum process_run run)
{
	switch (run) {
	case PROCESS_RUNNING:
		return "running";
	case PROCESS_EXITED:
		return "exited";
	case PROCESS_KILLED:
		return "killed";
	case PROCESS_LOST:
		return "lost";
	}
	return "unknown";
}

/* The procs directory of a sandbox. */
char *
process_dir(const char *sandbox_dir)
{
	return xasprintf("%s/procs", sandbox_dir);
}

/* Free what st owns and reset it. */
void
process_state_clear(struct process_state *st)
{
	if (st == NULL)
		return;
	free(st->command);
	memset(st, 0, sizeof *st);
	st->exit_status = -1;
}

/* Free a listing. */
void
process_list_free(struct process_state *list, size_t n)
{
	size_t	i;

	if (list == NULL)
		return;
	for (i = 0; i < n; i++)
		free(list[i].command);
	free(list);
}

/* Make a new random handle. */
static void
process_handle_new(char *h)
{
	unsigned char	raw[4];
	size_t		i;

	arc4random_buf(raw, sizeof raw);
	h[0] = 'p';
	for (i = 0; i < sizeof raw; i++)
		snprintf(h + 1 + 2 * i, 3, "%02x", raw[i]);
}

/* Parse a decimal below 2^53 from s[0..len); 0 or CLAW_ERR_PARSE. */
static int
process_number(const char *s, size_t len, uint64_t *v)
{
	return num_parse(s, len, 0, PROCESS_NUM_MAX - 1, v) == 0 ? 0 :
	    CLAW_ERR_PARSE;
}

/*
 * Set st->run and st->exit_status from the STATE and RC fields; 0 or
 * CLAW_ERR_PARSE.
 */
static int
process_parse_run(const char *s, size_t slen, const char *r, size_t rlen,
    struct process_state *st)
{
	static const enum process_run runs[] = { PROCESS_RUNNING,
	    PROCESS_EXITED, PROCESS_KILLED, PROCESS_LOST };
	uint64_t	v;
	size_t		i;

	for (i = 0; i < sizeof runs / sizeof runs[0]; i++) {
		if (strlen(process_run_name(runs[i])) == slen &&
		    memcmp(process_run_name(runs[i]), s, slen) == 0)
			break;
	}
	if (i == sizeof runs / sizeof runs[0])
		return CLAW_ERR_PARSE;
	st->run = runs[i];
	if (st->run == PROCESS_RUNNING || st->run == PROCESS_LOST) {
		st->exit_status = -1;
		return rlen == 1 && r[0] == '-' ? 0 : CLAW_ERR_PARSE;
	}
	if (process_number(r, rlen, &v) != 0 || v > 255)
		return CLAW_ERR_PARSE;
	st->exit_status = (int)v;
	return 0;
}

/* Copy the command field, printable, at most PROCESS_CMD_MAX bytes. */
static char *
process_command(const char *p, size_t len)
{
	char	*s;
	size_t	 i;

	if (len > PROCESS_CMD_MAX)
		len = PROCESS_CMD_MAX;
	s = xmalloc(len + 1);
	for (i = 0; i < len; i++)
		s[i] = (unsigned char)p[i] < 0x20 || p[i] == 0x7f ? '?' : p[i];
	s[len] = '\0';
	return s;
}

/* Parse a state line; see process.h. */
int
process_parse_state(const char *line, size_t len, struct process_state *st)
{
	struct process_state	 new;
	struct lines		 w;
	const char		*f[5], *end = line + len, *cmd;
	size_t			 fl[5], i;
	uint64_t		 start;

	memset(&new, 0, sizeof new);
	if (len > PROCESS_LINE_MAX || memchr(line, '\0', len) != NULL)
		return CLAW_ERR_PARSE;
	lines_init(&w, line, len);
	if (lines_expect(&w, "clawssh-proc") != 0)
		return CLAW_ERR_PARSE;
	for (i = 0; i < 5; i++) {
		if (lines_word(&w, &f[i], &fl[i]) != 0)
			return CLAW_ERR_PARSE;
	}
	if (fl[0] != PROCESS_HANDLE_LEN || fl[1] > PROCESS_NAME_MAX)
		return CLAW_ERR_PARSE;
	memcpy(new.handle, f[0], fl[0]);
	memcpy(new.name, f[1], fl[1]);
	if (!process_handle_ok(new.handle) || (strcmp(new.name, "-") != 0 &&
	    !process_name_ok(new.name)) ||
	    process_parse_run(f[2], fl[2], f[3], fl[3], &new) != 0 ||
	    process_number(f[4], fl[4], &start) != 0)
		return CLAW_ERR_PARSE;
	if (strcmp(new.name, "-") == 0)
		new.name[0] = '\0';
	new.started = (int64_t)start;
	/* CMD: all after START's one space. */
	cmd = f[4] + fl[4] < end ? f[4] + fl[4] + 1 : end;
	new.command = process_command(cmd, (size_t)(end - cmd));
	*st = new;
	return 0;
}

/* Whether word reads the same bare as quoted in sh. */
static int
process_plain_word(const char *word)
{
	const char	*p;

	if (*word == '\0')
		return 0;
	for (p = word; *p != '\0'; p++) {
		if (!isalnum((unsigned char)*p) && strchr("_./=:,+@%-", *p) ==
		    NULL)
			return 0;
	}
	return 1;
}

/* Make argv's display form; see process.h. */
char *
process_display(int argc, char *const argv[])
{
	struct buf	 b = BUF_INIT;
	char		*s;
	int		 i;

	for (i = 0; i < argc; i++) {
		if (i != 0)
			buf_append_str(&b, " ");
		if (process_plain_word(argv[i]))
			buf_append_str(&b, argv[i]);
		else
			shquote_append(&b, argv[i]);
	}
	s = process_command(b.data, b.len);
	buf_free(&b);
	return s;
}

/* Check a start's words and give it a new handle; see process.h. */
int
process_start_init(struct process_start *ps, int argc, char *const argv[],
    const char *shown, const char *name, size_t log_max, char **cause)
{
	char	*form;

	memset(ps, 0, sizeof *ps);
	if (argc < 1)
		return claw_fail(cause, CLAW_ERR_INVAL, "no command given");
	if (name != NULL && !process_name_ok(name))
		return claw_fail(cause, CLAW_ERR_INVAL, "bad process name "
		    "'%s': want 1 to %d of A-Z a-z 0-9 . _ -", name,
		    PROCESS_NAME_MAX);
	if (log_max == 0)
		log_max = PROCESS_LOG_DEFAULT;
	if (log_max < PROCESS_LOG_MIN || log_max > PROCESS_LOG_LIMIT)
		return claw_fail(cause, CLAW_ERR_INVAL, "log cap %zu out of "
		    "range %d..%d bytes", log_max, PROCESS_LOG_MIN,
		    PROCESS_LOG_LIMIT);
	process_handle_new(ps->handle);
	ps->log_max = log_max;
	ps->name = name;
	ps->argc = argc;
	ps->argv = argv;
	form = shown != NULL ? process_command(shown, strlen(shown)) :
	    process_display(argc, argv);
	snprintf(ps->shown, sizeof ps->shown, "%s", form);
	free(form);
	return 0;
}

/* Length of the valid UTF-8 sequence at p (max n bytes), or 0. */
static size_t
process_utf8_len(const unsigned char *p, size_t n)
{
	uint32_t	cp;
	size_t		len, i;

	if (p[0] >= 0x01 && p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		len = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		len = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* Append valid UTF-8, bad bytes replaced; see process.h. */
void
process_utf8_clean(struct buf *out, const char *p, size_t len)
{
	const unsigned char	*u = (const unsigned char *)p;
	size_t			 i = 0, n, run = 0;

	while (i < len) {
		if ((n = process_utf8_len(u + i, len - i)) != 0) {
			i += n;
			run += n;
			continue;
		}
		buf_append(out, p + i - run, run);
		buf_append_str(out, "\xef\xbf\xbd");
		run = 0;
		i++;
	}
	buf_append(out, p + i - run, run);
}
