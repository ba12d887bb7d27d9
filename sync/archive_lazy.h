/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libarchive loaded on first use (archive_lazy.c): the program is not
 * linked with it, so that a command that moves no file does not pay for
 * loading it and its dependencies.
 */
#ifndef CLAW_ARCHIVE_LAZY_H
#define CLAW_ARCHIVE_LAZY_H

/*
 * Load libarchive (ARCHIVE_SONAME) if not yet: 0, or CLAW_ERR_UNSUPPORTED
 * and *cause saying why.  Call it before the first archive_* call.
 */
int	archive_lazy_load(char **cause);

#endif /* CLAW_ARCHIVE_LAZY_H */
