/* SPDX-License-Identifier: BSD-2-Clause */
/* The workspace listing the host watcher sends (fs_list.c). */
#ifndef CLAW_AGENT_FS_LIST_H
#define CLAW_AGENT_FS_LIST_H

#include <stddef.h>

/*
 * Write to fd the records of paths[0..n) (relative to the directory
 * root) and of all below each, in GNU find's -printf '%y %m %s %T@ %p\0%l\0'
 * form, files, directories and links only; a path that is not there as
 * named (gone, or a link or a file on the way) is left out.  Return 0,
 * 1 when something could not be read, changed under the walk or was not
 * a plain relative path (the listing is then incomplete), or -1 when fd
 * could not be written.
 */
int	fs_list(int root, char *const *paths, size_t n, int fd);

#endif /* CLAW_AGENT_FS_LIST_H */
