/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: what a peer sends on an agent protocol connection
 * (docs/agent.md), all of it hostile.  The input is parsed as a stream
 * of frames, fed in pieces as a socket would deliver it; every frame
 * goes through the message decoders (each one, whatever its type, as a
 * holder or a client might be tricked into), and a decoded EXEC or
 * HELLO is encoded again and must decode to the same.  Build with
 * 'make fuzz' (clang); seeds in tests/fuzz/corpus_agent.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frame.h"
#include "msg.h"

int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Encode m again: it must decode to the same argv, env and cwd. */
static void
fz_exec_again(const struct msg_exec *m)
{
	struct frame_wr	w = FRAME_WR_INIT;
	struct frame	f;
	struct msg_exec	n;
	size_t		i;

	msg_exec_put(&w, 1, m);
	if (w.err != 0) {
		frame_wr_free(&w);
		return;
	}
	if (frame_parse(w.data, w.len, &f) != 1 || msg_exec_get(&f, &n) != 0)
		abort();
	for (i = 0; m->argv[i] != NULL; i++)
		if (n.argv[i] == NULL || strcmp(m->argv[i], n.argv[i]) != 0)
			abort();
	for (i = 0; m->env[i] != NULL; i++)
		if (n.env[i] == NULL || strcmp(m->env[i], n.env[i]) != 0)
			abort();
	if (strcmp(m->cwd, n.cwd) != 0 || m->flags != n.flags)
		abort();
	msg_exec_free(&n);
	frame_wr_free(&w);
}

/* Every decoder on f. */
static void
fz_decode(const struct frame *f)
{
	struct msg_hello	 h;
	struct msg_exec		 m;
	struct msg_proc		 p;
	struct frame_buf	 b = f->body, val;
	const uint8_t		*bytes;
	size_t			 n;
	uint32_t		 pid, nfds, ecode;
	uint16_t		 tag;
	int			 code, sig, stream;
	char			*s, *dir, *spec;

	if (msg_hello_get(f, &h) == 0)
		msg_hello_free(&h);
	if (msg_exec_get(f, &m) == 0) {
		fz_exec_again(&m);
		msg_exec_free(&m);
	}
	if (msg_exec_get_relayed(f, &m) == 0)
		msg_exec_free(&m);
	if (msg_exec_target_get(f, &dir, &spec) == 0) {
		free(dir);
		free(spec);
	}
	if (msg_data_get(f, &stream, &bytes, &n) == 0 &&
	    (stream < 0 || stream > 2 || bytes + n > f->body.p + f->body.len))
		abort();
	(void)msg_eof_get(f, &stream);
	(void)msg_error_code_get(f, &ecode);
	(void)msg_started_get(f, &pid, &nfds);
	(void)msg_exit_get(f, &code, &sig);
	(void)msg_signal_get(f, &sig);
	if (msg_error_get(f, &s) == 0)
		free(s);
	while (frame_next_field(&b, &tag, &val) == 1)
		if (tag == TAG_PROC)
			(void)msg_proc_get(&val, &p);
}

/* Feed the input in pieces of the size its first byte says. */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct frame	f;
	size_t		step, len = 0, off = 0;
	int		r;

	if (size < 1)
		return 0;
	step = (size_t)data[0] % 64 + 1;
	data++;
	size--;
	while (len < size) {
		len = len + step < size ? len + step : size;
		while ((r = frame_parse(data + off, len - off, &f)) == 1) {
			if (f.used < 4 + FRAME_HEAD || f.used > len - off)
				abort();
			fz_decode(&f);
			off += f.used;
		}
		if (r < 0)
			return 0;
	}
	return 0;
}
