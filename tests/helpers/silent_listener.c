/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A TCP listener on 127.0.0.1 that accepts connections and never says a
 * word, for ConnectTimeout tests.  Prints its port, then exits after the
 * number of seconds given as its argument.
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof sin;
	struct pollfd		pfd;
	time_t			end;
	int			fd, secs;

	secs = argc > 1 ? atoi(argv[1]) : 30;
	end = time(NULL) + (secs > 0 && secs < 600 ? secs : 30);
	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		return 1;
	memset(&sin, 0, sizeof sin);
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof sin) == -1 ||
	    listen(fd, 16) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		return 1;
	printf("%d\n", ntohs(sin.sin_port));
	fflush(stdout);
	pfd.fd = fd;
	pfd.events = POLLIN;
	while (time(NULL) < end) {
		if (poll(&pfd, 1, 200) > 0)
			(void)accept(fd, NULL, NULL);
	}
	return 0;
}
