/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Replacements for functions glibc 2.36 lacks.  Include after config.h.
 */
#ifndef CLAW_COMPAT_H
#define CLAW_COMPAT_H

#include <stddef.h>

#ifndef HAVE_STRLCPY
size_t	strlcpy(char *, const char *, size_t);
#endif
#ifndef HAVE_STRLCAT
size_t	strlcat(char *, const char *, size_t);
#endif
#ifndef HAVE_FREEZERO
void	freezero(void *, size_t);
#endif

#endif /* CLAW_COMPAT_H */
