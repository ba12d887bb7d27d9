/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Containment policy: how a sandbox's commands are confined on its host
 * (runtime, workspace access, network, resource limits, user, environment
 * names and GPUs), and the parse and name helpers for its settings.
 * Pure data; the command lines that express a policy are built elsewhere
 * (contain_bwrap.h for bwrap, contain_oci.h for docker and podman).  The
 * runtime and network enums here are the ones sandbox settings use.
 */
#ifndef CLAW_CONTAIN_H
#define CLAW_CONTAIN_H

#include <stddef.h>
#include <stdint.h>

#include "names.h"

enum contain_runtime {
	CONTAIN_NONE = 0,		/* no confinement */
	CONTAIN_BWRAP,			/* bubblewrap */
	CONTAIN_DOCKER,			/* docker run */
	CONTAIN_PODMAN			/* podman run */
};

enum contain_network {
	CONTAIN_NET_NONE = 0,		/* loopback only */
	CONTAIN_NET_HOST		/* the host's network */
};

enum contain_access {
	CONTAIN_WS_RW = 0,		/* workspace read-write */
	CONTAIN_WS_RO,			/* workspace read-only */
	CONTAIN_WS_NONE			/* private empty workspace (scratch) */
};

/* Resource limits; 0 in any field means no limit. */
struct contain_limits {
	int64_t	memory;		/* bytes; 0 = no limit */
	int64_t	nproc;		/* processes */
	int64_t	cpu;		/* CPU seconds */
	int64_t	fsize;		/* bytes a file may grow to */
	int64_t	nofile;		/* open files */
	int64_t	cpus;		/* thousandths of a CPU at once (cpu cgroup) */
};

/*
 * A containment policy.  Strings and arrays are borrowed: the policy owns
 * nothing and has no _free.
 */
struct contain_policy {
	enum contain_runtime	 runtime;
	enum contain_access	 access;
	enum contain_network	 network;
	/* engine image reference for docker/podman */
	const char		*image;
	/* sandbox id for the engine's label, or NULL */
	const char		*sandbox;
	/* host path bound at /workspace (rw/ro) */
	const char		*workspace;
	/* host path of the private empty workspace (access none) */
	const char		*scratch;
	/* relative to the workdir, or NULL */
	const char		*cwd;
	/*
	 * where the workspace is also bound and execs start (docker,
	 * podman), or NULL: /workspace only
	 */
	const char		*workdir;
	struct contain_limits	 limits;
	/* "uid[:gid]" or NULL: engine default */
	const char		*user;
	/* names passed through, values from the environment */
	const char *const	*env;
	size_t			 nenv;
	/* GPU indexes to expose */
	const int		*gpus;
	size_t			 ngpus;
};

/*
 * Set *out to the runtime named s ("none", "bwrap", "docker", "podman")
 * and return 0, or return CLAW_ERR_INVAL.
 */
int		 contain_runtime_parse(const char *s,
		    enum contain_runtime *out);

/* Return the static name of r, or "unknown" outside the enum. */
const char	*contain_runtime_name(enum contain_runtime r);

/*
 * Set *out to the network mode named s ("none", "host") and return 0, or
 * return CLAW_ERR_INVAL.
 */
int		 contain_network_parse(const char *s,
		    enum contain_network *out);

/* Return the static name of n, or "unknown" outside the enum. */
const char	*contain_network_name(enum contain_network n);

/* The names of the runtimes and network modes, in enum order (names.h). */
extern const struct names contain_runtime_names;
extern const struct names contain_network_names;

/*
 * Parse a size like "512M", "2G", "1048576", "64k" (binary units K/M/G/T,
 * case-insensitive, optional trailing B) into bytes; 0 on success,
 * CLAW_ERR_INVAL with cause otherwise (overflow, negative, junk, empty,
 * fractions, spaces).
 */
int		 contain_size_parse(const char *s, int64_t *out, char **cause);

/*
 * Parse a number of CPUs -- "2", "1.5", "0.25" (at most three decimals)
 * or "500m" (thousandths, as Kubernetes writes them) -- into thousandths
 * of a CPU, 1 to CONTAIN_CPUS_MAX; 0 on success, CLAW_ERR_INVAL with
 * cause otherwise.  "0" is 0: no limit.
 */
#define CONTAIN_CPUS_MAX	4096000		/* 4096 CPUs */
int		 contain_cpus_parse(const char *s, int64_t *out, char **cause);

struct cJSON;

/*
 * The same from JSON: a number with at most three decimals (1.5), or a
 * string contain_cpus_parse takes; 0, or CLAW_ERR_INVAL with cause.
 */
int		 contain_cpus_json(const struct cJSON *v, int64_t *out,
		    char **cause);

/* Write thousandths of a CPU as the shortest decimal: 1500 as "1.5". */
void		 contain_cpus_format(int64_t milli, char *buf, size_t len);

/* The largest limit accepted from JSON (2^53, exact in a double). */
#define CONTAIN_LIMIT_MAX	9007199254740992.0

/*
 * The non-zero limits as a JSON object ("memory", "processes",
 * "cpuSeconds", "fileSize", "openFiles", "cpuMillis"; bytes for sizes,
 * thousandths of a CPU for cpus).
 */
struct cJSON	*contain_limits_json(const struct contain_limits *l);

/*
 * Read limits from such an object (absent members: 0).  Unknown members
 * and values that are not whole numbers from 0 to CONTAIN_LIMIT_MAX are
 * CLAW_ERR_PARSE.
 */
int	contain_limits_from_json(const struct cJSON *o,
	    struct contain_limits *l, char **cause);

/*
 * Which limit a contained command's exit status points at, if any, as a
 * sentence (allocated; NULL when none does): "the command exceeded its
 * CPU time limit (60 s)".
 */
char	*contain_limit_note(const struct contain_limits *l, int status);

/*
 * Check a docker/podman image reference: 1..CONTAIN_IMAGE_REF_MAX
 * characters of [A-Za-z0-9._/:@-], not starting with '-' (no shell
 * metacharacters, never an option).  Returns 0 or CLAW_ERR_INVAL with a
 * cause.
 */
#define CONTAIN_IMAGE_REF_MAX	512
int	contain_image_ref_check(const char *image, char **cause);

/*
 * sh code setting $__claw_cv to the CUDA ordinals of the GPUs listed in
 * $__claw_g: "3,5" gives "0,1".  A sandbox sees only its own GPUs (their
 * /dev/nvidiaN nodes under bwrap, its devices under docker --gpus or
 * podman CDI), and CUDA numbers the GPUs it can open from 0, so the
 * host's index 3 in CUDA_VISIBLE_DEVICES would hide GPU 3 there.
 */
#define CONTAIN_SH_GPU_ORDINALS						\
	"__claw_cv=$(echo \"$__claw_g\" | awk -F, '{ for (i = 1; i <= NF; "\
	"i++) printf \"%s%d\", (i > 1 ? \",\" : \"\"), i - 1 }')\n"

#endif /* CLAW_CONTAIN_H */
