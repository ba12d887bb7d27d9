/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The "kubernetes" provider driver: a sandbox is a SandboxClaim of
 * kubernetes-sigs/agent-sandbox (v0.5, extensions.agents.x-k8s.io/v1beta1)
 * against a SandboxWarmPool, and the claim's pod is reached over SSH
 * through a ProxyCommand on "kubectl exec -i POD -- sshd -i".  See
 * docs/providers-kubernetes.md.
 *
 * provider_kubernetes.c runs kubectl; what is declared here reads what it
 * prints (JSON, all of it hostile) and builds what it is given, without
 * I/O, so that the unit tests can feed it any answer.  Everything
 * returned is owned by the caller.
 */
#ifndef CLAW_PROVIDER_KUBERNETES_H
#define CLAW_PROVIDER_KUBERNETES_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "provider.h"

#define K8S_GROUP	"extensions.agents.x-k8s.io"
#define K8S_API		K8S_GROUP "/v1beta1"
#define K8S_CLAIMS	"sandboxclaims.v1beta1." K8S_GROUP
#define K8S_POOLS	"sandboxwarmpools.v1beta1." K8S_GROUP
#define K8S_TEMPLATES	"sandboxtemplates.v1beta1." K8S_GROUP
#define K8S_CLAIM_KIND	"sandboxclaim." K8S_GROUP	/* in -o name */

#define K8S_LABEL_MANAGED	"app.kubernetes.io/managed-by"
#define K8S_LABEL_PROVIDER	"clawssh/provider"
#define K8S_LABEL_CLAIM_UID	"agents.x-k8s.io/claim-uid"	/* on pods */
#define K8S_GPU_RESOURCE	"nvidia.com/gpu"

#define K8S_NAME_MAX		63	/* a DNS-1123 label */
#define K8S_OBJECT_MAX		253	/* a DNS-1123 subdomain */
#define K8S_SSHD_WORDS		16
#define K8S_GPUS_MAX		64
#define K8S_DEFAULT_SSHD	"/usr/sbin/sshd -i"
#define K8S_DEFAULT_HOSTKEY	"/etc/ssh/ssh_host_ed25519_key.pub"

/* The driver, for provider_find. */
extern const struct provider_ops	provider_kubernetes;

/* The driver's settings, from providers.NAME.args ("key=value" each). */
struct k8s_conf {
	char	*namespace;	/* --namespace, or NULL: the context's */
	char	*context;	/* --context, or NULL */
	char	*kubeconfig;	/* --kubeconfig, or NULL: kubectl's */
	char	*template;	/* default SandboxTemplate, or NULL */
	char	*warm_pool;	/* default SandboxWarmPool, or NULL */
	char	*container;	/* container to exec in; NULL: the first */
	char	*user;		/* SSH user, or NULL */
	char	*host_key;	/* host key file in the pod; NULL: none */
	char	*sshd[K8S_SSHD_WORDS + 1];	/* run per connection */
};

/* What a claim and its pod say, read by k8s_claim_read / k8s_pod_read. */
struct k8s_view {
	char			*name;		/* the claim's */
	char			*uid;
	char			*namespace;	/* the claim's */
	char			*sandbox;	/* bound Sandbox, or NULL */
	char			*pod;		/* its pod, when one was read */
	char			*container;	/* of that pod */
	int			 ours;		/* our labels */
	int			 deleting;	/* deletionTimestamp set */
	enum provider_state	 state;
	char			*text;		/* the cluster's words */
};

/*
 * Read pc->args into kc (see struct k8s_conf and the docs); unknown,
 * repeated or malformed keys, and a provider name that cannot be a label
 * value, are CLAW_ERR_INVAL with *cause naming the provider.
 */
int	k8s_conf_parse(const struct provider_conf *pc, struct k8s_conf *kc,
	    char **cause);

/* Free what kc holds and zero it; NULL is fine. */
void	k8s_conf_free(struct k8s_conf *kc);

/* Whether s is a DNS-1123 label of at most max bytes. */
int	k8s_label_ok(const char *s, size_t max);

/* Whether s is a DNS-1123 subdomain (object names: templates, pools). */
int	k8s_subdomain_ok(const char *s);

/*
 * Read one SandboxClaim object: its kind and version, name (want when
 * not NULL), namespace, uid, labels against provider, deletion, the Ready
 * condition and the bound Sandbox.  Fills v with a first judgement (the
 * pod, when bound, is k8s_pod_read's).  0, or CLAW_ERR_PROTO with *why
 * naming the field that is wrong.
 */
int	k8s_claim_read(const cJSON *claim, const char *want,
	    const char *provider, struct k8s_view *v, char **why);

/*
 * Judge a bound claim by its pods (a pod List's "items"), those whose
 * claim-uid label is v->uid and that are not being deleted: Running and
 * Ready is READY; Pending says why (unschedulable, image pull, ...);
 * Failed or Succeeded is FAILED.  container names the container to use
 * (NULL: the pod's first).  Only changes v when v->state is PENDING and
 * v->sandbox is set.  0, or CLAW_ERR_PROTO with *why.
 */
int	k8s_pod_read(const cJSON *items, const char *container,
	    struct k8s_view *v, char **why);

/* Free what v holds and zero it; NULL is fine. */
void	k8s_view_clear(struct k8s_view *v);

/*
 * Of a SandboxWarmPool List's items, the pool that refers to template
 * (the one with most ready sandboxes, then the first by name).  Returns
 * 0 with *pool set, CLAW_ERR_NOTFOUND when none does, CLAW_ERR_PROTO
 * for a malformed list, with *why.
 */
int	k8s_pool_pick(const cJSON *items, const char *template, char **pool,
	    char **why);

/* A SandboxWarmPool's template name; 0 or CLAW_ERR_PROTO with *why. */
int	k8s_pool_template(const cJSON *pool, char **template, char **why);

/*
 * The nvidia.com/gpu count a SandboxTemplate gives its pod (the sum of
 * its containers' limits, or requests where a limit is absent).
 */
int	k8s_template_gpus(const cJSON *tmpl, int *gpus, char **why);

/* The SandboxClaim to create, as one line of JSON. */
char	*k8s_claim_manifest(const char *name, const char *provider,
	    const char *pool);

/*
 * The ProxyCommand that reaches pod's sshd: kubectl (the configured
 * command) with kc's kubeconfig and context, the namespace, "exec -i POD
 * -c CONTAINER --" and kc's sshd words, each quoted for sh, with '%'
 * doubled for ssh_config's expansion.
 */
char	*k8s_proxy_command(const char *kubectl, const struct k8s_conf *kc,
	    const char *namespace, const char *pod, const char *container);

#endif /* CLAW_PROVIDER_KUBERNETES_H */
