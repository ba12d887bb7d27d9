/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The managed backend's provider side: names, get-or-create with a wait
 * for READY, delete, and the ssh settings that reach an endpoint.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

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
#include "num.h"
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

/*
 * Poll until READY, a dead end, or the ready timeout.  *ended (if not
 * NULL) says whether the provider reported the sandbox FAILED or GONE.
 */
static int
managed_wait(const struct managed *m, const char *name,
    struct provider_sandbox *sb, int *ended, char **cause)
{
	int64_t	 deadline;
	char	*st;
	int	 rc, ms = MANAGED_POLL_MIN;

	if (ended != NULL)
		*ended = 0;
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
	if (ended != NULL)
		*ended = sb->state == PROVIDER_FAILED ||
		    sb->state == PROVIDER_GONE;
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

/* Wait until name is absent or gone at the provider. */
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
		rc = sb.state != PROVIDER_ABSENT && sb.state != PROVIDER_GONE;
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

/* The first wait between two creates (ms); see managed.h. */
static int
managed_retry_ms(void)
{
	uint64_t	v;

	if (num_parse_str(getenv("CLAWSSH_PROVIDER_RETRY_MS"), 0, 600000,
	    &v) != 0)
		return MANAGED_RETRY_MS;
	return (int)v;
}

/* cause without the "provider NAME (DRIVER): " that every error has. */
static const char *
managed_bare_cause(const struct managed *m, const char *cause)
{
	char	*pre;
	size_t	 n;
	int	 same;

	if (cause == NULL)
		return "no reason given";
	pre = xasprintf("provider %s (%s): ", m->pc.name, m->pc.driver);
	n = strlen(pre);
	same = strncmp(cause, pre, n) == 0;
	free(pre);
	return same ? cause + n : cause;
}

/*
 * One try: create name and wait for READY.  A create call that fails
 * (not a request the driver refused: CLAW_ERR_INVAL, what the provider
 * cannot give, CLAW_ERR_UNSUPPORTED, or a template or pool it does not
 * have, CLAW_ERR_NOTFOUND) is followed by a
 * look at name (*seen, *looked set): if it is coming up all the same (a
 * CLI killed at the provider's timeout while it watched a slow
 * provisioning) it is waited for, not undone.  *again says whether the
 * failure is one to try again after: the create failed and nothing of it
 * is coming up, or the new sandbox failed or ended before it was ready.
 */
static int
managed_create_once(const struct managed *m, const char *name,
    const struct provider_request *req, struct provider_sandbox *sb,
    struct provider_sandbox *seen, int *looked, int *again, char **cause)
{
	char	*err = NULL;
	int	 rc, ended;

	*again = *looked = 0;
	memset(sb, 0, sizeof *sb);
	if ((rc = m->ops->create(&m->pc, name, req, cause)) != 0) {
		if (rc == CLAW_ERR_INVAL || rc == CLAW_ERR_UNSUPPORTED ||
		    rc == CLAW_ERR_NOTFOUND)
			return rc;	/* refused: no try will differ */
		*again = 1;
		if (managed_get(m, name, seen, &err) != 0) {
			free(err);
			return rc;
		}
		*looked = 1;
		if (seen->state != PROVIDER_PENDING &&
		    seen->state != PROVIDER_READY)
			return rc;
		log_warn("provider %s: %s; %s is %s all the same: waiting for "
		    "it", m->pc.name, managed_bare_cause(m, *cause), name,
		    provider_state_name(seen->state));
		provider_sandbox_clear(seen);
		*again = *looked = 0;
		free(*cause);
		*cause = NULL;
	}
	sb->state = PROVIDER_PENDING;
	if ((rc = managed_wait(m, name, sb, &ended, cause)) != 0)
		*again = ended;
	return rc;
}

/*
 * Undo a failed try: note what the provider has under name (*seen when
 * already looked at, else asked now) in *st, and delete it and wait until
 * it is gone if it has anything.
 */
static int
managed_create_undo(const struct managed *m, const char *name,
    const struct provider_sandbox *seen, char **st, char **cause)
{
	struct provider_sandbox	 sb;
	enum provider_state	 state;
	char			*was;
	int			 rc, existed;

	if (seen == NULL) {
		if ((rc = managed_get(m, name, &sb, cause)) != 0)
			return rc;
		seen = &sb;
	}
	*st = managed_state_text(seen);
	state = seen->state;
	if (seen == &sb)
		provider_sandbox_clear(&sb);
	if (state == PROVIDER_ABSENT)
		return 0;
	log_info("provider %s: deleting what the failed create of %s left "
	    "(%s)", m->pc.name, name, *st);
	if ((rc = managed_destroy(m, name, &existed, cause)) != 0 ||
	    (rc = managed_wait_ended(m, name, cause)) != 0)
		return rc;
	was = *st;
	*st = xasprintf("%s, since deleted", was);
	free(was);
	return 0;
}

/* The error after the last try: tries, waits, last state, last error. */
static int
managed_create_fail(const struct managed *m, const char *name, int rc,
    int tries, const struct buf *waits, const char *st, char *why,
    char **cause)
{
	rc = provider_fail(cause, &m->pc, rc, "sandbox %s: create failed %d "
	    "time%s (tried again after %s); last state: %s; last error: %s",
	    name, tries, tries == 1 ? "" : "s", waits->len > 0 ? waits->data :
	    "no wait", st != NULL ? st : "unknown", managed_bare_cause(m, why));
	free(why);
	return rc;
}

/*
 * Create name and wait for READY, trying again after a failed create as
 * managed.h says.  *left says whether a sandbox this call made may still
 * be there (a sandbox stuck pending, an endpoint that failed its check).
 */
static int
managed_create(const struct managed *m, const char *name,
    const struct provider_request *req, struct provider_sandbox *sb,
    int *left, char **cause)
{
	struct provider_sandbox	 seen;
	struct buf		 waits = BUF_INIT;
	char			*why = NULL, *st = NULL, *undo = NULL;
	int			 rc, urc, again, looked, tries;
	int			 ms = managed_retry_ms();

	for (tries = 1;; tries++) {
		*left = 1;
		free(why);
		why = NULL;
		if ((rc = managed_create_once(m, name, req, sb, &seen,
		    &looked, &again, &why)) == 0)
			break;
		if (!again) {
			*cause = why;
			why = NULL;
			break;
		}
		free(st);
		st = NULL;
		urc = managed_create_undo(m, name, looked ? &seen : NULL, &st,
		    &undo);
		if (looked)
			provider_sandbox_clear(&seen);
		if (urc != 0) {
			rc = provider_fail(cause, &m->pc, rc, "%s; what it "
			    "left could not be deleted: %s",
			    managed_bare_cause(m, why), managed_bare_cause(m,
			    undo));
			free(undo);
			break;
		}
		*left = 0;
		if (tries == MANAGED_CREATE_TRIES) {
			rc = managed_create_fail(m, name, rc, tries, &waits,
			    st, why, cause);
			why = NULL;
			break;
		}
		log_warn("provider %s: creating %s failed (try %d of %d): %s; "
		    "trying again in %d ms", m->pc.name, name, tries,
		    MANAGED_CREATE_TRIES, managed_bare_cause(m, why), ms);
		if (ms < 1000)
			buf_appendf(&waits, "%s%d ms", waits.len > 0 ? ", " :
			    "", ms);
		else
			buf_appendf(&waits, "%s%.1f s", waits.len > 0 ? ", " :
			    "", ms / 1000.0);
		managed_sleep(ms, clock_now_ms() + ms);
		ms = ms > 300000 ? 600000 : ms * 2;
	}
	free(why);
	free(st);
	buf_free(&waits);
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
		provider_sandbox_clear(&cur);	/* a driver may name it */
		log_info("provider %s: creating %s", m->pc.name, name);
		return managed_create(m, name, req, sb, created, cause);
	}
	if (cur.state == PROVIDER_FAILED) {
		rc = managed_wait(m, name, &cur, NULL, cause);
		return rc == 0 ? CLAW_ERR_PROTO : rc;
	}
	if ((rc = managed_wait(m, name, &cur, NULL, cause)) != 0)
		return rc;
	*sb = cur;
	return 0;
}

/* Delete, wait, create again, wait for READY; see managed.h. */
int
managed_replace(const struct managed *m, const char *name,
    const struct provider_request *req, struct provider_sandbox *sb,
    char **cause)
{
	int	rc, existed, left;

	if ((rc = managed_destroy(m, name, &existed, cause)) != 0 ||
	    (rc = managed_wait_ended(m, name, cause)) != 0)
		return rc;
	log_info("provider %s: creating %s again", m->pc.name, name);
	return managed_create(m, name, req, sb, &left, cause);
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

/* Whether path is a pin still waiting for its first key (empty file). */
static int
managed_pin_empty(const char *path)
{
	struct stat	st;

	return lstat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == 0;
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
		managed_line(lines, n, xasprintf("StrictHostKeyChecking %s",
		    managed_pin_empty(known_hosts) ? "accept-new" : "yes"));
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

/* Make a pin for the first key seen; see managed.h. */
int
managed_pin_first(const char *path, int fresh, char **cause)
{
	int	fd, flags = O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC;

	fd = open(path, flags | (fresh ? O_TRUNC : 0), 0600);
	if (fd == -1)
		return claw_fail_errno(cause, path, "open");
	if (close(fd) == -1)
		return claw_fail_errno(cause, path, "close");
	return 0;
}
