/*
 * The sh scripts behind the remote file tools.  Each is the prelude (slot:
 * the workspace, sh-quoted), the sandbox's own check (clawssh text), then
 * one operation whose slots are sh-quoted words or numbers.  They need
 * POSIX sh, readlink -f, stat -c, head -c (else dd) and, for ls and stat,
 * GNU find.  Errors are a line "clawssh-error: MESSAGE" on stderr and
 * exit status 3.
 *
 * real P sets $r to the real path of workspace-relative P: each existing
 * component is resolved with readlink -f and must stay inside the
 * workspace; the first missing one ends the walk (kept as written).
 */
#ifndef CLAW_FSTORE_SCRIPTS_H
#define CLAW_FSTORE_SCRIPTS_H

#define FSTORE_SCRIPT_PRELUDE						\
	"umask 022\n"							\
	"clawfail() { echo \"clawssh-error: $*\" >&2; exit 3; }\n"	\
	"ws=$(cd -P -- %s 2>/dev/null && pwd) ||"			\
	" clawfail 'the sandbox workspace is missing'\n"		\
	"inside() { case $1 in \"$ws\"|\"$ws\"/*) return 0 ;; esac;"	\
	" return 1; }\n"						\
	"real() { r=$ws; rest=$1;"					\
	" while [ -n \"$rest\" ]; do c=${rest%%%%/*};"			\
	" case $rest in */*) rest=${rest#*/} ;; *) rest= ;; esac;"	\
	" if [ -L \"$r/$c\" ] || [ -e \"$r/$c\" ]; then"		\
	" n=$(readlink -f -- \"$r/$c\") && [ -n \"$n\" ] ||"		\
	" clawfail \"$1: cannot resolve $c\";"				\
	" inside \"$n\" || clawfail \"$1: a symbolic link on the way"	\
	" leads outside the workspace\"; r=$n;"				\
	" else r=$r/$c${rest:+/$rest}; return 0; fi; done; }\n"

/* Read: slots path, offset + 1, limit (0: to the end), cap. */
#define FSTORE_SCRIPT_READ						\
	"p=%s; real \"$p\"\n"						\
	"[ -e \"$r\" ] || clawfail \"$p: no such file\"\n"		\
	"[ -d \"$r\" ] && clawfail \"$p: is a directory\"\n"		\
	"[ -f \"$r\" ] || clawfail \"$p: not a regular file\"\n"	\
	"from=%llu lim=%llu cap=%llu\n"					\
	"size=$(wc -c < \"$r\") || clawfail \"$p: cannot read\"\n"	\
	"left=$((size - from + 1)); [ $left -ge 0 ] || left=0\n"	\
	"[ $lim -ne 0 ] && [ $lim -lt $left ] && left=$lim\n"		\
	"[ $left -le $cap ] || clawfail \"$p: over $((cap / 1048576))"	\
	" MiB; read it in parts with --offset and --limit\"\n"		\
	"printf 'clawssh-mode %%s\\n' \"$(stat -c %%a -- \"$r\")\"\n"	\
	"if [ $lim -eq 0 ]; then exec tail -c +$from -- \"$r\"; fi\n"	\
	"tail -c +$from -- \"$r\" | head -c $lim\n"

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
 * Commit: stdin holds lines "W MODE LEN CREATE /PATH/" (MODE -1: keep
 * the old one) and "D - - - /PATH/", then a line ".", then the LEN bytes
 * of each W in order.  All content goes to temporary files first; the
 * renames and removals follow only when every one was written.
 */
#define FSTORE_SCRIPT_COMMIT						\
	"exec 3<&0\n"							\
	"case $(head --version 2>/dev/null) in *coreutils*) gh=1 ;;"	\
	" *) gh= ;; esac\n"						\
	"rd() { if [ -n \"$gh\" ]; then head -c \"$1\" <&3; else"	\
	" dd bs=1 count=\"$1\" <&3 2>/dev/null; fi; }\n"		\
	"plan= tmps= i=0 op=\n"						\
	"clean() { while IFS= read -r t; do [ -z \"$t\" ] ||"		\
	" rm -f -- \"$t\"; done <<EOF\n$tmps\nEOF\n}\n"			\
	"trap clean EXIT\n"						\
	"while IFS=' ' read -r op mode len cr p <&3; do\n"		\
	"\t[ \"$op\" = . ] && break\n"					\
	"\tp=${p#/}; p=${p%/}; real \"$p\"\n"				\
	"\t[ -d \"$r\" ] && clawfail \"$p: is a directory\"\n"		\
	"\tif [ -e \"$r\" ] || [ -L \"$r\" ]; then e=1; else e=; fi\n"	\
	"\t[ \"$cr\" = 1 ] && [ -n \"$e\" ] &&"			\
	" clawfail \"$p: already exists\"\n"				\
	"\t[ \"$op\" = D ] && [ -z \"$e\" ] &&"			\
	" clawfail \"$p: no such file\"\n"				\
	"\tplan=\"$plan$op $mode $len $r/\n\"\n"			\
	"done\n"							\
	"[ \"$op\" = . ] || clawfail 'truncated request'\n"		\
	"while IFS=' ' read -r op mode len r; do\n"			\
	"\t[ \"$op\" = W ] || continue; r=${r%/}; d=${r%/*}\n"	\
	"\tmkdir -p -- \"$d\" || clawfail \"cannot create $d\"\n"	\
	"\tinside \"$(readlink -f -- \"$d\")\" ||"			\
	" clawfail \"$d: leads outside the workspace\"\n"		\
	"\ti=$((i + 1)); t=$d/.clawssh-tmp-$$-$i; tmps=\"$tmps$t\n\"\n"	\
	"\trd \"$len\" > \"$t\" || clawfail \"cannot write $t\"\n"	\
	"\t[ \"$(wc -c < \"$t\")\" -eq \"$len\" ] ||"			\
	" clawfail 'truncated request'\n"				\
	"\t[ \"$mode\" != -1 ] || mode=$(stat -c %a -- \"$r\""	\
	" 2>/dev/null) || mode=644\n"					\
	"\tchmod -- \"$mode\" \"$t\" || clawfail \"cannot chmod $t\"\n"	\
	"done <<EOF\n$plan\nEOF\n"					\
	"i=0\n"								\
	"while IFS=' ' read -r op mode len r; do\n"			\
	"\t[ -n \"$op\" ] || continue; r=${r%/}\n"			\
	"\tif [ \"$op\" = D ]; then rm -f -- \"$r\" ||"		\
	" clawfail \"cannot remove $r\"; continue; fi\n"		\
	"\ti=$((i + 1)); mv -f -- \"${r%/*}/.clawssh-tmp-$$-$i\" \"$r\""\
	" || clawfail \"cannot replace $r\"\n"				\
	"done <<EOF\n$plan\nEOF\n"					\
	"tmps=\n"

#endif /* CLAW_FSTORE_SCRIPTS_H */
