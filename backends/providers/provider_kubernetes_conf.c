/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The kubernetes driver's settings and the lines it writes: the
 * providers.NAME.args ("key=value" each), Kubernetes names, the
 * SandboxClaim manifest and the ProxyCommand.  See provider_kubernetes.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <ctype.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "buf.h"
#include "error.h"
#include "provider.h"
#include "provider_kubernetes.h"
#include "shquote.h"
#include "xmalloc.h"

/* What a setting's value must look like. */
enum k8s_kind {
	K8S_V_LABEL,	/* a DNS-1123 label (namespace, container) */
	K8S_V_OBJECT,	/* a DNS-1123 subdomain (template, pool) */
	K8S_V_TEXT,	/* one printable line (context, kubeconfig) */
	K8S_V_USER,	/* a user name */
	K8S_V_HOSTKEY,	/* an absolute path, or "none" */
	K8S_V_SSHD	/* words */
};

/* The settings, their kinds and where they go. */
static const struct {
	const char	*key;
	enum k8s_kind	 kind;
	size_t		 off;
} k8s_keys[] = {
	{ "namespace", K8S_V_LABEL, offsetof(struct k8s_conf, namespace) },
	{ "context", K8S_V_TEXT, offsetof(struct k8s_conf, context) },
	{ "kubeconfig", K8S_V_TEXT, offsetof(struct k8s_conf, kubeconfig) },
	{ "template", K8S_V_OBJECT, offsetof(struct k8s_conf, template) },
	{ "warmPool", K8S_V_OBJECT, offsetof(struct k8s_conf, warm_pool) },
	{ "container", K8S_V_LABEL, offsetof(struct k8s_conf, container) },
	{ "user", K8S_V_USER, offsetof(struct k8s_conf, user) },
	{ "hostKey", K8S_V_HOSTKEY, offsetof(struct k8s_conf, host_key) },
	{ "sshd", K8S_V_SSHD, 0 },
};

/* Whether s is a DNS-1123 label of at most max bytes; see the header. */
int
k8s_label_ok(const char *s, size_t max)
{
	size_t	i, n = strlen(s);

	if (n == 0 || n > max || !isalnum((unsigned char)s[0]) ||
	    !isalnum((unsigned char)s[n - 1]))
		return 0;
	for (i = 0; i < n; i++) {
		if (!(islower((unsigned char)s[i]) ||
		    isdigit((unsigned char)s[i]) || s[i] == '-'))
			return 0;
	}
	return 1;
}

/* Whether s is a DNS-1123 subdomain; see the header. */
int
k8s_subdomain_ok(const char *s)
{
	const char	*p, *dot;
	char		 part[K8S_NAME_MAX + 1];
	size_t		 n;

	if (*s == '\0' || strlen(s) > K8S_OBJECT_MAX)
		return 0;
	for (p = s;; p = dot + 1) {
		dot = strchr(p, '.');
		n = dot != NULL ? (size_t)(dot - p) : strlen(p);
		if (n == 0 || n > K8S_NAME_MAX)
			return 0;
		memcpy(part, p, n);
		part[n] = '\0';
		if (!k8s_label_ok(part, K8S_NAME_MAX))
			return 0;
		if (dot == NULL)
			return 1;
	}
}

/* Whether s is a label value: 1..63 of [A-Za-z0-9._-], alnum at ends. */
static int
k8s_label_value_ok(const char *s)
{
	size_t	n = strlen(s);

	return n > 0 && n <= K8S_NAME_MAX &&
	    isalnum((unsigned char)s[0]) && isalnum((unsigned char)s[n - 1]) &&
	    strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789._-") == n;
}

/* Whether s is 1..max bytes of one printable line. */
static int
k8s_printable(const char *s, size_t max)
{
	const unsigned char	*p = (const unsigned char *)s;

	if (*p == '\0' || strlen(s) > max)
		return 0;
	for (; *p != '\0'; p++) {
		if (*p < 0x20 || *p == 0x7f)
			return 0;
	}
	return 1;
}

/* Whether s is one printable line not starting with '-' (an option). */
static int
k8s_text_ok(const char *s, size_t max)
{
	return *s != '-' && k8s_printable(s, max);
}

/*
 * Split an sshd setting into kc->sshd: 1 to K8S_SSHD_WORDS words.  0,
 * CLAW_ERR_RANGE for too many words, or CLAW_ERR_INVAL.
 */
static int
k8s_conf_sshd(struct k8s_conf *kc, const char *v)
{
	const char	*p = v;
	size_t		 n = 0, len;

	while (*(p += strspn(p, " \t")) != '\0') {
		len = strcspn(p, " \t");
		if (n == K8S_SSHD_WORDS)
			return CLAW_ERR_RANGE;
		kc->sshd[n] = xstrndup(p, len);
		if ((n == 0 && *p == '-') || !k8s_printable(kc->sshd[n], 4096))
			return CLAW_ERR_INVAL;
		n++;
		p += len;
	}
	return n > 0 ? 0 : CLAW_ERR_INVAL;
}

/* Check v for a setting of kind; 0 when fine, else CLAW_ERR_INVAL. */
static int
k8s_conf_value_ok(enum k8s_kind kind, const char *v)
{
	switch (kind) {
	case K8S_V_LABEL:
		return k8s_label_ok(v, K8S_NAME_MAX) ? 0 : CLAW_ERR_INVAL;
	case K8S_V_OBJECT:
		return k8s_subdomain_ok(v) ? 0 : CLAW_ERR_INVAL;
	case K8S_V_TEXT:
		return k8s_text_ok(v, 4096) ? 0 : CLAW_ERR_INVAL;
	case K8S_V_USER:
		return k8s_label_value_ok(v) ? 0 : CLAW_ERR_INVAL;
	case K8S_V_HOSTKEY:
		return (strcmp(v, "none") == 0 || (*v == '/' &&
		    k8s_text_ok(v, 4096))) ? 0 : CLAW_ERR_INVAL;
	case K8S_V_SSHD:
		return 0;
	}
	return CLAW_ERR_INVAL;
}

/* Store one "key=value" argument. */
static int
k8s_conf_one(const struct provider_conf *pc, struct k8s_conf *kc,
    const char *arg, char **cause)
{
	const char	*eq = strchr(arg, '=');
	char		**slot;
	size_t		 i, klen;

	if (eq == NULL || eq == arg)
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "args: '%.64s' "
		    "is not KEY=VALUE (keys: namespace, context, kubeconfig, "
		    "template, warmPool, container, user, hostKey, sshd)", arg);
	klen = (size_t)(eq - arg);
	for (i = 0; i < sizeof k8s_keys / sizeof k8s_keys[0]; i++) {
		if (strlen(k8s_keys[i].key) == klen &&
		    strncmp(k8s_keys[i].key, arg, klen) == 0)
			break;
	}
	if (i == sizeof k8s_keys / sizeof k8s_keys[0])
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "args: unknown "
		    "key '%.*s'", (int)klen, arg);
	if (k8s_keys[i].kind == K8S_V_SSHD) {
		if (kc->sshd[0] == NULL && k8s_conf_sshd(kc, eq + 1) == 0)
			return 0;
	} else {
		slot = (char **)(void *)((char *)kc + k8s_keys[i].off);
		if (*slot == NULL &&
		    k8s_conf_value_ok(k8s_keys[i].kind, eq + 1) == 0) {
			*slot = xstrdup(eq + 1);
			return 0;
		}
	}
	return provider_fail(cause, pc, CLAW_ERR_INVAL, "args: %s is given "
	    "twice or its value is not valid", k8s_keys[i].key);
}

/* Fill in what was not given. */
static void
k8s_conf_defaults(struct k8s_conf *kc)
{
	char	*words;

	if (kc->sshd[0] == NULL) {
		words = xstrdup(K8S_DEFAULT_SSHD);
		(void)k8s_conf_sshd(kc, words);
		free(words);
	}
	if (kc->host_key == NULL)
		kc->host_key = xstrdup(K8S_DEFAULT_HOSTKEY);
	else if (strcmp(kc->host_key, "none") == 0) {
		free(kc->host_key);
		kc->host_key = NULL;
	}
}

/* Read the driver's settings; see provider_kubernetes.h. */
int
k8s_conf_parse(const struct provider_conf *pc, struct k8s_conf *kc,
    char **cause)
{
	size_t	i;
	int	rc;

	memset(kc, 0, sizeof *kc);
	if (!k8s_label_value_ok(pc->name))
		return provider_fail(cause, pc, CLAW_ERR_INVAL, "the "
		    "provider's name must be a Kubernetes label value (1 to 63 "
		    "of A-Z a-z 0-9 . _ -, a letter or digit at each end)");
	for (i = 0; i < pc->nargs; i++) {
		if ((rc = k8s_conf_one(pc, kc, pc->args[i], cause)) != 0) {
			k8s_conf_free(kc);
			return rc;
		}
	}
	k8s_conf_defaults(kc);
	return 0;
}

/* Free the settings; see provider_kubernetes.h. */
void
k8s_conf_free(struct k8s_conf *kc)
{
	size_t	i;

	if (kc == NULL)
		return;
	free(kc->namespace);
	free(kc->context);
	free(kc->kubeconfig);
	free(kc->template);
	free(kc->warm_pool);
	free(kc->container);
	free(kc->user);
	free(kc->host_key);
	for (i = 0; kc->sshd[i] != NULL; i++)
		free(kc->sshd[i]);
	memset(kc, 0, sizeof *kc);
}

/* The SandboxClaim to create; see provider_kubernetes.h. */
char *
k8s_claim_manifest(const char *name, const char *provider, const char *pool)
{
	cJSON	*o, *md, *labels, *spec, *ref;
	char	*s;

	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "apiVersion", K8S_API);
	cJSON_AddStringToObject(o, "kind", "SandboxClaim");
	md = cJSON_AddObjectToObject(o, "metadata");
	cJSON_AddStringToObject(md, "name", name);
	labels = cJSON_AddObjectToObject(md, "labels");
	cJSON_AddStringToObject(labels, K8S_LABEL_MANAGED, "clawssh");
	cJSON_AddStringToObject(labels, K8S_LABEL_PROVIDER, provider);
	spec = cJSON_AddObjectToObject(o, "spec");
	ref = cJSON_AddObjectToObject(spec, "warmPoolRef");
	cJSON_AddStringToObject(ref, "name", pool);
	if ((s = cJSON_PrintUnformatted(o)) == NULL)
		abort();	/* cJSON fails only for want of memory */
	cJSON_Delete(o);
	return s;
}

/* Append " OPTION 'value'" when value is set. */
static void
k8s_proxy_opt(struct buf *b, const char *opt, const char *value)
{
	if (value == NULL)
		return;
	buf_appendf(b, " %s ", opt);
	shquote_append(b, value);
}

/* The ProxyCommand that reaches the pod's sshd; see the header. */
char *
k8s_proxy_command(const char *kubectl, const struct k8s_conf *kc,
    const char *namespace, const char *pod, const char *container)
{
	struct buf	 b = BUF_INIT, e = BUF_INIT;
	const char	*p;
	size_t		 i;

	shquote_append(&b, kubectl);
	k8s_proxy_opt(&b, "--kubeconfig", kc->kubeconfig);
	k8s_proxy_opt(&b, "--context", kc->context);
	k8s_proxy_opt(&b, "--namespace", namespace);
	k8s_proxy_opt(&b, "exec -i", pod);
	k8s_proxy_opt(&b, "-c", container);
	buf_append_str(&b, " --");
	for (i = 0; kc->sshd[i] != NULL; i++) {
		buf_append_str(&b, " ");
		shquote_append(&b, kc->sshd[i]);
	}
	buf_append(&b, "", 1);
	for (p = b.data; *p != '\0'; p++) {
		if (*p == '%')
			buf_append_str(&e, "%%");
		else
			buf_append(&e, p, 1);
	}
	buf_free(&b);
	return buf_detach(&e);
}
