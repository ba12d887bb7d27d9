/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts behind the process tool.  Unlike the backend's format
 * strings, each script takes its arguments as positional parameters: the
 * caller puts a "set -- WORD..." line (every word through shquote) in
 * front, or passes them after "sh -c SCRIPT sh".  They need POSIX sh plus
 * coreutils (split with --filter, tail, wc, head), util-linux
 * setsid with -w, and procps pgrep/pkill.  Errors are a line
 * "clawssh-error: MESSAGE" on stderr and exit status 3.
 *
 * A process directory <sandbox>/procs/<handle>/ holds: in and ctl (FIFOs),
 * max and chunk (log cap and chunk size), name, cmd (display form), start
 * (epoch seconds), sup (supervisor pid), pid (the process: a session and
 * process-group leader), log.NNNNNN (output chunks), polled (the byte
 * offset the last poll reached), rc (exit status, 128+N for signal N),
 * done (output complete), killed (a kill was asked for), lock (a mkdir
 * lock around pruning and reading).
 */
#ifndef CLAW_PROCESS_SCRIPTS_H
#define CLAW_PROCESS_SCRIPTS_H

/*
 * Functions shared by every script and by split's filter; $d is the
 * process directory.  clawprune LIMIT deletes the oldest chunks until
 * the rest fit in LIMIT bytes (never the newest, which split may be
 * writing); chunk k starts at byte k * chunk of the output, so nothing
 * else needs counting.
 */
#define PROCESS_SCRIPT_LIB						\
	"clawfail() { echo \"clawssh-error: $*\" >&2; exit 3; }\n"	\
	"clawnap() { sleep 0.1 2>/dev/null || sleep 1; }\n"		\
	"clawlock() { n=0; until mkdir \"$d/lock\" 2>/dev/null; do"	\
	" if [ -n \"$(find \"$d/lock\" -prune -mmin +1 2>/dev/null)\" ];"\
	" then rmdir \"$d/lock\" 2>/dev/null; continue; fi;"		\
	" n=$((n + 1)); [ $n -le \"$1\" ] || return 1; clawnap; done; }\n"\
	"clawunlock() { rmdir \"$d/lock\" 2>/dev/null; }\n"		\
	"clawprune() { set -- \"$1\" \"$d\"/log.[0-9]*; lim=$1; shift;"	\
	" [ -e \"$1\" ] || return 0; tot=0;"				\
	" for f; do tot=$((tot + $(wc -c < \"$f\"))); done;"		\
	" for f; do [ \"$tot\" -gt \"$lim\" ] && [ $# -gt 1 ] || break;"\
	" tot=$((tot - $(wc -c < \"$f\"))); rm -f -- \"$f\"; shift;"	\
	" done; }\n"

/*
 * The checks every reader starts with: $sd the sandbox directory, $h the
 * handle (checked by the caller), $d its directory; cap and chunk read
 * back and checked, since the host's files are not trusted blindly.
 */
#define PROCESS_SCRIPT_OPEN						\
	"umask 077\n"							\
	"sd=$1; h=$2; d=\"$sd/procs/$h\"\n"				\
	PROCESS_SCRIPT_LIB						\
	"[ -d \"$sd/workspace\" ] && [ ! -L \"$sd\" ] || clawfail"	\
	" \"sandbox $sd no longer exists on this host\"\n"		\
	"[ ! -L \"$sd/procs\" ] && [ ! -L \"$d\" ] && [ -d \"$d\" ] ||"	\
	" clawfail \"no process $h in this sandbox\"\n"		\
	"touch -c -- \"$sd/last-used\" 2>/dev/null\n"			\
	"num() { v=$(head -c 18 -- \"$d/$1\" 2>/dev/null | tr -d '\\n');"\
	" case $v in ''|*[!0-9]*) clawfail \"garbled state file"	\
	" $d/$1\" ;; esac; echo \"$v\"; }\n"				\
	"cap=$(num max) || exit 3; chunk=$(num chunk) || exit 3\n"	\
	"[ \"$chunk\" -gt 0 ] && [ \"$chunk\" -le 1073741824 ] &&"	\
	" [ \"$cap\" -le 17179869184 ] || clawfail \"garbled state"	\
	" files $d/max, $d/chunk\"\n"

/*
 * clawstate WAIT prints "clawssh-proc HANDLE NAME STATE RC START CMD";
 * with WAIT set, an exited process gets up to 5 s to finish its output
 * (the log's split and its filters run after the command ends).
 * Values are passed on raw (bounded): the client judges them.
 */
#define PROCESS_SCRIPT_STATE						\
	"clawstate() { st=running; rc=-;"				\
	" if [ -e \"$d/rc\" ]; then n=0;"				\
	" while [ -n \"$1\" ] && [ ! -e \"$d/done\" ] && [ $n -lt 50 ];"\
	" do clawnap; n=$((n + 1)); done;"				\
	" rc=$(head -c 24 -- \"$d/rc\" | tr -d '\\n'); st=exited;"	\
	" [ -e \"$d/killed\" ] && st=killed;"				\
	" else s=$(head -c 24 -- \"$d/sup\" 2>/dev/null | tr -d '\\n');"\
	" case $s in ''|*[!0-9]*) st=lost ;;"				\
	" *) kill -0 \"$s\" 2>/dev/null || st=lost ;; esac; fi;"	\
	" nm=$(head -c 100 -- \"$d/name\" 2>/dev/null | tr -d '\\n');"	\
	" t0=$(head -c 24 -- \"$d/start\" 2>/dev/null | tr -d '\\n');"	\
	" cm=$(head -c 4096 -- \"$d/cmd\" 2>/dev/null | tr -d '\\n');"	\
	" printf 'clawssh-proc %s %s %s %s %s %s\\n' \"$h\""		\
	" \"${nm:--}\" \"$st\" \"${rc:--}\" \"${t0:-0}\" \"$cm\"; }\n"

/*
 * The supervisor, run as "setsid sh -c SCRIPT sh DIR CAP CHUNK LIB
 * ARGV...": it keeps the stdin FIFO open read-write in a holder until
 * "process write --eof" (or the end), marks the sandbox used every
 * minute while the process runs (so prune does not take it), runs the
 * command as its own session leader with stdin from the FIFO and output
 * through split into chunks, and records the exit status.
 */
#define PROCESS_SCRIPT_SUPERVISOR					\
	"d=$1; cap=$2; chunk=$3; lib=$4; shift 4\n"			\
	"echo $$ > \"$d/sup\"\n"					\
	"eval \"$lib\"\n"						\
	"( exec 3<>\"$d/in\"; read -r _ 0<>\"$d/ctl\" ) </dev/null"	\
	" >/dev/null 2>&1 &\n"						\
	"( n=0; while [ -d \"$d\" ] && [ ! -e \"$d/rc\" ]; do"		\
	" [ $((n % 60)) -eq 0 ] && touch -c -- \"$d/../../last-used\""	\
	" 2>/dev/null; n=$((n + 1)); sleep 1; done ) </dev/null"	\
	" >/dev/null 2>&1 &\n"						\
	"filt=\"$lib\nd=.; clawlock 20 &&"				\
	" { clawprune $((cap - chunk)); clawunlock; }\n"		\
	"exec cat > \\\"\\$FILE\\\"\"\n"				\
	"{ setsid -w sh -c 'echo $$ > \"$1/pid.t\" &&"			\
	" mv -f \"$1/pid.t\" \"$1/pid\" || exit 126; shift; exec \"$@\"'"\
	" sh \"$d\" \"$@\" < \"$d/in\"\n"				\
	"  echo $? > \"$d/rc.t\"; mv -f \"$d/rc.t\" \"$d/rc\"\n"	\
	"  echo x 1<>\"$d/ctl\"\n"					\
	"} 2>&1 | ( cd \"$d\" && SHELL=/bin/sh exec split -b \"$chunk\""\
	" -a 6 -d --filter=\"$filt\" - log. )\n"			\
	"clawlock 100 && { clawprune \"$cap\"; clawunlock; }\n"	\
	": > \"$d/done\"\n"

/*
 * Start: "sh -c SCRIPT sh SANDBOX HANDLE CAP CHUNK NAME CMD SUP LIB
 * ARGV...", in the workspace with the environment already exported.
 * Prints "clawssh-started HANDLE" once the process has its pid file.
 */
#define PROCESS_SCRIPT_START						\
	"umask 077\n"							\
	"sd=$1; h=$2; cap=$3; chunk=$4; nm=$5; cm=$6; sup=$7; lib=$8;"	\
	" shift 8; d=\"$sd/procs/$h\"\n"				\
	"eval \"$lib\"\n"						\
	"[ -L \"$sd/procs\" ] && clawfail \"$sd/procs is a symbolic"	\
	" link\"\n"							\
	"mkdir -p -- \"$sd/procs\" && mkdir -- \"$d\" ||"		\
	" clawfail \"cannot create $d\"\n"				\
	"mkfifo -- \"$d/in\" \"$d/ctl\" || clawfail \"cannot create"	\
	" FIFOs in $d\"\n"						\
	"echo \"$cap\" > \"$d/max\" && echo \"$chunk\" > \"$d/chunk\" &&"\
	" printf '%s\\n' \"$nm\" > \"$d/name\" &&"			\
	" printf '%s\\n' \"$cm\" > \"$d/cmd\" &&"			\
	" date +%s > \"$d/start\" || clawfail \"cannot write $d\"\n"	\
	"command -v setsid >/dev/null 2>&1 || clawfail \"setsid not"	\
	" found on this host\"\n"					\
	"setsid sh -c \"$sup\" sh \"$d\" \"$cap\" \"$chunk\" \"$lib\""	\
	" \"$@\" </dev/null >/dev/null 2>&1 &\n"			\
	"n=0; while [ ! -e \"$d/pid\" ] && [ ! -e \"$d/rc\" ] &&"	\
	" [ $n -lt 100 ]; do clawnap; n=$((n + 1)); done\n"		\
	"[ -e \"$d/pid\" ] || clawfail \"process $h did not start\"\n"	\
	"echo \"clawssh-started $h\"\n"

/*
 * Poll: state, then the output since the last poll.  Prints the state
 * line, "clawssh-out DROPPED LEN", then exactly LEN bytes.
 */
#define PROCESS_SCRIPT_POLL						\
	PROCESS_SCRIPT_OPEN						\
	PROCESS_SCRIPT_STATE						\
	"state=$(clawstate wait)\n"					\
	"tmp=\"$d/.out.$$\"\n"						\
	"clawlock 100 || clawfail \"process $h is busy\"\n"		\
	"trap 'clawunlock; rm -f -- \"$tmp\"' EXIT\n"			\
	"trap 'exit 143' TERM INT HUP\n"				\
	"clawprune \"$cap\"\n"						\
	"from=$(head -c 18 -- \"$d/polled\" 2>/dev/null | tr -d '\\n')\n"\
	"case $from in ''|*[!0-9]*) from=0 ;; esac\n"			\
	"set -- \"$d\"/log.[0-9]*; first=0\n"				\
	"[ -e \"$1\" ] && first=$(echo \"${1##*/log.}\" |"		\
	" sed 's/^0*//')\n"						\
	"case $first in ''|*[!0-9]*) first=0 ;; esac\n"		\
	"dropped=$((first * chunk)); lost=0\n"				\
	"[ \"$from\" -lt \"$dropped\" ] && { lost=$((dropped - from));"	\
	" from=$dropped; }\n"						\
	"if [ -e \"$1\" ]; then cat -- \"$@\" |"			\
	" tail -c +$((from - dropped + 1)) > \"$tmp\"; else"		\
	" : > \"$tmp\"; fi || clawfail \"cannot read the log\"\n"	\
	"got=$(wc -c < \"$tmp\")\n"					\
	"echo $((from + got)) > \"$d/polled.t\" &&"			\
	" mv -f \"$d/polled.t\" \"$d/polled\"\n"			\
	"clawunlock; trap 'rm -f -- \"$tmp\"' EXIT\n"		\
	"printf '%s\\nclawssh-out %s %s\\n' \"$state\" \"$lost\""	\
	" \"$got\"\n"							\
	"cat -- \"$tmp\"\n"

/*
 * Log: the whole kept log, or its last $3 lines when $3 is not empty.
 * Output as for poll; DROPPED is non-zero only when what is shown starts
 * where dropped output ended.
 */
#define PROCESS_SCRIPT_LOG						\
	PROCESS_SCRIPT_OPEN						\
	PROCESS_SCRIPT_STATE						\
	"lines=$3; state=$(clawstate wait)\n"				\
	"tmp=\"$d/.out.$$\"\n"						\
	"clawlock 100 || clawfail \"process $h is busy\"\n"		\
	"trap 'clawunlock; rm -f -- \"$tmp\"' EXIT\n"			\
	"trap 'exit 143' TERM INT HUP\n"				\
	"clawprune \"$cap\"\n"						\
	"set -- \"$d\"/log.[0-9]*; first=0\n"				\
	"[ -e \"$1\" ] && first=$(echo \"${1##*/log.}\" |"		\
	" sed 's/^0*//')\n"						\
	"case $first in ''|*[!0-9]*) first=0 ;; esac\n"		\
	"if [ -e \"$1\" ]; then cat -- \"$@\" > \"$tmp\"; else"	\
	" : > \"$tmp\"; fi || clawfail \"cannot read the log\"\n"	\
	"clawunlock; trap 'rm -f -- \"$tmp\" \"$tmp.t\"' EXIT\n"	\
	"kept=$(wc -c < \"$tmp\"); lost=$((first * chunk))\n"		\
	"if [ -n \"$lines\" ]; then tail -n \"$lines\" -- \"$tmp\" >"	\
	" \"$tmp.t\" && mv -f -- \"$tmp.t\" \"$tmp\"; fi\n"		\
	"got=$(wc -c < \"$tmp\"); [ \"$got\" -eq \"$kept\" ] || lost=0\n"\
	"printf '%s\\nclawssh-out %s %s\\n' \"$state\" \"$lost\""	\
	" \"$got\"\n"							\
	"cat -- \"$tmp\"\n"

/*
 * Wait: up to $3 tenths of a second for the process to exit (or its
 * supervisor to vanish: lost), then its state line.  Output is not read.
 */
#define PROCESS_SCRIPT_WAIT						\
	PROCESS_SCRIPT_OPEN						\
	PROCESS_SCRIPT_STATE						\
	"lim=$3; case $lim in ''|*[!0-9]*) lim=0 ;; esac; n=0\n"	\
	"while [ ! -e \"$d/rc\" ] && [ $n -lt \"$lim\" ]; do\n"		\
	"  s=$(head -c 24 -- \"$d/sup\" 2>/dev/null | tr -d '\\n')\n"	\
	"  case $s in ''|*[!0-9]*) break ;; esac\n"			\
	"  kill -0 \"$s\" 2>/dev/null || break\n"			\
	"  clawnap; n=$((n + 1))\n"					\
	"done\n"							\
	"clawstate wait\n"

/* List: one state line per process directory with a valid handle. */
#define PROCESS_SCRIPT_LIST						\
	"umask 077\n"							\
	"sd=$1; d=\n"							\
	PROCESS_SCRIPT_LIB						\
	PROCESS_SCRIPT_STATE						\
	"[ -d \"$sd/workspace\" ] && [ ! -L \"$sd\" ] || clawfail"	\
	" \"sandbox $sd no longer exists on this host\"\n"		\
	"touch -c -- \"$sd/last-used\" 2>/dev/null\n"			\
	"[ -d \"$sd/procs\" ] && [ ! -L \"$sd/procs\" ] || exit 0\n"	\
	"for d in \"$sd\"/procs/p*; do h=${d##*/}\n"			\
	"  case $h in p[0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f][0-9a-f]"\
	"[0-9a-f][0-9a-f]) ;; *) continue ;; esac\n"			\
	"  [ -d \"$d\" ] && [ ! -L \"$d\" ] || continue\n"		\
	"  clawstate\n"							\
	"done\n"

/*
 * Write: "sh -c SCRIPT sh SANDBOX HANDLE EOF"; stdin goes to the FIFO
 * (opened read-write, so the open never blocks), then with EOF set the
 * holder is told to let go of it.
 */
#define PROCESS_SCRIPT_WRITE						\
	PROCESS_SCRIPT_OPEN						\
	"[ -p \"$d/in\" ] && [ -p \"$d/ctl\" ] || clawfail \"process"	\
	" $h has no stdin FIFO\"\n"					\
	"[ -e \"$d/rc\" ] && clawfail \"process $h has exited\"\n"	\
	"cat 1<>\"$d/in\" || clawfail \"cannot write to process $h\"\n"\
	"[ \"$3\" = 1 ] && echo x 1<>\"$d/ctl\"\n"			\
	"echo clawssh-written\n"

/*
 * Kill: $3 the signal name, $4 1 to follow with KILL after $5 tenths of
 * a second.  Signals the process group and the session of the recorded
 * pid, then waits (up to the grace again) for the exit to be recorded.
 * Prints clawssh-exited if it had already exited, else clawssh-killed.
 */
#define PROCESS_SCRIPT_KILL						\
	PROCESS_SCRIPT_OPEN						\
	"sig=$3; esc=$4; grace=$5; pid=$(num pid) || exit 3\n"		\
	"[ \"$pid\" -gt 1 ] || clawfail \"garbled state file $d/pid\"\n"\
	"[ -e \"$d/rc\" ] && { echo clawssh-exited; exit 0; }\n"	\
	"echo \"$sig\" > \"$d/killed\"\n"				\
	"alive() { kill -0 -- \"-$pid\" 2>/dev/null ||"		\
	" pgrep -s \"$pid\" >/dev/null 2>&1; }\n"			\
	"kill -s \"$sig\" -- \"-$pid\" 2>/dev/null;"			\
	" pkill \"-$sig\" -s \"$pid\" 2>/dev/null\n"			\
	"i=0; if [ \"$esc\" = 1 ]; then"				\
	" while alive && [ $i -lt \"$grace\" ]; do clawnap;"		\
	" i=$((i + 1)); done;"						\
	" kill -s KILL -- \"-$pid\" 2>/dev/null;"			\
	" pkill -KILL -s \"$pid\" 2>/dev/null; fi\n"			\
	"i=0; while [ ! -e \"$d/rc\" ] && [ $i -lt \"$grace\" ]; do"	\
	" clawnap; i=$((i + 1)); done\n"				\
	"echo clawssh-killed\n"

#endif /* CLAW_PROCESS_SCRIPTS_H */
