/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * swap_race DIR LINK ITERATIONS [STOP]: exchange the names DIR and LINK
 * (renameat2 RENAME_EXCHANGE) ITERATIONS times, as fast as it can, or
 * until the file STOP exists (looked at every 1024 swaps).  Run
 * inside a sandbox by tests/integration/security_host.sh: a hostile
 * command swapping a directory and a symbolic link to a place outside
 * while the host side syncs through the directory's name.  Exits 0
 * after the last swap, leaving the names as they started when
 * ITERATIONS is even; 1 on a bad argument, 2 when a swap fails.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/syscall.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1 << 1)
#endif

int
main(int argc, char **argv)
{
	unsigned long	 i, n;
	char		*end;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: swap_race DIR LINK ITERATIONS "
		    "[STOP]\n");
		return 1;
	}
	errno = 0;
	n = strtoul(argv[3], &end, 10);
	if (errno != 0 || *end != '\0' || end == argv[3]) {
		fprintf(stderr, "swap_race: bad count %s\n", argv[3]);
		return 1;
	}
	for (i = 0; i < n; i++) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD,
		    argv[2], RENAME_EXCHANGE) != 0) {
			fprintf(stderr, "swap_race: renameat2 %s %s: %s\n",
			    argv[1], argv[2], strerror(errno));
			return 2;
		}
		if (argc == 5 && i % 1024 == 0 && access(argv[4], F_OK) == 0)
			break;
	}
	return 0;
}
