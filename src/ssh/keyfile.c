/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Private key file inspection: is it encrypted, what is its public half.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compat.h"
#include "base64.h"
#include "buf.h"
#include "error.h"
#include "keyfile.h"
#include "xmalloc.h"

#define KEYFILE_MAX	(64 * 1024)
#define OPENSSH_BEGIN	"-----BEGIN OPENSSH PRIVATE KEY-----"
#define OPENSSH_END	"-----END OPENSSH PRIVATE KEY-----"
#define OPENSSH_MAGIC	"openssh-key-v1"

/* Read a small regular file whole; returns 0 or a negative error. */
static int
keyfile_read(const char *path, struct buf *b)
{
	struct stat	st;
	char		chunk[4096];
	ssize_t		n;
	int		fd, rc = 0;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1)
		return claw_err_from_errno(errno);
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode))
		rc = CLAW_ERR_INVAL;
	while (rc == 0 && (n = read(fd, chunk, sizeof chunk)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || b->len + (size_t)n > KEYFILE_MAX)
			rc = n == -1 ? CLAW_ERR_IO : CLAW_ERR_INVAL;
		else
			buf_append(b, chunk, (size_t)n);
	}
	close(fd);
	return rc;
}

/* Decode the base64 body of an OpenSSH key, skipping line breaks. */
static unsigned char *
keyfile_openssh_body(const char *text, size_t *len)
{
	const char	*p, *end;
	struct buf	 b64 = BUF_INIT;
	unsigned char	*blob;

	p = strstr(text, OPENSSH_BEGIN);
	end = strstr(text, OPENSSH_END);
	if (p == NULL || end == NULL || end < p)
		return NULL;
	for (p += sizeof OPENSSH_BEGIN - 1; p < end; p++) {
		if (*p != '\n' && *p != '\r' && *p != ' ' && *p != '\t')
			buf_append(&b64, p, 1);
	}
	blob = base64_decode(b64.data == NULL ? "" : b64.data, b64.len, len);
	buf_free_secret(&b64);
	return blob;
}

/* Tell whether an OpenSSH-format key names a cipher other than "none". */
static int
keyfile_openssh_encrypted(const char *text)
{
	unsigned char	*blob;
	size_t		 len, off = sizeof OPENSSH_MAGIC;
	uint32_t	 n;
	int		 rc;

	if ((blob = keyfile_openssh_body(text, &len)) == NULL)
		return CLAW_ERR_PARSE;
	if (len < off + 4 || memcmp(blob, OPENSSH_MAGIC, off) != 0) {
		freezero(blob, len);
		return CLAW_ERR_PARSE;
	}
	n = (uint32_t)blob[off] << 24 | (uint32_t)blob[off + 1] << 16 |
	    (uint32_t)blob[off + 2] << 8 | blob[off + 3];
	off += 4;
	if (n > len - off)
		rc = CLAW_ERR_PARSE;
	else
		rc = !(n == 4 && memcmp(blob + off, "none", 4) == 0);
	freezero(blob, len);
	return rc;
}

/* Tell whether a key file is passphrase-protected; see keyfile.h. */
int
keyfile_is_encrypted(const char *path)
{
	struct buf	b = BUF_INIT;
	int		rc;

	if ((rc = keyfile_read(path, &b)) != 0) {
		buf_free_secret(&b);
		return rc;
	}
	if (b.data == NULL || memchr(b.data, '\0', b.len) != NULL)
		rc = CLAW_ERR_PARSE;
	else if (strstr(b.data, OPENSSH_BEGIN) != NULL)
		rc = keyfile_openssh_encrypted(b.data);
	else if (strstr(b.data, "-----BEGIN ENCRYPTED PRIVATE KEY-----") !=
	    NULL || strstr(b.data, "Proc-Type: 4,ENCRYPTED") != NULL)
		rc = 1;
	else if (strstr(b.data, "PRIVATE KEY-----") != NULL)
		rc = 0;
	else
		rc = CLAW_ERR_PARSE;
	buf_free_secret(&b);
	return rc;
}

/* Read the blob of "<path>.pub"; see keyfile.h. */
unsigned char *
keyfile_public_blob(const char *path, size_t *len)
{
	struct buf	 b = BUF_INIT;
	unsigned char	*blob = NULL;
	char		*pub, *p, *q;

	pub = xasprintf("%s.pub", path);
	if (keyfile_read(pub, &b) == 0 && b.data != NULL &&
	    (p = strpbrk(b.data, " \t")) != NULL) {
		p += strspn(p, " \t");
		q = p + strcspn(p, " \t\r\n");
		if (q > p)
			blob = base64_decode(p, (size_t)(q - p), len);
	}
	free(pub);
	buf_free(&b);
	return blob;
}

/* Read the first line of a passphrase file; see keyfile.h. */
char *
keyfile_read_passphrase(const char *path, char **cause)
{
	struct buf	 b = BUF_INIT;
	char		*pass;
	int		 rc;

	if ((rc = keyfile_read(path, &b)) != 0) {
		*cause = xasprintf("cannot read passphrase file %s: %s", path,
		    claw_strerror(rc));
		buf_free_secret(&b);
		return NULL;
	}
	pass = xstrndup(b.data == NULL ? "" : b.data, strcspn(b.data == NULL ?
	    "" : b.data, "\r\n"));
	buf_free_secret(&b);
	return pass;
}
