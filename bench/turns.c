/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * turns: run commands in turns and print each one's wall-clock times.
 *
 *	turns RUNS NAME=COMMAND...
 *
 * Each round runs every COMMAND once, in the order given (argv split at
 * spaces, no shell; stdin, stdout and stderr on /dev/null), so that a
 * machine whose speed drifts during the run (shared VMs, page cache,
 * another job) weighs on all of them alike -- hyperfine runs all of one
 * command's runs before the next's.  Prints, per command, the median,
 * p90, p99 and mean in milliseconds; a command that fails is reported
 * and makes the exit status 1.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TURNS_ARGS	64	/* words of one command */

extern char	**environ;

/* Order doubles. */
static int
turns_cmp(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Split "NAME=words..." into its name length and an argv. */
static char **
turns_argv(const char *spec, int *namelen)
{
	const char	*eq = strchr(spec, '=');
	char		**av, *s, *p, *save = NULL;
	int		  k = 0;

	if (eq == NULL || eq == spec || eq[1] == '\0')
		return NULL;
	*namelen = (int)(eq - spec);
	if ((av = calloc(TURNS_ARGS + 1, sizeof *av)) == NULL ||
	    (s = strdup(eq + 1)) == NULL)
		return NULL;
	for (p = strtok_r(s, " ", &save); p != NULL && k < TURNS_ARGS;
	    p = strtok_r(NULL, " ", &save))
		av[k++] = p;
	return k > 0 ? av : NULL;
}

/* Run av once with the standard streams on /dev/null: ms, or -1. */
static double
turns_run(char **av, posix_spawn_file_actions_t *fa)
{
	struct timespec	a, b;
	pid_t		pid;
	int		st;

	clock_gettime(CLOCK_MONOTONIC, &a);
	if (posix_spawn(&pid, av[0], fa, NULL, av, environ) != 0 ||
	    waitpid(pid, &st, 0) == -1)
		return -1;
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return -1;
	return (double)(b.tv_sec - a.tv_sec) * 1e3 +
	    (double)(b.tv_nsec - a.tv_nsec) / 1e6;
}

int
main(int argc, char **argv)
{
	posix_spawn_file_actions_t	  fa;
	char				***av;
	double				 *t, sum;
	int				 *nl, runs, nv, i, j;

	if (argc < 3 || (runs = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: turns RUNS NAME=COMMAND...\n");
		return 2;
	}
	nv = argc - 2;
	av = calloc((size_t)nv, sizeof *av);
	nl = calloc((size_t)nv, sizeof *nl);
	t = calloc((size_t)runs * (size_t)nv, sizeof *t);
	if (av == NULL || nl == NULL || t == NULL)
		return 2;
	for (j = 0; j < nv; j++) {
		if ((av[j] = turns_argv(argv[j + 2], &nl[j])) == NULL) {
			fprintf(stderr, "turns: bad command '%s' (NAME=PATH "
			    "ARGS...)\n", argv[j + 2]);
			return 2;
		}
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	for (i = 0; i < runs; i++) {
		for (j = 0; j < nv; j++) {
			if ((t[j * runs + i] = turns_run(av[j], &fa)) < 0) {
				fprintf(stderr, "turns: %s failed\n",
				    argv[j + 2]);
				return 1;
			}
		}
	}
	for (j = 0; j < nv; j++) {
		qsort(t + j * runs, (size_t)runs, sizeof *t, turns_cmp);
		for (sum = 0, i = 0; i < runs; i++)
			sum += t[j * runs + i];
		printf("%.*s p50 %.2f p90 %.2f p99 %.2f mean %.2f\n", nl[j],
		    argv[j + 2], t[j * runs + runs / 2],
		    t[j * runs + runs * 9 / 10], t[j * runs + runs * 99 / 100],
		    sum / runs);
	}
	return 0;
}
