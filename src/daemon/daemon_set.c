/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The change sets the daemon hands to commands (its local journals and
 * its watchers on hosts): paths gathered, answered in a JPATHS/RPATHS
 * frame, then held for the command until its JACK, or given back if it
 * leaves first, so a failed sync never loses a change.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/queue.h>

#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "daemon_int.h"
#include "mux_proto.h"
#include "strv.h"
#include "xmalloc.h"

/* Add a copy of path to s; see daemon_int.h. */
void
djset_add(struct djset *s, const char *path)
{
	if (s->n == s->cap) {
		s->cap = s->cap == 0 ? 16 : s->cap * 2;
		s->v = xreallocarray(s->v, s->cap, sizeof(*s->v));
	}
	s->v[s->n++] = xstrdup(path);
}

/* Mark s as needing a full scan (the first reason stays). */
void
djset_full(struct djset *s, const char *why)
{
	if (s->why == NULL)
		s->why = xstrdup(why);
}

/* Move everything of from into to. */
void
djset_move(struct djset *to, struct djset *from)
{
	size_t	i;

	for (i = 0; i < from->n; i++) {
		djset_add(to, from->v[i]);
		free(from->v[i]);
	}
	if (from->why != NULL)
		djset_full(to, from->why);
	free(from->v);
	free(from->why);
	memset(from, 0, sizeof(*from));
}

/* Empty s. */
void
djset_clear(struct djset *s)
{
	size_t	i;

	for (i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	free(s->why);
	memset(s, 0, sizeof(*s));
}

/* Sort s and drop duplicates; see daemon_int.h. */
void
djset_uniq(struct djset *s)
{
	strv_uniq(s->v, &s->n, 1);
}

/* Answer a take with F and why, in a frame of type; see daemon_int.h. */
void
djset_answer_why(struct dclient *cl, int type, const char *why)
{
	struct buf	b = BUF_INIT;

	buf_append(&b, "F", 1);
	buf_append(&b, why, strlen(why));
	mux_frame_put(&cl->out, (enum mux_type)type, 0, b.data, b.len);
	buf_free(&b);
}

/* Answer a take with the set s (sorted and unique first); see daemon_int.h. */
void
djset_answer(struct dclient *cl, int type, struct djset *s)
{
	struct buf	b = BUF_INIT;
	size_t		i;

	if (s->why != NULL) {
		djset_answer_why(cl, type, s->why);
		return;
	}
	djset_uniq(s);
	buf_append(&b, "P", 2);
	for (i = 0; i < s->n && b.len <= MUX_PAYLOAD_MAX; i++)
		buf_append(&b, s->v[i], strlen(s->v[i]) + 1);
	if (b.len > MUX_PAYLOAD_MAX) {
		djset_full(s, "too many changes for one answer");
		djset_answer_why(cl, type, s->why);
	} else
		mux_frame_put(&cl->out, (enum mux_type)type, 0, b.data,
		    b.len);
	buf_free(&b);
}

/* Add taken to what cl holds; see daemon_int.h. */
void
djtrack_hold(struct djtrack *t, struct dclient *cl, struct djset *taken)
{
	djset_move(&t->held, taken);
	t->holder = cl;
}

/* Answer cl with the pending set and hold it for cl; see daemon_int.h. */
void
djtrack_give(struct djtrack *t, struct dclient *cl, int type)
{
	struct djset	now = t->pending;

	memset(&t->pending, 0, sizeof(t->pending));
	djset_answer(cl, type, &now);
	djtrack_hold(t, cl, &now);
}

/* JACK (synced) or cl gone: settle what cl holds; see daemon_int.h. */
void
djtrack_settle(struct djtrack *t, struct dclient *cl, int synced)
{
	if (t->holder != cl)
		return;
	if (synced)
		djset_clear(&t->held);
	else
		djset_move(&t->pending, &t->held);
	t->holder = NULL;
}

/* Free both sets. */
void
djtrack_clear(struct djtrack *t)
{
	djset_clear(&t->pending);
	djset_clear(&t->held);
	t->holder = NULL;
}
