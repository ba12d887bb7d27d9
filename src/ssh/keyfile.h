/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Inspection of private and public key files, without decrypting anything.
 */
#ifndef CLAW_KEYFILE_H
#define CLAW_KEYFILE_H

#include <stddef.h>

/*
 * Tell whether the private key at path is protected by a passphrase.
 * Understands OpenSSH ("openssh-key-v1") and PEM keys.  Returns 1
 * (encrypted), 0 (not), or a negative CLAW_ERR_* when the file cannot be
 * read (CLAW_ERR_NOTFOUND if it does not exist) or is no key we know.
 */
int	keyfile_is_encrypted(const char *path);

/*
 * Read the public key blob of "<path>.pub" (OpenSSH one-line format).
 * Returns an allocated blob and sets *len, or NULL if absent or malformed.
 */
unsigned char	*keyfile_public_blob(const char *path, size_t *len);

/*
 * Read a passphrase: the first line of path, without its newline.  The
 * file must be a regular file.  Returns an allocated string (wipe it with
 * freezero) or NULL with *cause set.
 */
char	*keyfile_read_passphrase(const char *path, char **cause);

#endif /* CLAW_KEYFILE_H */
