/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fixture for the registry unit tests: each test runs in a private temporary
 * directory, entered by rf_setup and removed by rf_teardown.  Helpers fail the
 * running cmocka test on error; include <cmocka.h> before using RF_TEST.
 */
#ifndef CLAW_REGISTRY_FIXTURE_H
#define CLAW_REGISTRY_FIXTURE_H

#include <stddef.h>

#include "registry.h"

#define ID_A	"cabcdefghijkl"
#define ID_B	"cmnopqrstuvwx"
#define ID_C	"c234567abcdef"

/* A test run with rf_setup and rf_teardown; the number of array items. */
#define RF_TEST(fn)	\
	cmocka_unit_test_setup_teardown(fn, rf_setup, rf_teardown)
#define RF_NITEMS(a)	(sizeof(a) / sizeof((a)[0]))

/* Append to all[n] an RF_TEST of fn for each case of the array cases. */
#define RF_ADD_CASES(all, n, fn, cases)					\
	rf_add_cases((all), &(n), (fn), (cases), sizeof((cases)[0]),	\
	    RF_NITEMS(cases))

struct CMUnitTest;

/* Per-test state: a private temporary directory and its paths. */
struct rf {
	char			 dir[64];
	char			 state[128];	/* dir/state, the override */
	char			 home[128];	/* dir/home */
	char			 sbdir[160];	/* state/sandboxes */
	char			 path_a[192];	/* the record file of ID_A */
	struct registry		*reg;		/* closed by rf_teardown */
	const void		*arg;		/* the case, table tests */
};

/*
 * cmocka setup: replace *state (the case, kept in arg) with a new struct rf,
 * make its directory and home, enter it and unset the state directory
 * variables.  Teardown: close reg, remove the directory, free the struct rf.
 */
int			 rf_setup(void **);
int			 rf_teardown(void **);

/* Write len bytes of data to path, replacing it. */
void			 rf_write_file(const char *, const char *, size_t);

/* Check a failure: r is want and *cause (then freed, NULLed) holds fragment. */
void			 rf_check_fail(int, int, char **, const char *);

/* Open (or reopen) the registry at f->state as f->reg and return it. */
struct registry		*rf_open(struct rf *);

/* Return a new record for id with valid values, every field set. */
struct registry_record	*rf_make_record(const char *);

/* Store a valid record for id in reg. */
void			 rf_put_record(struct registry *, const char *);

/* Load id from reg, expecting success. */
struct registry_record	*rf_get_record(struct registry *, const char *);

/*
 * Append to all, at *n (advanced), an RF_TEST of fn for each of count cases
 * of size bytes at cases.  A case must begin with its test's name (a const
 * char *); it becomes the test's initial state, and so arg in its struct rf.
 */
void			 rf_add_cases(struct CMUnitTest *, size_t *,
			    void (*)(void **), void *, size_t, size_t);

#endif /* CLAW_REGISTRY_FIXTURE_H */
