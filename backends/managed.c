/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The managed backend's provider side: names, get-or-create with a wait
 * for READY, delete, and the ssh settings that reach an endpoint.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clawconfig.h"
#include "clock.h"
#include "error.h"
#include "log.h"
#include "managed.h"
#include "provider.h"
#include "sandbox.h"
#include "xmalloc.h"

#define MANAGED_POLL_MIN	250	/* ms between gets, at first */
#define MANAGED_POLL_MAX	5000	/* ms between gets, at most */

/* Set m up for a configured provider; see managed.h. */
int
managed_open(const struct claw_config *cfg, const char *name,
    struct managed *m, char **cause)
{
	const struct claw_provider	*p;

	memset(m, 0, sizeof *m);
	if ((p = config_provider(cfg, name)) == NULL)
		return claw_fail(cause, CLAW_ERR_NOTFOUND, "no provider '%s' "
		    "in the config (providers.%s)", name, name);
	if ((m->ops = provider_find(p->driver)) == NULL)
		return claw_fail(cause, CLAW_ERR_INVAL, "provider %s: driver "
		    "'%s' is not built into this clawssh", name, p->driver);
	m->pc.name = p->name;
	m->pc.driver = p->driver;
	m->pc.command = p->command;
	m->pc.timeout = p->timeout;
	m->pc.ready_timeout = p->ready_timeout;
	m->pc.args = p->args;
	m->pc.nargs = p->nargs;
	return 0;
}

/* The provider's name for a sandbox; see managed.h. */
int
managed_name(const struct managed *m, const char *id, char **out,
    char **cause)
{
	size_t	len = strlen(id);

	if (len + strlen(MANAGED_PREFIX) <= m->ops->name_max)
		*out = xasprintf("%s%s", MANAGED_PREFIX, id);
	else if (len <= m->ops->name_max)
		*out = xstrdup(id);
	else
		return provider_fail(cause, &m->pc, CLAW_ERR_INVAL, "sandbox "
		    "names are limited to %zu characters; %s needs %zu",
		    m->ops->name_max, id, len);
	return 0;
}

/* One get; a READY answer without an endpoint host is a protocol error. */
static int
managed_get(const struct managed *m, const char *name,
    struct provider_sandbox *sb, char **cause)
{
	int	rc;

	memset(sb, 0, sizeof *sb);
	if ((rc = m->ops->get(&m->pc, name, sb, cause)) != 0)
		return rc;
	log_debug("provider %s: %s is %s (%s)", m->pc.name, name,
	    provider_state_name(sb->state), sb->state_text != NULL ?
	    sb->state_text : "");
	if (sb->state == PROVIDER_READY &&
	    (rc = provider_endpoint_check(&m->pc, &sb->ep, cause)) != 0)
		provider_sandbox_clear(sb);
	return rc;
}

/* Describe a state for messages: "pending (Provisioning)". */
static char *
managed_state_text(const struct provider_sandbox *sb)
{
	const char	*name = provider_state_name(sb->state);

	if (sb->state_text == NULL || strcmp(sb->state_text, name) == 0)
		return xstrdup(name);
	return xasprintf("%s (%.200s)", name, sb->state_text);
}

/* Sleep ms, at most until deadline. */
static void
managed_sleep(int ms, int64_t deadline)
{
	struct timespec	ts;
	int64_t		left = deadline - clock_now_ms();

	if (left < ms)
		ms = left > 0 ? (int)left : 0;
	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000 * 1000;
	nanosleep(&ts, NULL);
}

/* Poll until READY, a dead end, or the ready timeout. */
static int
managed_wait(const struct managed *m, const char *name,
    struct provider_sandbox *sb, char **cause)
{
	int64_t	 deadline;
	char	*st;
	int	 rc, ms = MANAGED_POLL_MIN;

	deadline = clock_now_ms() + (int64_t)m->pc.ready_timeout * 1000;
	for (;;) {
		if (sb->state == PROVIDER_READY)
			return 0;
		if (sb->state == PROVIDER_FAILED ||
		    sb->state == PROVIDER_GONE || clock_now_ms() >= deadline)
			break;
		managed_sleep(ms, deadline);
		ms = ms * 2 > MANAGED_POLL_MAX ? MANAGED_POLL_MAX : ms * 2;
		provider_sandbox_clear(sb);
		if ((rc = managed_get(m, name, sb, cause)) != 0)
			return rc;
	}
	st = managed_state_text(sb);
	if (sb->state == PROVIDER_FAILED || sb->state == PROVIDER_GONE)
		rc = provider_fail(cause, &m->pc, CLAW_ERR_PROTO, "sandbox %s "
		    "will not become ready: %s", name, st);
	else
		rc = provider_fail(cause, &m->pc, CLAW_ERR_TIMEOUT, "sandbox "
		    "%s not ready after %d s (readyTimeout); last state: %s",
		    name, m->pc.ready_timeout, st);
	free(st);
	provider_sandbox_clear(sb);
	return rc;
}

/* Get or create, then wait for READY; see managed.h. */
int
managed_ensure(const struct managed *m, const char *name,
    const struct provider_request *req, struct provider_sandbox *sb,
    int *created, char **cause)
{
	struct provider_sandbox	 cur;
	int			 rc;

	*created = 0;
	if ((rc = managed_get(m, name, &cur, cause)) != 0)
		return rc;
	if (cur.state == PROVIDER_GONE) {
		/* Ended (Slurm lists cancelled jobs for MinJobAge): the
		 * name is free, so this is a create like ABSENT. */
		log_info("provider %s: %s ended (%s); creating it again",
		    m->pc.name, name, cur.state_text != NULL ?
		    cur.state_text : "gone");
		provider_sandbox_clear(&cur);
		cur.state = PROVIDER_ABSENT;
	}
	if (cur.state == PROVIDER_ABSENT) {
		log_info("provider %s: creating %s", m->pc.name, name);
		if ((rc = m->ops->create(&m->pc, name, req, cause)) != 0)
			return rc;
		*created = 1;
		cur.state = PROVIDER_PENDING;
	} else if (cur.state == PROVIDER_FAILED) {
		rc = managed_wait(m, name, &cur, cause);
		return rc == 0 ? CLAW_ERR_PROTO : rc;
	}
	if ((rc = managed_wait(m, name, &cur, cause)) != 0)
		return rc;
	*sb = cur;
	return 0;
}

/* Wait until name is neither ready nor pending any more. */
static int
managed_wait_ended(const struct managed *m, const char *name, char **cause)
{
	struct provider_sandbox	 sb;
	int64_t			 deadline;
	int			 rc, ms = MANAGED_POLL_MIN;

	deadline = clock_now_ms() + (int64_t)m->pc.ready_timeout * 1000;
	for (;;) {
		if ((rc = managed_get(m, name, &sb, cause)) != 0)
			return rc;
		rc = sb.state == PROVIDER_READY || sb.state == PROVIDER_PENDING;
		provider_sandbox_clear(&sb);
		if (!rc)
			return 0;
		if (clock_now_ms() >= deadline)
			return provider_fail(cause, &m->pc, CLAW_ERR_TIMEOUT,
			    "sandbox %s still there %d s after its deletion",
			    name, m->pc.ready_timeout);
		managed_sleep(ms, deadline);
		ms = ms * 2 > MANAGED_POLL_MAX ? MANAGED_POLL_MAX : ms * 2;
	}
}

/* Delete, wait, create again, wait for READY; see managed.h. */
int
managed_replace(const struct managed *m, const char *name,
    const struct provider_request *req, struct provider_sandbox *sb,
    char **cause)
{
	struct provider_sandbox	 cur;
	int			 rc, existed;

	if ((rc = managed_destroy(m, name, &existed, cause)) != 0 ||
	    (rc = managed_wait_ended(m, name, cause)) != 0)
		return rc;
	log_info("provider %s: creating %s again", m->pc.name, name);
	if ((rc = m->ops->create(&m->pc, name, req, cause)) != 0)
		return rc;
	memset(&cur, 0, sizeof cur);
	cur.state = PROVIDER_PENDING;
	if ((rc = managed_wait(m, name, &cur, cause)) != 0)
		return rc;
	*sb = cur;
	return 0;
}

/* Delete at the provider; see managed.h. */
int
managed_destroy(const struct managed *m, const char *name, int *existed,
    char **cause)
{
	*existed = 0;
	return m->ops->destroy(&m->pc, name, existed, cause);
}

/* Append one line to a vector. */
static void
managed_line(char ***lines, size_t *n, char *line)
{
	*lines = xreallocarray(*lines, *n + 1, sizeof **lines);
	(*lines)[(*n)++] = line;
}

/* The ssh -o lines for an endpoint; see managed.h. */
void
managed_ssh_lines(const char *host, int port, const char *user,
    const char *proxy_command, const char *identity_file,
    const char *host_key_alias, const char *known_hosts, char ***lines,
    size_t *n)
{
	managed_line(lines, n, xasprintf("HostName %s", host));
	if (port > 0)		/* else the ssh_config's Port, or 22 */
		managed_line(lines, n, xasprintf("Port %d", port));
	if (user != NULL)
		managed_line(lines, n, xasprintf("User %s", user));
	managed_line(lines, n, xasprintf("ProxyCommand %s",
	    proxy_command != NULL ? proxy_command : "none"));
	if (identity_file != NULL)
		managed_line(lines, n, xasprintf("IdentityFile \"%s\"",
		    identity_file));
	if (host_key_alias != NULL)
		managed_line(lines, n, xasprintf("HostKeyAlias %s",
		    host_key_alias));
	if (known_hosts != NULL) {
		managed_line(lines, n, xasprintf("UserKnownHostsFile \"%s\"",
		    known_hosts));
		managed_line(lines, n, xstrdup("GlobalKnownHostsFile none"));
		managed_line(lines, n, xstrdup("StrictHostKeyChecking yes"));
	}
}

/* Write the pinned host keys; see managed.h. */
int
managed_pin_keys(const char *path, const char *keys, char **cause)
{
	struct buf	 b = BUF_INIT;
	const char	*line, *nl;
	int		 fd, rc = 0;

	for (line = keys; *line != '\0'; line = nl + (*nl != '\0')) {
		nl = line + strcspn(line, "\n");
		if (nl > line)
			buf_appendf(&b, "* %.*s\n", (int)(nl - line), line);
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1)
		rc = claw_fail_errno(cause, path, "open");
	else if (write(fd, b.data, b.len) != (ssize_t)b.len)
		rc = claw_fail_errno(cause, path, "write");
	if (fd != -1 && close(fd) == -1 && rc == 0)
		rc = claw_fail_errno(cause, path, "close");
	buf_free(&b);
	return rc;
}
