/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What provision and recreate share: the flags, the settings they make,
 * and getting or creating a sandbox on its host or through a provider.
 */
#ifndef CLAW_CMD_PROVISION_H
#define CLAW_CMD_PROVISION_H

#include "cmd_box.h"
#include "sandbox.h"

struct provider_request;

struct provision_args {
	struct cmd_box		 box;
	const char		*scope;		/* --scope */
	const char		*key;		/* --key */
	const char		*workspace;	/* --workspace */
	const char		*mode;		/* --mode */
	const char		*access;	/* --access */
	const char		*image;		/* --from */
	const char		*runtime;	/* --runtime */
	const char		*network;	/* --network */
	const char		*limit[6];	/* --memory ... --cpus */
	const char		*gpu;		/* --gpu N|all */
	const char		*user;		/* --user */
	const char		*workdir;	/* --workdir */
	const char		*root;		/* --remote-root */
	const char		*provider;	/* --provider */
	const char		*policy;	/* --policy */
	int			 gpus;		/* --gpu, for a provider */
	int			 json;
};

struct cmd_ops;

/*
 * Take the options of provision's or recreate's operation (parsed by
 * cmd_ops_parse from src/ops/ops_table.c; recreate has the settings
 * only) into a.
 */
void	provision_take(struct provision_args *a, const struct cmd_ops *o);

/*
 * The settings flags a was given, as a command line fragment
 * (" --network 'host'..."; "" when none), allocated.
 */
char	*provision_flags(const struct provision_args *a);

/*
 * The settings in force: base (the defaults for a new sandbox, what a
 * sandbox was made with for one that exists), overridden by the config
 * file's sandbox section, then by a's flags; checked.  0 or an exit
 * status.
 */
int	provision_settings(struct provision_args *a,
	    const struct sandbox_settings *base, struct sandbox_settings *s);

/*
 * Check the workdir of the sandbox m describes (workdir local): its
 * local workspace by sandbox_workdir_check, and, for bwrap, on b's
 * connected host (when b->t is set), that bwrap can bind the workspace
 * there (contain_bwrap_workdir).  0 or an exit status.
 */
int	provision_workdir(struct cmd_box *b, const char *root,
	    const struct sandbox_meta *m);

/*
 * On b's connected host, get or create the sandbox want describes, check
 * it is the one asked for, drop a sync state that is not this
 * instance's, and record it.  a (NULL for recreate) gives the flags a
 * found sandbox's settings are compared with.  The caller holds the id
 * lock.  0 or an exit status.
 */
int	provision_do(struct cmd_box *b, struct provision_args *a,
	    const char *root, const struct sandbox_meta *want, int *created);

/* The same through provider (replace: make it again); see the .c. */
int	provision_managed_do(struct cmd_box *b, struct provision_args *a,
	    const char *provider, const struct provider_request *req,
	    int replace, const char *root, const struct sandbox_meta *m,
	    int *created);

/* Seed a new remote-mode sandbox; destroyed again on failure. */
int	provision_seed(struct cmd_box *b, const char *root);

/* Give the sandbox want GPUs; a new one is undone on failure. */
int	provision_gpus(struct cmd_box *b, const char *root, int want,
	    int created);

#endif /* CLAW_CMD_PROVISION_H */
