/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Putting the embedded clawssh-agent on a host.  See agent_deploy.h and
 * docs/agent.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


#include "compat.h"
#include "agent_deploy.h"
#include "buf.h"
#include "error.h"
#include "exec.h"
#include "fdio.h"
#include "host_sh.h"
#include "lines.h"
#include "log.h"
#include "remote_err.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

/* The agent's bytes, from agent_blob.S. */
extern const unsigned char	agent_blob_start[];
extern const unsigned char	agent_blob_end[];
extern const char		agent_blob_sum[];	/* hex SHA-256 */

#define AGENT_PROTO		"1"
#define AGENT_OUT_MAX		8192
#define AGENT_PATH_MAX		1024
#define AGENT_CACHE_MAX		2048

/*
 * The host's side of deploying: src/host/agent_dirs.sh (where agents are
 * kept) before agent_check.sh (is ours there?) or agent_install.sh (the
 * upload on stdin), each after the variables agent_script sets.
 */
#define AGENT_SH_CHECK		HOST_SH_AGENT_DIRS HOST_SH_AGENT_CHECK
#define AGENT_SH_INSTALL	HOST_SH_AGENT_DIRS HOST_SH_AGENT_INSTALL

static pthread_once_t	agent_once = PTHREAD_ONCE_INIT;
static char		agent_name[64];

/* Name the embedded agent by its version and sum (once). */
static void
agent_name_init(void)
{
	snprintf(agent_name, sizeof agent_name, "clawssh-agent-%s-%.16s",
	    PACKAGE_VERSION, agent_blob_sum);
}

/* The agent's file name; see agent_deploy.h. */
const char *
agent_deploy_name(void)
{
	pthread_once(&agent_once, agent_name_init);
	return agent_name;
}

/* The embedded bytes; see agent_deploy.h. */
const unsigned char *
agent_deploy_blob(size_t *len)
{
	*len = (size_t)(agent_blob_end - agent_blob_start);
	return agent_blob_start;
}

/* The embedded bytes' sum; see agent_deploy.h. */
const char *
agent_deploy_sum(void)
{
	return agent_blob_sum;
}

/* The local file keeping t's answer (allocated), or NULL. */
static char *
agent_cache_file(struct transport *t, const char *cache_dir)
{
	char	*label, *p, *path;

	if (cache_dir == NULL)
		return NULL;
	label = xstrdup(transport_label(t));
	for (p = label; *p != '\0'; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr("@.:_-", *p) != NULL))
			*p = '_';
	path = xasprintf("%s/%s", cache_dir, label);
	free(label);
	return path;
}

/*
 * Judge one answer line (without its newline) from the host and fill
 * out.  Returns 0, 1 for "need", or CLAW_ERR_PARSE.
 */
static int
agent_answer(const char *line, struct agent_host *out)
{
	const char	*p;

	if (strcmp(line, "clawssh-agent-need") == 0)
		return 1;
	if (strncmp(line, "clawssh-agent-ok /", 18) == 0) {
		p = line + 17;
		if (strlen(p) > AGENT_PATH_MAX)
			return CLAW_ERR_PARSE;
		for (; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				return CLAW_ERR_PARSE;
		out->path = xstrdup(line + 17);
		return 0;
	}
	if (strncmp(line, "clawssh-agent-no ", 17) == 0) {
		out->why = xstrdup(line + 17);
		for (p = out->why; *p != '\0'; p++)
			if ((unsigned char)*p < 0x20 || *p == 0x7f)
				out->why[p - out->why] = '?';
		return 0;
	}
	return CLAW_ERR_PARSE;
}

/*
 * Read a kept answer younger than AGENT_RECHECK_S: 0 if one was used,
 * CLAW_ERR_NOTFOUND if none is kept or fresh, CLAW_ERR_PARSE if it is bad.
 */
static int
agent_cache_get(const char *file, struct agent_host *out)
{
	struct stat	 st;
	char		 raw[AGENT_CACHE_MAX], *nl;
	size_t		 nlen = strlen(agent_deploy_name());
	ssize_t		 n;
	int		 fd;

	if (file == NULL || (fd = open(file, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return CLAW_ERR_NOTFOUND;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    time(NULL) - st.st_mtime >= AGENT_RECHECK_S ||
	    time(NULL) < st.st_mtime ||
	    (n = read(fd, raw, sizeof raw - 1)) <= 0) {
		close(fd);
		return CLAW_ERR_NOTFOUND;
	}
	close(fd);
	raw[n] = '\0';
	if ((nl = strchr(raw, '\n')) == NULL || (size_t)n <= nlen + 1 ||
	    strncmp(raw, agent_deploy_name(), nlen) != 0 || raw[nlen] != ' ')
		return CLAW_ERR_PARSE;
	*nl = '\0';
	if (agent_answer(raw + nlen + 1, out) != 0) {
		agent_host_clear(out);
		return CLAW_ERR_PARSE;
	}
	return 0;
}

/* Keep the answer line for next time (best effort, atomic). */
static void
agent_cache_put(const char *file, const char *cache_dir, const char *line)
{
	char	*tmp, *text;
	int	 fd;

	if (file == NULL || (mkdir(cache_dir, 0700) != 0 && errno != EEXIST))
		return;
	tmp = xasprintf("%s.%ld.tmp", file, (long)getpid());
	text = xasprintf("%s %s\n", agent_deploy_name(), line);
	if ((fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) != -1) {
		if (fdio_write_all(fd, text, strlen(text)) == 0 &&
		    close(fd) == 0) {
			if (rename(tmp, file) != 0)
				unlink(tmp);
		} else
			unlink(tmp);
	}
	free(text);
	free(tmp);
}

/*
 * Run one of the scripts with in[0..inlen) on stdin; *line gets its one
 * answer line (allocated, without the newline).
 */
static int
agent_ask(struct transport *t, const char *script, const void *in,
    size_t inlen, char **line, char **cause)
{
	struct buf	 out = BUF_INIT, err = BUF_INIT;
	struct lines	 lr;
	const char	*s;
	size_t		 n;
	int		 rc, status = 0;

	rc = exec_script(t, script, in, inlen, AGENT_OUT_MAX, &out, &err,
	    &status, cause);
	lines_init(&lr, out.data, out.len);
	if (rc == 0 && status != 0) {
		*cause = remote_err_explain(t, &err, status);
		rc = CLAW_ERR_PROTO;
	} else if (rc == 0 && (lines_next(&lr, AGENT_OUT_MAX, &s, &n) != 0 ||
	    lines_left(&lr) != 0)) {
		*cause = xasprintf("%s: malformed answer about the host agent",
		    transport_label(t));
		rc = CLAW_ERR_PARSE;
	} else if (rc == 0)
		*line = xstrndup(s, n);
	buf_free(&out);
	buf_free(&err);
	return rc;
}

/*
 * A script: n, want and the two variables named v1 and v2 set (v2 may be
 * NULL), then body.
 */
static char *
agent_script(const char *body, const char *v1, const char *a,
    const char *v2, const char *b)
{
	struct buf	 s = BUF_INIT;
	char		*want = xasprintf("clawssh-agent %s %s", PACKAGE_VERSION,
			    AGENT_PROTO);

	buf_append_str(&s, "n=");
	shquote_append(&s, agent_deploy_name());
	buf_append_str(&s, "; want=");
	shquote_append(&s, want);
	buf_appendf(&s, "; %s=", v1);
	shquote_append(&s, a);
	if (v2 != NULL) {
		buf_appendf(&s, "; %s=", v2);
		shquote_append(&s, b);
	}
	buf_appendf(&s, "\n%s", body);
	free(want);
	return buf_detach(&s);
}

/* Ask the host, uploading when it needs the agent; *line the answer. */
static int
agent_check_install(struct transport *t, char **line, char **cause)
{
	struct agent_host	 tmp = { NULL, NULL };
	const unsigned char	*blob;
	size_t			 len;
	char			*script, *size;
	int			 rc;

	script = agent_script(AGENT_SH_CHECK, "x", AGENT_ARCH, NULL, NULL);
	rc = agent_ask(t, script, NULL, 0, line, cause);
	free(script);
	if (rc != 0 || agent_answer(*line, &tmp) != 1) {
		agent_host_clear(&tmp);
		return rc;
	}
	free(*line);
	*line = NULL;
	blob = agent_deploy_blob(&len);
	size = xasprintf("%zu", len);
	agent_deploy_name();
	script = agent_script(AGENT_SH_INSTALL, "size", size, "sum",
	    agent_blob_sum);
	rc = agent_ask(t, script, blob, len, line, cause);
	free(script);
	free(size);
	return rc;
}

/* Make sure the host has the agent; see agent_deploy.h. */
int
agent_deploy_ensure(struct transport *t, const char *cache_dir,
    struct agent_host *out, char **cause)
{
	char	*file = agent_cache_file(t, cache_dir), *line = NULL;
	int	 rc;

	memset(out, 0, sizeof *out);
	if (agent_cache_get(file, out) == 0) {
		free(file);
		return 0;
	}
	if ((rc = agent_check_install(t, &line, cause)) == 0) {
		if ((rc = agent_answer(line, out)) != 0) {
			agent_host_clear(out);
			*cause = xasprintf("%s: malformed answer about the "
			    "host agent", transport_label(t));
			rc = CLAW_ERR_PARSE;
		} else
			agent_cache_put(file, cache_dir, line);
	}
	free(line);
	free(file);
	return rc;
}

/* The agent from the kept answer only; see agent_deploy.h. */
int
agent_deploy_cached(struct transport *t, const char *cache_dir,
    struct agent_host *out)
{
	char	*file = agent_cache_file(t, cache_dir);
	int	 rc;

	memset(out, 0, sizeof *out);
	rc = agent_cache_get(file, out) == 0 && out->path != NULL ? 0 : 1;
	if (rc != 0)
		agent_host_clear(out);
	free(file);
	return rc;
}

/* Forget the kept answer; see agent_deploy.h. */
void
agent_deploy_forget(struct transport *t, const char *cache_dir)
{
	char	*file = agent_cache_file(t, cache_dir);

	if (file != NULL)
		unlink(file);
	free(file);
}

/* Free an answer; see agent_deploy.h. */
void
agent_host_clear(struct agent_host *out)
{
	free(out->path);
	free(out->why);
	out->path = NULL;
	out->why = NULL;
}
