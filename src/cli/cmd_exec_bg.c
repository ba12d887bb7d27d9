/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * exec -s ID --background | --yield-ms N: run the command as a background
 * process (see the process tool) and either hand back its handle at once,
 * or wait up to N ms for it, as agent harnesses expect.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "clock.h"
#include "cmd.h"
#include "cmd_box.h"
#include "cmd_env.h"
#include "cmd_exec_bg.h"
#include "fdio.h"
#include "process.h"
#include "registry.h"
#include "xmalloc.h"

#define BG_POLL_MS	100	/* pause between polls */

/* Sleep ms milliseconds. */
static void
bg_sleep(int64_t ms)
{
	struct timespec	ts;

	ts.tv_sec = (time_t)(ms / 1000);
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/*
 * Poll until the process ends or the deadline passes: 1 if it ended, 0
 * if not, or process_poll's code with *status the exit status to give.
 */
static int
bg_wait(const struct cmd_exec_bg *bg, const struct process_at *at,
    const char *h, struct buf *out, int *status)
{
	struct process_state	 st;
	int64_t			 deadline = clock_now_ms() + bg->yield_ms;
	int64_t			 left;
	char			*cause = NULL;
	int			 rc, done;

	for (;;) {
		memset(&st, 0, sizeof st);
		if ((rc = process_poll(at, h, &st, out, &cause)) != 0) {
			*status = cmd_fail("%s", cause);
			free(cause);
			return rc;
		}
		done = st.run != PROCESS_RUNNING;
		*status = st.exit_status >= 0 ? st.exit_status : 255;
		process_state_clear(&st);
		if (!bg->json && out->len != 0) {
			fdio_write_all(STDOUT_FILENO, out->data, out->len);
			buf_reset(out);
		}
		left = deadline - clock_now_ms();
		if (done || left <= 0)
			return done;
		bg_sleep(left < BG_POLL_MS ? left : BG_POLL_MS);
	}
}

/* Report the outcome as JSON. */
static void
bg_json(const char *h, int done, int status, const struct buf *out)
{
	cJSON	*o = cJSON_CreateObject();
	char	*s, *text;

	text = xstrndup(out->data != NULL ? out->data : "", out->len);
	cJSON_AddStringToObject(o, "handle", h);
	cJSON_AddStringToObject(o, "state", done ? "exited" : "running");
	if (done)
		cJSON_AddNumberToObject(o, "exit_status", status);
	else
		cJSON_AddNullToObject(o, "exit_status");
	cJSON_AddStringToObject(o, "output", text);
	s = cJSON_PrintUnformatted(o);
	puts(s);
	free(s);
	free(text);
	cJSON_Delete(o);
}

/* Run in the background; see cmd_exec_bg.h. */
int
cmd_exec_bg(const struct cmd_exec_bg *bg, int *finished)
{
	struct process_at	 at;
	struct buf		 out = BUF_INIT;
	char			*sd, *h = NULL, *agent = NULL;
	int			 rc, done = 0, status = 0, lost = 0;

	*finished = 0;
	sd = xasprintf("%s/%s", bg->box->rec->remote_root, bg->box->rec->id);
	if ((rc = cmd_env_process(bg->box, bg->env, bg->wrap, bg->argc,
	    bg->argv, NULL, 0, &h)) != 0 || (bg->yield_ms >= 0 &&
	    (rc = cmd_env_agent(bg->box, &agent)) != 0))
		goto out;
	memset(&at, 0, sizeof at);
	at.t = bg->box->t;
	at.sd = sd;
	at.agent = agent;
	at.agent_lost = &lost;
	if (bg->yield_ms >= 0 &&
	    (done = bg_wait(bg, &at, h, &out, &status)) < 0) {
		rc = status;
		goto out;
	}
	if (bg->json)
		bg_json(h, done, status, &out);
	else if (!done && bg->yield_ms >= 0)
		fprintf(stderr, "clawssh: still running as process %s "
		    "(clawssh process poll -s %s %s)\n", h, bg->box->rec->id,
		    h);
	else if (!done)
		printf("%s\n", h);
	*finished = done;
	rc = done ? status : 0;
out:
	if (lost)
		cmd_env_agent_forget(bg->box);
	buf_free(&out);
	free(agent);
	free(h);
	free(sd);
	return rc;
}
