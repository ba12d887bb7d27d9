/*
 * Inside mirror mode: what sync/mirror.c shares with sync/mirror_remote.c,
 * which finds what changed in the sandbox workspace.
 */
#ifndef CLAW_MIRROR_INT_H
#define CLAW_MIRROR_INT_H

struct buf;
struct manifest;
struct mirror;

/* Return 1 if path lies strictly under the directory dir ("" never). */
int	mirror_under(const char *path, const char *dir);

/*
 * Return 1 if path can travel: names pathguard refuses (control
 * characters, over-long ones) stay where they are, with a warning.
 */
int	mirror_syncable(const char *path);

/*
 * The sandbox workspace now, as the last synced state (m->base) changed
 * by the paths the daemon's watcher on the host saw change, listed alone;
 * or, without a daemon or when the watcher cannot say (-v tells why), a
 * listing of the whole workspace.  Ignored paths are left out.
 */
int	mirror_remote_now(struct mirror *m, struct manifest **out,
	    char **cause);

/* A listing of the whole sandbox workspace, ignored paths left out. */
int	mirror_remote_full(struct mirror *m, struct manifest **out,
	    char **cause);

/*
 * Send req (a JTAKE or RTAKE of mux_proto.h: type) to the daemon and
 * wait up to timeout_ms for its answer (of type want): 0 with "P" and the
 * paths (or, for RTAKE, "L", the paths and a listing) in rep from *at,
 * and a JACK owed; 1 when only a whole scan or listing can tell, logged
 * with -v as "what: why: fallback".
 */
int	mirror_take(struct mirror *m, const struct buf *req, int type,
	    int want, int timeout_ms, const char *what, const char *fallback,
	    struct buf *rep, size_t *at);

/*
 * The paths of a take's answer in rep from at (mirror_take), sorted, as
 * pointers into rep (free only the array); *n of them.  For an "L" answer
 * they end at an empty one and *list is the offset of the listing after
 * it (rep->len + 1 if that end is missing); otherwise *list is rep->len.
 */
char	**mirror_take_paths(const struct buf *rep, size_t at, size_t *n,
	    size_t *list);

#endif /* CLAW_MIRROR_INT_H */
