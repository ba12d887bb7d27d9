/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Containment policy settings: runtime and network names, sizes.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "contain.h"
#include "error.h"
#include "shquote.h"
#include "xmalloc.h"

static const char *const contain_runtimes[] = {
	[CONTAIN_NONE] = "none",
	[CONTAIN_BWRAP] = "bwrap",
	[CONTAIN_DOCKER] = "docker",
	[CONTAIN_PODMAN] = "podman",
};

static const char *const contain_networks[] = {
	[CONTAIN_NET_NONE] = "none",
	[CONTAIN_NET_HOST] = "host",
};

const struct names contain_runtime_names = NAMES_OF(contain_runtimes);
const struct names contain_network_names = NAMES_OF(contain_networks);

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define CONTAIN_IMAGE_CHARS	"abcdefghijklmnopqrstuvwxyz" \
	"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/:@-"

/* Parse a runtime name; see contain.h. */
int
contain_runtime_parse(const char *s, enum contain_runtime *out)
{
	int	i;

	if ((i = names_find(&contain_runtime_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum contain_runtime)i;
	return 0;
}

/* Name a runtime; see contain.h. */
const char *
contain_runtime_name(enum contain_runtime r)
{
	return names_get(&contain_runtime_names, (int)r);
}

/* Parse a network mode name; see contain.h. */
int
contain_network_parse(const char *s, enum contain_network *out)
{
	int	i;

	if ((i = names_find(&contain_network_names, s)) < 0)
		return CLAW_ERR_INVAL;
	*out = (enum contain_network)i;
	return 0;
}

/* Name a network mode; see contain.h. */
const char *
contain_network_name(enum contain_network n)
{
	return names_get(&contain_network_names, (int)n);
}

/* Return the shift of unit letter c (K, M, G, T in any case), else 0. */
static int
contain_size_shift(char c)
{
	switch (c) {
	case 'k':
	case 'K':
		return 10;
	case 'm':
	case 'M':
		return 20;
	case 'g':
	case 'G':
		return 30;
	case 't':
	case 'T':
		return 40;
	default:
		return 0;
	}
}

/* Fail with "SIZE: why" for size s, quoted for display. */
static int
contain_size_fail(char **cause, const char *s, const char *why)
{
	char	*q;
	int	 r;

	q = shquote(s);
	r = claw_fail(cause, CLAW_ERR_INVAL, "size %s: %s", q, why);
	free(q);
	return r;
}

/* Parse a size with an optional binary unit; see contain.h. */
int
contain_size_parse(const char *s, int64_t *out, char **cause)
{
	const char	*p;
	int64_t		 v = 0;
	int		 d, shift;

	if (s == NULL || *s == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "empty size");
	for (p = s; *p >= '0' && *p <= '9'; p++) {
		d = *p - '0';
		if (v > (INT64_MAX - d) / 10)
			return contain_size_fail(cause, s, "too large");
		v = v * 10 + d;
	}
	if (p == s)
		return contain_size_fail(cause, s, "not a whole number of "
		    "bytes with an optional K, M, G or T");
	if ((shift = contain_size_shift(*p)) != 0)
		p++;
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p != '\0')
		return contain_size_fail(cause, s, "not a whole number of "
		    "bytes with an optional K, M, G or T");
	if (v > (INT64_MAX >> shift))
		return contain_size_fail(cause, s, "too large");
	*out = v << shift;
	return 0;
}

/* Fail with "CPUs S: why", s quoted for display. */
static int
contain_cpus_fail(char **cause, const char *s, const char *why)
{
	char	*q = shquote(s);
	int	 r;

	r = claw_fail(cause, CLAW_ERR_INVAL, "CPUs %s: %s", q, why);
	free(q);
	return r;
}

/* Parse a number of CPUs into thousandths; see contain.h. */
int
contain_cpus_parse(const char *s, int64_t *out, char **cause)
{
	const char	*p = s;
	int64_t		 v = 0;
	int		 frac = -1;

	if (s == NULL || *s == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "empty number of CPUs");
	for (; *p != '\0'; p++) {
		if (*p == '.' && frac == -1 && p != s && p[1] != '\0') {
			frac = 0;
			continue;
		}
		if (*p < '0' || *p > '9' || frac == 3)
			break;
		if (v > CONTAIN_CPUS_MAX)
			return contain_cpus_fail(cause, s, "too many");
		v = v * 10 + (*p - '0');
		if (frac >= 0)
			frac++;
	}
	if (*p == 'm' && p[1] == '\0' && frac == -1 && p != s)
		p++;			/* thousandths already */
	else if (*p == '\0')
		for (frac = frac < 0 ? 0 : frac; frac < 3; frac++)
			v *= 10;
	if (*p != '\0')
		return contain_cpus_fail(cause, s, "expected a number such as "
		    "2, 1.5 (at most three decimals) or 500m");
	if (v > CONTAIN_CPUS_MAX)
		return contain_cpus_fail(cause, s, "too many (at most 4096)");
	*out = v;
	return 0;
}

/* Read a number of CPUs from JSON; see contain.h. */
int
contain_cpus_json(const cJSON *v, int64_t *out, char **cause)
{
	double	m, off;

	if (cJSON_IsString(v))
		return contain_cpus_parse(v->valuestring, out, cause);
	if (cJSON_IsNumber(v)) {
		m = v->valuedouble * 1000;
		off = m - (double)(int64_t)(m + 0.5);	/* from thousandths */
		if (m >= 0 && m <= CONTAIN_CPUS_MAX && off < 1e-6 &&
		    off > -1e-6) {
			*out = (int64_t)(m + 0.5);
			return 0;
		}
	}
	return claw_fail(cause, CLAW_ERR_INVAL, "expected a number of CPUs "
	    "from 0 to 4096, at most three decimals (1.5), or a string such "
	    "as \"500m\"");
}

/* Write thousandths of a CPU as a decimal; see contain.h. */
void
contain_cpus_format(int64_t milli, char *buf, size_t len)
{
	int	n;

	n = snprintf(buf, len, "%lld.%03lld", (long long)(milli / 1000),
	    (long long)(milli % 1000));
	while (n > 0 && (size_t)n < len && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (n > 0 && (size_t)n < len && buf[n - 1] == '.')
		buf[--n] = '\0';
}

/* The JSON member names of the limits, in struct order. */
static const char *const contain_limit_names[] = {
	"memory", "processes", "cpuSeconds", "fileSize", "openFiles",
	"cpuMillis"
};

/* Return the address of limit i of l. */
static int64_t *
contain_limit_at(struct contain_limits *l, size_t i)
{
	int64_t	*f[] = { &l->memory, &l->nproc, &l->cpu, &l->fsize,
	    &l->nofile, &l->cpus };

	return f[i];
}

/* The limits as a JSON object of the non-zero ones; see contain.h. */
cJSON *
contain_limits_json(const struct contain_limits *l)
{
	struct contain_limits	 c = *l;
	cJSON			*o = cJSON_CreateObject();
	size_t			 i;

	for (i = 0; i < NITEMS(contain_limit_names); i++) {
		if (*contain_limit_at(&c, i) != 0)
			cJSON_AddNumberToObject(o, contain_limit_names[i],
			    (double)*contain_limit_at(&c, i));
	}
	return o;
}

/* Read limits from a JSON object; see contain.h. */
int
contain_limits_from_json(const cJSON *o, struct contain_limits *l,
    char **cause)
{
	struct contain_limits	 c;
	const cJSON		*m;
	size_t			 i;
	double			 d;

	memset(&c, 0, sizeof c);
	if (!cJSON_IsObject(o))
		return claw_fail(cause, CLAW_ERR_PARSE, "limits: expected an "
		    "object");
	for (m = o->child; m != NULL; m = m->next) {
		for (i = 0; i < NITEMS(contain_limit_names) &&
		    strcmp(m->string, contain_limit_names[i]) != 0; i++)
			;
		d = m->valuedouble;
		if (i == NITEMS(contain_limit_names) || !cJSON_IsNumber(m) ||
		    !(d >= 0 && d <= CONTAIN_LIMIT_MAX) ||
		    d != (double)(int64_t)d)
			return claw_fail(cause, CLAW_ERR_PARSE, "limits: bad "
			    "member '%s'", m->string);
		*contain_limit_at(&c, i) = (int64_t)d;
	}
	*l = c;
	return 0;
}

/* Check an engine's image reference; see contain.h. */
int
contain_image_ref_check(const char *image, char **cause)
{
	size_t	len;

	if (image == NULL || *image == '\0')
		return claw_fail(cause, CLAW_ERR_INVAL, "no container image");
	len = strnlen(image, CONTAIN_IMAGE_REF_MAX + 1);
	if (len > CONTAIN_IMAGE_REF_MAX)
		return claw_fail(cause, CLAW_ERR_INVAL,
		    "container image reference longer than %d bytes",
		    CONTAIN_IMAGE_REF_MAX);
	if (image[0] == '-' || strspn(image, CONTAIN_IMAGE_CHARS) != len)
		return claw_fail(cause, CLAW_ERR_INVAL, "bad container image "
		    "reference (allowed: letters, digits and ._/:@- not "
		    "first)");
	return 0;
}

/* The limit an exit status points at; see contain.h. */
char *
contain_limit_note(const struct contain_limits *l, int status)
{
	if (status == 128 + SIGXCPU && l->cpu != 0)
		return xasprintf("the command exceeded its CPU time limit "
		    "(%lld s)", (long long)l->cpu);
	if (status == 128 + SIGXFSZ && l->fsize != 0)
		return xasprintf("the command exceeded its file size limit "
		    "(%lld bytes)", (long long)l->fsize);
	if ((status == 128 + SIGKILL || status == 128 + SIGSEGV ||
	    status == 128 + SIGABRT) && l->memory != 0)
		return xasprintf("the command died of signal %d; it may have "
		    "hit its memory limit (%lld bytes)", status - 128,
		    (long long)l->memory);
	return NULL;
}
