/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Destination parsing: "[user@]host[:port]" as typed on the command line.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "sshconfig.h"
#include "sshconfig_int.h"
#include "xmalloc.h"

/* Return 1 if s holds a blank or control character. */
static int
sc_has_space(const char *s)
{
	for (; *s != '\0'; s++) {
		if (isspace((unsigned char)*s) || iscntrl((unsigned char)*s))
			return 1;
	}
	return 0;
}

/* Split "host", "host:port", "[addr]" or "[addr]:port"; NULL or a reason. */
static const char *
sc_target_host(const char *s, char **host, const char **portstr)
{
	const char	*end;

	*portstr = NULL;
	if (*s == '[') {
		if ((end = strchr(s, ']')) == NULL)
			return "missing ']'";
		if (end[1] == ':')
			*portstr = end + 2;
		else if (end[1] != '\0')
			return "unexpected text after ']'";
		*host = xstrndup(s + 1, (size_t)(end - s - 1));
	} else if ((end = strchr(s, ':')) != NULL &&
	    strchr(end + 1, ':') == NULL) {
		*portstr = end + 1;
		*host = xstrndup(s, (size_t)(end - s));
	} else
		*host = xstrdup(s);
	if (**host == '\0')
		return "empty host name";
	if (sc_has_space(*host) || strchr(*host, '[') != NULL)
		return "bad character in host name";
	return NULL;
}

/* Split target into user, host and port parts; NULL or a reason. */
static const char *
sc_target_split(const char *target, char **user, char **host, int *port)
{
	const char	*at, *portstr, *why;

	if ((at = strrchr(target, '@')) != NULL) {
		*user = xstrndup(target, (size_t)(at - target));
		if (**user == '\0')
			return "empty user name";
		if (sc_has_space(*user))
			return "bad character in user name";
	}
	if ((why = sc_target_host(at != NULL ? at + 1 : target, host,
	    &portstr)) != NULL)
		return why;
	if (portstr != NULL && (*port = sshconfig_port(portstr)) < 0)
		return "bad port number";
	return NULL;
}

/* Split "[user@]host[:port]"; see sshconfig.h. */
int
sshconfig_parse_target(const char *target, char **user, char **host,
    int *port, char **cause)
{
	const char	*why;
	char		*u = NULL, *h = NULL;
	int		 pn = 0;

	if (target == NULL || *target == '\0')
		why = "empty target";
	else
		why = sc_target_split(target, &u, &h, &pn);
	if (why != NULL) {
		sshconfig_cause(cause, xasprintf("invalid target \"%s\": %s",
		    target == NULL ? "" : target, why));
		free(u);
		free(h);
		return CLAW_ERR_INVAL;
	}
	*user = u;
	*host = h;
	*port = pn;
	return 0;
}
