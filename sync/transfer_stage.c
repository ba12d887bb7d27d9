/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host side of a push, staged: the tar stream is unpacked into a
 * directory of its own beside the files (same filesystem, same jail),
 * and only once it is complete is each entry renamed into place.  See
 * transfer.h.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "transfer.h"
#include "xmalloc.h"

/*
 * Remove stages other pushes left: a stage's lock is the file beside it
 * (DIR.lock), taken before the stage is made, so a stage whose lock
 * nobody holds (flock) is dead; without flock, one untouched for an
 * hour.  A lock file without its stage is dead once nobody holds it and
 * it is over 3 s old (a push makes and takes it within milliseconds; a
 * cut in between leaves it alone); without flock, over a minute old.  A
 * stage without its lock file is dead once over a minute old.
 * __claw_old F S: F was last changed over S seconds ago (stat -c %Y,
 * else find's minutes).
 */
#define TRANSFER_STAGE_CLEAN						\
	"__claw_old() {"						\
	" __claw_t=$(stat -c %Y -- \"$1\" 2>/dev/null) &&"		\
	" __claw_n=$(date +%s) ||"					\
	" { [ -n \"$(find \"$1\" -maxdepth 0 -mmin +1)\" ]; return; };"	\
	" [ $((__claw_n - __claw_t)) -gt \"$2\" ]; }\n"			\
	"for d in " TRANSFER_STAGE_PREFIX "*; do"			\
	" case $d in *.lock) [ -e \"${d%.lock}\" ] && continue;"	\
	" [ -f \"$d\" ] || continue;"					\
	" if command -v flock >/dev/null 2>&1; then"			\
	" __claw_old \"$d\" 3 && flock -n \"$d\" true 2>/dev/null"	\
	" && rm -f -- \"$d\";"						\
	" else __claw_old \"$d\" 60 && rm -f -- \"$d\"; fi;"		\
	" continue;; esac;"						\
	" [ -d \"$d\" ] && [ ! -L \"$d\" ] || continue;"		\
	" if [ ! -e \"$d.lock\" ]; then"				\
	" __claw_old \"$d\" 60 || continue;"				\
	" elif command -v flock >/dev/null 2>&1; then"			\
	" flock -n \"$d.lock\" true 2>/dev/null || continue;"		\
	" elif [ -z \"$(find \"$d\" -maxdepth 0 -mmin +60)\" ]; then"	\
	" continue; fi;"						\
	" rm -rf -- \"$d\" \"$d.lock\"; done\n"

/*
 * Rename each staged entry into place (parents first, as find lists
 * them): a directory the workspace has already is entered, anything else
 * replaces what is there (a directory in the way of a file is removed),
 * a new directory moves whole.  Then the directories the stream held
 * (its members, as tar -v listed them: not the parents it made on the
 * way) that are left in the stage give their modes and times to the
 * workspace's (a tar of directories alone), and the stage goes.
 */
#define TRANSFER_STAGE_MOVE						\
	"(cd \"$s/t\" && find . -mindepth 1) > \"$s/list\" || fail\n"	\
	"while IFS= read -r p; do p=${p#./}; f=\"$s/t/$p\";"		\
	" [ -e \"$f\" ] || [ -L \"$f\" ] || continue;"			\
	" if [ -d \"$f\" ] && [ ! -L \"$f\" ]; then"			\
	" [ -d \"./$p\" ] && [ ! -L \"./$p\" ] && continue;"		\
	" rm -f -- \"./$p\" || fail;"					\
	" elif [ -d \"./$p\" ] && [ ! -L \"./$p\" ]; then"		\
	" rm -rf -- \"./$p\" || fail; fi;"				\
	" mv -f -- \"$f\" \"./$p\" || fail;"				\
	" done < \"$s/list\"\n"						\
	"while IFS= read -r p; do p=${p%/}; p=${p#./};"			\
	" [ -n \"$p\" ] && [ \"$p\" != . ] && [ -d \"$s/t/$p\" ] &&"	\
	" [ ! -L \"$s/t/$p\" ] && printf './%s\\n' \"$p\";"		\
	" done < \"$s/members\" > \"$s/dirs\"\n"				\
	"[ ! -s \"$s/dirs\" ] || (cd \"$s/t\" &&"				\
	" tar --no-recursion -cf - -T ../dirs) | tar -xpf - || fail\n"	\
	"rm -rf -- \"$s\" \"$s.lock\"\n"

/* Append the removal of dead pushes' stages; see transfer.h. */
void
transfer_stage_clean(struct buf *b)
{
	buf_append_str(b, TRANSFER_STAGE_CLEAN);
}

/* Append the staged unpacking; see transfer.h. */
void
transfer_stage_body(struct buf *b, const char *feed)
{
	uint64_t	rnd;

	arc4random_buf(&rnd, sizeof rnd);
	buf_appendf(b, "s=" TRANSFER_STAGE_PREFIX "%016llx\n",
	    (unsigned long long)rnd);
	buf_append_str(b, "fail() { rm -rf -- \"$s\" \"$s.lock\"; exit 1; }\n"
	    TRANSFER_STAGE_CLEAN
	    "exec 9>\"$s.lock\" || fail\n"
	    "if command -v flock >/dev/null 2>&1; then flock -n 9; fi\n"
	    "mkdir -m 700 -- \"$s\" && mkdir -- \"$s/t\" || fail\n"
	    "q=; case $(tar --version 2>/dev/null) in *GNU*)"
	    " q=--quoting-style=literal;; esac\n");
	buf_append_str(b, feed);
	buf_append_str(b, " (cd \"$s/t\" && tar $q -xpvf - > ../members) ||"
	    " fail\n" TRANSFER_STAGE_MOVE);
}
