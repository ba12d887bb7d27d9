/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts behind the remote file tools.  Each body is the prelude,
 * then one operation whose slots are sh-quoted words or numbers; it runs
 * through hostws_script, so its working directory is the workspace: inside
 * the sandbox's step jail that is /workspace, with nothing else of the
 * host but its programs (read-only) in view, as the sandbox's identity;
 * with runtime none it is the workspace directory on the host.  They need
 * POSIX sh, readlink -f, stat -c, head -c (else dd) and, for ls and stat,
 * GNU find.  Errors are a line "clawssh-error: MESSAGE" on stderr and
 * exit status 3.
 *
 * real P sets $r to the real path of workspace-relative P: each existing
 * component that is a link is resolved with readlink -f and must stay
 * inside the workspace (one that is not is already real: $r is, and P
 * has no "." or ".." component, fstore_path sees to that); the first
 * missing one ends the walk (kept as written).  In
 * the jail this only keeps a path within the sandbox's own view, which is
 * all that is left to protect there.
 */
#ifndef CLAW_FSTORE_SCRIPTS_H
#define CLAW_FSTORE_SCRIPTS_H

#define FSTORE_SCRIPT_PRELUDE						\
	"umask 022\n"							\
	"clawfail() { echo \"clawssh-error: $*\" >&2; exit 3; }\n"	\
	"cd -P . && ws=$PWD && [ -n \"$ws\" ] ||"			\
	" clawfail 'the sandbox workspace is missing'\n"		\
	"inside() { case $1 in \"$ws\"|\"$ws\"/*) return 0 ;; esac;"	\
	" return 1; }\n"						\
	"real() { r=$ws; rest=$1;"					\
	" while [ -n \"$rest\" ]; do c=${rest%%/*};"			\
	" case $rest in */*) rest=${rest#*/} ;; *) rest= ;; esac;"	\
	" if [ -L \"$r/$c\" ]; then"					\
	" n=$(readlink -f -- \"$r/$c\") && [ -n \"$n\" ] ||"		\
	" clawfail \"$1: cannot resolve $c\";"				\
	" inside \"$n\" || clawfail \"$1: a symbolic link on the way"	\
	" leads outside the workspace\"; r=$n;"				\
	" elif [ -e \"$r/$c\" ]; then r=$r/$c;"				\
	" else r=$r/$c${rest:+/$rest}; return 0; fi; done; }\n"

/*
 * Read: slots path, offset, limit (0: to the end), cap.  A first line
 * "clawssh-mode MODE LEN" gives the mode and the byte count that follows.
 * Only a regular file is read; GNU dd opens it non-blocking, so a FIFO
 * swapped in after the check reads short (refused by the caller) instead
 * of hanging.  Elsewhere the call's timeout is the bound.
 */
#define FSTORE_SCRIPT_READ						\
	"p=%s; real \"$p\"\n"						\
	"[ -e \"$r\" ] || clawfail \"$p: no such file\"\n"		\
	"[ -d \"$r\" ] && clawfail \"$p: is a directory\"\n"		\
	"[ -f \"$r\" ] || clawfail \"$p: not a regular file (a FIFO,"	\
	" socket or device)\"\n"					\
	"off=%llu lim=%llu cap=%llu\n"					\
	"st=$(stat -L -c '%%s %%a %%F' -- \"$r\") ||"			\
	" clawfail \"$p: cannot read\"\n"				\
	"size=${st%%%% *} st=${st#* }; mode=${st%%%% *}\n"		\
	"case ${st#* } in regular*) ;; *) clawfail \"$p: not a regular"	\
	" file (a FIFO, socket or device)\" ;; esac\n"		\
	"left=$((size - off)); [ $left -ge 0 ] || left=0\n"		\
	"[ $lim -ne 0 ] && [ $lim -lt $left ] && left=$lim\n"		\
	"[ $left -le $cap ] || clawfail \"$p: over $((cap / 1048576))"	\
	" MiB; read it in parts with --offset and --limit\"\n"		\
	"printf 'clawssh-mode %%s %%s\\n' \"$mode\" \"$left\"\n"	\
	"[ $left -eq 0 ] && exit 0\n"					\
	"case $(dd --version 2>/dev/null) in *coreutils*)"		\
	" exec dd if=\"$r\" iflag=nonblock,skip_bytes,count_bytes"	\
	" skip=$off count=$left bs=65536 status=none ;; esac\n"	\
	"tail -c +$((off + 1)) -- \"$r\" | head -c $left\n"

/* Stat: slot path.  One record named x. */
#define FSTORE_SCRIPT_STAT						\
	"p=%s; real \"$p\"\n"						\
	"[ -e \"$r\" ] || [ -L \"$r\" ] ||"				\
	" clawfail \"${p:-.}: no such file or directory\"\n"		\
	"find . -maxdepth 0 -printf '' 2>/dev/null ||"			\
	" clawfail 'stat needs GNU find on the host'\n"			\
	"exec find \"$r\" -maxdepth 0 -printf '%%y %%m %%s %%T@ x\\0%%l\\0'\n"

/* List: slot path.  One record an entry. */
#define FSTORE_SCRIPT_LIST						\
	"p=%s; real \"$p\"\n"						\
	"[ -d \"$r\" ] || clawfail \"${p:-.}: not a directory\"\n"	\
	"find . -maxdepth 0 -printf '' 2>/dev/null ||"			\
	" clawfail 'ls needs GNU find on the host'\n"			\
	"cd -- \"$r\" || clawfail \"$p: cannot enter\"\n"		\
	"exec find . -mindepth 1 -maxdepth 1 \\( -type f -o -type d -o"	\
	" -type l \\) -printf '%%y %%m %%s %%T@ %%P\\0%%l\\0'\n"

/*
 * Commit: slot tag (hex, random, made by clawssh for this call).  stdin
 * holds lines "W MODE LEN CREATE /PATH/" (MODE -1: keep the old one) and
 * "D - - - /PATH/", then a line ".", then the LEN bytes of each W in
 * order.  All content goes to temporary files first; the renames and
 * removals follow only when every one was written.
 *
 * A temporary file is DIR/.clawssh-tmp-TAG-N, created exclusively (set -C:
 * an existing name or a link there is refused, never followed) with
 * umask 077 and held open on fd 4; its mode is set through that
 * descriptor (/proc/self/fd/4), so a name swapped after the creation
 * takes no chmod.  Every temporary made is removed on any failure or
 * signal.
 */
#define FSTORE_SCRIPT_COMMIT						\
	"exec 3<&0\n"							\
	"case $(head --version 2>/dev/null) in *coreutils*) gh=1 ;;"	\
	" *) gh= ;; esac\n"						\
	"rd() { if [ -n \"$gh\" ]; then head -c \"$1\" <&3; else"	\
	" dd bs=1 count=\"$1\" <&3 2>/dev/null; fi; }\n"		\
	"tag=%s plan= tmps= i=0 op=\n"					\
	"clean() { while IFS= read -r t; do [ -z \"$t\" ] ||"		\
	" rm -f -- \"$t\"; done <<EOF\n$tmps\nEOF\n}\n"			\
	"trap clean EXIT\n"						\
	"trap 'exit 3' HUP INT TERM\n"					\
	"while IFS=' ' read -r op mode len cr p <&3; do\n"		\
	"\t[ \"$op\" = . ] && break\n"					\
	"\tp=${p#/}; p=${p%%/}; real \"$p\"\n"				\
	"\t[ -d \"$r\" ] && clawfail \"$p: is a directory\"\n"		\
	"\tif [ -e \"$r\" ] || [ -L \"$r\" ]; then e=1; else e=; fi\n"	\
	"\t[ \"$op\" = W ] && [ -n \"$e\" ] && [ ! -f \"$r\" ] &&"	\
	" clawfail \"$p: not a regular file (a FIFO, socket or"	\
	" device)\"\n"							\
	"\t[ \"$cr\" = 1 ] && [ -n \"$e\" ] &&"			\
	" clawfail \"$p: already exists\"\n"				\
	"\t[ \"$op\" = D ] && [ -z \"$e\" ] &&"			\
	" clawfail \"$p: no such file\"\n"				\
	"\tplan=\"$plan$op $mode $len $r/\n\"\n"			\
	"done\n"							\
	"[ \"$op\" = . ] || clawfail 'truncated request'\n"		\
	"while IFS=' ' read -r op mode len r; do\n"			\
	"\t[ \"$op\" = W ] || continue; r=${r%%/}; d=${r%%/*}\n"	\
	"\tmkdir -p -- \"$d\" || clawfail \"cannot create $d\"\n"	\
	"\tinside \"$(readlink -f -- \"$d\")\" ||"			\
	" clawfail \"$d: leads outside the workspace\"\n"		\
	"\ti=$((i + 1)); t=$d/.clawssh-tmp-$tag-$i\n"			\
	"\tumask 077; set -C\n"						\
	"\tcommand exec 4>\"$t\" || clawfail \"cannot create $t\"\n"	\
	"\tset +C; umask 022; tmps=\"$tmps$t\n\"\n"			\
	"\trd \"$len\" >&4 || clawfail \"cannot write $t\"\n"		\
	"\t[ \"$(wc -c < \"$t\")\" -eq \"$len\" ] ||"			\
	" clawfail 'truncated request'\n"				\
	"\t[ \"$mode\" != -1 ] || mode=$(stat -c %%a -- \"$r\""	\
	" 2>/dev/null) || mode=644\n"					\
	"\tif [ -e /proc/self/fd/4 ]; then chmod -- \"$mode\""		\
	" /proc/self/fd/4; else [ -f \"$t\" ] && [ ! -L \"$t\" ] &&"	\
	" chmod -- \"$mode\" \"$t\"; fi || clawfail \"cannot chmod $t\"\n"\
	"\texec 4>&-\n"							\
	"done <<EOF\n$plan\nEOF\n"					\
	"i=0\n"								\
	"while IFS=' ' read -r op mode len r; do\n"			\
	"\t[ -n \"$op\" ] || continue; r=${r%%/}\n"			\
	"\tif [ \"$op\" = D ]; then rm -f -- \"$r\" ||"		\
	" clawfail \"cannot remove $r\"; continue; fi\n"		\
	"\ti=$((i + 1)); mv -f -- \"${r%%/*}/.clawssh-tmp-$tag-$i\""	\
	" \"$r\" || clawfail \"cannot replace $r\"\n"			\
	"done <<EOF\n$plan\nEOF\n"					\
	"tmps=\n"

#endif /* CLAW_FSTORE_SCRIPTS_H */
