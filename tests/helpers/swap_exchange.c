/*
 * swap_exchange A B COUNT [STOP]: exchange the entries named A and B
 * (renameat2 RENAME_EXCHANGE: both names always exist) COUNT times, or
 * until the file STOP exists (looked at every 1024 exchanges).  The
 * attacker of the file tools' race tests, run inside a sandbox.
 */
#include <sys/syscall.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE	(1 << 1)
#endif

int
main(int argc, char **argv)
{
	unsigned long	n, i;

	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: swap_exchange A B COUNT [STOP]\n");
		return 2;
	}
	n = strtoul(argv[3], NULL, 10);
	for (i = 0; i < n; i++) {
		if (syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD,
		    argv[2], RENAME_EXCHANGE) == -1) {
			perror("renameat2");
			return 1;
		}
		if (argc == 5 && i % 1024 == 0 && access(argv[4], F_OK) == 0)
			break;
	}
	return 0;
}
