/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The backend table and helpers shared by all backends.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "backend.h"

/* Free a listing's entries. */
void
backend_list_clear(struct backend_list *l)
{
	if (l == NULL)
		return;
	free(l->entries);
	memset(l, 0, sizeof *l);
}

/* Find a backend by name. */
const struct backend_ops *
backend_find(const char *name)
{
	if (name != NULL && strcmp(name, backend_ssh.name) == 0)
		return &backend_ssh;
	if (name != NULL && strcmp(name, backend_managed.name) == 0)
		return &backend_managed;
	return NULL;
}
