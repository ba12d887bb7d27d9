/* SPDX-License-Identifier: BSD-2-Clause */
/* The agent protocol's messages: see msg.h. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "msg.h"

#define MSG_STR_MAX	131072	/* one argv, env or cwd string: as exec(2) */
#define MSG_VEC_MAX	4096	/* argv or env entries */
#define MSG_SPEC_MAX	256

/* Free a NULL-terminated vector. */
static void
msg_vec_free(char **v)
{
	size_t	i;

	if (v == NULL)
		return;
	for (i = 0; v[i] != NULL; i++)
		free(v[i]);
	free(v);
}

/* Append s to the NULL-terminated vector *v of *n entries. */
static int
msg_vec_add(char ***v, size_t *n, const struct frame_buf *val)
{
	char	**p, *s;
	int	  r;

	if (*n >= MSG_VEC_MAX)
		return FRAME_ERR_VALUE;
	if ((r = frame_val_str(val, MSG_STR_MAX, &s)) != 0)
		return r;
	if ((p = realloc(*v, (*n + 2) * sizeof(*p))) == NULL)
		abort();
	p[(*n)++] = s;
	p[*n] = NULL;
	*v = p;
	return 0;
}

/* An empty NULL-terminated vector. */
static char **
msg_vec_empty(void)
{
	char	**v;

	if ((v = calloc(1, sizeof(*v))) == NULL)
		abort();
	return v;
}

/* A string field that may appear once: replaces *s. */
static int
msg_str_once(char **s, const struct frame_buf *val, size_t max)
{
	if (*s != NULL)
		return FRAME_ERR_VALUE;
	return frame_val_str(val, max, s);
}

/* HELLO: the protocol, capabilities, and the holder's spec and start. */
void
msg_hello_put(struct frame_wr *w, uint32_t id, const char *spec,
    uint64_t started)
{
	frame_begin(w, FRAME_HELLO, id);
	frame_put_u32(w, TAG_PROTO, MSG_PROTO);
	frame_put_str(w, TAG_CAP, "exec");
	frame_put_str(w, TAG_CAP, "pty");
	frame_put_str(w, TAG_CAP, "status");
	frame_put_str(w, TAG_CAP, "stop");
	frame_put_str(w, TAG_CAP, "relay");
	frame_put_str(w, TAG_CAP, "self");
	if (spec != NULL)
		frame_put_str(w, TAG_SPEC, spec);
	if (started != 0)
		frame_put_u64(w, TAG_STARTED, started);
	frame_end(w);
}

/* The MSG_CAP_* bit of a capability's name, 0 if unknown. */
static int
msg_cap(const struct frame_buf *val)
{
	static const char	*names[] = { "exec", "pty", "status", "stop",
	    "relay", "self" };
	size_t			 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (val->len == strlen(names[i]) &&
		    memcmp(val->p, names[i], val->len) == 0)
			return 1 << i;
	return 0;
}

/* One field of a HELLO. */
static int
msg_hello_field(struct msg_hello *m, uint16_t tag, struct frame_buf *val)
{
	switch (tag) {
	case TAG_PROTO:
		return frame_val_u32(val, &m->proto);
	case TAG_CAP:
		m->caps |= msg_cap(val);
		return 0;
	case TAG_SPEC:
		return msg_str_once(&m->spec, val, MSG_SPEC_MAX);
	case TAG_STARTED:
		return frame_val_u64(val, &m->started);
	}
	return 0;
}

/* Decode a HELLO: a protocol number is required. */
int
msg_hello_get(const struct frame *f, struct msg_hello *out)
{
	struct msg_hello	m;
	struct frame_buf	b = f->body, val;
	uint16_t		tag;
	int			r;

	memset(&m, 0, sizeof(m));
	if (f->type != FRAME_HELLO)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &tag, &val)) == 1)
		if ((r = msg_hello_field(&m, tag, &val)) != 0)
			break;
	if (r == 0 && m.proto == 0)
		r = FRAME_ERR_VALUE;
	if (r == 0 && m.spec == NULL && (m.spec = strdup("")) == NULL)
		abort();
	if (r != 0) {
		free(m.spec);
		return r;
	}
	*out = m;
	return 0;
}

/* Free what msg_hello_get allocated. */
void
msg_hello_free(struct msg_hello *m)
{
	free(m->spec);
	m->spec = NULL;
}

/* An EXEC's own fields: argv, env, cwd, flags, window size. */
static void
msg_exec_fields(struct frame_wr *w, const struct msg_exec *m)
{
	size_t	i;

	for (i = 0; m->argv[i] != NULL; i++)
		frame_put_str(w, TAG_ARG, m->argv[i]);
	for (i = 0; m->env[i] != NULL; i++)
		frame_put_str(w, TAG_ENV, m->env[i]);
	frame_put_str(w, TAG_CWD, m->cwd);
	frame_put_u32(w, TAG_FLAGS, m->flags);
	frame_put_u32(w, TAG_WINSIZE, (uint32_t)m->rows << 16 | m->cols);
}

/* EXEC: argv, env, cwd, flags, window size, fds. */
void
msg_exec_put(struct frame_wr *w, uint32_t id, const struct msg_exec *m)
{
	frame_begin(w, FRAME_EXEC, id);
	msg_exec_fields(w, m);
	frame_put_u32(w, TAG_NFDS, m->nfds);
	frame_end(w);
}

/* Encode serve's EXEC: the fields, the holder's RUNDIR and spec, no fds. */
void
msg_exec_relayed_put(struct frame_wr *w, uint32_t id, const struct msg_exec *m,
    const char *dir, const char *spec)
{
	frame_begin(w, FRAME_EXEC, id);
	msg_exec_fields(w, m);
	frame_put_str(w, TAG_DIR, dir);
	if (spec != NULL && *spec != '\0')
		frame_put_str(w, TAG_SPEC, spec);
	frame_end(w);
}

/* One field of an EXEC. */
static int
msg_exec_field(struct msg_exec *m, size_t *na, size_t *ne, uint16_t tag,
    struct frame_buf *val)
{
	uint32_t	ws;
	int		r;

	switch (tag) {
	case TAG_ARG:
		return msg_vec_add(&m->argv, na, val);
	case TAG_ENV:
		return msg_vec_add(&m->env, ne, val);
	case TAG_CWD:
		return msg_str_once(&m->cwd, val, MSG_STR_MAX);
	case TAG_FLAGS:
		return frame_val_u32(val, &m->flags);
	case TAG_WINSIZE:
		if ((r = frame_val_u32(val, &ws)) == 0) {
			m->rows = (uint16_t)(ws >> 16);
			m->cols = (uint16_t)ws;
		}
		return r;
	case TAG_NFDS:
		return frame_val_u32(val, &m->nfds);
	}
	return 0;
}

/*
 * Check an EXEC's whole: a cwd, fds as its mode wants (none when
 * relayed: serve's pipes stand for them), known flags.
 */
static int
msg_exec_check(struct msg_exec *m, int relayed)
{
	if (m->cwd == NULL || m->cwd[0] != '/')
		return FRAME_ERR_VALUE;
	if ((m->flags & ~(uint32_t)(FRAME_EXEC_PTY | FRAME_EXEC_LOGIN |
	    FRAME_EXEC_SELF | (relayed ? FRAME_EXEC_BASEENV : 0))) != 0)
		return FRAME_ERR_VALUE;
	if ((m->flags & FRAME_EXEC_SELF) != 0 &&
	    (m->flags & (FRAME_EXEC_PTY | FRAME_EXEC_LOGIN)) != 0)
		return FRAME_ERR_VALUE;
	if (m->nfds != ((m->flags & FRAME_EXEC_PTY) || relayed ? 0 : 3))
		return FRAME_ERR_VALUE;
	if (m->argv == NULL)
		m->argv = msg_vec_empty();
	if (m->env == NULL)
		m->env = msg_vec_empty();
	if ((m->argv[0] == NULL) != ((m->flags & FRAME_EXEC_LOGIN) != 0))
		return FRAME_ERR_VALUE;
	return 0;
}

/* Decode an EXEC, from a client of box.sock or (relayed) of serve. */
static int
msg_exec_decode(const struct frame *f, struct msg_exec *out, int relayed)
{
	struct msg_exec		m;
	struct frame_buf	b = f->body, val;
	size_t			na = 0, ne = 0;
	uint16_t		tag;
	int			r;

	memset(&m, 0, sizeof(m));
	if (f->type != FRAME_EXEC)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &tag, &val)) == 1)
		if ((r = msg_exec_field(&m, &na, &ne, tag, &val)) != 0)
			break;
	if (r == 0)
		r = msg_exec_check(&m, relayed);
	if (r != 0) {
		msg_exec_free(&m);
		return r;
	}
	*out = m;
	return 0;
}

/* Decode an EXEC that comes with its fds. */
int
msg_exec_get(const struct frame *f, struct msg_exec *out)
{
	return msg_exec_decode(f, out, 0);
}

/* Decode serve's EXEC: no fds. */
int
msg_exec_get_relayed(const struct frame *f, struct msg_exec *out)
{
	return msg_exec_decode(f, out, 1);
}

/* Free what msg_exec_get allocated. */
void
msg_exec_free(struct msg_exec *m)
{
	msg_vec_free(m->argv);
	msg_vec_free(m->env);
	free(m->cwd);
	memset(m, 0, sizeof(*m));
}

/*
 * The u32 of the field tag in f, at most once: 0 and *v, 1 if absent
 * (*v unchanged), or FRAME_ERR_*.
 */
static int
msg_field_u32(const struct frame *f, int type, int tag, uint32_t *v)
{
	struct frame_buf	b = f->body, val;
	uint16_t		t;
	uint32_t		x = 0;
	int			r, seen = 0;

	if (f->type != type)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &t, &val)) == 1) {
		if (t != tag)
			continue;
		if (seen++ || (r = frame_val_u32(&val, &x)) != 0)
			return FRAME_ERR_VALUE;
	}
	if (r != 0)
		return r;
	if (!seen)
		return 1;
	*v = x;
	return 0;
}

/* STARTED: the pid, and how many fds came with it (0 if not said). */
int
msg_started_get(const struct frame *f, uint32_t *pid, uint32_t *nfds)
{
	uint32_t	p, n = 0;
	int		r;

	if ((r = msg_field_u32(f, FRAME_STARTED, TAG_PID, &p)) != 0)
		return r == 1 ? FRAME_ERR_VALUE : r;
	if ((r = msg_field_u32(f, FRAME_STARTED, TAG_NFDS, &n)) < 0)
		return r;
	if (n > 1)
		return FRAME_ERR_VALUE;
	*pid = p;
	*nfds = n;
	return 0;
}

/* EXIT: a code 0-255 or a signal 1-64. */
int
msg_exit_get(const struct frame *f, int *code, int *signo)
{
	uint32_t	c, s;
	int		rc, rs;

	rc = msg_field_u32(f, FRAME_EXIT, TAG_CODE, &c);
	rs = msg_field_u32(f, FRAME_EXIT, TAG_SIGNO, &s);
	if (rc < 0 || rs < 0)
		return rc < 0 ? rc : rs;
	if (rc == 0 && rs == 1 && c <= 255) {
		*code = (int)c;
		*signo = -1;
		return 0;
	}
	if (rs == 0 && rc == 1 && s >= 1 && s <= 64) {
		*code = -1;
		*signo = (int)s;
		return 0;
	}
	return FRAME_ERR_VALUE;
}

/* SIGNAL: a signal number 1-64. */
int
msg_signal_get(const struct frame *f, int *signo)
{
	uint32_t	s;
	int		r;

	if ((r = msg_field_u32(f, FRAME_SIGNAL, TAG_SIGNO, &s)) != 0)
		return r == 1 ? FRAME_ERR_VALUE : r;
	if (s < 1 || s > 64)
		return FRAME_ERR_VALUE;
	*signo = (int)s;
	return 0;
}

/* ERROR: its message, "" if none. */
int
msg_error_get(const struct frame *f, char **message)
{
	struct frame_buf	 b = f->body, val;
	uint16_t		 tag;
	char			*s = NULL;
	int			 r;

	if (f->type != FRAME_ERROR)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &tag, &val)) == 1)
		if (tag == TAG_MESSAGE &&
		    (r = msg_str_once(&s, &val, 1024)) != 0)
			break;
	if (r != 0) {
		free(s);
		return r;
	}
	if (s == NULL && (s = strdup("")) == NULL)
		abort();
	*message = s;
	return 0;
}

/* One process of a listing, as a nested TAG_PROC field. */
void
msg_proc_put(struct frame_wr *w, const struct msg_proc *p)
{
	size_t	at;

	at = frame_nest_begin(w, TAG_PROC);
	frame_put_u32(w, TAG_PID, p->pid);
	frame_put_u32(w, TAG_PPID, p->ppid);
	frame_put_str(w, TAG_STATE, p->state);
	frame_put_str(w, TAG_CMD, p->cmd);
	frame_put_u64(w, TAG_RSS_KB, p->rss_kb);
	frame_put_u64(w, TAG_CPU_MS, p->cpu_ms);
	frame_put_u64(w, TAG_AGE_S, p->age_s);
	frame_put_u64(w, TAG_START_S, p->start_s);
	frame_nest_end(w, at);
}

/* Copy a bounded string value into buf[max + 1]. */
static int
msg_str_into(const struct frame_buf *val, char *buf, size_t max)
{
	char	*s;
	int	 r;

	if ((r = frame_val_str(val, max, &s)) != 0)
		return r;
	memcpy(buf, s, strlen(s) + 1);
	free(s);
	return 0;
}

/* One field of a process. */
static int
msg_proc_field(struct msg_proc *p, uint16_t tag, struct frame_buf *val)
{
	switch (tag) {
	case TAG_PID:
		return frame_val_u32(val, &p->pid);
	case TAG_PPID:
		return frame_val_u32(val, &p->ppid);
	case TAG_STATE:
		return msg_str_into(val, p->state, 1);
	case TAG_CMD:
		return msg_str_into(val, p->cmd, MSG_CMD_MAX);
	case TAG_RSS_KB:
		return frame_val_u64(val, &p->rss_kb);
	case TAG_CPU_MS:
		return frame_val_u64(val, &p->cpu_ms);
	case TAG_AGE_S:
		return frame_val_u64(val, &p->age_s);
	case TAG_START_S:
		return frame_val_u64(val, &p->start_s);
	}
	return 0;
}

/* Decode one TAG_PROC value. */
int
msg_proc_get(const struct frame_buf *v, struct msg_proc *out)
{
	struct msg_proc		p;
	struct frame_buf	b = *v, val;
	uint16_t		tag;
	int			r;

	memset(&p, 0, sizeof(p));
	b.off = 0;
	while ((r = frame_next_field(&b, &tag, &val)) == 1)
		if ((r = msg_proc_field(&p, tag, &val)) != 0)
			return r;
	if (r != 0)
		return r;
	if (p.pid == 0)
		return FRAME_ERR_VALUE;
	*out = p;
	return 0;
}

/* A frame without fields. */
void
msg_simple(struct frame_wr *w, int type, uint32_t id)
{
	frame_begin(w, type, id);
	frame_end(w);
}

/* A frame of one u32 field. */
void
msg_u32(struct frame_wr *w, int type, uint32_t id, int tag, uint32_t v)
{
	frame_begin(w, type, id);
	frame_put_u32(w, tag, v);
	frame_end(w);
}

/* An ERROR frame. */
void
msg_error(struct frame_wr *w, uint32_t id, const char *message)
{
	frame_begin(w, FRAME_ERROR, id);
	frame_put_str(w, TAG_MESSAGE, message);
	frame_end(w);
}

/* A DATA frame. */
void
msg_data_put(struct frame_wr *w, uint32_t id, int stream, const void *p,
    size_t n)
{
	frame_begin(w, FRAME_DATA, id);
	frame_put_u32(w, TAG_STREAM, (uint32_t)stream);
	frame_put_bytes(w, TAG_BYTES, p, n);
	frame_end(w);
}

/* DATA: its stream (0-2) and bytes; both fields exactly once. */
int
msg_data_get(const struct frame *f, int *stream, const uint8_t **p,
    size_t *n)
{
	struct frame_buf	b = f->body, val;
	uint16_t		t;
	uint32_t		s = 0;
	int			r, seen_s = 0, seen_b = 0;

	if (f->type != FRAME_DATA)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &t, &val)) == 1) {
		if (t == TAG_STREAM) {
			if (seen_s++ || frame_val_u32(&val, &s) != 0 || s > 2)
				return FRAME_ERR_VALUE;
		} else if (t == TAG_BYTES) {
			if (seen_b++)
				return FRAME_ERR_VALUE;
			*p = val.p;
			*n = val.len;
		}
	}
	if (r != 0)
		return r;
	if (!seen_s || !seen_b)
		return FRAME_ERR_VALUE;
	*stream = (int)s;
	return 0;
}

/* EOF: its stream. */
int
msg_eof_get(const struct frame *f, int *stream)
{
	uint32_t	s;
	int		r;

	if ((r = msg_field_u32(f, FRAME_EOF, TAG_STREAM, &s)) != 0)
		return r == 1 ? FRAME_ERR_VALUE : r;
	if (s > 2)
		return FRAME_ERR_VALUE;
	*stream = (int)s;
	return 0;
}

/* serve's EXEC: TAG_DIR (required, absolute) and TAG_SPEC (optional). */
int
msg_exec_target_get(const struct frame *f, char **dir, char **spec)
{
	struct frame_buf	b = f->body, val;
	uint16_t		t;
	char			*d = NULL, *s = NULL;
	int			r;

	if (f->type != FRAME_EXEC)
		return FRAME_ERR_TYPE;
	while ((r = frame_next_field(&b, &t, &val)) == 1) {
		if (t == TAG_DIR)
			r = msg_str_once(&d, &val, MSG_STR_MAX);
		else if (t == TAG_SPEC)
			r = msg_str_once(&s, &val, MSG_STR_MAX);
		else
			continue;
		if (r != 0)
			break;
	}
	if (r == 0 && (d == NULL || d[0] != '/'))
		r = FRAME_ERR_VALUE;
	if (r != 0) {
		free(d);
		free(s);
		return r;
	}
	*dir = d;
	*spec = s != NULL ? s : strdup("");
	return *spec != NULL ? 0 : FRAME_ERR_VALUE;
}

/* An ERROR frame with a code. */
void
msg_error_code(struct frame_wr *w, uint32_t id, int code,
    const char *message)
{
	frame_begin(w, FRAME_ERROR, id);
	frame_put_u32(w, TAG_CODE, (uint32_t)code);
	frame_put_str(w, TAG_MESSAGE, message);
	frame_end(w);
}

/* An ERROR's code: 0 and *code, or 1 if it has none. */
int
msg_error_code_get(const struct frame *f, uint32_t *code)
{
	return msg_field_u32(f, FRAME_ERROR, TAG_CODE, code);
}
