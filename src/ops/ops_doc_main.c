/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ops-doc: print the operations reference of docs/protocol.md (see
 * ops_doc.c).  Built, not installed.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#include "ops.h"

/* Print the reference. */
int
main(void)
{
	char	*md = ops_doc_markdown();

	fputs(md, stdout);
	free(md);
	return ferror(stdout) || fflush(stdout) != 0 ? 1 : 0;
}
