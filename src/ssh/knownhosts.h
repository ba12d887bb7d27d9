/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host key verification against OpenSSH known_hosts files.
 *
 * Understands the full line format: optional @revoked / @cert-authority
 * marker, comma-separated host patterns with '*', '?' and '!' negation,
 * hashed entries (|1|salt|hmac-sha1), the "[host]:port" form for ports other
 * than 22, the key type, the base64 key blob and a comment.  Keys are
 * compared as raw SSH public key blobs; the key type is read from the blob,
 * so an entry of another type never matches.  @cert-authority lines are
 * skipped (no certificate support).
 */
#ifndef CLAW_KNOWNHOSTS_H
#define CLAW_KNOWNHOSTS_H

#include <stddef.h>

/* Where a verdict came from, for messages like OpenSSH's. */
struct knownhosts_where {
	char	*file;		/* allocated; NULL if no line was involved */
	size_t	 line;		/* 1-based line number */
};

/*
 * Check key (an SSH wire-format public key blob) for host and port against
 * files[0..nfiles).  Missing files are skipped.  Returns:
 *   0                         a line for this host lists this exact key;
 *   CLAW_ERR_HOSTKEY_UNKNOWN  no line for this host has a key of this type;
 *   CLAW_ERR_HOSTKEY_CHANGED  a line for this host has another key of this
 *                             type (where names the first such line);
 *   CLAW_ERR_HOSTKEY_REVOKED  a @revoked line lists this key (where names it);
 *   other negative            unreadable file or bad blob, *cause set.
 * A revoked key wins over a match; a match wins over a changed line.
 * where may be NULL; otherwise free it with knownhosts_where_clear.
 */
int	knownhosts_check(char *const *files, size_t nfiles, const char *host,
	    int port, const unsigned char *key, size_t keylen,
	    struct knownhosts_where *where, char **cause);

/*
 * List the key types (e.g. "ssh-ed25519") known for host and port in files,
 * without duplicates, in file order.  *types is a NULL-terminated allocated
 * array (free with strv_free).  Returns 0 or negative.
 */
int	knownhosts_types(char *const *files, size_t nfiles, const char *host,
	    int port, char ***types);

/*
 * Append a line for host and port with key to file, creating the file
 * (0600) and its directory (0700) if needed, under an exclusive lock, in one
 * write.  The host is written hashed when hash is set.  Returns 0 or
 * negative with *cause set.
 */
int	knownhosts_add(const char *file, const char *host, int port,
	    const unsigned char *key, size_t keylen, int hash, char **cause);

/* Return the key type name from a key blob (allocated), or NULL if bad. */
char	*knownhosts_key_type(const unsigned char *key, size_t keylen);

/* Return "SHA256:<base64, no padding>" of key (allocated). */
char	*knownhosts_fingerprint(const unsigned char *key, size_t keylen);

/* Free the strings inside where and reset it. */
void	 knownhosts_where_clear(struct knownhosts_where *where);

#endif /* CLAW_KNOWNHOSTS_H */
