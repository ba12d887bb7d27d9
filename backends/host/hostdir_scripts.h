/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sh scripts the host-directory backend runs on a host.  Each is a format string
 * whose %s slots are filled with sh-quoted words (never raw input).  They
 * need POSIX sh plus mkdir, mv, rm, cat, wc, ls, awk, id, date, and stat
 * or date -r for file times; errors are reported on stderr as a line
 * "clawssh-error: MESSAGE" and exit status 3.
 */
#ifndef CLAW_HOSTDIR_SCRIPTS_H
#define CLAW_HOSTDIR_SCRIPTS_H

/*
 * Shared start: the root in $root (slot 1), clawfail, mt (a file's mtime
 * in epoch seconds, 0 if unknown), a check that no component of the root
 * is a symbolic link, and the lock helpers clawlock / clawunlock (mkdir
 * locks, broken after a minute of staleness).
 */
#define HOSTDIR_SCRIPT_PRELUDE						\
	"umask 077\n"							\
	"root=%s\n"							\
	"clawfail() { echo \"clawssh-error: $*\" >&2; exit 3; }\n"	\
	"mt() { stat -c %%Y -- \"$1\" 2>/dev/null ||"			\
	" date -r \"$1\" +%%s 2>/dev/null || echo 0; }\n"		\
	"case $root in /*) ;; *) clawfail \"remoteRoot $root is not"	\
	" absolute\" ;; esac\n"						\
	"p=; oldifs=$IFS; IFS=/; set -f\n"				\
	"for c in $root; do [ -n \"$c\" ] || continue; p=\"$p/$c\";"	\
	" [ -L \"$p\" ] && clawfail \"remoteRoot component $p is a"	\
	" symbolic link\"; done\n"					\
	"IFS=$oldifs; set +f\n"						\
	"clawlock() { lockdir=$1; n=0;"					\
	" until mkdir -- \"$1\" 2>/dev/null; do"			\
	" if [ -n \"$(find \"$1\" -prune -mmin +1 2>/dev/null)\" ];"	\
	" then rmdir -- \"$1\" 2>/dev/null; continue; fi;"		\
	" n=$((n + 1)); [ $n -le 600 ] || clawfail \"$1 is held too"	\
	" long\"; sleep 0.1 2>/dev/null || sleep 1; done;"		\
	" trap 'rmdir -- \"$lockdir\" 2>/dev/null' EXIT;"		\
	" trap 'exit 143' TERM INT HUP; }\n"				\
	"entry() { echo \"clawssh-entry $1 $(mt \"$root/$1/meta.json\")"\
	" $(mt \"$root/$1/last-used\") $(wc -c <"			\
	" \"$root/$1/meta.json\")\"; cat -- \"$root/$1/meta.json\"; }\n"

/* The root must exist (created 0700 if not) and belong to us. */
#define HOSTDIR_SCRIPT_ENSURE_ROOT						\
	"[ -d \"$root\" ] || mkdir -p -m 700 -- \"$root\" ||"		\
	" clawfail \"cannot create remoteRoot $root\"\n"		\
	"[ -d \"$root\" ] && [ ! -L \"$root\" ] ||"			\
	" clawfail \"remoteRoot $root is not a directory\"\n"		\
	"owner=$(ls -ldn -- \"$root\" | awk '{ print $3 }')\n"		\
	"[ \"$owner\" = \"$(id -u)\" ] || clawfail \"remoteRoot $root"	\
	" is owned by uid $owner, not by $(id -un)\"\n"

/*
 * The one container clean-up: clawctrs ID removes the docker and podman
 * containers labelled clawssh.sandbox=ID, and nothing else: the
 * sandbox's long-lived clawssh-ID (contain_oci_create labels it so), and
 * any left by older versions, running or not.  An ID that is not a
 * sandbox id (c and 12 base32 letters) is refused before any
 * engine is asked: an empty label value matches every sandbox's
 * containers.  Returns 3 (with "clawssh-error: ...") when refused.
 */
#define HOSTDIR_SCRIPT_CONTAINERS_RM					\
	"clawctrs() {\n"						\
	"  case $1 in c[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]"	\
	"[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]) ;;"	\
	" *) echo \"clawssh-error: not removing the containers of"	\
	" '$1': not a sandbox id\" >&2; return 3 ;; esac\n"		\
	"  for e in docker podman; do\n"				\
	"    command -v $e >/dev/null 2>&1 || continue\n"		\
	"    c=$($e ps -aq --filter \"label=clawssh.sandbox=$1\""	\
	" 2>/dev/null | tr -cd '0-9a-f\\n')\n"				\
	"    [ -z \"$c\" ] || $e rm -f $c >/dev/null 2>&1\n"		\
	"  done\n"							\
	"}\n"

/*
 * Slots: root, id, image, runtime (a checked name).  Metadata for a new
 * sandbox comes on stdin.  For docker and podman the engine must be
 * installed and working and have the image; for every runtime but none,
 * bwrap must be installed (the step jail); for bwrap, an image other
 * than host must be in the store.  A new sandbox
 * gets workspace/ and private/ (the empty workspace of access none).
 */
#define HOSTDIR_SCRIPT_GET_OR_CREATE					\
	HOSTDIR_SCRIPT_PRELUDE						\
	HOSTDIR_SCRIPT_ENSURE_ROOT						\
	"id=%s; image=%s; runtime=%s; d=\"$root/$id\"\n"		\
	"if [ \"$runtime\" != none ] && ! command -v bwrap >/dev/null"	\
	" 2>&1; then clawfail \"bubblewrap (bwrap) is not installed on"	\
	" this host (runtime $runtime needs it, for the sandbox's"	\
	" host-side steps at least): install it (Debian: apt-get"	\
	" install bubblewrap) or choose --runtime none"			\
	" (uncontained)\"; fi\n"						\
	"case $runtime in docker|podman)\n"				\
	"  command -v $runtime >/dev/null 2>&1 || clawfail \"$runtime is"\
	" not installed on this host: install it (Debian: apt-get"	\
	" install $runtime) or choose --runtime bwrap or none\"\n"	\
	"  $runtime info >/dev/null 2>&1 || clawfail \"$runtime does not"\
	" work on this host ('$runtime info' fails): start its daemon or"\
	" fix its setup, or choose --runtime bwrap or none\"\n"		\
	"  $runtime image inspect -- \"$image\" >/dev/null 2>&1 ||"	\
	" clawfail \"image $image not found by $runtime on this host:"	\
	" pull or load it there ($runtime pull, $runtime load -i FILE"	\
	" or $runtime import TARBALL)\" ;;\n"				\
	"*) if [ \"$image\" != host ] && [ ! -d \"$root/images/$image\" ];"\
	" then clawfail \"image $image not found in $root/images"	\
	" (import it with: clawssh image import)\"; fi ;;\n"		\
	"esac\n"							\
	"clawlock \"$root/.lock-$id\"\n"				\
	"if [ -d \"$d\" ] && [ ! -L \"$d\" ]; then\n"			\
	"  [ -f \"$d/meta.json\" ] && [ ! -L \"$d/meta.json\" ] ||"	\
	" clawfail \"$d exists but has no metadata\"\n"		\
	"  echo clawssh-found; entry \"$id\"; exit 0\n"			\
	"fi\n"								\
	"if [ -e \"$d\" ] || [ -L \"$d\" ]; then clawfail \"$d exists"	\
	" and is not a sandbox directory\"; fi\n"			\
	"s=\"$root/.stage-$id-$$\"; rm -rf -- \"$s\"\n"		\
	"if mkdir -- \"$s\" \"$s/workspace\" \"$s/private\" &&"		\
	" cat > \"$s/meta.json\""					\
	" && : > \"$s/last-used\" && mv -- \"$s\" \"$d\"; then :; else"	\
	" rm -rf -- \"$s\"; clawfail \"cannot create $d\"; fi\n"	\
	"echo clawssh-created; entry \"$id\"\n"

/* Slots: root, glob of ids to list (an id, or the id pattern). */
#define HOSTDIR_SCRIPT_LIST							\
	HOSTDIR_SCRIPT_PRELUDE						\
	"echo \"clawssh-now $(date +%%s)\"\n"				\
	"[ -d \"$root\" ] || exit 0\n"					\
	"cd -- \"$root\" || clawfail \"cannot enter $root\"\n"		\
	"for d in %s; do\n"						\
	"  case $d in c[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]"	\
	"[a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7][a-z2-7]) ;;"	\
	" *) continue ;; esac\n"					\
	"  [ -d \"$d\" ] && [ ! -L \"$d\" ] && [ -f \"$d/meta.json\" ]"	\
	" && [ ! -L \"$d/meta.json\" ] || continue\n"			\
	"  entry \"$d\"\n"						\
	"done\n"

/*
 * clawboxkill FILE: end the persistent environment whose holder FILE
 * (run/box.pid: "PID STARTTIME") names, if that process is still the one
 * that wrote it: SIGKILL to its children (bwrap's init of the sandbox's
 * pid namespace, whose end kills every process of the sandbox), then to
 * it.  Not %-formatted: usable in any script.
 */
#define HOSTDIR_SCRIPT_BOXKILL						\
	"clawboxkill() { read -r p st < \"$1\" 2>/dev/null || return 0;"	\
	" case $p:$st in *[!0-9:]*|:*|*:) return 0 ;; esac;"		\
	" [ \"$p\" -gt 1 ] || return 0;"					\
	" set -- $(sed 's/.*) //' \"/proc/$p/stat\" 2>/dev/null);"	\
	" [ \"${20:-}\" = \"$st\" ] || return 0;"				\
	" pkill -KILL -P \"$p\" 2>/dev/null; kill -KILL \"$p\" 2>/dev/null;"	\
	" return 0; }\n"

/*
 * Remove the cgroups of sandbox $id (pids, memory; v1 or v2), waiting
 * up to 3 s each for the processes just killed to leave them.  No slot.
 */
#define HOSTDIR_SCRIPT_CGROUPS_RM						\
	"for c in /sys/fs/cgroup/pids/clawssh-$id"			\
	" /sys/fs/cgroup/memory/clawssh-$id"				\
	" /sys/fs/cgroup/clawssh-$id; do n=0\n"			\
	"  while [ -d \"$c\" ] && ! rmdir \"$c\" 2>/dev/null &&"	\
	" [ $n -lt 30 ]; do sleep 0.1 2>/dev/null || sleep 1;"	\
	" n=$((n + 1)); done\n"						\
	"done\n"

/*
 * Slots: root, id.  The sandbox's background processes and the holder of
 * its persistent environment are killed (their sessions, from the pid
 * files: numbers only; killing the holder's bwrap session ends its pid
 * namespace, and with it every process of the sandbox), its docker and podman
 * containers removed (clawctrs: label clawssh.sandbox=ID), and its empty
 * pids cgroup goes too.  prune removes each sandbox with this script.
 */
#define HOSTDIR_SCRIPT_DESTROY						\
	HOSTDIR_SCRIPT_PRELUDE						\
	HOSTDIR_SCRIPT_CONTAINERS_RM					\
	"id=%s; d=\"$root/$id\"\n"					\
	"[ -d \"$root\" ] || { echo clawssh-missing; exit 0; }\n"	\
	"[ -L \"$d\" ] && clawfail \"$d is a symbolic link; not"	\
	" removing it\"\n"						\
	"[ -d \"$d\" ] || { echo clawssh-missing; exit 0; }\n"		\
	"clawlock \"$root/.lock-$id\"\n"				\
	"t=\"$root/.trash-$id-$$\"\n"					\
	"mv -- \"$d\" \"$t\" || clawfail \"cannot remove $d\"\n"	\
	"echo clawssh-destroyed\n"					\
	HOSTDIR_SCRIPT_BOXKILL						\
	"clawboxkill \"$t/run/box.pid\"\n"				\
	"for f in \"$t\"/procs/p*/pid \"$t\"/procs/p*/sup; do\n"	\
	"  p=$(head -c 16 -- \"$f\" 2>/dev/null) || continue\n"		\
	"  case $p in ''|*[!0-9]*) continue ;; esac\n"			\
	"  [ \"$p\" -gt 1 ] || continue\n"				\
	"  kill -s KILL -- \"-$p\" 2>/dev/null;"			\
	" pkill -KILL -s \"$p\" 2>/dev/null\n"				\
	"done\n"							\
	"clawctrs \"$id\"\n"						\
	"chmod -R u+rwx -- \"$t\" 2>/dev/null; rm -rf -- \"$t\"\n"	\
	HOSTDIR_SCRIPT_CGROUPS_RM						\
	"exit 0\n"

/* Slots: the sandbox directory (quoted), the id (checked). */
#define HOSTDIR_SCRIPT_EXEC_PRE						\
	"__claw_d=%s; if [ ! -d \"$__claw_d/workspace\" ] ||"		\
	" [ -L \"$__claw_d\" ]; then echo \"clawssh: sandbox %s no"	\
	" longer exists on this host; provision it again\" >&2;"	\
	" exit 255; fi; touch -c -- \"$__claw_d/last-used\""		\
	" 2>/dev/null; unset __claw_d"

/*
 * Image import.  Slots: root, name (checked), the tar decompression flag
 * (checked: "", -z, -J, -j or --zstd).  The root file system tarball
 * comes on stdin; it is unpacked beside the store and renamed into place
 * (device nodes skipped: bwrap makes /dev), with workspace/, tmp/, proc/
 * and dev/ made where the runtime mounts them.
 */
#define HOSTDIR_SCRIPT_IMAGE_IMPORT						\
	HOSTDIR_SCRIPT_PRELUDE						\
	HOSTDIR_SCRIPT_ENSURE_ROOT						\
	"name=%s; z=%s; i=\"$root/images\"\n"				\
	"mkdir -p -- \"$i\" || clawfail \"cannot create $i\"\n"		\
	"[ -L \"$i\" ] && clawfail \"$i is a symbolic link\"\n"		\
	"clawlock \"$i/.lock-$name\"\n"					\
	"[ -e \"$i/$name\" ] && clawfail \"image $name already exists on" \
	" this host (remove it first: clawssh image rm)\"\n"		\
	"s=\"$i/.stage-$name-$$\"; rm -rf -- \"$s\"\n"			\
	"mkdir -p -- \"$s/rootfs\" || clawfail \"cannot create $s\"\n"	\
	"if ! tar -x $z -f - -C \"$s/rootfs\" --exclude=./dev/*"	\
	" --exclude=dev/* 2>\"$s/err\"; then\n"				\
	"  e=$(head -c 300 \"$s/err\" | tr '\\n' ' '); rm -rf -- \"$s\";" \
	" clawfail \"unpacking the image failed: $e\"; fi\n"		\
	"for d in workspace tmp proc dev; do\n"				\
	"  [ -L \"$s/rootfs/$d\" ] && rm -f -- \"$s/rootfs/$d\"\n"	\
	"  [ -d \"$s/rootfs/$d\" ] || mkdir -p -- \"$s/rootfs/$d\" ||"	\
	" { rm -rf -- \"$s\"; clawfail \"cannot make /$d in the image\"; }\n"\
	"done\n"							\
	"rm -f -- \"$s/err\"; date +%%s > \"$s/imported\"\n"		\
	"mv -- \"$s\" \"$i/$name\" || { rm -rf -- \"$s\";"		\
	" clawfail \"cannot store the image\"; }\n"			\
	"echo \"clawssh-image $name $(cat \"$i/$name/imported\")"	\
	" $(du -sk -- \"$i/$name\" | cut -f1)\"\n"

/* Image listing.  Slot: root.  One "clawssh-image NAME TIME KIB" line. */
#define HOSTDIR_SCRIPT_IMAGE_LIST						\
	HOSTDIR_SCRIPT_PRELUDE						\
	"[ -d \"$root/images\" ] || exit 0\n"				\
	"cd -- \"$root/images\" || clawfail \"cannot enter images\"\n"	\
	"for d in *; do\n"						\
	"  case $d in .*|'*') continue ;; esac\n"			\
	"  [ -d \"$d/rootfs\" ] && [ ! -L \"$d\" ] || continue\n"	\
	"  echo \"clawssh-image $d $(cat \"$d/imported\" 2>/dev/null ||" \
	" echo 0) $(du -sk -- \"$d\" | cut -f1)\"\n"			\
	"done\n"

/*
 * Image removal.  Slots: root, name (checked), force (0 or 1).  Refused
 * while a sandbox's metadata names the image, unless forced.  It removes
 * the stored root file system only: no container is made from the store
 * (docker and podman run images of their own), so none is touched; the
 * sandboxes that used it stay, and their next exec fails naming it.
 */
#define HOSTDIR_SCRIPT_IMAGE_RM						\
	HOSTDIR_SCRIPT_PRELUDE						\
	"name=%s; force=%s; i=\"$root/images\"\n"			\
	"[ -d \"$i/$name\" ] && [ ! -L \"$i/$name\" ] ||"		\
	" clawfail \"no image $name on this host\"\n"			\
	"clawlock \"$i/.lock-$name\"\n"					\
	"users=$(grep -l \"\\\"image\\\":[[:space:]]*\\\"$name\\\"\"" \
	" \"$root\"/c*/meta.json 2>/dev/null | sed 's|.*/\\(c[a-z2-7]*\\)" \
	"/meta.json|\\1|' | tr '\\n' ' ')\n"				\
	"[ -z \"$users\" ] || [ \"$force\" = 1 ] || clawfail \"image"	\
	" $name is used by sandboxes $users(destroy them, or --force)\"\n"\
	"t=\"$i/.trash-$name-$$\"\n"					\
	"mv -- \"$i/$name\" \"$t\" || clawfail \"cannot remove $name\"\n" \
	"chmod -R u+rwx -- \"$t\" 2>/dev/null; rm -rf -- \"$t\"\n"	\
	"echo clawssh-removed\n"

/*
 * GPU state for an assignment.  Slot: root.  Prints "clawssh-devices",
 * the nvidiaN names in the device directory ($CLAWSSH_GPU_DEV_DIR, else
 * /dev), "clawssh-live", the ids of the sandboxes present, then
 * "clawssh-table" and the allocation file (INDEX ID lines).
 */
#define HOSTDIR_SCRIPT_GPU_READ						\
	HOSTDIR_SCRIPT_PRELUDE						\
	HOSTDIR_SCRIPT_ENSURE_ROOT						\
	"dd=${CLAWSSH_GPU_DEV_DIR:-/dev}\n"				\
	"echo clawssh-devices\n"					\
	"ls -1 -- \"$dd\" 2>/dev/null | grep '^nvidia[0-9][0-9]*$'\n"	\
	"echo clawssh-live\n"						\
	"for d in \"$root\"/c*; do [ -f \"$d/meta.json\" ] &&"		\
	" echo \"${d##*/}\"; done\n"					\
	"echo clawssh-table\n"						\
	"cat -- \"$root/gpus\" 2>/dev/null; exit 0\n"

/*
 * Write a new allocation file if the old one is still what was read.
 * Slot: root.  stdin: "OLDLEN NEWLEN" then the old and the new text.
 * Prints clawssh-written, or clawssh-retry if it changed meanwhile.
 */
#define HOSTDIR_SCRIPT_GPU_WRITE						\
	HOSTDIR_SCRIPT_PRELUDE						\
	"clawlock \"$root/.lock-gpus\"\n"				\
	"read -r ol nl || clawfail 'truncated request'\n"		\
	"t=\"$root/.gpus-$$\"\n"					\
	"head -c \"$ol\" > \"$t.old\"; head -c \"$nl\" > \"$t\"\n"	\
	"[ -f \"$root/gpus\" ] || : > \"$root/gpus\"\n"			\
	"if ! cmp -s \"$t.old\" \"$root/gpus\"; then rm -f -- \"$t\""	\
	" \"$t.old\"; echo clawssh-retry; exit 0; fi\n"		\
	"mv -- \"$t\" \"$root/gpus\" || clawfail 'cannot write gpus'\n"	\
	"rm -f -- \"$t.old\"; echo clawssh-written\n"

#endif /* CLAW_HOSTDIR_SCRIPTS_H */
