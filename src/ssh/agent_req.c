/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * serve's EXEC frame for a contained command; see agent_req.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "agent_req.h"
#include "buf.h"
#include "error.h"
#include "frame.h"
#include "msg.h"
#include "remote_cmd.h"
#include "xmalloc.h"

/* Build the frame; see agent_req.h. */
int
agent_req_frame(const struct exec_agent *a, int argc, char *const *argv,
    const struct claw_env *env, size_t nenv, struct buf *out)
{
	struct frame_wr	 w = FRAME_WR_INIT;
	struct msg_exec	 m;
	char		*empty[1] = { NULL };
	size_t		 i;
	int		 rc = 0;

	if (argc < 1)	/* a login shell is argv too: sh -c ... */
		return CLAW_ERR_INVAL;
	memset(&m, 0, sizeof m);
	m.argv = xcalloc((size_t)argc + 1, sizeof *m.argv);
	for (i = 0; i < (size_t)argc; i++)
		m.argv[i] = argv[i];
	m.env = nenv == 0 ? empty : xcalloc(nenv + 1, sizeof *m.env);
	for (i = 0; i < nenv; i++)
		m.env[i] = xasprintf("%s=%s", env[i].name, env[i].value);
	m.cwd = (char *)(uintptr_t)a->cwd;
	m.flags = FRAME_EXEC_BASEENV | (a->self ? FRAME_EXEC_SELF : 0);
	msg_exec_relayed_put(&w, 0, &m, a->dir, a->spec);
	if (w.err != 0 || w.len > FRAME_MAX)
		rc = CLAW_ERR_RANGE;
	else
		buf_append(out, w.data, w.len);
	if (w.data != NULL)
		explicit_bzero(w.data, w.len);	/* env values */
	frame_wr_free(&w);
	for (i = 0; i < nenv; i++) {
		explicit_bzero(m.env[i], strlen(m.env[i]));
		free(m.env[i]);
	}
	if (nenv != 0)
		free(m.env);
	free(m.argv);
	return rc;
}
