/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libarchive, loaded on first use.  Linking it loads it and what it needs
 * (libxml2, ICU, libstdc++, nettle, five compressors) at every start of
 * clawssh, ~5.6 ms of a 13 ms `clawssh --version` on the machine this
 * was measured on, paid by every exec, file tool and daemon client that
 * moves no file.  So the program is not linked with it: the functions
 * tarstream.c calls are defined here, each looking its libarchive
 * namesake up once (dlopen of ARCHIVE_SONAME, found by configure) and
 * calling it.  The prototypes come from archive.h, so a mismatch does not
 * compile.  tarstream calls archive_lazy_load first and fails with its
 * message when the library cannot be loaded; a lookup that fails after
 * that is a broken installation, and aborts.  See docs/PERFORMANCE.md.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <archive.h>
#include <archive_entry.h>

#include "archive_lazy.h"
#include "error.h"

static void	*lazy_handle;

/* Load the library; see archive_lazy.h. */
int
archive_lazy_load(char **cause)
{
	const char	*why;

	if (lazy_handle != NULL)
		return 0;
	if ((lazy_handle = dlopen(ARCHIVE_SONAME, RTLD_NOW | RTLD_LOCAL)) !=
	    NULL)
		return 0;
	why = dlerror();
	return claw_fail(cause, CLAW_ERR_UNSUPPORTED, "cannot load %s: %s "
	    "(apt-get install libarchive13)", ARCHIVE_SONAME,
	    why != NULL ? why : "unknown error");
}

/* name in the library, which is loaded (else a broken install: abort). */
static void *
lazy_sym(const char *name)
{
	char	*cause = NULL;
	void	*p;

	if (archive_lazy_load(&cause) != 0) {
		fprintf(stderr, "clawssh: %s\n", cause);
		abort();
	}
	if ((p = dlsym(lazy_handle, name)) == NULL) {
		fprintf(stderr, "clawssh: %s: no %s\n", ARCHIVE_SONAME, name);
		abort();
	}
	return p;
}

/* A function returning ret, and one returning nothing. */
#define LAZY(ret, name, params, args)					\
ret									\
name params								\
{									\
	static ret	(*fn) params;					\
									\
	if (fn == NULL)							\
		*(void **)&fn = lazy_sym(#name);			\
	return fn args;							\
}
#define LAZY_VOID(name, params, args)					\
void									\
name params								\
{									\
	static void	(*fn) params;					\
									\
	if (fn == NULL)							\
		*(void **)&fn = lazy_sym(#name);			\
	fn args;							\
}

typedef struct archive		ar;
typedef struct archive_entry	ae;

LAZY(ar *, archive_read_new, (void), ())
LAZY(ar *, archive_write_new, (void), ())
LAZY(ae *, archive_entry_new, (void), ())
LAZY_VOID(archive_entry_free, (ae *e), (e))
LAZY(const char *, archive_error_string, (ar *a), (a))
LAZY(int, archive_read_support_format_tar, (ar *a), (a))
LAZY(int, archive_read_open2, (ar *a, void *arg, archive_open_callback *o,
    archive_read_callback *r, archive_skip_callback *s,
    archive_close_callback *c), (a, arg, o, r, s, c))
LAZY(int, archive_read_next_header, (ar *a, ae **e), (a, e))
LAZY(int, archive_read_data_block, (ar *a, const void **b, size_t *n,
    la_int64_t *off), (a, b, n, off))
LAZY(int, archive_read_free, (ar *a), (a))
LAZY(int, archive_write_set_format_pax, (ar *a), (a))
LAZY(int, archive_write_set_bytes_per_block, (ar *a, int n), (a, n))
LAZY(int, archive_write_open2, (ar *a, void *arg, archive_open_callback *o,
    archive_write_callback *w, archive_close_callback *c,
    archive_free_callback *f), (a, arg, o, w, c, f))
LAZY(int, archive_write_header, (ar *a, ae *e), (a, e))
LAZY(la_ssize_t, archive_write_data, (ar *a, const void *p, size_t n),
    (a, p, n))
LAZY(int, archive_write_close, (ar *a), (a))
LAZY(int, archive_write_free, (ar *a), (a))
LAZY(__LA_MODE_T, archive_entry_filetype, (ae *e), (e))
LAZY(__LA_MODE_T, archive_entry_perm, (ae *e), (e))
LAZY(const char *, archive_entry_pathname, (ae *e), (e))
LAZY(const char *, archive_entry_hardlink, (ae *e), (e))
LAZY(const char *, archive_entry_symlink, (ae *e), (e))
LAZY(time_t, archive_entry_mtime, (ae *e), (e))
LAZY(long, archive_entry_mtime_nsec, (ae *e), (e))
LAZY(la_int64_t, archive_entry_size, (ae *e), (e))
LAZY_VOID(archive_entry_set_mode, (ae *e, __LA_MODE_T m), (e, m))
LAZY_VOID(archive_entry_set_mtime, (ae *e, time_t s, long ns), (e, s, ns))
LAZY_VOID(archive_entry_set_pathname, (ae *e, const char *p), (e, p))
LAZY_VOID(archive_entry_set_size, (ae *e, la_int64_t n), (e, n))
LAZY_VOID(archive_entry_set_symlink, (ae *e, const char *p), (e, p))
LAZY_VOID(archive_entry_sparse_add_entry, (ae *e, la_int64_t off,
    la_int64_t n), (e, off, n))
LAZY_VOID(archive_entry_sparse_clear, (ae *e), (e))
LAZY(int, archive_entry_sparse_count, (ae *e), (e))
LAZY(int, archive_entry_sparse_reset, (ae *e), (e))
LAZY(int, archive_entry_sparse_next, (ae *e, la_int64_t *off,
    la_int64_t *n), (e, off, n))

/* archive_set_error: variadic, so formatted here and passed as "%s". */
void
archive_set_error(ar *a, int err, const char *fmt, ...)
{
	static void	(*fn)(ar *, int, const char *, ...);
	char		 msg[512];
	va_list		 ap;

	if (fn == NULL)
		*(void **)&fn = lazy_sym("archive_set_error");
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	fn(a, err, "%s", msg);
}
